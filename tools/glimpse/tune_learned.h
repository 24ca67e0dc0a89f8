// `glimpse tune --target cpu --cost-model FILE [--hardware-budget N]`: tuning with a pretrained
// performance model — the learned network or XGBoost on loop features fitted on the corpus
// (docs/perf-tuning.md). Defined in tune_learned.cc.
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "glimpse/cost_model_choice.h"
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
// pretrained model; --tuner-option pretrained=choose without --cost-model.
TuneFlags ApplyCostModelFlags(const TuneFlags& flags);

// The model of --cost-model (null without it): either kind of performance-model file, by its
// architecture (LoadProgramTimeModel), with a warning on `warnings` when it was trained on another
// machine. Throws Error naming --cost-model for a file that is not a model of this glimpse (the
// loader's message).
std::shared_ptr<const ProgramTimeModel> LoadCostModelFlag(const TuneFlags& flags,
                                                          std::ostream& warnings);

// The choices of --tuner-option pretrained=choose, one per task tuned, in order.
struct ModelChoiceLog {
  std::vector<std::string> files;  // the --cost-model files, the members in order
  std::vector<std::pair<std::string, std::shared_ptr<const CostModelChoice>>> tasks;  // op text
};

// Each task's LearnedCostModel over its space, for TuneTasksOptions::pretrained_model. With
// --tuner-option pretrained=choose, a CostModelChoice of one LearnedCostModel per file of
// `--cost-model A.json+B.json` instead, each recorded in `choices` (not null then). Throws Error
// naming the option when pretrained=choose is given one model.
std::function<std::shared_ptr<const CostModel>(const ModelTask&, const Task&)> LearnedCostModels(
    std::shared_ptr<const ProgramTimeModel> model, const TuneFlags& flags,
    std::shared_ptr<ModelChoiceLog> choices);

// "model chosen per task (--tuner-option pretrained=choose):" and a line per task: the file its
// first measurements chose and the fastest time of each file's first picks. Nothing when no task
// was given a choice.
void PrintModelChoices(const ModelChoiceLog& choices, std::ostream& out);

// The same in the JSON report of `glimpse tune --json`: each task given a choice gets
// "cost_model_choice": {"chosen": the file or null, "reason": why, "first_picks": [{"file",
// "best_time_s" (null when none of its picks ran)}, … one per file in --cost-model order]}.
// The task is found by its "op" text. Nothing changes when no task was given a choice.
void AddModelChoicesToJson(const ModelChoiceLog& choices, Json& report);

}  // namespace glimpse::cli
