// Pieces of the model-based tuner shared between its source files.
#pragma once

#include <cstdint>
#include <memory>
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

// Seed of the planner's random stream, apart from the tuner's own.
constexpr uint64_t kPlannerSeedSalt = 0x5a17'0001;

// What the model-guided tuners (xgb, chameleon) share: the cost model, the simulated-annealing
// planner over it, the sampler of unvisited configurations, and every observation with its score
// (AutoTVM's: 1 / time for a successful measurement, 0 otherwise).
struct ModelGuidedSearch {
  std::unique_ptr<CostModel> model;
  std::unique_ptr<SaOptimizer> optimizer;
  UnvisitedSampler sampler;
  ConfigSet visited;       // observed (measured or resumed)
  std::vector<Config> xs;  // every observation, in order
  std::vector<double> ys;  // its score
  double score_max = 0.0;

  // A fresh search of `space` with the tuner's model and planner options (XgbTunerOptions,
  // ChameleonOptions).
  template <typename TunerOptions>
  void Reset(const ConfigSpace& space, const TunerOptions& options, uint64_t seed) {
    model = MakeXgbCostModel(space, CostModelOptions(options, seed));
    optimizer =
        std::make_unique<SaOptimizer>(space, PlannerOptions(options), seed ^ kPlannerSeedSalt);
    sampler.Reset(&space);
    visited.clear();
    xs.clear();
    ys.clear();
    score_max = 0.0;
  }

  // Records each configuration with its result's score and returns, per configuration, whether it
  // succeeded. Error naming `tuner` when the counts differ or a configuration is not in `space`.
  std::vector<bool> Record(const ConfigSpace& space, const std::string& tuner,
                           const std::vector<Config>& configs,
                           const std::vector<MeasureResult>& results);
};

}  // namespace glimpse::model
