// XgbPerfModel (glimpse/xgb_perf_model.h): the evaluation's XGBoost regression on loop features,
// trained on a corpus, saved and loaded as a performance-model file; LoadProgramTimeModel, which
// reads either kind of performance-model file.
//
// Map: Train (rows of XgbPerfFeatures, labels ln time_s — or, ranked, −ln time_s in one group per
// operator; or ln time_s less ln of the roofline's estimate — a fixed number of rounds) · the file
// (ToJson/FromJson, the checks in the order a user can act on them) · PredictLogTimes.
#include "glimpse/xgb_perf_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "glimpse/error.h"
#include "glimpse/json_fields.h"
#include "glimpse/json_file.h"
#include "model/xgboost_api.h"
#include "perf/record_programs.h"

namespace glimpse {

namespace {

constexpr const char* kRemake =
    "glimpse train perf-model --model xgb --corpus <corpus> --out <file>";

// The rows of `nests`. With a roofline profile, `log_estimates` (when given) also receives ln of
// each program's roofline estimate, the one its row's roofline terms come from.
std::vector<float> FeatureRows(const std::vector<const LoopNest*>& nests,
                               const XgbPerfOptions& options,
                               std::vector<double>* log_estimates = nullptr) {
  std::vector<float> out;
  out.reserve(nests.size() * static_cast<size_t>(XgbPerfRowWidth(options)));
  for (const LoopNest* nest : nests) {
    const std::vector<float> row = XgbPerfFeatures(*nest);
    out.insert(out.end(), row.begin(), row.end());
    if (options.roofline) {
      const RooflineEstimate estimate = EstimateRoofline(*nest, *options.roofline);
      const std::vector<float> roofline = XgbRooflineFeatures(estimate);
      out.insert(out.end(), roofline.begin(), roofline.end());
      if (log_estimates) log_estimates->push_back(std::log(std::max(estimate.time_s, 1e-12)));
    }
    if (options.schedule) {
      const std::vector<float> schedule = XgbScheduleFeatures(*nest, *options.roofline);
      out.insert(out.end(), schedule.begin(), schedule.end());
    }
  }
  return out;
}

bool KnownTarget(const std::string& target) {
  return target == "log-time" || target == "rank" || target == "log-efficiency";
}

int IntField(const Json& json, const char* key, const std::string& where) {
  if (!json.contains(key) || !json.at(key).is_number_integer()) {
    throw Error(fmt::format("{}: missing or non-integer field '{}'", where, key));
  }
  return json.at(key).get<int>();
}

double NumberField(const Json& json, const char* key, const std::string& where) {
  if (!json.contains(key) || !json.at(key).is_number()) {
    throw Error(fmt::format("{}: missing or non-numeric field '{}'", where, key));
  }
  return json.at(key).get<double>();
}

}  // namespace

struct XgbPerfModel::Booster {
  model::XgbBooster booster{nullptr};
  std::mutex mutex;  // XGBoosterPredict writes its answer into the booster
};

XgbPerfModel::XgbPerfModel(XgbPerfOptions options, std::shared_ptr<Booster> booster)
    : options_(options), booster_(std::move(booster)) {}

XgbPerfModel XgbPerfModel::Train(const std::vector<const PerfCorpusRecord*>& records,
                                 const XgbPerfOptions& options, std::vector<std::string>* skipped) {
  if (options.rounds < 1 || options.eta <= 0.0 || options.max_depth < 1) {
    throw Error("xgb perf model: rounds and max_depth must be ≥ 1 and eta > 0");
  }
  if (!(options.subsample > 0.0 && options.subsample <= 1.0) ||
      !(options.colsample_bytree > 0.0 && options.colsample_bytree <= 1.0) ||
      !(options.min_child_weight >= 0.0)) {
    throw Error(fmt::format(
        "xgb perf model: subsample {:g} and colsample {:g} must lie in (0, 1], min_child_weight "
        "{:g} must be ≥ 0",
        options.subsample, options.colsample_bytree, options.min_child_weight));
  }
  const bool rank = options.target == "rank";
  const bool efficiency = options.target == "log-efficiency";
  if (!KnownTarget(options.target)) {
    throw Error("xgb perf model: target '" + options.target +
                "'; accepted: log-time, rank, log-efficiency");
  }
  if (efficiency && !options.roofline) {
    throw Error(
        "xgb perf model: target log-efficiency is relative to the roofline's estimate; "
        "give it a machine profile (--xgb-roofline-profile)");
  }
  // Ranking learns from pairs within a query group, and a group is a run of consecutive rows:
  // the records are taken operator by operator (in first-seen order, stable within one).
  std::vector<size_t> order(records.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (rank) {
    std::map<std::string, size_t> first_seen;
    for (size_t i = 0; i < records.size(); ++i) first_seen.emplace(records[i]->op, i);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return first_seen.at(records[a]->op) < first_seen.at(records[b]->op);
    });
  }
  perf::RecordPrograms programs;
  std::vector<LoopNest> nests;
  std::vector<float> labels;
  std::vector<unsigned> groups;
  std::string group_op;
  std::set<std::string> operators, kinds;
  for (size_t i : order) {
    const PerfCorpusRecord& record = *records[i];
    if (!record.ok() || !(record.time_s > 0.0) || !std::isfinite(record.time_s)) continue;
    try {
      nests.push_back(programs.Nest(record));
    } catch (const Error& e) {
      if (!skipped) throw;
      skipped->push_back(fmt::format("record {}: {}", i, e.what()));
      continue;
    }
    // Ranked: a higher label is better, so the negated log time (the prediction is negated back).
    // (Efficiency: the roofline's log estimate is taken off below, where the rows are made.)
    labels.push_back(static_cast<float>(rank ? -std::log(record.time_s) : std::log(record.time_s)));
    if (groups.empty() || record.op != group_op) {
      groups.push_back(0);
      group_op = record.op;
    }
    ++groups.back();
    operators.insert(record.op);
    kinds.insert(record.kind);
  }
  if (nests.empty()) throw Error("xgb perf model: no ok record to train on");
  std::vector<const LoopNest*> pointers;
  pointers.reserve(nests.size());
  for (const LoopNest& nest : nests) pointers.push_back(&nest);
  std::vector<double> log_estimates;
  model::XgbMatrix matrix(FeatureRows(pointers, options, &log_estimates), nests.size(),
                          static_cast<size_t>(XgbPerfRowWidth(options)));
  // Efficiency: the log time over the roofline's estimate (the prediction adds it back).
  if (efficiency) {
    for (size_t i = 0; i < labels.size(); ++i) labels[i] -= static_cast<float>(log_estimates[i]);
  }
  matrix.SetFloatInfo("label", labels);
  if (rank) matrix.SetUIntInfo("group", groups);

  auto state = std::make_shared<Booster>();
  model::XgbBooster booster(&matrix);
  booster.SetParam("objective", rank ? "rank:pairwise" : "reg:squarederror");
  booster.SetParam("eta", std::to_string(options.eta));
  booster.SetParam("max_depth", std::to_string(options.max_depth));
  booster.SetParam("min_child_weight", std::to_string(options.min_child_weight));
  booster.SetParam("subsample", std::to_string(options.subsample));
  booster.SetParam("colsample_bytree", std::to_string(options.colsample_bytree));
  const int threads = options.num_threads > 0
                          ? options.num_threads
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  booster.SetParam("nthread", std::to_string(threads));
  booster.SetSeed(options.seed);
  booster.SetParam("verbosity", "0");
  for (int round = 0; round < options.rounds; ++round) booster.UpdateOneIter(round, matrix);
  const std::vector<float> fitted = booster.PredictMargin(matrix);
  double squared = 0.0;
  for (size_t i = 0; i < fitted.size(); ++i) {
    const double error = static_cast<double>(fitted[i]) - labels[i];
    squared += error * error;
  }
  // The trained booster, moved off its training matrix (whose prediction cache it holds) by
  // its own serialisation: what a loaded file holds, so the two predict alike.
  state->booster.LoadJson(booster.SaveJson());
  state->booster.SetParam("nthread", "1");
  state->booster.SetParam("verbosity", "0");
  XgbPerfModel out(options, std::move(state));
  out.training_["examples"] = nests.size();
  out.training_["operators"] = operators.size();
  out.training_["kinds"] = std::vector<std::string>(kinds.begin(), kinds.end());
  // A ranking's margins are scores, not log times: their squared error would mean nothing.
  if (!rank) out.training_["train_log_mse"] = squared / static_cast<double>(fitted.size());
  return out;
}

Json XgbPerfModel::ToJson() const {
  std::string booster;
  {
    std::lock_guard<std::mutex> lock(booster_->mutex);
    booster = booster_->booster.SaveJson();
  }
  Json options = {
      {"rounds", options_.rounds},       {"eta", options_.eta},
      {"max_depth", options_.max_depth}, {"min_child_weight", options_.min_child_weight},
      {"subsample", options_.subsample}, {"colsample_bytree", options_.colsample_bytree},
      {"seed", options_.seed},           {"target", options_.target}};
  if (options_.roofline) options["roofline_profile"] = MachineProfileToJson(*options_.roofline);
  if (options_.schedule) options["schedule_features"] = true;
  return {{"format", kPerfModelFormat},
          {"version", kXgbPerfModelVersion},
          {"architecture", kXgbPerfModelArchitecture},
          {"program_graph_feature_version", kProgramGraphFeatureVersion},
          {"feature_width", XgbPerfRowWidth(options_)},
          {"options", options},
          {"made_by", made_by_},
          {"training", training_},
          {"booster", Json::parse(booster)}};
}

XgbPerfModel XgbPerfModel::FromJson(const Json& json, const std::string& origin) {
  if (!json.is_object()) throw Error(origin + ": not a JSON object");
  const std::string format = StringOr(json, "format");
  const std::string architecture =
      json.contains("architecture") && json.at("architecture").is_string()
          ? json.at("architecture").get<std::string>()
          : std::string();
  if (format != kPerfModelFormat || architecture != kXgbPerfModelArchitecture) {
    throw Error(fmt::format(
        "{}: format '{}', architecture '{}'; expected '{}', '{}' (remake it with '{}')", origin,
        format, architecture, kPerfModelFormat, kXgbPerfModelArchitecture, kRemake));
  }
  const int version = json.contains("version") && json.at("version").is_number_integer()
                          ? json.at("version").get<int>()
                          : -1;
  if (version != kXgbPerfModelVersion) {
    throw Error(fmt::format(
        "{}: xgb-loop-features model version {}; this glimpse reads version {} (remake it with "
        "'{}')",
        origin, version, kXgbPerfModelVersion, kRemake));
  }
  const int features = json.contains("program_graph_feature_version") &&
                               json.at("program_graph_feature_version").is_number_integer()
                           ? json.at("program_graph_feature_version").get<int>()
                           : -1;
  CheckProgramGraphVersion(features, origin, kRemake);
  if (!json.contains("options") || !json.at("options").is_object()) {
    throw Error(fmt::format("{}: missing field 'options'", origin));
  }
  const Json& o = json.at("options");
  const std::string where = origin + ": options";
  XgbPerfOptions options;
  options.rounds = IntField(o, "rounds", where);
  options.eta = NumberField(o, "eta", where);
  options.max_depth = IntField(o, "max_depth", where);
  options.min_child_weight = NumberField(o, "min_child_weight", where);
  options.subsample = NumberField(o, "subsample", where);
  // Files written before column sampling was an option used every column.
  if (o.contains("colsample_bytree")) {
    options.colsample_bytree = NumberField(o, "colsample_bytree", where);
  }
  if (o.contains("seed") && o.at("seed").is_number_unsigned()) {
    options.seed = o.at("seed").get<uint64_t>();
  }
  // Files written before rankings were learned hold log-time models and no "target".
  options.target = o.contains("target") && o.at("target").is_string()
                       ? o.at("target").get<std::string>()
                       : std::string("log-time");
  if (!KnownTarget(options.target)) {
    throw Error(fmt::format(
        "{}: target '{}'; accepted: log-time, rank, log-efficiency (remake it with '{}')", where,
        options.target, kRemake));
  }
  // Files written before the roofline features have no profile: loop features only.
  if (o.contains("roofline_profile")) {
    options.roofline =
        MachineProfileFromJson(o.at("roofline_profile"), where + ".roofline_profile");
  }
  if (options.target == "log-efficiency" && !options.roofline) {
    throw Error(where + ": target log-efficiency without a roofline_profile (remake it with '" +
                kRemake + "')");
  }
  // Files written before the schedule features have none.
  options.schedule = o.contains("schedule_features") && o.at("schedule_features").is_boolean() &&
                     o.at("schedule_features").get<bool>();
  if (options.schedule && !options.roofline) {
    throw Error(where + ": schedule_features without a roofline_profile (remake it with '" +
                kRemake + "')");
  }
  options.num_threads = 1;
  const int width = IntField(json, "feature_width", origin);
  if (width != XgbPerfRowWidth(options)) {
    throw Error(
        fmt::format("{}: {} features per program; this glimpse computes {} (remake it with '{}')",
                    origin, width, XgbPerfRowWidth(options), kRemake));
  }
  if (!json.contains("booster") || !json.at("booster").is_object()) {
    throw Error(fmt::format("{}: missing field 'booster' (XGBoost's JSON model)", origin));
  }
  auto state = std::make_shared<Booster>();
  try {
    state->booster.LoadJson(json.at("booster"));
  } catch (const Error& e) {
    throw Error(fmt::format("{}: booster: {}", origin, e.what()));
  }
  state->booster.SetParam("nthread", "1");
  state->booster.SetParam("verbosity", "0");
  XgbPerfModel model(options, std::move(state));
  model.made_by_ = StringOr(json, "made_by");
  if (json.contains("training") && json.at("training").is_object()) {
    model.training_ = json.at("training");
  }
  return model;
}

XgbPerfModel XgbPerfModel::Load(const std::string& path) {
  return FromJson(ReadJsonFile(path, "performance model"), path);
}

void XgbPerfModel::Save(const std::string& path) const {
  WriteJsonFileAtomically(path, ToJson(), "performance model");
}

std::vector<double> XgbPerfModel::PredictLogTimes(const std::vector<const LoopNest*>& nests) const {
  if (nests.empty()) return {};
  std::vector<double> log_estimates;
  model::XgbMatrix matrix(FeatureRows(nests, options_, &log_estimates), nests.size(),
                          static_cast<size_t>(XgbPerfRowWidth(options_)));
  std::vector<float> margins;
  {
    std::lock_guard<std::mutex> lock(booster_->mutex);
    margins = booster_->booster.PredictMargin(matrix);
  }
  std::vector<double> out(margins.begin(), margins.end());
  if (options_.target == "rank") {
    for (double& value : out) value = -value;  // trained on negated log times
  }
  if (options_.target == "log-efficiency") {
    for (size_t i = 0; i < out.size(); ++i) out[i] += log_estimates[i];
  }
  return out;
}

std::shared_ptr<const ProgramTimeModel> LoadProgramTimeModel(const std::string& path) {
  const Json json = ReadJsonFile(path, "performance model");
  if (json.is_object() && json.contains("architecture") &&
      json.at("architecture") == kXgbPerfModelArchitecture) {
    return std::make_shared<const XgbPerfModel>(XgbPerfModel::FromJson(json, path));
  }
  auto network = std::make_shared<const PerfModel>(PerfModel::FromJson(json, path));
  if (!network->RelativeToRoofline()) return AsProgramTimeModel(std::move(network));
  // A network of ln(time / the roofline's estimate): the estimate on the file's profile is added
  // back to each prediction.
  const MachineProfile profile =
      MachineProfileFromJson(network->roofline_profile(), path + ": roofline_profile");
  return AsProgramTimeModel(std::move(network), [profile](const LoopNest& nest) {
    return LogRooflineEstimate(nest, profile);
  });
}

}  // namespace glimpse
