// Pieces of the model-based tuner shared between its source files.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "glimpse/cost_model.h"
#include "glimpse/json.h"
#include "glimpse/model_search.h"
#include "glimpse/model_tuner.h"
#include "glimpse/random.h"

namespace glimpse::model {

// `options` with the keys of `json` applied and validated; errors name `tuner_name`.
XgbTunerOptions ApplyJsonOptions(XgbTunerOptions options, const Json& json,
                                 const std::string& tuner_name);

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
