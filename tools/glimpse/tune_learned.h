// `glimpse tune --target cpu --cost-model FILE [--hardware-budget N]`: tuning with a pretrained
// performance model — the learned network or XGBoost on loop features fitted on the corpus
// (docs/perf-tuning.md). Defined in tune_learned.cc.
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>

#include "glimpse/program_time_model.h"
#include "glimpse/tune_tasks.h"
#include "tune_flags.h"

namespace glimpse::cli {

// The flags as the run uses them: with --cost-model, the strategy xgb unless --tuner names another
// that takes a pretrained model; with --hardware-budget N, also --budget N per task, measured in
// rounds (--batch, default N/4 and at most 16) whose plan is the round — the strategy refits its
// online model and searches again after each — or, when --batch ≥ N, one plan large enough that
// the N measurements are all the model's first picks. Throws Error naming the flag:
// --hardware-budget without --cost-model, with --budget or --global-budget, not positive, or with
// a --batch whose rounds would end in random picks; --cost-model with a strategy that takes no
// pretrained model.
TuneFlags ApplyCostModelFlags(const TuneFlags& flags);

// The model of --cost-model (null without it): either kind of performance-model file, by its
// architecture (LoadProgramTimeModel), with a warning on `warnings` when it was trained on another
// machine. Throws Error naming --cost-model for a file that is not a model of this glimpse (the
// loader's message).
std::shared_ptr<const ProgramTimeModel> LoadCostModelFlag(const TuneFlags& flags,
                                                          std::ostream& warnings);

// Each task's LearnedCostModel over its space, for TuneTasksOptions::pretrained_model.
std::function<std::shared_ptr<const CostModel>(const ModelTask&, const Task&)> LearnedCostModels(
    std::shared_ptr<const ProgramTimeModel> model);

}  // namespace glimpse::cli
