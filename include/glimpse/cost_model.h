// glimpse/cost_model.h — learned cost models that score configurations without measuring them.
//
// A cost model maps configurations of one ConfigSpace to scores where higher means faster. It is
// batched (Fit and Predict take whole vectors: the simulated-annealing planner scores 128
// candidates per call, hundreds of calls per plan) and versioned: the features it was trained on
// are named by a feature-version string that is stored in every saved model, and Load refuses a
// file whose version differs, because a model applied to other features predicts garbage silently.
//
// The XGBoost model follows AutoTVM's XGBoostCostModel (python/tvm/autotvm/tuner/
// xgboost_cost_model.py): max_depth 3, gamma 1e-4, min_child_weight 1, subsample 1, eta 0.3,
// lambda 1, alpha 0, up to 8000 boosting rounds with early stopping after 20 rounds without
// improvement of the average top-k recall ("a-recall@k") on the training set. See
// docs/autotvm-differences.md for where glimpse differs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "glimpse/json.h"
#include "glimpse/space.h"

namespace glimpse {

class CostModel {
 public:
  virtual ~CostModel() = default;

  // Names the model family, the features and the space they are computed on, e.g.
  // "glimpse-xgb/1 features=knob width=10 space=0123456789abcdef". Stored in saved files.
  virtual std::string FeatureVersion() const = 0;

  // Trains a fresh model on `configs` (valid configurations of the model's space) and their
  // `scores`: throughput-like, higher is better, failed configurations 0 (AutoTVM feeds flops and
  // 0 for errors). Scores are normalised by their maximum inside, so their unit does not matter.
  // Replaces the previous model. Throws Error when the sizes differ or `configs` is empty.
  virtual void Fit(const std::vector<Config>& configs, const std::vector<double>& scores) = 0;

  // One score per configuration, higher = predicted faster. The scale is the model's own (a rank
  // margin for pairwise loss, a normalised throughput for regression): compare scores of one model
  // with each other only. Throws Error when the model was neither fitted nor loaded.
  virtual std::vector<double> Predict(const std::vector<Config>& configs) const = 0;

  // True once Fit or Load succeeded.
  virtual bool IsFitted() const = 0;

  // Transfer learning (AutoTVM load_basemodel): `base` (fitted on records of other devices or
  // tasks of the same space) contributes discount · base.Predict(x) as the base margin of every
  // later Fit and Predict, with discount = 2^(−n/64) for n training samples of the last Fit; the
  // base is dropped once the discount falls under 0.05 (n > 276). nullptr detaches it.
  virtual void SetBaseModel(std::shared_ptr<const CostModel> base) = 0;
  virtual bool HasBaseModel() const = 0;

  // Writes the fitted model and its feature version to `path` (a JSON file). The base model is not
  // saved: a loaded model predicts without it. Throws Error naming the path on I/O failure.
  virtual void Save(const std::string& path) const = 0;
  // Reads a model written by Save. Throws Error naming the path when the file is missing or is
  // not a glimpse cost model, and when its feature version differs from FeatureVersion() (the
  // message shows both).
  virtual void Load(const std::string& path) = 0;
};

struct XgbCostModelOptions {
  // "rank": pairwise ranking loss (rank:pairwise, AutoTVM's default). "reg": squared error on the
  // normalised throughput (AutoTVM's "reg:linear", which XGBoost renamed reg:squarederror).
  std::string loss_type = "rank";
  // "knob": Knob::WriteFeatures of every knob (FeatureKind::kKnobValues, AutoTVM's "knob").
  // "index": the value index of every knob (FeatureKind::kKnobIndices).
  std::string feature_type = "knob";
  // XGBoost nthread; 0: every hardware thread. One by default: on these small matrices (≤ ~10^4
  // rows × tens of features) OpenMP synchronisation costs more than it saves, and far more on a
  // loaded machine (bench/results/xgb_overhead.md).
  int num_threads = 1;
  int num_boost_round = 8000;      // upper bound on boosting rounds
  int early_stopping_rounds = 20;  // stop after this many rounds without a better a-recall@k
  int recall_k = 64;               // k of the early-stopping metric (the tuner's plan size)
  uint64_t seed = 0;               // XGBoost "seed" and the training-row shuffle
  int log_interval = 0;            // print the metric every this many rounds to stderr; 0: never

  // Throws Error naming the field and the accepted values.
  void Validate() const;
};

FeatureKind FeatureKindFromName(const std::string& feature_type);  // "knob" / "index"

// `space` outlives the model.
std::unique_ptr<CostModel> MakeXgbCostModel(const ConfigSpace& space,
                                            const XgbCostModelOptions& options = {});

}  // namespace glimpse
