// glimpse/model_tuner.h — model-based search: AutoTVM's XGBTuner.
//
// After AutoTVM's ModelBasedTuner + XGBTuner (python/tvm/autotvm/tuner/model_based_tuner.py,
// xgboost_tuner.py, sa_model_optimizer.py):
//   - Until the first model exists, proposals are uniform random valid configurations.
//   - Whenever the observations reach plan_size · (fits so far + 1) and at least one succeeded,
//     an XGBoost cost model is refitted on every observation (score = 1/time, failures 0) and a
//     parallel simulated annealing over the model plans the next plan_size configurations
//     (unvisited, valid, best predicted first).
//   - Proposals come from that plan; the last 5% of each plan (int(0.05 · plan_size) slots) are
//     replaced by random unvisited configurations (AutoTVM's ε-greedy), and so is everything after
//     the plan runs out until the next refit.
//   - diversity_filter_ratio r (off by default, as in XGBTuner): the planner returns
//     plan_size · r candidates and a greedy submodular selection keeps the plan_size that cover
//     the most distinct knob values.
//   - Transfer learning (AutoTVM load_history): with at least min_seed_records history records, a
//     base model is fitted on them (400 rounds, early stop 100, a-recall@2·plan_size), the first
//     plan is made from it, and later models add its discounted prediction as base margin.
// Observed configurations (including ones this tuner never proposed) are never proposed again.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "glimpse/json.h"
#include "glimpse/measure.h"
#include "glimpse/space.h"
#include "glimpse/tuner.h"

namespace glimpse {

struct XgbTunerOptions {
  int plan_size = 64;                 // measurements per refit and plan
  std::string loss_type = "rank";     // "rank" (rank:pairwise) or "reg" (reg:squarederror)
  std::string feature_type = "knob";  // "knob" or "index", see XgbCostModelOptions
  int num_threads = 1;                // XGBoost threads; 0: every core (see cost_model.h)
  std::string optimizer = "sa";       // the model optimizer; only "sa" exists
  // When set (≥ 1), plan from plan_size · ratio candidates picked for diversity (see above).
  std::optional<double> diversity_filter_ratio;
  // Progress lines on stderr: the planner every log_interval SA iterations, the model every
  // log_interval / 2 boosting rounds (as AutoTVM passes log_interval // 2). 0: silent.
  int log_interval = 0;

  // Simulated annealing of the planner (AutoTVM SimulatedAnnealingOptimizer defaults).
  int sa_parallel_size = 128;  // persistent walkers
  int sa_n_iter = 500;         // iterations at most; temperature falls linearly from 1 to 0
  int sa_early_stop = 50;      // stop after this many iterations without a new top-k entry

  // Transfer learning: measured records of the same space (same knobs and value order, so that a
  // Config means the same point) from other devices or earlier runs. Failed records count with
  // score 0. Configurations outside the space's ranges are an Error at Init.
  std::vector<std::pair<Config, MeasureResult>> history;
  int min_seed_records = 500;  // fewer history records than this: no transfer (as AutoTVM)

  // Keys: plan_size, loss_type, feature_type, num_threads, optimizer, diversity_filter_ratio,
  // log_interval, sa_parallel_size, sa_n_iter, sa_early_stop, min_seed_records. Unknown keys and
  // bad values are an Error naming the tuner, the key and what is accepted. `tuner_name` is used
  // in those messages.
  static XgbTunerOptions FromJson(const Json& options, const std::string& tuner_name = "xgb");
  void Validate(const std::string& tuner_name = "xgb") const;
};

// The XGBoost tuner. Name() is "xgb" for rank loss and "xgb-reg" for regression loss.
std::unique_ptr<Tuner> MakeXgbTuner(const XgbTunerOptions& options = {});

// Registers "xgb" (rank loss) and "xgb-reg" (regression loss) in the tuner registry. Idempotent:
// later calls do nothing. The command line calls it at startup.
void RegisterModelTuners();

}  // namespace glimpse
