// The acquisition function's model file: JSON ("glimpse-acquisition", version 3) with the
// network's layers' weights as numbers (glimpse/glimpse_tuner.h, docs/glimpse.md "The acquisition
// function").
#include <fmt/format.h>

#include "glimpse/error.h"
#include "glimpse/json_fields.h"
#include "glimpse/json_file.h"
#include "hwaware/acquisition_internal.h"
#include "hwaware/model_file_fields.h"

namespace glimpse {
namespace {
using hwaware::Field;
using hwaware::VersionOf;

constexpr const char* kRemake = "glimpse train acquisition --spaces <dir> --out <file>";

}  // namespace

namespace hwaware {

Json AcquisitionWeightsToJson(const AcquisitionNetwork::Network& network) {
  return {{"layer1", network.layer1.ToJson()},
          {"layer2", network.layer2.ToJson()},
          {"layer3", network.layer3.ToJson()},
          {"ucb_weight", network.ucb_weight}};
}

AcquisitionNetwork::Network AcquisitionWeightsFromJson(const Json& weights,
                                                       const std::string& where, int inputs,
                                                       int hidden) {
  auto layer = [&](const char* name, int layer_inputs, int outputs) {
    return DenseLayer::FromJson(Field<Json>(weights, name, where), where + ", " + name,
                                layer_inputs, outputs);
  };
  AcquisitionNetwork::Network network;
  network.layer1 = layer("layer1", inputs, hidden);
  network.layer2 = layer("layer2", hidden, hidden);
  network.layer3 = layer("layer3", hidden, 1);
  network.ucb_weight = Field<float>(weights, "ucb_weight", where);
  return network;
}

}  // namespace hwaware

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
      {"network",
       {{"hidden", hidden_},
        {"policy", "ucb residual"},
        {"ucb_kappa", kAcquisitionUcbKappa},
        {"ucb_weight", network_->ucb_weight}}},
      {"training", training},
      {"weights", hwaware::AcquisitionWeightsToJson(*network_)}};
}

AcquisitionNetwork AcquisitionNetwork::FromJson(const Json& json, const std::string& origin) {
  hwaware::CheckModelHeader(json, origin, kAcquisitionModelFormat, kAcquisitionModelVersion,
                            "acquisition model", kRemake);
  const Json& blueprint = hwaware::Member(json, "blueprint");
  hwaware::CheckBlueprintVersion(VersionOf(blueprint, "version"), origin, kRemake);
  hwaware::CheckFeatureVersion(VersionOf(hwaware::Member(json, "features"), "version"),
                               kAcquisitionFeatureVersion, "acquisition", origin, kRemake);
  int components = Field<int>(blueprint, "components", origin + ", blueprint");
  int hidden = Field<int>(hwaware::Member(json, "network"), "hidden", origin + ", network");
  if (components < 0 || hidden < 1) {
    throw Error(fmt::format("{}: Blueprint components {} (≥ 0) and network hidden {} (≥ 1)", origin,
                            components, hidden));
  }
  AcquisitionNetwork m;
  m.blueprint_components_ = components;
  m.hidden_ = hidden;
  m.network_ = std::make_unique<Network>(hwaware::AcquisitionWeightsFromJson(
      Field<Json>(json, "weights", origin), origin + ", weights",
      kAcquisitionBaseFeatures + components, hidden));
  m.made_by_ = StringOr(json, "made_by");
  if (json.contains("training") && json.at("training").is_object()) {
    m.training_info_ = json.at("training");
  }
  if (blueprint.contains("training_gpus")) {
    m.training_info_["blueprint_training_gpus"] = blueprint.at("training_gpus");
  }
  return m;
}

AcquisitionNetwork AcquisitionNetwork::Load(const std::string& path) {
  return FromJson(ReadJsonFile(path, "acquisition model"), path);
}

void AcquisitionNetwork::Save(const std::string& path) const {
  WriteJsonFileAtomically(path, ToJson(), "acquisition model");
}

}  // namespace glimpse
