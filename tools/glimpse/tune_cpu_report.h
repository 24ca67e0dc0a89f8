// What `glimpse tune --target cpu` and `--target cuda` print: a table with one row per distinct
// operator (task), the estimated whole-model latency, or the same as JSON.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "glimpse/json.h"
#include "glimpse/model_zoo.h"
#include "glimpse/tuning_loop.h"

namespace glimpse::cli {

// One task of the run and what became of it.
struct CpuTaskOutcome {
  ModelTask task;                      // operator, weight, layer names
  std::string workload_key;            // empty when no Task could be made
  std::string error;                   // set when the task could not be tuned (no template yet)
  int64_t budget = 0;                  // measurement budget (0: only --time-budget limits it)
  std::optional<TuneSummary> summary;  // set once tuned
  Json best_config;                    // by knob name; null when nothing succeeded
  bool build_only = false;             // candidates were built and checked, never run

  // "tuned", "all-failed" (measured, nothing ok), "no-template" (see `error`) or, for a
  // build-only run, "built" (some candidate built ok).
  std::string Status() const;
  double BestTime() const;  // seconds; +inf unless tuned
};

struct CpuTuneReport {
  std::string target = "cpu";  // "cpu" or "cuda"
  std::string arch;            // cuda: the architecture kernels were compiled for ("sm_90")
  bool build_only = false;     // cuda --build-only: nothing ran, there are no times
  std::string model;           // canonical zoo name; empty for --op runs
  int64_t layers = 0;          // layers the tasks stand for (Σ weights)
  std::string device;
  std::string tuner;
  uint64_t seed = 0;
  std::string budget_kind;  // "per-task", "global" or "time"
  int64_t budget = 0;       // --budget or --global-budget
  std::string database;     // empty with --no-db
  std::vector<CpuTaskOutcome> tasks;
};

// The operator's text without the fields at their defaults (still what --op accepts):
// "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,pad=1,bias=1".
std::string CompactOp(const std::string& op_text);

void PrintCpuReport(const CpuTuneReport& report, std::ostream& out);
Json CpuReportToJson(const CpuTuneReport& report);

}  // namespace glimpse::cli
