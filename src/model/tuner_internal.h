// Pieces of the model-based tuner shared between its source files.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "glimpse/cost_model.h"
#include "glimpse/json.h"
#include "glimpse/model_tuner.h"
#include "glimpse/random.h"
#include "model/sa_optimizer.h"

namespace glimpse::model {

// `options` with the keys of `json` applied and validated; errors name `tuner_name`.
XgbTunerOptions ApplyJsonOptions(XgbTunerOptions options, const Json& json,
                                 const std::string& tuner_name);

// Uniform sampling of valid configurations outside a visited set: rejection sampling first, and
// once that keeps hitting visited ones, a scan of the enumerated valid configurations (for spaces
// small enough to enumerate), so that exhaustion is detected exactly there.
class UnvisitedSampler {
 public:
  static constexpr int kMaxRejections = 1000;
  static constexpr double kMaxEnumerableLog10 = 7.5;  // ≈ 3·10^7 raw points

  void Reset(const ConfigSpace* space);
  std::optional<Config> Next(Rng& rng, const ConfigSet& visited);

 private:
  const ConfigSpace* space_ = nullptr;
  bool enumerated_ = false;
  std::vector<uint64_t> valid_;  // dense indices of every valid configuration once enumerated
};

// The cost model's settings from a tuner's options (XgbTunerOptions, ChameleonOptions), as
// AutoTVM's XGBTuner hands them to its XGBoostCostModel.
template <typename TunerOptions>
XgbCostModelOptions CostModelOptions(const TunerOptions& options, uint64_t seed) {
  XgbCostModelOptions model;
  model.loss_type = options.loss_type;
  model.feature_type = options.feature_type;
  model.num_threads = options.num_threads;
  model.recall_k = options.plan_size;
  model.seed = seed;
  model.log_interval = options.log_interval / 2;  // as XGBTuner passes log_interval // 2
  return model;
}

// The SA planner's settings from a tuner's options: XgbTunerOptions and ChameleonOptions name
// them alike.
template <typename TunerOptions>
SaOptions PlannerOptions(const TunerOptions& options) {
  SaOptions sa;
  sa.parallel_size = options.sa_parallel_size;
  sa.n_iter = options.sa_n_iter;
  sa.early_stop = options.sa_early_stop;
  sa.log_interval = options.log_interval;
  return sa;
}

}  // namespace glimpse::model
