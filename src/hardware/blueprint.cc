// The Blueprint: standardised spec features → PCA → the leading components (Glimpse, DAC'22,
// Sec. 3.1 and 4.1), its model file and the embedding of any GPU from its figures.
//
//   Transform / FeatureValue    one feature of one GPU (log2(1 + x) for wide-ranging fields)
//   Blueprint::Fit              standardise, keep constant features out, PCA, choose k
//   ComponentsFor               the three criteria on a fitted model
//   ToJson / FromJson           the model file ("glimpse-blueprint", version kBlueprintVersion)
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>

#include "glimpse/enum_name.h"
#include "glimpse/error.h"
#include "glimpse/hardware.h"
#include "glimpse/json_file.h"
#include "hardware/data_file.h"

namespace glimpse {
namespace {

constexpr const char* kModelFormat = "glimpse-blueprint";
constexpr const char* kRemake = "glimpse hw fit --out data/hardware/blueprint.json";

double Transform(double value, bool log_scale) {
  return log_scale ? std::log2(1.0 + value) : value;
}

// The raw figure of `feature` for `spec`; a zero where the training table never had one means
// the figure is missing.
double RawValue(const GpuSpec& spec, const std::string& field, bool zero_allowed) {
  double value = GpuNumericFieldByName(field).get(spec);
  if (!std::isfinite(value) || value < 0) {
    throw Error(
        fmt::format("GPU '{}': '{}' is {}, not a finite number ≥ 0", spec.name, field, value));
  }
  if (value == 0.0 && !zero_allowed) {
    throw Error(fmt::format("GPU '{}' has no figure for '{}' (0); the Blueprint needs it",
                            spec.name, field));
  }
  return value;
}

std::vector<double> NumberList(const Json& json, const char* key, size_t size,
                               const std::string& origin) {
  if (!json.contains(key) || !json[key].is_array() || json[key].size() != size) {
    throw Error(fmt::format("Blueprint model '{}': \"{}\" must be a list of {} numbers", origin,
                            key, size));
  }
  std::vector<double> values;
  for (const Json& value : json[key]) {
    if (!value.is_number()) {
      throw Error(fmt::format("Blueprint model '{}': \"{}\" holds a non-number", origin, key));
    }
    values.push_back(value.get<double>());
  }
  return values;
}

}  // namespace

const char* ComponentCriterionName(ComponentCriterion criterion) {
  static constexpr const char* kNames[] = {"rmse", "variance", "fixed"};
  static_assert(std::size(kNames) == static_cast<size_t>(ComponentCriterion::kFixed) + 1);
  return EnumName(criterion, kNames, "rmse");
}

ComponentCriterion ParseComponentCriterion(const std::string& text) {
  for (ComponentCriterion criterion :
       {ComponentCriterion::kReconstructionRmse, ComponentCriterion::kExplainedVariance,
        ComponentCriterion::kFixed}) {
    if (text == ComponentCriterionName(criterion)) return criterion;
  }
  throw Error(fmt::format("unknown component criterion '{}'; known: rmse, variance, fixed", text));
}

const std::vector<BlueprintFeature>& DefaultBlueprintFeatures() {
  // Log scale where the table spans an order of magnitude or more (counts of SMs, memory sizes,
  // bandwidth, caches, FLOP/s); per-SM limits, clocks and warp size vary by small factors.
  static const std::vector<BlueprintFeature> features = {
      {"sm_count", true},
      {"cores_per_sm", false},
      {"base_clock_mhz", false},
      {"boost_clock_mhz", false},
      {"memory_bus_width_bits", true},
      {"memory_bandwidth_gb_per_s", true},
      {"memory_bytes", true},
      {"l1_shared_per_sm_bytes", false},
      {"shared_memory_per_sm_bytes", false},
      {"shared_memory_per_block_bytes", false},
      {"l2_bytes", true},
      {"l3_bytes", true},
      {"registers_per_sm", false},
      {"max_threads_per_sm", false},
      {"max_threads_per_block", false},
      {"warp_size", false},
      {"fp32_flops", true},
      {"fp16_flops", true},
  };
  return features;
}

Blueprint Blueprint::Fit(const std::vector<GpuSpec>& gpus, const BlueprintOptions& options,
                         const std::vector<BlueprintFeature>& features) {
  if (gpus.size() < 2) {
    throw Error(fmt::format("the Blueprint needs at least two GPUs to fit; got {}", gpus.size()));
  }
  if (features.empty()) throw Error("the Blueprint needs at least one feature");
  Blueprint model;
  model.options_ = options;
  for (const GpuSpec& gpu : gpus) model.training_gpus_.push_back(gpu.name);

  // Transformed columns; a feature with no spread in the table carries no information and would
  // divide by zero, so it is recorded as constant and left out.
  std::vector<std::vector<double>> columns;
  for (const BlueprintFeature& feature : features) {
    GpuNumericFieldByName(feature.field);  // an unknown field is an Error here
    std::vector<double> column;
    double smallest = 0.0;
    for (size_t i = 0; i < gpus.size(); ++i) {
      double raw = RawValue(gpus[i], feature.field, /*zero_allowed=*/true);
      smallest = i == 0 ? raw : std::min(smallest, raw);
      column.push_back(Transform(raw, feature.log_scale));
    }
    double mean = 0.0;
    for (double x : column) mean += x / static_cast<double>(column.size());
    double variance = 0.0;
    for (double x : column)
      variance += (x - mean) * (x - mean) / static_cast<double>(column.size());
    double scale = std::sqrt(variance);
    if (scale <= 1e-12 * std::max(1.0, std::abs(mean))) {
      model.constant_[feature.field] = GpuNumericFieldByName(feature.field).get(gpus.front());
      continue;
    }
    BlueprintFeature used = feature;
    model.used_.push_back(used);
    model.mean_.push_back(mean);
    model.scale_.push_back(scale);
    model.zero_allowed_.push_back(smallest == 0.0);
    columns.push_back(std::move(column));
  }
  if (model.used_.empty()) {
    throw Error("every Blueprint feature is constant over the training GPUs; nothing to embed");
  }
  std::vector<std::vector<double>> rows(gpus.size(), std::vector<double>(model.used_.size()));
  for (size_t j = 0; j < model.used_.size(); ++j) {
    for (size_t i = 0; i < gpus.size(); ++i) {
      rows[i][j] = (columns[j][i] - model.mean_[j]) / model.scale_[j];
    }
  }
  model.pca_ = Pca::Fit(rows);
  for (int k = 1; k <= model.dimensions(); ++k) {
    model.rmse_by_k_.push_back(model.pca_.ReconstructionRmse(rows, k));
    model.variance_by_k_.push_back(model.pca_.ExplainedVariance(k));
  }
  model.components_ = model.ComponentsFor(options);
  return model;
}

int Blueprint::ComponentsFor(const BlueprintOptions& options) const {
  const int d = dimensions();
  switch (options.criterion) {
    case ComponentCriterion::kFixed:
      if (options.components < 1 || options.components > d) {
        throw Error(fmt::format("--components {} is outside 1..{} (the Blueprint's dimensions)",
                                options.components, d));
      }
      return options.components;
    case ComponentCriterion::kExplainedVariance:
      for (int k = 1; k <= d; ++k) {
        if (variance_by_k_[k - 1] >= options.min_explained_variance - 1e-15) return k;
      }
      return d;
    case ComponentCriterion::kReconstructionRmse:
      for (int k = 1; k <= d; ++k) {
        if (rmse_by_k_[k - 1] < options.max_rmse) return k;
      }
      return d;
  }
  return d;
}

std::vector<double> Blueprint::Standardize(const GpuSpec& spec) const {
  std::vector<double> z(used_.size());
  for (size_t j = 0; j < used_.size(); ++j) {
    double raw = RawValue(spec, used_[j].field, zero_allowed_[j]);
    z[j] = (Transform(raw, used_[j].log_scale) - mean_[j]) / scale_[j];
  }
  return z;
}

std::vector<double> Blueprint::Embed(const GpuSpec& spec) const {
  return pca_.Project(Standardize(spec), components_);
}

std::vector<double> Blueprint::Reconstruct(const std::vector<double>& embedding) const {
  return pca_.Reconstruct(embedding);
}

Json Blueprint::ToJson() const {
  Json features = Json::array();
  for (size_t j = 0; j < used_.size(); ++j) {
    features.push_back({{"field", used_[j].field},
                        {"log_scale", used_[j].log_scale},
                        {"mean", mean_[j]},
                        {"scale", scale_[j]},
                        {"zero_allowed", static_cast<bool>(zero_allowed_[j])}});
  }
  return {
      {"format", kModelFormat},
      {"version", kBlueprintVersion},
      {"made_by", kRemake},
      {"criterion",
       {{"name", ComponentCriterionName(options_.criterion)},
        {"max_rmse", options_.max_rmse},
        {"min_explained_variance", options_.min_explained_variance},
        {"components", options_.components}}},
      {"components", components_},
      {"features", features},
      {"constant_features", constant_},
      {"pca", {{"mean", pca_.mean}, {"eigenvalues", pca_.eigenvalues}, {"basis", pca_.components}}},
      {"rmse_by_components", rmse_by_k_},
      {"explained_variance_by_components", variance_by_k_},
      {"training_gpus", training_gpus_},
  };
}

void Blueprint::Save(const std::string& path) const {
  WriteJsonFileAtomically(path, ToJson(), "Blueprint model");
}

Blueprint Blueprint::Load(const std::string& path) {
  return FromJson(
      hardware::ReadDataFile(path, "Blueprint model", std::string("make it with: ") + kRemake),
      path);
}

Blueprint Blueprint::FromJson(const Json& json, const std::string& origin) {
  hardware::CheckDataFileHeader(json, origin, "Blueprint model", kModelFormat, kBlueprintVersion,
                                std::string("remake it with: ") + kRemake);
  Blueprint model;
  model.origin_ = origin;
  try {
    const Json& criterion = json.at("criterion");
    model.options_.criterion = ParseComponentCriterion(criterion.at("name").get<std::string>());
    model.options_.max_rmse = criterion.at("max_rmse").get<double>();
    model.options_.min_explained_variance = criterion.at("min_explained_variance").get<double>();
    model.options_.components = criterion.at("components").get<int>();
    for (const Json& feature : json.at("features")) {
      BlueprintFeature used{feature.at("field").get<std::string>(),
                            feature.at("log_scale").get<bool>()};
      GpuNumericFieldByName(used.field);
      model.used_.push_back(used);
      model.mean_.push_back(feature.at("mean").get<double>());
      double scale = feature.at("scale").get<double>();
      if (!(scale > 0)) throw Error(fmt::format("feature '{}' has scale {}", used.field, scale));
      model.scale_.push_back(scale);
      model.zero_allowed_.push_back(feature.at("zero_allowed").get<bool>());
    }
    for (const auto& [field, value] : json.at("constant_features").items()) {
      model.constant_[field] = value.get<double>();
    }
    for (const Json& name : json.at("training_gpus")) {
      model.training_gpus_.push_back(name.get<std::string>());
    }
    model.components_ = json.at("components").get<int>();
  } catch (const Json::exception& e) {
    throw Error(fmt::format("Blueprint model '{}' is malformed: {}", origin, e.what()));
  } catch (const Error& e) {
    throw Error(fmt::format("Blueprint model '{}' is malformed: {}", origin, e.what()));
  }
  const size_t d = model.used_.size();
  if (d == 0) throw Error(fmt::format("Blueprint model '{}' has no features", origin));
  if (!json.contains("pca") || !json["pca"].is_object()) {
    throw Error(fmt::format("Blueprint model '{}' has no \"pca\" object", origin));
  }
  const Json& pca = json["pca"];
  model.pca_.mean = NumberList(pca, "mean", d, origin);
  model.pca_.eigenvalues = NumberList(pca, "eigenvalues", d, origin);
  if (!pca.contains("basis") || !pca["basis"].is_array() || pca["basis"].size() != d) {
    throw Error(fmt::format("Blueprint model '{}': \"pca.basis\" must hold {} vectors", origin, d));
  }
  for (const Json& vector : pca["basis"]) {
    Json wrapper = {{"v", vector}};
    model.pca_.components.push_back(NumberList(wrapper, "v", d, origin));
  }
  model.rmse_by_k_ = NumberList(json, "rmse_by_components", d, origin);
  model.variance_by_k_ = NumberList(json, "explained_variance_by_components", d, origin);
  if (model.components_ < 1 || model.components_ > static_cast<int>(d)) {
    throw Error(fmt::format("Blueprint model '{}': \"components\" is {}; it must be in 1..{}",
                            origin, model.components_, d));
  }
  return model;
}

const Blueprint& Blueprint::Default() {
  return hardware::LoadedOnce<Blueprint>([] { return Load(HardwareDataPath("blueprint.json")); });
}

}  // namespace glimpse
