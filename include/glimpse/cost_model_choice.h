// glimpse/cost_model_choice.h — several pretrained cost models of which each task's first
// measurements choose one: the xgb tuner's option pretrained=choose (`glimpse tune --cost-model
// A.json+B.json --tuner-option pretrained=choose`, docs/perf-tuning.md).
//
// Why: the learned network and XGBoost on loop features fail on different operators — on an
// unseen kind one of them can order the space no better than chance, confidently — and which
// one is wrong cannot be told before anything is measured. Their mean hedges where one model is
// merely weak, not where one is wrong (bench/results/perf_tuning.md, third study). The tuner
// instead measures the first round from every member's own best predictions, in turn, and keeps
// as its base model the member whose picks ran fastest; the rest of the budget follows that one.
//
// The choice is the tuner's; this class holds the members and, for reports and tests, the
// outcome the tuner records. Used as a plain cost model (a strategy that does not choose, or
// option pretrained=base), it predicts the mean of the members' scores — for scores of
// −ln(predicted seconds), the geometric mean of the predicted times, as `--cost-model A+B` ranks.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "glimpse/cost_model.h"

namespace glimpse {

class CostModelChoice : public CostModel {
 public:
  // What the tuner recorded: `chosen` is the member whose first picks measured fastest (-1
  // before the choice, and after it when none of the first picks succeeded: the mean stays);
  // `best_time_s[m]` the fastest successful time of member m's first picks (+inf when none of
  // them succeeded; empty before the choice).
  struct Outcome {
    int chosen = -1;
    std::vector<double> best_time_s;
  };

  // `names` label the members in reports (the model files). Throws Error for fewer than two
  // members, a null member, or a count of names that differs.
  CostModelChoice(std::vector<std::shared_ptr<const CostModel>> members,
                  std::vector<std::string> names);

  const std::vector<std::shared_ptr<const CostModel>>& members() const { return members_; }
  const std::vector<std::string>& names() const { return names_; }

  // "choice(" + the members' feature versions joined by " | " + ")".
  std::string FeatureVersion() const override;
  // The members are pretrained and frozen: Fit, Save, Load and SetBaseModel are errors.
  void Fit(const std::vector<Config>& configs, const std::vector<double>& scores) override;
  // The mean of the members' scores.
  std::vector<double> Predict(const std::vector<Config>& configs) const override;
  bool IsFitted() const override { return true; }
  void SetBaseModel(std::shared_ptr<const CostModel> base) override;
  bool HasBaseModel() const override { return false; }
  void Save(const std::string& path) const override;
  void Load(const std::string& path) override;

  // Set by the tuner that chose (thread-safe; the model is shared as const, the outcome is a
  // record beside it). Throws Error when `chosen` or the count of times does not fit the members.
  void RecordOutcome(Outcome outcome) const;
  Outcome outcome() const;

 private:
  std::vector<std::shared_ptr<const CostModel>> members_;
  std::vector<std::string> names_;
  mutable std::mutex mutex_;  // guards outcome_
  mutable Outcome outcome_;
};

}  // namespace glimpse
