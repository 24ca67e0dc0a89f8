// Synthetic spaces, runners and cost models for the model-based tuner's tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "glimpse/cost_model.h"
#include "glimpse/error.h"
#include "glimpse/measure.h"
#include "glimpse/random.h"
#include "glimpse/space.h"
#include "glimpse/task.h"
#include "glimpse/tuner.h"

namespace glimpse::model_testing {

inline std::vector<KnobValue> Range(int64_t count) {
  std::vector<KnobValue> values;
  for (int64_t v = 0; v < count; ++v) values.emplace_back(std::in_place_index<0>, v);
  return values;
}

// Five knobs, 10·10·8·8·3 = 19200 raw points; two restrictions leave 85 · 58 · 3 = 14790
// valid ones.
inline ConfigSpace BowlSpace() {
  ConfigSpace space;
  space.AddKnob(Knob::Ordered("a", Range(10)));
  space.AddKnob(Knob::Ordered("b", Range(10)));
  space.AddKnob(Knob::Ordered("c", Range(8)));
  space.AddKnob(Knob::Ordered("d", Range(8)));
  std::vector<KnobValue> layouts;
  for (const char* name : {"row", "col", "tiled"}) {
    layouts.emplace_back(std::in_place_index<2>, name);
  }
  space.AddKnob(Knob::Categorical("layout", std::move(layouts)));
  space.AddRestriction("a + b <= 13");
  space.AddRestriction("c + d <= 11");
  return space;
}

inline Task MakeTask(ConfigSpace space, const std::string& name = "bowl") {
  Task task;
  task.name = name;
  task.device = "Synthetic GPU";
  task.space = std::move(space);
  task.description = {{"kernel", name}};
  return task;
}

// A "device": time_s = scale · (1 + Σ w_k (x_k − t_k)² + layout penalty) · (1 + noise), noise a
// deterministic ±2% hash of the configuration. Configurations with a · b > 56 fail (a resource
// limit). The unique optimum sits at `target` (layout index target[4]).
class BowlDevice {
 public:
  BowlDevice(std::vector<double> target, double scale = 1e-3, uint64_t noise_salt = 0)
      : target_(std::move(target)), scale_(scale), noise_salt_(noise_salt) {}

  static std::vector<double> DefaultTarget() { return {7, 3, 5, 2, 1}; }

  bool Fails(const Config& config) const { return config.indices[0] * config.indices[1] > 56; }
  double TimeOf(const Config& config) const {
    static const double kWeights[4] = {0.08, 0.12, 0.1, 0.15};
    double sum = 0.0;
    for (int k = 0; k < 4; ++k) {
      const double d = config.indices[k] - target_[k];
      sum += kWeights[k] * d * d;
    }
    sum += config.indices[4] == static_cast<uint32_t>(target_[4]) ? 0.0 : 0.6;
    uint64_t h = noise_salt_ * 0x9e3779b97f4a7c15ULL;
    for (uint32_t index : config.indices) h = (h ^ index) * 0x100000001b3ULL + 0x9e37ULL;
    h ^= h >> 29;
    const double noise = (static_cast<double>(h % 10007) / 10006.0 - 0.5) * 0.04;
    return scale_ * (1.0 + sum) * (1.0 + noise);
  }
  MeasureResult Measure(const Config& config) const {
    MeasureResult result;
    if (Fails(config)) {
      result.status = MeasureStatus::kCompileDevice;
      result.error = "too many registers";
      return result;
    }
    result.status = MeasureStatus::kOk;
    result.time_s = TimeOf(config);
    result.samples_s = {result.time_s};
    return result;
  }
  // The fastest valid configuration, by enumeration.
  double BestTime(const ConfigSpace& space) const {
    double best = INFINITY;
    for (uint64_t index : space.ValidIndices()) {
      Config config = space.FromDenseIndex(index);
      if (!Fails(config)) best = std::min(best, TimeOf(config));
    }
    return best;
  }

 private:
  std::vector<double> target_;
  double scale_;
  uint64_t noise_salt_;
};

// A frozen model that predicts −ln(time) of a bowl device: the optimum of `device`, which may be
// another device than the one measured (a model trained on other operators is right about the
// shape of the space and wrong about its details).
class BowlCostModel : public CostModel {
 public:
  explicit BowlCostModel(BowlDevice device) : device_(std::move(device)) {}
  std::string FeatureVersion() const override { return "bowl"; }
  void Fit(const std::vector<Config>&, const std::vector<double>&) override {
    throw Error("a pretrained model is not fitted");
  }
  std::vector<double> Predict(const std::vector<Config>& configs) const override {
    std::vector<double> out;
    for (const Config& config : configs) out.push_back(-std::log(device_.TimeOf(config)));
    predictions_ += configs.size();
    return out;
  }
  bool IsFitted() const override { return true; }
  void SetBaseModel(std::shared_ptr<const CostModel>) override {}
  bool HasBaseModel() const override { return false; }
  void Save(const std::string&) const override {}
  void Load(const std::string&) override {}
  size_t predictions() const { return predictions_; }

 private:
  BowlDevice device_;
  mutable size_t predictions_ = 0;
};

// The mean time of the configurations `device` runs (+inf when none does).
inline double MeanOkTime(const BowlDevice& device, const std::vector<Config>& configs) {
  double sum = 0.0;
  size_t ok = 0;
  for (const Config& config : configs) {
    if (device.Fails(config)) continue;
    sum += device.TimeOf(config);
    ++ok;
  }
  return ok ? sum / ok : INFINITY;
}

// Proposes/observes until `budget` measurements; returns every proposal in order. With
// `tell_budget`, the tuner is told the budget at Init (TuningContext::max_measurements), as
// Tune() tells it.
inline std::vector<Config> Drive(Tuner& tuner, const Task& task, const BowlDevice& device,
                                 uint64_t seed, size_t batch, size_t budget,
                                 bool tell_budget = false) {
  tuner.Init(TuningContext{&task, seed, {}, tell_budget ? static_cast<int64_t>(budget) : 0});
  std::vector<Config> all;
  while (all.size() < budget) {
    std::vector<Config> configs = tuner.Propose(std::min(batch, budget - all.size()));
    if (configs.empty()) break;
    std::vector<MeasureResult> results;
    for (const Config& config : configs) results.push_back(device.Measure(config));
    tuner.Observe(configs, results);
    all.insert(all.end(), configs.begin(), configs.end());
  }
  return all;
}

inline std::vector<Config> SampleConfigs(const ConfigSpace& space, size_t n, uint64_t seed) {
  Rng rng(seed);
  std::vector<Config> configs;
  while (configs.size() < n) configs.push_back(*space.SampleValid(rng));
  return configs;
}

// Fraction of pairs (i, j) with distinct truths that `predicted` orders as `truth` does.
inline double PairwiseAccuracy(const std::vector<double>& predicted,
                               const std::vector<double>& truth) {
  size_t agree = 0, total = 0;
  for (size_t i = 0; i < truth.size(); ++i) {
    for (size_t j = i + 1; j < truth.size(); ++j) {
      if (truth[i] == truth[j]) continue;
      ++total;
      if ((predicted[i] - predicted[j]) * (truth[i] - truth[j]) > 0) ++agree;
    }
  }
  return total == 0 ? 0.0 : static_cast<double>(agree) / static_cast<double>(total);
}

inline double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace glimpse::model_testing
