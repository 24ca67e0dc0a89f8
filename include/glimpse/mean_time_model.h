// glimpse/mean_time_model.h — several performance models as one: the mean of their ln-time
// predictions (the geometric mean of their times), for `glimpse tune --cost-model A+B` and
// `glimpse perf-model evaluate --predictors file:A+B`.
//
// Why: the learned network and XGBoost on loop features fail on different operators — the network
// orders an unseen kind (a depthwise convolution, a wide classifier) no better than chance while
// the loop features still carry over, and the network is the better guide on the convolutions it
// knows (bench/results/perf_tuning.md, third study). A mean keeps a configuration high only where
// both agree it is fast.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "glimpse/program_time_model.h"

namespace glimpse {

// The mean of the members' PredictLogTimes. Architecture "mean(a+b)"; TrainingInfo
// {"members": [each member's], "machine": the first member's, when it names one}; MadeBy the
// members' joined by " + ". Throws Error for fewer than two members or a null one.
std::shared_ptr<const ProgramTimeModel> MeanOfProgramTimeModels(
    std::vector<std::shared_ptr<const ProgramTimeModel>> members);

// The members of a MeanOfProgramTimeModels, in order; empty for any other model.
std::vector<std::shared_ptr<const ProgramTimeModel>> MembersOfMean(const ProgramTimeModel& model);

// `spec` is a model file (LoadProgramTimeModel), or — when no file of that name exists — files
// joined by '+', read as their mean. Errors name the file they are about.
std::shared_ptr<const ProgramTimeModel> LoadProgramTimeModelSpec(const std::string& spec);

}  // namespace glimpse
