// What `glimpse tune --target cpu` and `--target cuda` print: a table with one row per distinct
// operator (task) and the estimated whole-model latency (the JSON is TasksReportToJson's).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "glimpse/tune_tasks.h"

namespace glimpse::cli {

// The operator's text without the fields at their defaults (still what --op accepts):
// "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,pad=1,bias=1".
std::string CompactOp(const std::string& op_text);

void PrintTasksReport(const TasksReport& report, std::ostream& out);

}  // namespace glimpse::cli
