// The performance model's file and its batched prediction (glimpse/perf_model.h).
#include <fmt/format.h>

#include <cmath>

#include "glimpse/error.h"
#include "glimpse/json_fields.h"
#include "glimpse/json_file.h"
#include "perf/perf_network.h"

namespace glimpse {
namespace {

constexpr const char* kRemake = "glimpse train perf-model --corpus <corpus> --out <file>";

const char* const kRelationNames[kPerfModelRelations] = {
    "nesting", "nesting_reverse", "data_flow", "data_flow_reverse", "sequence", "sequence_reverse"};

template <typename T>
T Field(const Json& json, const char* key, const std::string& where) {
  if (!json.is_object() || !json.contains(key)) {
    throw Error(fmt::format("{}: missing field '{}'", where, key));
  }
  try {
    return json.at(key).get<T>();
  } catch (const Json::exception&) {
    throw Error(fmt::format("{}: field '{}' has the wrong type", where, key));
  }
}

std::vector<float> SizedVector(const Json& json, const char* key, size_t size,
                               const std::string& where) {
  std::vector<float> values = Field<std::vector<float>>(json, key, where);
  if (values.size() != size) {
    throw Error(
        fmt::format("{}: field '{}' has {} values, expected {}", where, key, values.size(), size));
  }
  return values;
}

// Every layer of the state by its name in the file, in a fixed order.
template <typename State, typename Layer>
std::vector<std::pair<std::string, Layer*>> NamedLayers(State& s) {
  std::vector<std::pair<std::string, Layer*>> layers{{"embed", &s.embed}};
  for (size_t hop = 0; hop < s.combine.size(); ++hop) {
    for (int r = 0; r < kPerfModelRelations; ++r) {
      layers.emplace_back(fmt::format("hop{}.message.{}", hop, kRelationNames[r]),
                          &s.message[hop][r]);
    }
    layers.emplace_back(fmt::format("hop{}.combine", hop), &s.combine[hop]);
  }
  if (s.shape.architecture == PerfModelArchitecture::kLstm) {
    layers.emplace_back("lstm.input", &s.lstm_input);
    layers.emplace_back("lstm.recurrent", &s.lstm_recurrent);
  }
  if (s.shape.readout_hidden > 0) layers.emplace_back("readout.hidden", &s.readout_hidden);
  layers.emplace_back("readout", &s.readout);
  return layers;
}

}  // namespace

namespace perf {

Json PerfDenseLayer::ToJson() const {
  return {{"inputs", inputs}, {"outputs", outputs}, {"weight", weight}, {"bias", bias}};
}

PerfDenseLayer PerfDenseLayer::FromJson(const Json& json, const std::string& where, int inputs,
                                        int outputs) {
  PerfDenseLayer layer;
  layer.inputs = Field<int>(json, "inputs", where);
  layer.outputs = Field<int>(json, "outputs", where);
  if (layer.inputs != inputs || layer.outputs != outputs) {
    throw Error(fmt::format("{}: a layer of {} → {}, expected {} → {}", where, layer.inputs,
                            layer.outputs, inputs, outputs));
  }
  layer.weight = SizedVector(json, "weight", size_t(inputs) * outputs, where);
  layer.bias = SizedVector(json, "bias", outputs, where);
  layer.Finish();
  return layer;
}

}  // namespace perf

const char* PerfModelArchitectureName(PerfModelArchitecture architecture) {
  return architecture == PerfModelArchitecture::kGraphSage ? "graphsage" : "lstm";
}

PerfModelArchitecture ParsePerfModelArchitecture(const std::string& name) {
  if (name == "graphsage") return PerfModelArchitecture::kGraphSage;
  if (name == "lstm") return PerfModelArchitecture::kLstm;
  throw Error(fmt::format("unknown performance model '{}'; known: graphsage, lstm", name));
}

void CheckPerfModelShape(const PerfModelShape& shape, const std::string& where) {
  if (shape.hidden < 1 || shape.hidden > kPerfModelMaxWidth || shape.hops < 0 ||
      shape.hops > kPerfModelMaxHops || shape.readout_hidden < 0 ||
      shape.readout_hidden > kPerfModelMaxWidth) {
    throw Error(
        fmt::format("{}: hidden {}, hops {}, readout_hidden {}: expected 1–{}, 0–{} and 0–{}",
                    where, shape.hidden, shape.hops, shape.readout_hidden, kPerfModelMaxWidth,
                    kPerfModelMaxHops, kPerfModelMaxWidth));
  }
}

PerfModel::PerfModel(std::shared_ptr<const PerfModelState> state) : state_(std::move(state)) {
  if (!state_) throw Error("PerfModel: no network");
}

const PerfModelShape& PerfModel::shape() const { return state_->shape; }

Json PerfModel::ToJson() const {
  const PerfModelState& s = *state_;
  const perf::PerfNormalisation& norm = s.normalisation;
  Json layers = Json::object();
  for (const auto& [name, layer] :
       NamedLayers<const PerfModelState, const perf::PerfDenseLayer>(s)) {
    layers[name] = layer->ToJson();
  }
  Json out = {{"format", kPerfModelFormat},
              {"version", RelativeToRoofline() ? kPerfModelVersion : kPerfModelLogTimeVersion},
              {"program_graph_feature_version", kProgramGraphFeatureVersion},
              {"architecture", PerfModelArchitectureName(s.shape.architecture)},
              {"hyperparameters",
               {{"hidden", s.shape.hidden},
                {"hops", s.shape.hops},
                {"readout_hidden", s.shape.readout_hidden}}},
              {"normalisation",
               {{"feature_mean", norm.feature_mean},
                {"feature_std", norm.feature_std},
                {"tile_mean", norm.tile_mean},
                {"tile_std", norm.tile_std},
                {"target_mean", norm.target_mean},
                {"target_std", norm.target_std}}},
              {"layers", std::move(layers)},
              {"made_by", made_by_},
              {"training", training_}};
  if (RelativeToRoofline()) {
    out["target"] = kPerfModelLogEfficiency;
    out["roofline_profile"] = roofline_profile_;
  }
  return out;
}

void PerfModel::SetRelativeToRoofline(Json profile) {
  if (!profile.is_object()) {
    throw Error("PerfModel: the roofline profile of a relative model must be a JSON object");
  }
  roofline_profile_ = std::move(profile);
}

PerfModel PerfModel::FromJson(const Json& json, const std::string& origin) {
  if (!json.is_object()) throw Error(origin + ": not a JSON object");
  const std::string format = StringOr(json, "format");
  if (format != kPerfModelFormat) {
    throw Error(fmt::format("{}: format '{}', expected '{}' (remake it with '{}')", origin, format,
                            kPerfModelFormat, kRemake));
  }
  // XGBoost on loop features shares the format (glimpse/xgb_perf_model.h) but is no network.
  if (json.contains("architecture") && json.at("architecture") == "xgb-loop-features") {
    throw Error(fmt::format(
        "{}: an XGBoost model on loop features (architecture 'xgb-loop-features'), not a "
        "network; read it with LoadProgramTimeModel (glimpse/xgb_perf_model.h), as glimpse tune "
        "--cost-model and perf-model evaluate's file: do",
        origin));
  }
  const int version = json.contains("version") && json.at("version").is_number_integer()
                          ? json.at("version").get<int>()
                          : -1;
  if (version != kPerfModelVersion && version != kPerfModelLogTimeVersion) {
    throw Error(fmt::format(
        "{}: performance model version {}; this glimpse reads versions {} and {} (remake it with "
        "'{}')",
        origin, version, kPerfModelLogTimeVersion, kPerfModelVersion, kRemake));
  }
  // Version 2 is a network relative to the roofline; version 1 has no target (ln time).
  const std::string target = StringOr(json, "target");
  if (version == kPerfModelLogTimeVersion && !target.empty()) {
    throw Error(fmt::format(
        "{}: a version-{} file with a target ('{}'): only version {} has one (remake it with '{}')",
        origin, version, target, kPerfModelVersion, kRemake));
  }
  if (version == kPerfModelVersion &&
      (target != kPerfModelLogEfficiency || !json.contains("roofline_profile") ||
       !json.at("roofline_profile").is_object())) {
    throw Error(
        fmt::format("{}: a version-{} performance model needs \"target\": \"{}\" and a "
                    "\"roofline_profile\" object (the target is '{}'; remake it with '{}')",
                    origin, version, kPerfModelLogEfficiency, target, kRemake));
  }
  const int features = json.contains("program_graph_feature_version") &&
                               json.at("program_graph_feature_version").is_number_integer()
                           ? json.at("program_graph_feature_version").get<int>()
                           : -1;
  CheckProgramGraphVersion(features, origin);

  PerfModelShape shape;
  shape.architecture = ParsePerfModelArchitecture(Field<std::string>(json, "architecture", origin));
  const Json hyper = Field<Json>(json, "hyperparameters", origin);
  const std::string hyper_where = origin + ": hyperparameters";
  shape.hidden = Field<int>(hyper, "hidden", hyper_where);
  shape.hops = Field<int>(hyper, "hops", hyper_where);
  shape.readout_hidden = Field<int>(hyper, "readout_hidden", hyper_where);
  CheckPerfModelShape(shape, hyper_where);
  auto state = std::make_shared<PerfModelState>(
      perf::EmptyPerfModelState(shape, /*allocate_weights=*/false));

  const Json norm_json = Field<Json>(json, "normalisation", origin);
  const std::string norm_where = origin + ": normalisation";
  perf::PerfNormalisation& norm = state->normalisation;
  norm.feature_mean = SizedVector(norm_json, "feature_mean", kProgramGraphFeatureWidth, norm_where);
  norm.feature_std = SizedVector(norm_json, "feature_std", kProgramGraphFeatureWidth, norm_where);
  norm.tile_mean = SizedVector(norm_json, "tile_mean", perf::kTileFeatures, norm_where);
  norm.tile_std = SizedVector(norm_json, "tile_std", perf::kTileFeatures, norm_where);
  norm.target_mean = Field<double>(norm_json, "target_mean", norm_where);
  norm.target_std = Field<double>(norm_json, "target_std", norm_where);

  const Json layers = Field<Json>(json, "layers", origin);
  for (const auto& [name, layer] : NamedLayers<PerfModelState, perf::PerfDenseLayer>(*state)) {
    *layer = perf::PerfDenseLayer::FromJson(Field<Json>(layers, name.c_str(), origin + ": layers"),
                                            fmt::format("{}: layer '{}'", origin, name),
                                            layer->inputs, layer->outputs);
  }
  PerfModel model(std::move(state));
  model.made_by_ = StringOr(json, "made_by");
  if (json.contains("training")) model.training_ = json.at("training");
  if (version == kPerfModelVersion) model.SetRelativeToRoofline(json.at("roofline_profile"));
  return model;
}

PerfModel PerfModel::Load(const std::string& path) {
  return FromJson(ReadJsonFile(path, "performance model"), path);
}

void PerfModel::Save(const std::string& path) const {
  WriteJsonFileAtomically(path, ToJson(), "performance model");
}

std::vector<double> PerfModel::PredictLogTimes(
    const std::vector<const ProgramGraph*>& graphs) const {
  const perf::PerfNormalisation& norm = state_->normalisation;
  std::vector<double> out;
  out.reserve(graphs.size());
  for (const ProgramGraph* graph : graphs) {
    const double standard = perf::ForwardGraph(*state_, *graph);
    out.push_back(standard * norm.target_std + norm.target_mean);
  }
  return out;
}

std::vector<double> PerfModel::PredictSeconds(
    const std::vector<const ProgramGraph*>& graphs) const {
  std::vector<double> out = PredictLogTimes(graphs);
  for (double& value : out) value = std::exp(value);
  return out;
}

double PerfModel::PredictLogTime(const ProgramGraph& graph) const {
  return PredictLogTimes({&graph}).front();
}

}  // namespace glimpse
