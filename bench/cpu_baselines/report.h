// bench/cpu_baselines/report.h — everything one cpu_baselines run found, and its three renderings:
// JSON (every sample), Markdown (the tables and the notes a reader needs) and the console lines.
#pragma once

#include <string>
#include <vector>

#include "glimpse/json.h"
#include "peak.h"
#include "protocol.h"

namespace glimpse::baselines {

// The result columns, in table order.
inline const std::vector<std::string> kVariants = {"onednn_blocked", "onednn_plain",
                                                   "openblas_sgemm", "openblas_sgemv"};

struct OpResult {
  std::string op;      // canonical form (OperatorToString)
  std::string source;  // "bench/configs/resnet18_cpu_tasks.txt:3", "--op" or "built-in"
  double flops = 0;    // OperatorFlops: 2 · multiply-adds, the epilogue not counted
  std::vector<Measurement> measurements;
  const Measurement* Find(const std::string& variant) const;
};

struct RunRecord {
  std::string command;      // the command line, shell-quoted
  std::string started_utc;  // ISO 8601
  MachineInfo machine;
  int niceness = 0;
  std::string load_start, load_end;  // /proc/loadavg at the start and the end
  std::string openmp;                // threads, binding and the CPU each OpenMP thread ran on
  std::string onednn;                // OneDnnDescription()
  std::string openblas;              // OpenBlasDescription()
  std::string openblas_threads;      // ConfigureOpenBlas()
  Protocol protocol;
  std::vector<PeakResult> peak;
  bool check = false;
  std::string checker_self_test;       // "passed" or what failed
  std::vector<OpResult> small_checks;  // built-in small shapes, checked, not timed
  std::vector<OpResult> ops;           // the timed operators
  double seconds = 0;                  // wall-clock of the whole run
};

Json ToJson(const RunRecord& record);
std::string ToMarkdown(const RunRecord& record);

// One console line for a finished measurement: "  onednn_blocked   0.412 ms  280.1 GFLOP/s …".
std::string ConsoleLine(const OpResult& op, const Measurement& m);

// GFLOP/s of a measurement of `op` at its median; 0 when nothing was timed.
double Gflops(const OpResult& op, const Measurement& m);

}  // namespace glimpse::baselines
