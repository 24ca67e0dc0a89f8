// The acquisition function's model file: JSON ("glimpse-acquisition", version 2) with the
// network's weights as a base64-encoded torch::save archive (glimpse/glimpse_tuner.h,
// docs/glimpse.md "The acquisition function").
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sstream>

#include "glimpse/error.h"
#include "glimpse/json_file.h"
#include "hwaware/acquisition_net.h"
#include "hwaware/model_file_fields.h"

namespace glimpse {
namespace {
using hwaware::Base64Decode;
using hwaware::Base64Encode;
using hwaware::Field;
using hwaware::VersionOf;

constexpr const char* kRemake = "glimpse train acquisition --spaces <dir> --out <file>";

const Json& Member(const Json& json, const char* key) {
  static const Json kNull;
  return json.is_object() && json.contains(key) ? json.at(key) : kNull;
}

}  // namespace

Json AcquisitionTrainingOptions::ToJson() const {
  return {{"iterations", iterations},
          {"episodes_per_iteration", episodes_per_iteration},
          {"episodes_per_space", episodes_per_space},
          {"episode_budget", episode_budget},
          {"batch_size", batch_size},
          {"hidden", hidden},
          {"learning_rate", learning_rate},
          {"entropy_bonus", entropy_bonus},
          {"seed", seed}};
}

AcquisitionTrainingOptions AcquisitionTrainingOptions::FromJson(const Json& json,
                                                                const std::string& where) {
  AcquisitionTrainingOptions o;
  o.iterations = Field<int>(json, "iterations", where);
  o.episodes_per_iteration = Field<int>(json, "episodes_per_iteration", where);
  o.episodes_per_space = Field<int>(json, "episodes_per_space", where);
  o.episode_budget = Field<int>(json, "episode_budget", where);
  o.batch_size = Field<int>(json, "batch_size", where);
  o.hidden = Field<int>(json, "hidden", where);
  o.learning_rate = Field<double>(json, "learning_rate", where);
  o.entropy_bonus = Field<double>(json, "entropy_bonus", where);
  o.seed = Field<uint64_t>(json, "seed", where);
  return o;
}

Json AcquisitionNetwork::ToJson() const {
  std::ostringstream archive;
  torch::save(network_->net, archive);
  // The Blueprint's training GPUs are kept by the trainer in training_info; the file keeps them
  // once, with the Blueprint.
  Json blueprint = {{"version", kBlueprintVersion}, {"components", blueprint_components_}};
  Json training = training_info_;
  if (training.is_object() && training.contains("blueprint_training_gpus")) {
    blueprint["training_gpus"] = training.at("blueprint_training_gpus");
    training.erase("blueprint_training_gpus");
  }
  return {
      {"format", kAcquisitionModelFormat},
      {"version", kAcquisitionModelVersion},
      {"made_by", made_by_},
      {"blueprint", blueprint},
      {"features", {{"version", kAcquisitionFeatureVersion}, {"base", kAcquisitionBaseFeatures}}},
      {"network", {{"hidden", hidden_}, {"policy", "ucb residual"},
                   {"ucb_kappa", kAcquisitionUcbKappa}, {"ucb_weight", network_->net->ucb_weight.item<double>()}}},
      {"training", training},
      {"weights",
       {{"encoding", "base64 of a torch::save archive"}, {"data", Base64Encode(archive.str())}}}};
}

AcquisitionNetwork AcquisitionNetwork::FromJson(const Json& json, const std::string& origin) {
  if (!json.is_object()) throw Error(origin + ": not a JSON object");
  std::string format = json.value("format", std::string());
  if (format != kAcquisitionModelFormat) {
    throw Error(fmt::format("{}: format '{}', expected '{}' (remake it with '{}')", origin, format,
                            kAcquisitionModelFormat, kRemake));
  }
  int version = VersionOf(json, "version");
  if (version != kAcquisitionModelVersion) {
    throw Error(fmt::format(
        "{}: acquisition model version {}; this glimpse reads version {} (remake it with '{}')",
        origin, version, kAcquisitionModelVersion, kRemake));
  }
  const Json& blueprint = Member(json, "blueprint");
  int blueprint_version = VersionOf(blueprint, "version");
  if (blueprint_version != kBlueprintVersion) {
    throw Error(fmt::format(
        "{}: made with Blueprint version {}; this glimpse's Blueprint is version {} (remake it "
        "with '{}')",
        origin, blueprint_version, kBlueprintVersion, kRemake));
  }
  const Json& features = Member(json, "features");
  int feature_version = VersionOf(features, "version");
  if (feature_version != kAcquisitionFeatureVersion) {
    throw Error(fmt::format(
        "{}: acquisition features version {}; this glimpse computes version {} (remake it with "
        "'{}')",
        origin, feature_version, kAcquisitionFeatureVersion, kRemake));
  }
  int components = Field<int>(blueprint, "components", origin + ", blueprint");
  int hidden = Field<int>(Member(json, "network"), "hidden", origin + ", network");
  if (components < 0 || hidden < 1) {
    throw Error(fmt::format("{}: Blueprint components {} (≥ 0) and network hidden {} (≥ 1)", origin,
                            components, hidden));
  }
  AcquisitionNetwork m(components, hidden, 0);
  m.made_by_ = json.value("made_by", std::string());
  if (json.contains("training") && json.at("training").is_object()) {
    m.training_info_ = json.at("training");
  }
  if (blueprint.contains("training_gpus")) {
    m.training_info_["blueprint_training_gpus"] = blueprint.at("training_gpus");
  }
  std::istringstream archive(Base64Decode(
      Field<std::string>(Member(json, "weights"), "data", origin + ", weights"), origin));
  // torch::load replaces a parameter whatever its shape, so the shapes are compared after.
  std::vector<std::vector<int64_t>> expected;
  for (const torch::Tensor& p : m.network_->net->parameters()) expected.push_back(p.sizes().vec());
  std::string why;
  try {
    torch::load(m.network_->net, archive);
    std::vector<torch::Tensor> loaded = m.network_->net->parameters();
    for (size_t i = 0; i < loaded.size() && why.empty(); ++i) {
      if (loaded[i].sizes().vec() != expected[i]) {
        why = fmt::format("parameter {} has shape {}, the network {}", i,
                          fmt::join(loaded[i].sizes().vec(), "x"), fmt::join(expected[i], "x"));
      }
    }
  } catch (const c10::Error& e) {
    why = std::string(e.what_without_backtrace()).substr(0, 200);
  }
  if (!why.empty()) {
    throw Error(fmt::format("{}: the weights do not fit the network ({}); remake it with '{}'",
                            origin, why, kRemake));
  }
  m.network_->net->eval();
  return m;
}

AcquisitionNetwork AcquisitionNetwork::Load(const std::string& path) {
  return FromJson(ReadJsonFile(path, "acquisition model"), path);
}

void AcquisitionNetwork::Save(const std::string& path) const {
  WriteJsonFileAtomically(path, ToJson(), "acquisition model");
}

}  // namespace glimpse
