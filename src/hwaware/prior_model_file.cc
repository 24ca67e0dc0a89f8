// The prior generator's model file: JSON ("glimpse-prior", version 2) with the network's layers'
// weights as numbers (glimpse/prior_generator.h, docs/glimpse.md).
#include <fmt/format.h>

#include <filesystem>

#include "glimpse/error.h"
#include "glimpse/json_fields.h"
#include "glimpse/json_file.h"
#include "hwaware/model_file_fields.h"
#include "hwaware/prior_internal.h"

namespace glimpse {
namespace {
using hwaware::Field;
using hwaware::VersionOf;

constexpr const char* kRemake = "glimpse train prior --spaces <dir> --out <file>";

}  // namespace

namespace hwaware {

Json PriorWeightsToJson(const PriorGenerator::Network& network) {
  return {{"generator1", network.generator1.ToJson()}, {"generator2", network.generator2.ToJson()},
          {"embed1", network.embed1.ToJson()},         {"embed2", network.embed2.ToJson()},
          {"bias1", network.bias1.ToJson()},           {"bias2", network.bias2.ToJson()}};
}

void PriorWeightsFromJson(const Json& weights, const std::string& where, int blueprint_components,
                          PriorGenerator::Network* network) {
  const int hidden = network->hidden;
  const int embedding = network->embedding;
  auto layer = [&](const char* name, int inputs, int outputs) {
    return DenseLayer::FromJson(Field<Json>(weights, name, where), where + ", " + name, inputs,
                                outputs);
  };
  network->generator1 = layer("generator1", blueprint_components + kPriorKnobFeatures, hidden);
  network->generator2 = layer("generator2", hidden, embedding);
  network->embed1 = layer("embed1", kPriorValueFeatures + kPriorKnobFeatures, hidden);
  network->embed2 = layer("embed2", hidden, embedding);
  network->bias1 = layer("bias1", kPriorValueFeatures + kPriorKnobFeatures, hidden);
  network->bias2 = layer("bias2", hidden, 1);
}

}  // namespace hwaware

Json PriorTrainingOptions::ToJson() const {
  return {{"top_fraction", top_fraction},
          {"epochs", epochs},
          {"learning_rate", learning_rate},
          {"weight_decay", weight_decay},
          {"hidden", hidden},
          {"embedding", embedding},
          {"seed", seed}};
}

PriorTrainingOptions PriorTrainingOptions::FromJson(const Json& json, const std::string& where) {
  PriorTrainingOptions o;
  o.top_fraction = Field<double>(json, "top_fraction", where);
  o.epochs = Field<int>(json, "epochs", where);
  o.learning_rate = Field<double>(json, "learning_rate", where);
  o.weight_decay = Field<double>(json, "weight_decay", where);
  o.hidden = Field<int>(json, "hidden", where);
  o.embedding = Field<int>(json, "embedding", where);
  o.seed = Field<uint64_t>(json, "seed", where);
  return o;
}

Json PriorGenerator::ToJson() const {
  if (!network_) throw Error("prior generator: no trained network to save");
  Json training = Json::array();
  for (const PriorTrainingSpace& s : training_) {
    training.push_back(
        {{"name", s.name}, {"gpu", s.gpu}, {"path", s.path}, {"top_count", s.top_count}});
  }
  return {{"format", kPriorGeneratorFormat},
          {"version", kPriorGeneratorVersion},
          {"made_by", made_by_},
          {"blueprint",
           {{"version", blueprint_version_},
            {"components", blueprint_components_},
            {"training_gpus", blueprint_training_gpus_}}},
          {"features",
           {{"version", kPriorFeatureVersion},
            {"knob", kPriorKnobFeatures},
            {"value", kPriorValueFeatures}}},
          {"network", {{"hidden", network_->hidden}, {"embedding", network_->embedding}}},
          {"options", options_.ToJson()},
          {"final_loss", final_loss_},
          {"training", training},
          {"weights", hwaware::PriorWeightsToJson(*network_)}};
}

PriorGenerator PriorGenerator::FromJson(const Json& json, const std::string& origin) {
  hwaware::CheckModelHeader(json, origin, kPriorGeneratorFormat, kPriorGeneratorVersion,
                            "prior generator", kRemake);
  const Json& blueprint = hwaware::Member(json, "blueprint");
  PriorGenerator m;
  m.blueprint_version_ = Field<int>(blueprint, "version", origin + ", blueprint");
  hwaware::CheckBlueprintVersion(m.blueprint_version_, origin, kRemake);
  m.blueprint_components_ = Field<int>(blueprint, "components", origin + ", blueprint");
  m.blueprint_training_gpus_ = hwaware::BlueprintTrainingGpus(blueprint, origin + ", blueprint");
  hwaware::CheckFeatureVersion(VersionOf(hwaware::Member(json, "features"), "version"),
                               kPriorFeatureVersion, "prior", origin, kRemake);
  m.made_by_ = StringOr(json, "made_by");
  m.options_ =
      PriorTrainingOptions::FromJson(hwaware::Member(json, "options"), origin + ", options");
  m.final_loss_ = NumberOr(json, "final_loss", 0.0);
  if (json.contains("training")) {
    for (const Json& s : json.at("training")) {
      m.training_.push_back({Field<std::string>(s, "name", origin + ", training"),
                             Field<std::string>(s, "gpu", origin + ", training"),
                             Field<std::string>(s, "path", origin + ", training"),
                             Field<int64_t>(s, "top_count", origin + ", training")});
    }
  }
  const Json& network = hwaware::Member(json, "network");
  m.network_ = std::make_unique<Network>();
  m.network_->hidden = Field<int>(network, "hidden", origin + ", network");
  m.network_->embedding = Field<int>(network, "embedding", origin + ", network");
  if (m.blueprint_components_ < 1 || m.network_->hidden < 1 || m.network_->embedding < 1) {
    throw Error(origin + ": Blueprint components, network hidden and embedding must be ≥ 1");
  }
  hwaware::PriorWeightsFromJson(Field<Json>(json, "weights", origin), origin + ", weights",
                                m.blueprint_components_, m.network_.get());
  return m;
}

PriorGenerator PriorGenerator::Load(const std::string& path) {
  return FromJson(ReadJsonFile(path, "prior generator"), path);
}

void PriorGenerator::Save(const std::string& path) const {
  WriteJsonFileAtomically(path, ToJson(), "prior generator");
}

}  // namespace glimpse
