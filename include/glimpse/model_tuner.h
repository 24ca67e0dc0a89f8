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
//   - budget_rounds N (0 by default, as AutoTVM; 4 for the registered "xgb-rounds"): the plan is
//     sized to the run's measurement budget, so that the model is fitted about N times within it
//     (see XgbTunerOptions::budget_rounds).
//   - Validity-driven initialisation (validity_init, Rieber et al., see below and
//     src/model/rieber_init.h): at Init, presampling classifies min(n_samples, |S|)
//     configurations with the context's validity checker (checks, not measurements); the first
//     proposals are E0 (up to e0_valid valid and the rest invalid, e0_size in all, each part
//     spread out in Manhattan distance), measured like any other proposal; the first model is
//     fitted once E0 is observed, then every plan_size observations; the planner's scores are
//     biased by what is known: known invalid (checked or measured) → −10^6, known valid → +1.
// Observed configurations (including ones this tuner never proposed) are never proposed again.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "glimpse/cost_model.h"
#include "glimpse/json.h"
#include "glimpse/measure.h"
#include "glimpse/space.h"
#include "glimpse/tuner.h"
#include "glimpse/validity.h"

namespace glimpse {

struct XgbTunerOptions {
  int plan_size = 64;  // measurements per refit and plan
  // 0 (AutoTVM): plan_size as given. N ≥ 1: the plan is sized to the run's measurement budget B
  // (TuningContext::max_measurements), ceil(B / N) but at least 8 and at most plan_size, so that
  // the model is fitted N times or so within the budget. With AutoTVM's plan of 64, a run of 64
  // measurements or fewer is all random picks (the first fit comes after 64), and most tasks of a
  // model's global budget get fewer than that. No budget (a time budget alone): plan_size.
  int budget_rounds = 0;
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

  // Transfer learning takes TargetKnowledge::history (given at Init): measured records of the same
  // space (same knobs and value order, so that a Config means the same point) from other devices
  // or earlier runs. Failed records count with score 0. Configurations outside the space's
  // ranges are an Error at Init.
  int min_seed_records = 500;  // fewer history records than this: no transfer (as AutoTVM)

  // A pretrained cost model (TargetKnowledge::pretrained_model, the learned performance model):
  // its best predicted configurations are the first plan, measured before anything else. Then
  // "base": it stays on as the base model of every fit, as a transfer base does (its discounted
  // prediction is the base margin: 2^(−n/64) for n observations, dropped after 276), so the
  // tuner's own model learns what the pretrained one gets wrong on this operator; "first-plan":
  // the tuner's own model alone from the first fit on; "choose" (the pretrained model must be a
  // CostModelChoice, glimpse/cost_model_choice.h): the first plan is every member's best in turn,
  // and the member whose picks measured fastest is the base from the first fit on. A history
  // base model (above) takes precedence over it.
  std::string pretrained = "base";

  // Validity-driven initialisation (Rieber et al.) with TargetKnowledge::validity_checker. Init
  // throws Error when validity_init is set and no checker was given: the checker belongs to the
  // task's device (for replay, a ReplayValidityChecker on the replayed space), so whoever makes
  // the runner makes it too.
  bool validity_init = false;
  int n_parallel = 16;   // configurations checked per presampling round
  int n_samples = 1000;  // configurations presampling classifies, min(n_samples, |S|)
  int e0_size = 50;      // the first measured batch E0
  int e0_valid = 25;     // valid members of E0 at most (the rest invalid where there are enough)

  // The plan size of a run with this measurement budget (see budget_rounds).
  int PlanSizeForBudget(int64_t max_measurements) const;

  // Keys: plan_size, budget_rounds, loss_type, feature_type, num_threads, optimizer,
  // diversity_filter_ratio, log_interval, sa_parallel_size, sa_n_iter, sa_early_stop,
  // min_seed_records, pretrained, validity_init, n_parallel, n_samples, e0_size, e0_valid. Unknown
  // keys and bad values are an Error naming the tuner, the key and what is accepted. `tuner_name`
  // is used in those messages.
  static XgbTunerOptions FromJson(const Json& options, const std::string& tuner_name = "xgb");
  void Validate(const std::string& tuner_name = "xgb") const;
};

// The random slots at the end of every plan of `plan_size` (AutoTVM's ε-greedy: int(0.05 ·
// plan_size)), shared by the xgb and Chameleon tuners.
inline size_t PlanRandomTail(int plan_size) { return static_cast<size_t>(0.05 * plan_size); }

// The XGBoost tuner. Name() is "xgb-reg" for regression loss; for rank loss "xgb-rounds" with
// budget_rounds ≥ 1 and "xgb" without (AutoTVM's).
std::unique_ptr<Tuner> MakeXgbTuner(const XgbTunerOptions& options = {});

// ---- Learning from other devices' records (TargetKnowledge::history; AutoTVM's load_history)

// The boosting a model of a history gets (AutoTVM's transfer base model): at most this many
// rounds, stopping after this many without improvement.
inline constexpr int kHistoryModelBoostRounds = 400;
inline constexpr int kHistoryModelEarlyStop = 100;

// An XGBoost cost model of `history` — `options`' loss, features, seed and recall k with the
// boosting above — fitted on every record scored 1/time (failures and non-positive times 0); null
// when the history holds fewer than `min_records` records. Error naming `tuner` and the record for
// a configuration outside `space` (which outlives the model).
std::unique_ptr<CostModel> FitHistoryModel(const ConfigSpace& space, const TransferHistory& history,
                                           XgbCostModelOptions options, const std::string& tuner,
                                           size_t min_records = 0);

// Registers "xgb" (rank loss), "xgb-rounds" (rank loss, budget_rounds 4: glimpse's pacing, not
// AutoTVM's), "xgb-reg" (regression loss), "chameleon" and "dgp"
// (glimpse/dgp_tuner.h) in the tuner registry.
// Idempotent: later calls do nothing. The command line calls it at startup.
void RegisterModelTuners();

// ---------------------------------------------------------------------------------------------
// Chameleon's adaptive sampling (Ahn et al., "Chameleon: Adaptive Code Optimization for Expedited
// Deep Neural Network Compilation", ICLR 2020) on top of the XGBoost tuner above. docs/chameleon.md
// says which parts of Chameleon are built, which are left out, and where it differs from the paper
// and its code.
//   - Before the first model, and while no observation succeeded: uniform random proposals.
//   - A plan: refit the XGBoost model on every observation (when there are new ones and at least
//     plan_size in all), let the simulated annealing planner propose plan_size · candidate_ratio
//     unvisited candidates, cluster them with k-means on standardised knob indices for every
//     k in [k_min, k_max], take k at the knee of the inertia curve, and plan the candidate
//     nearest each centroid (best predicted first). The plan's length k varies from plan to plan.
//   - Propose(n) hands out the plan; the last int(0.05 · plan_size) slots of each plan are random
//     unvisited configurations (AutoTVM's ε-greedy, kept by Chameleon). When a plan is used up
//     within or between calls, the next one is made at once (refitting first if results came in
//     since the last fit), so n and k are independent: a call may span plans, a plan many calls.
//   - A planned configuration observed after planning is replaced at hand-out by its cluster's
//     per-knob mode (Chameleon's sample synthesis), or else the cluster's next-nearest member.
// Observed configurations (including ones this tuner never proposed) are never proposed again.

// What one plan was made of; given to ChameleonOptions::on_plan (logging, benchmarks, tests).
struct ChameleonPlanInfo {
  size_t candidates = 0;        // unvisited candidates the planner returned
  size_t k = 0;                 // clusters chosen at the knee (0 when there were no candidates)
  size_t planned = 0;           // configurations in the plan (non-empty clusters)
  bool refitted = false;        // the model was refitted for this plan
  std::vector<size_t> ks;       // the k values tried, increasing
  std::vector<double> inertia;  // k-means inertia (standardised units²) for each of ks
};

struct ChameleonOptions {
  // The cost model and planner, as in XgbTunerOptions.
  int plan_size = 64;                 // first fit after this many observations; ε-greedy slots
  std::string loss_type = "rank";     // "rank" or "reg"
  std::string feature_type = "knob";  // "knob" or "index" (the cost model's features)
  int num_threads = 1;                // XGBoost threads; 0: every core
  int log_interval = 0;               // progress lines on stderr (also one per plan); 0: silent
  int sa_parallel_size = 128;
  int sa_n_iter = 500;
  int sa_early_stop = 50;

  // Adaptive sampling.
  double candidate_ratio = 1.0;     // the planner returns plan_size · candidate_ratio candidates
                                    // (1: Chameleon's plan_size top candidates)
  int k_min = 8;                    // smallest k tried (Chameleon's first k); capped at the largest
  int k_max = 0;                    // largest k tried, 0: plan_size (Chameleon's max_sample_cnt);
                                    // capped at the number of candidates
  int kmeans_max_iterations = 100;  // Lloyd iterations per k at most (Chameleon's max_iter)

  std::function<void(const ChameleonPlanInfo&)> on_plan;  // called once per plan when set

  // Keys: the XgbTunerOptions keys plan_size, loss_type, feature_type, num_threads, log_interval,
  // sa_parallel_size, sa_n_iter, sa_early_stop, and candidate_ratio, k_min, k_max,
  // kmeans_max_iterations. Unknown keys and bad values are an Error naming "chameleon", the key
  // and what is accepted.
  static ChameleonOptions FromJson(const Json& options);
  void Validate() const;
};

// The Chameleon tuner; Name() is "chameleon".
std::unique_ptr<Tuner> MakeChameleonTuner(const ChameleonOptions& options = {});

}  // namespace glimpse
