// glimpse/learned_cost_model.h — a pretrained performance model (glimpse/program_time_model.h: the
// learned network of glimpse/perf_model.h, or XGBoost on loop features fitted on the corpus,
// glimpse/xgb_perf_model.h) as the cost model of a model-based tuner: it ranks configurations of
// an operator that was never measured, from the programs they make (docs/perf-tuning.md).
//
// The scores are −ln(predicted seconds) of each configuration's program: higher is faster,
// and differences are log-ratios of time, on the scale of the rank margin of the tuners' own
// XGBoost models, to which the learned model is a base (CostModel::SetBaseModel). A configuration
// whose program cannot be built (the template refuses it) scores kUnbuildableScore.
//
// The model is pretrained and frozen: Fit, Save and Load are errors, and it takes no base model.
// Predictions are cached by configuration, so the simulated-annealing planner, which scores the
// same walkers' neighbourhoods again and again, pays for each program once; new programs are
// built and predicted on every core.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "glimpse/cost_model.h"
#include "glimpse/ops.h"
#include "glimpse/perf_model.h"
#include "glimpse/program_time_model.h"
#include "glimpse/space.h"

namespace glimpse {

class LearnedCostModel : public CostModel {
 public:
  // What a configuration whose program cannot be built scores: below any prediction (a kernel
  // of 10^100 s), so a planner never puts it ahead of one that builds.
  static constexpr double kUnbuildableScore = -230.0;

  // `space` is MakeCpuSpace(op)'s (the CPU templates are the programs the featurisers read) and
  // outlives the model. Throws Error for a null model.
  LearnedCostModel(std::shared_ptr<const ProgramTimeModel> model, Operator op,
                   const ConfigSpace& space);
  // The learned network: AsProgramTimeModel(model).
  LearnedCostModel(std::shared_ptr<const PerfModel> model, Operator op, const ConfigSpace& space);

  // "glimpse-perf-model/<architecture> program-graph=<feature version> op=<operator>".
  std::string FeatureVersion() const override;
  // Errors: the learned model is trained by `glimpse train perf-model`, not by a tuner.
  void Fit(const std::vector<Config>& configs, const std::vector<double>& scores) override;
  std::vector<double> Predict(const std::vector<Config>& configs) const override;
  bool IsFitted() const override { return true; }
  void SetBaseModel(std::shared_ptr<const CostModel> base) override;
  bool HasBaseModel() const override { return false; }
  void Save(const std::string& path) const override;
  void Load(const std::string& path) override;

  // Distinct configurations scored so far (each program built and predicted once, or found
  // unbuildable), for reports of the search's cost.
  size_t programs_scored() const;
  // The threads that build and predict new programs (at least 1); hardware_concurrency unless set.
  void set_threads(size_t threads) { threads_ = std::max<size_t>(1, threads); }

 private:
  // Fewer new configurations than this per thread are scored on the calling thread alone.
  static constexpr size_t kMinChunk = 64;

  std::shared_ptr<const ProgramTimeModel> model_;
  Operator op_;
  const ConfigSpace& space_;
  size_t threads_;            // the cores that build and predict programs (hardware_concurrency)
  mutable std::mutex mutex_;  // guards the cache and the counters: Predict is const
  mutable std::unordered_map<Config, double, ConfigHasher> scores_;
};

// The machine a performance model was trained on: its training corpus's machine description
// (the "machine" object of the corpus header: "cpu", "cpus", …), stored by `glimpse train
// perf-model` in the model's training information; null when the model does not say.
Json PerfModelTrainingMachine(const PerfModel& model);
Json PerfModelTrainingMachine(const ProgramTimeModel& model);

// A warning when `model` was trained on another CPU than `cpu` (CpuDeviceName() for this machine)
// or does not say where it was trained: its times are another machine's, so its ranking may not
// carry over. std::nullopt when the CPU names match.
std::optional<std::string> PerfModelMachineWarning(const PerfModel& model, const std::string& cpu,
                                                   const std::string& model_path);
std::optional<std::string> PerfModelMachineWarning(const ProgramTimeModel& model,
                                                   const std::string& cpu,
                                                   const std::string& model_path);

}  // namespace glimpse
