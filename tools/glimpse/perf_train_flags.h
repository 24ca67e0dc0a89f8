// The learned performance model's training options as flags: the same names, defaults and help
// in `glimpse train perf-model` and `glimpse perf-model evaluate` (which trains graphsage and lstm
// on each split).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "glimpse/perf_training.h"

namespace glimpse::cli {

// --epochs --batch-size --hidden --hops --readout-hidden --lr --rank-loss --rank-loss-weight
// --validation-fraction --patience on `command`, into `options` (and `rank_loss`, the name
// ParsePerfRankLoss reads). `help_prefix` starts each help text ("graphsage/lstm: ").
void AddPerfTrainFlags(CLI::App* command, PerfModelTrainOptions& options, std::string& rank_loss,
                       const std::string& help_prefix = "");

}  // namespace glimpse::cli
