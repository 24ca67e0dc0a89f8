// Synthetic spaces and a runner whose times are a known function of the configuration, shared by
// the tuner and loop tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "glimpse/measure.h"
#include "glimpse/space.h"
#include "glimpse/task.h"
#include "glimpse/tuner.h"

namespace glimpse::testing {

// 5 × 4 × 3 × 2 = 120 raw points, cut by two restrictions.
inline ConfigSpace SmallSpace() {
  ConfigSpace space;
  space.AddKnob(
      Knob::Ordered("block_x", {int64_t{1}, int64_t{2}, int64_t{4}, int64_t{8}, int64_t{16}}));
  space.AddKnob(Knob::Ordered("block_y", {int64_t{1}, int64_t{2}, int64_t{4}, int64_t{8}}));
  space.AddKnob(
      Knob::Categorical("layout", {std::string("row"), std::string("col"), std::string("tiled")}));
  space.AddKnob(Knob::Ordered("unroll", {int64_t{0}, int64_t{1}}));
  space.AddRestriction("block_x * block_y <= 32");
  space.AddRestriction("unroll == 0 or layout != 'row'");
  return space;
}

// `knobs` ordered knobs of `values` values each (0..values-1), with the restriction that the first
// two do not both sit at their top value, so that restrictions are exercised.
inline ConfigSpace GridSpace(int knobs, int values) {
  ConfigSpace space;
  std::vector<KnobValue> list;
  for (int v = 0; v < values; ++v) list.emplace_back(std::in_place_type<int64_t>, v);
  for (int k = 0; k < knobs; ++k) space.AddKnob(Knob::Ordered("k" + std::to_string(k), list));
  if (knobs >= 2) {
    space.AddRestriction("k0 + k1 < " + std::to_string(2 * (values - 1)));
  }
  return space;
}

inline Task MakeTask(ConfigSpace space, std::string name = "synthetic") {
  Task task;
  task.name = std::move(name);
  task.device = "Synthetic GPU";
  task.space = std::move(space);
  task.description = {{"kernel", task.name}};
  return task;
}

// time_s = base · (1 + Σ_k (index_k − target_k)²): smooth, with its unique optimum `base` at
// `target`. Configurations whose dense index is a multiple of `fail_every` fail (0: none fail).
class SyntheticRunner : public Runner {
 public:
  SyntheticRunner(const ConfigSpace& space, std::vector<uint32_t> target, uint64_t fail_every = 0,
                  bool simulated = true, double cost_s = 0.5)
      : space_(space),
        target_(std::move(target)),
        fail_every_(fail_every),
        simulated_(simulated),
        cost_s_(cost_s) {}

  static constexpr double kBase = 1e-3;  // seconds

  double TimeOf(const Config& config) const {
    double sum = 0.0;
    for (size_t k = 0; k < config.indices.size(); ++k) {
      double d = static_cast<double>(config.indices[k]) - static_cast<double>(target_[k]);
      sum += d * d;
    }
    return kBase * (1.0 + sum);
  }
  bool Fails(const Config& config) const {
    return fail_every_ > 0 && space_.ToDenseIndex(config) % fail_every_ == 0;
  }

  MeasureResult Measure(const Config& config) const {
    MeasureResult result;
    result.cost_s = cost_s_;
    if (Fails(config)) {
      result.status = MeasureStatus::kRuntimeDevice;
      result.error = "synthetic launch failure";
      return result;
    }
    result.status = MeasureStatus::kOk;
    result.time_s = TimeOf(config);
    result.samples_s = {result.time_s, result.time_s};
    return result;
  }

  std::vector<MeasureResult> Run(const std::vector<MeasureInput>& inputs,
                                 const std::vector<BuildResult>& builds) override {
    std::vector<MeasureResult> out;
    for (const MeasureInput& input : inputs) out.push_back(Measure(input.config));
    runs_ += static_cast<int64_t>(inputs.size());
    return out;
  }
  bool IsSimulated() const override { return simulated_; }
  int64_t runs() const { return runs_; }

 private:
  const ConfigSpace& space_;
  std::vector<uint32_t> target_;
  uint64_t fail_every_;
  bool simulated_;
  double cost_s_;
  int64_t runs_ = 0;
};

// Drives a tuner without the loop: Propose(batch) → measure with `runner` → Observe, until
// `limit` proposals or exhaustion. Returns every proposal in order.
inline std::vector<Config> Drive(Tuner& tuner, const Task& task, SyntheticRunner& runner,
                                 uint64_t seed, size_t batch, size_t limit = SIZE_MAX) {
  tuner.Init(task, seed);
  std::vector<Config> all;
  while (all.size() < limit) {
    std::vector<Config> configs = tuner.Propose(std::min(batch, limit - all.size()));
    if (configs.empty()) break;
    std::vector<MeasureResult> results;
    for (const Config& config : configs) results.push_back(runner.Measure(config));
    tuner.Observe(configs, results);
    all.insert(all.end(), configs.begin(), configs.end());
  }
  return all;
}

}  // namespace glimpse::testing
