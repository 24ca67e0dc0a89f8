// The flags of `glimpse tune`, shared by its paths: replay of a recorded space (tune_replay.cc),
// generated kernels on this CPU (tune_cpu.cc) or on an NVIDIA GPU (tune_cuda.cc).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "glimpse/measure.h"
#include "glimpse/tuning_loop.h"
#include "recorded_source.h"
#include "transfer.h"

namespace glimpse::cli {

struct TuneFlags {
  // Where candidates are measured: "replay" (a recorded space, --space), "cpu" (this machine) or
  // "cuda" (an NVIDIA GPU of this machine).
  std::string target = "replay";

  // Replay only.
  RecordedSourceFlags source;
  bool noise = false;
  double pace_ms = 0.0;
  TransferFlags transfer;

  // --target cpu and cuda (--threads, --overlap-builds: cpu only).
  std::string model;
  std::vector<std::string> input_shapes;  // --input-shape name=1x3x224x224 (ONNX models)
  std::vector<std::string> ops;
  int64_t global_budget = 0;
  int threads = 0;
  bool overlap_builds = false;
  bool warm_activations = false;  // --warm-activations: CpuTargetOptions::warm_activations
  std::string compile_dir;      // --compile DIR: the tuned model compiled, built, checked and timed
  std::string layout = "nchw";  // --layout: nchw, or blocked (activations kept NCHW[b]c)
  std::string cost_model;       // --cost-model FILE: a performance model (glimpse train perf-model)
  int64_t hardware_budget = 0;  // --hardware-budget N: N measurements per task, the model's best
  double run_timeout_s = 10.0;
  double build_timeout_s = 60.0;
  int build_jobs = 0;
  std::string kernel_dir;

  // --target cuda only.
  std::string arch;         // "sm_90"; empty: the device's, or sm_90 for --build-only without one
  int gpu = 0;              // CUDA device ordinal
  bool build_only = false;  // compile and check candidates, run none (no device needed)

  // Both.
  std::string tuner = "ga";
  std::vector<std::string> tuner_options;
  int64_t budget = 200;
  double time_budget_s = 0.0;
  int64_t early_stopping = 0;
  int batch = 16;
  uint64_t seed = 0;
  std::string database = Database::DefaultPath();
  bool no_database = false;
  bool no_resume = false;
  bool no_sibling_history = false;  // TuneTasksOptions::sibling_history off
  int sibling_seeds = 8;            // TuneTasksOptions::sibling_seeds
  int template_seeds = 4;           // CPU: at most this many TuneTasksOptions::template_seeds
  int sibling_sweep = 2;            // TuneTasksOptions::sibling_sweep
  int recheck = 0;                  // TuneTasksOptions::recheck
  std::string progress = "auto";
  bool json = false;

  // The flags given on the command line, by name ("--budget"), filled in before a path runs.
  std::map<std::string, bool> given;
  bool Given(const std::string& flag) const { return given.count(flag) > 0; }
};

// "auto", "live", "log", "quiet"; Error naming --progress otherwise.
ProgressMode ParseProgress(const std::string& text);

// The loop's options from the shared flags. `max_measurements` is the measurement budget of one
// tuning run (0: none, when only --time-budget limits it). Throws Error naming a bad flag.
TuneOptions MakeTuneOptions(const TuneFlags& flags, int64_t max_measurements);

// "3 runtime-device, 1 wrong-answer" for the failed statuses in `by_status` ("" when none).
std::string StatusBreakdown(const std::map<MeasureStatus, int64_t>& by_status);

// The paths of `glimpse tune`.
void RunReplayTune(const TuneFlags& flags);
void RunCpuTune(const TuneFlags& flags);
void RunCudaTune(const TuneFlags& flags);

}  // namespace glimpse::cli
