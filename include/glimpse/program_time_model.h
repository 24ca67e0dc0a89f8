// glimpse/program_time_model.h — a pretrained, frozen predictor of a program's run time: what
// LearnedCostModel (glimpse/learned_cost_model.h) ranks an operator's configurations with and
// `glimpse tune --cost-model FILE` loads (docs/perf-tuning.md).
//
// Two kinds of model file ("format": "glimpse-perf-model") are such predictors, told apart by
// their "architecture":
//   - "graphsage", "lstm": the learned network (glimpse/perf_model.h), which reads the program
//     graph; AsProgramTimeModel wraps it;
//   - "xgb-loop-features": XGBoost on loop features fitted once on the corpus
//     (glimpse/xgb_perf_model.h, AutoTVM's load_history); LoadProgramTimeModel there reads either.
//
// Units: ln(seconds) per program.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "glimpse/json.h"
#include "glimpse/loop_nest.h"
#include "glimpse/perf_model.h"

namespace glimpse {

class ProgramTimeModel {
 public:
  virtual ~ProgramTimeModel() = default;
  // The file's "architecture": "graphsage", "lstm", "xgb-loop-features".
  virtual std::string Architecture() const = 0;
  // ln(seconds) of each nest, in order (a CPU template's nest: MakeCpuNest). Batched and safe to
  // call from several threads; no nest is modified.
  virtual std::vector<double> PredictLogTimes(const std::vector<const LoopNest*>& nests) const = 0;
  // The file's "training" object: what it was trained on ("corpus", "machine" — the corpus
  // header's machine —, exclusions, examples …); an empty object when it does not say.
  virtual const Json& TrainingInfo() const = 0;
  // The command line that made it ("" when unknown).
  virtual std::string MadeBy() const = 0;
};

// What a network's output is relative to, per program: ln of the roofline's estimate of the
// nest's time (glimpse/perf_predictor.h LogRooflineEstimate) for a network of
// ln(time / estimate).
using ProgramLogOffset = std::function<double(const LoopNest&)>;

// The learned network as a program-time model: each nest's program graph (BuildProgramGraph)
// through PerfModel::PredictLogTimes, plus `log_offset` of the nest when given. Throws Error for a
// null model, and for a network relative to the roofline without an offset
// (LoadProgramTimeModel gives it the estimate of the file's profile).
std::shared_ptr<const ProgramTimeModel> AsProgramTimeModel(std::shared_ptr<const PerfModel> model,
                                                           ProgramLogOffset log_offset = nullptr);

}  // namespace glimpse
