// The validity ensemble bound to a space and a GPU (voting), its evaluation on a recorded space,
// and the model file. Training is in validity_training.cc.
//
//   ScaleOfKnob / KnobContributions   what a knob value is to a predictor
//   ValidityEnsemble                  thresholds generated once, votes per configuration
//   EvaluateEnsemble                  recall of recorded failures, false rejections, top 1 %
//   ValidityEnsembleModel I/O         "glimpse-validity-ensemble", version 1
#include "glimpse/validity_ensemble.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>

#include "glimpse/error.h"
#include "glimpse/json_fields.h"
#include "glimpse/json_file.h"
#include "hwaware/ensemble_internal.h"
#include "hwaware/model_file_fields.h"

namespace glimpse {
namespace hwaware {

namespace {
std::optional<double> NumberOf(const KnobValue& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&value)) return *d;
  return std::nullopt;
}
}  // namespace

std::optional<FeatureScale> ScaleOfKnob(const Knob& knob) {
  if (knob.size() < 2) return std::nullopt;
  if (knob.kind() == KnobKind::kSplit || knob.kind() == KnobKind::kPermutation) {
    return std::nullopt;
  }
  bool positive = true;
  for (const KnobValue& value : knob.values()) {
    std::optional<double> number = NumberOf(value);
    if (!number) return FeatureScale::kIndex;
    if (!(*number > 0.0)) positive = false;
  }
  return positive ? FeatureScale::kLog2 : FeatureScale::kLinear;
}

std::vector<double> KnobContributions(const Knob& knob, FeatureScale scale) {
  std::vector<double> out(knob.size());
  for (size_t i = 0; i < knob.size(); ++i) {
    if (scale == FeatureScale::kIndex) {
      out[i] = static_cast<double>(i);
      continue;
    }
    std::optional<double> number = NumberOf(knob.ValueAt(i));
    if (!number) {
      throw Error(fmt::format("knob '{}': value {} is not a number", knob.name(),
                              KnobValueToString(knob.ValueAt(i))));
    }
    out[i] = scale == FeatureScale::kLog2 ? std::log2(*number) : *number;
  }
  return out;
}

}  // namespace hwaware

namespace {
using hwaware::Field;

constexpr const char* kRemake = "glimpse train validity --spaces <dir> --out <file>";

const char* const kDirectionNames[] = {"never", "above", "below"};
const char* const kScaleNames[] = {"linear", "log2", "index"};

ThresholdDirection ParseDirection(const std::string& text, const std::string& where) {
  for (int i = 0; i < 3; ++i) {
    if (text == kDirectionNames[i]) return static_cast<ThresholdDirection>(i);
  }
  throw Error(fmt::format("{}: direction '{}'; known: never, above, below", where, text));
}

FeatureScale ParseScale(const std::string& text, const std::string& where) {
  for (int i = 0; i < 3; ++i) {
    if (text == kScaleNames[i]) return static_cast<FeatureScale>(i);
  }
  throw Error(fmt::format("{}: scale '{}'; known: linear, log2, index", where, text));
}

// Thresholds are stored as JSON numbers; NaN would not survive, so "never" stores none.
Json PredictorToJson(const KnobPredictor& p) {
  Json out = {{"feature", p.feature},
              {"knobs", p.knobs},
              {"scale", FeatureScaleName(p.scale)},
              {"direction", ThresholdDirectionName(p.direction)},
              {"mean_balanced_accuracy", p.mean_balanced_accuracy}};
  if (p.informative()) {
    out["weights"] = p.weights;
    out["bias"] = p.bias;
    if (p.clamped) out["clamp"] = {p.min_threshold, p.max_threshold};
  }
  if (!p.note.empty()) out["note"] = p.note;
  Json training = Json::array();
  for (const GpuThreshold& t : p.training) {
    training.push_back({{"gpu", t.gpu},
                        {"threshold", t.threshold},
                        {"balanced_accuracy", t.balanced_accuracy},
                        {"failures", t.failures}});
  }
  out["training"] = training;
  return out;
}

KnobPredictor PredictorFromJson(const Json& json, const std::string& where, int components) {
  KnobPredictor p;
  p.feature = Field<std::string>(json, "feature", where);
  std::string at = where + ", predictor '" + p.feature + "'";
  p.knobs = Field<std::vector<std::string>>(json, "knobs", at);
  if (p.knobs.empty()) throw Error(at + ": 'knobs' is empty");
  p.scale = ParseScale(Field<std::string>(json, "scale", at), at);
  p.direction = ParseDirection(Field<std::string>(json, "direction", at), at);
  p.mean_balanced_accuracy = Field<double>(json, "mean_balanced_accuracy", at);
  if (p.informative()) {
    p.weights = Field<std::vector<double>>(json, "weights", at);
    p.bias = Field<double>(json, "bias", at);
    if (json.contains("clamp")) {
      auto clamp = Field<std::vector<double>>(json, "clamp", at);
      if (clamp.size() != 2 || !(clamp[0] <= clamp[1])) {
        throw Error(at + ": 'clamp' must be [low, high] with low ≤ high");
      }
      p.clamped = true;
      p.min_threshold = clamp[0];
      p.max_threshold = clamp[1];
    }
    if (static_cast<int>(p.weights.size()) != components) {
      throw Error(fmt::format("{}: {} weights, but the model's Blueprint has {} components", at,
                              p.weights.size(), components));
    }
  }
  if (json.contains("note")) p.note = Field<std::string>(json, "note", at);
  if (json.contains("training")) {
    for (const Json& t : json.at("training")) {
      p.training.push_back({Field<std::string>(t, "gpu", at), Field<double>(t, "threshold", at),
                            Field<double>(t, "balanced_accuracy", at),
                            Field<int64_t>(t, "failures", at)});
    }
  }
  return p;
}

std::string KnownKernels(const std::vector<KernelValidityModel>& kernels) {
  std::string out;
  for (const KernelValidityModel& k : kernels) {
    out += (out.empty() ? "" : "; ") + k.name + " (";
    for (size_t i = 0; i < k.knobs.size(); ++i) out += (i ? ", " : "") + k.knobs[i];
    out += ")";
  }
  return out.empty() ? "none" : out;
}

}  // namespace

const char* ThresholdDirectionName(ThresholdDirection direction) {
  return kDirectionNames[static_cast<int>(direction)];
}
const char* FeatureScaleName(FeatureScale scale) { return kScaleNames[static_cast<int>(scale)]; }

// ---- Options

Json ValidityEnsembleOptions::ToJson() const {
  return {{"tau", tau},
          {"derived_features", derived_features},
          {"abstain_uninformative", abstain_uninformative},
          {"ridge_lambda", ridge_lambda},
          {"false_rejection_weight", false_rejection_weight},
          {"clamp_to_training", clamp_to_training},
          {"min_balanced_accuracy", min_balanced_accuracy}};
}

ValidityEnsembleOptions ValidityEnsembleOptions::FromJson(const Json& json,
                                                          const std::string& where) {
  ValidityEnsembleOptions o;
  o.tau = Field<double>(json, "tau", where);
  o.derived_features = Field<bool>(json, "derived_features", where);
  o.abstain_uninformative = Field<bool>(json, "abstain_uninformative", where);
  o.ridge_lambda = Field<double>(json, "ridge_lambda", where);
  o.false_rejection_weight = Field<double>(json, "false_rejection_weight", where);
  o.clamp_to_training = Field<bool>(json, "clamp_to_training", where);
  o.min_balanced_accuracy = Field<double>(json, "min_balanced_accuracy", where);
  return o;
}

// ---- Predictors and the bound ensemble

double KnobPredictor::Threshold(const std::vector<double>& blueprint) const {
  if (!informative()) return std::numeric_limits<double>::quiet_NaN();
  if (blueprint.size() != weights.size()) {
    throw Error(fmt::format("predictor '{}': a Blueprint of {} components, expected {}", feature,
                            blueprint.size(), weights.size()));
  }
  double t = bias;
  for (size_t i = 0; i < weights.size(); ++i) t += weights[i] * blueprint[i];
  return clamped ? std::clamp(t, min_threshold, max_threshold) : t;
}

ValidityEnsemble::ValidityEnsemble(const KernelValidityModel& model, const ConfigSpace& space,
                                   const std::vector<double>& blueprint_vector,
                                   const ValidityEnsembleOptions& options)
    : tau_(options.tau), num_knobs_(space.NumKnobs()) {
  for (const KnobPredictor& p : model.predictors) {
    Bound b;
    b.feature = p.feature;
    b.scale = p.scale;
    b.direction = p.direction;
    b.threshold = p.Threshold(blueprint_vector);
    for (const std::string& name : p.knobs) {
      size_t position = space.KnobIndex(name);  // Error names the unknown knob
      b.knob_positions.push_back(position);
      b.values.push_back(hwaware::KnobContributions(space.knobs()[position], p.scale));
    }
    if (p.informative() || !options.abstain_uninformative) ++voters_;
    bound_.push_back(std::move(b));
  }
}

double ValidityEnsemble::FeatureValue(const Bound& b, const Config& config) const {
  double value = hwaware::FactorIdentity(b.scale);
  for (size_t f = 0; f < b.knob_positions.size(); ++f) {
    double factor = b.values[f][config.indices[b.knob_positions[f]]];
    value = b.knob_positions.size() == 1 ? factor : hwaware::CombineFactors(b.scale, value, factor);
  }
  return value;
}

int ValidityEnsemble::InvalidVotes(const Config& config) const {
  if (config.indices.size() != num_knobs_) {
    throw Error(fmt::format("validity ensemble: a configuration of {} knobs, the space has {}",
                            config.indices.size(), num_knobs_));
  }
  int votes = 0;
  for (const Bound& b : bound_) {
    if (b.direction == ThresholdDirection::kNever) continue;
    double x = FeatureValue(b, config);
    if (b.direction == ThresholdDirection::kInvalidAbove ? x > b.threshold : x < b.threshold) {
      ++votes;
    }
  }
  return votes;
}

bool ValidityEnsemble::IsValid(const Config& config) const {
  // The tolerance keeps "more than τ" exact at the boundary for a τ typed with a few digits:
  // τ = 0.333 is 1/3, and 1 vote of 3 is not more than that.
  return !(InvalidVotes(config) > voters_ * (tau_ + kTauTolerance));
}

std::vector<Config> ValidityEnsemble::Filter(const std::vector<Config>& configs) const {
  std::vector<Config> kept;
  for (const Config& c : configs) {
    if (IsValid(c)) kept.push_back(c);
  }
  return kept;
}

std::vector<std::pair<std::string, double>> ValidityEnsemble::Thresholds() const {
  std::vector<std::pair<std::string, double>> out;
  for (const Bound& b : bound_) {
    out.emplace_back(b.feature, b.direction == ThresholdDirection::kNever
                                    ? std::numeric_limits<double>::quiet_NaN()
                                    : b.threshold);
  }
  return out;
}

// ---- Evaluation

double ValidityEvaluation::FailureRecall() const {
  return failures ? static_cast<double>(failures_rejected) / failures : 0.0;
}
double ValidityEvaluation::FalseRejectionRate() const {
  return valid ? static_cast<double>(valid_rejected) / valid : 0.0;
}
double ValidityEvaluation::TopRejectionRate() const {
  return top ? static_cast<double>(top_rejected) / top : 0.0;
}

ValidityEvaluation EvaluateEnsemble(const ValidityEnsemble& ensemble,
                                    const RecordedSpace& recorded) {
  ValidityEvaluation e;
  std::vector<std::pair<double, bool>> ok;  // (time, rejected)
  for (const auto& [index, entry] : recorded.entries) {
    bool rejected = !ensemble.IsValid(recorded.space.FromDenseIndex(index));
    if (entry.status == MeasureStatus::kOk) {
      ++e.valid;
      e.valid_rejected += rejected;
      ok.emplace_back(entry.time_s, rejected);
    } else {
      ++e.failures;
      e.failures_rejected += rejected;
    }
  }
  if (!ok.empty()) {
    std::sort(ok.begin(), ok.end());
    e.top = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(0.01 * ok.size())));
    for (int64_t i = 0; i < e.top; ++i) e.top_rejected += ok[i].second;
    e.best_rejected = ok[0].second;
  }
  return e;
}

// ---- The model

void ValidityEnsembleModel::set_tau(double tau) {
  if (!(tau >= 0.0 && tau < 1.0)) {
    throw Error(fmt::format("tau {} is out of range; accepted: 0 ≤ tau < 1", tau));
  }
  options_.tau = tau;
}

const KernelValidityModel* ValidityEnsembleModel::Find(const std::string& kernel,
                                                       const ConfigSpace& space) const {
  std::set<std::string> names;
  for (const Knob& knob : space.knobs()) names.insert(knob.name());
  std::vector<const KernelValidityModel*> matches;
  for (const KernelValidityModel& k : kernels_) {
    if (std::set<std::string>(k.knobs.begin(), k.knobs.end()) != names) continue;
    if (kernel.empty() || kernel == k.name || kernel == k.kernel) matches.push_back(&k);
  }
  return matches.size() == 1 ? matches[0] : nullptr;
}

ValidityEnsemble ValidityEnsembleModel::ForSpace(
    const std::string& kernel, const ConfigSpace& space,
    const std::vector<double>& blueprint_vector) const {
  const KernelValidityModel* model = Find(kernel, space);
  if (!model) {
    std::string knobs;
    for (const Knob& knob : space.knobs()) knobs += (knobs.empty() ? "" : ", ") + knob.name();
    throw Error(fmt::format(
        "the validity ensemble has no (single) kernel space '{}' with knobs ({}); it has: {}",
        kernel.empty() ? "<any>" : kernel, knobs, KnownKernels(kernels_)));
  }
  if (static_cast<int>(blueprint_vector.size()) != blueprint_components_) {
    throw Error(
        fmt::format("validity ensemble: a Blueprint vector of {} components; the model "
                    "was made with {}",
                    blueprint_vector.size(), blueprint_components_));
  }
  return ValidityEnsemble(*model, space, blueprint_vector, options_);
}

ValidityEnsemble ValidityEnsembleModel::ForSpace(const std::string& kernel,
                                                 const ConfigSpace& space, const GpuSpec& gpu,
                                                 const Blueprint& blueprint) const {
  if (blueprint.components() != blueprint_components_) {
    throw Error(
        fmt::format("the validity ensemble was made with a Blueprint of {} components "
                    "(version {}); this Blueprint has {}: remake it with '{}'",
                    blueprint_components_, blueprint_version_, blueprint.components(), kRemake));
  }
  return ForSpace(kernel, space, blueprint.Embed(gpu));
}

Json ValidityEnsembleModel::ToJson() const {
  Json kernels = Json::array();
  for (const KernelValidityModel& k : kernels_) {
    Json training = Json::array();
    for (const TrainingSpaceSummary& s : k.training) {
      training.push_back(
          {{"gpu", s.gpu}, {"path", s.path}, {"entries", s.entries}, {"failures", s.failures}});
    }
    Json predictors = Json::array();
    for (const KnobPredictor& p : k.predictors) predictors.push_back(PredictorToJson(p));
    kernels.push_back({{"name", k.name},
                       {"kernel", k.kernel},
                       {"knobs", k.knobs},
                       {"training", training},
                       {"predictors", predictors}});
  }
  return {{"format", kValidityEnsembleFormat},
          {"version", kValidityEnsembleVersion},
          {"made_by", made_by_},
          {"blueprint",
           {{"version", blueprint_version_},
            {"components", blueprint_components_},
            {"training_gpus", blueprint_training_gpus_}}},
          {"options", options_.ToJson()},
          {"kernels", kernels}};
}

ValidityEnsembleModel ValidityEnsembleModel::FromJson(const Json& json, const std::string& origin) {
  hwaware::CheckModelHeader(json, origin, kValidityEnsembleFormat, kValidityEnsembleVersion,
                            "validity ensemble", kRemake);
  ValidityEnsembleModel m;
  m.made_by_ = StringOr(json, "made_by");
  const Json& blueprint = hwaware::Member(json, "blueprint");
  m.blueprint_version_ = Field<int>(blueprint, "version", origin + ", blueprint");
  hwaware::CheckBlueprintVersion(m.blueprint_version_, origin, kRemake);
  m.blueprint_components_ = Field<int>(blueprint, "components", origin + ", blueprint");
  m.blueprint_training_gpus_ = hwaware::BlueprintTrainingGpus(blueprint, origin + ", blueprint");
  m.options_ =
      ValidityEnsembleOptions::FromJson(hwaware::Member(json, "options"), origin + ", options");
  if (!json.contains("kernels") || !json.at("kernels").is_array()) {
    throw Error(origin + ": missing array 'kernels'");
  }
  for (const Json& k : json.at("kernels")) {
    KernelValidityModel kernel;
    kernel.name = Field<std::string>(k, "name", origin + ", kernels");
    std::string where = origin + ", kernel '" + kernel.name + "'";
    kernel.kernel = Field<std::string>(k, "kernel", where);
    kernel.knobs = Field<std::vector<std::string>>(k, "knobs", where);
    if (k.contains("training")) {
      for (const Json& s : k.at("training")) {
        kernel.training.push_back(
            {Field<std::string>(s, "gpu", where), Field<std::string>(s, "path", where),
             Field<int64_t>(s, "entries", where), Field<int64_t>(s, "failures", where)});
      }
    }
    for (const Json& p : Field<Json>(k, "predictors", where)) {
      kernel.predictors.push_back(PredictorFromJson(p, where, m.blueprint_components_));
    }
    m.kernels_.push_back(std::move(kernel));
  }
  return m;
}

ValidityEnsembleModel ValidityEnsembleModel::Load(const std::string& path) {
  return FromJson(ReadJsonFile(path, "validity ensemble"), path);
}

void ValidityEnsembleModel::Save(const std::string& path) const {
  WriteJsonFileAtomically(path, ToJson(), "validity ensemble");
}

}  // namespace glimpse
