// `glimpse tune`: the flags, the checks that a flag suits the target, and the dispatch to the
// replay path (tune_replay.cc), the CPU path (tune_cpu.cc) or the CUDA path (tune_cuda.cc).
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <utility>

#include "commands.h"
#include "glimpse/error.h"
#include "glimpse/tuner.h"
#include "tune_flags.h"

namespace glimpse::cli {

ProgressMode ParseProgress(const std::string& text) {
  if (text == "auto") return ProgressMode::kAuto;
  if (text == "live") return ProgressMode::kLive;
  if (text == "log") return ProgressMode::kLog;
  if (text == "quiet") return ProgressMode::kQuiet;
  throw Error("--progress: unknown mode '" + text + "'; known: auto, live, log, quiet");
}

TuneOptions MakeTuneOptions(const TuneFlags& flags, int64_t max_measurements) {
  TuneOptions options;
  options.max_measurements = max_measurements;
  options.max_seconds = flags.time_budget_s;
  options.early_stopping = flags.early_stopping;
  options.batch_size = flags.batch;
  options.seed = flags.seed;
  options.resume = !flags.no_resume;
  options.progress = ParseProgress(flags.progress);
  options.Validate();
  return options;
}

std::string StatusBreakdown(const std::map<MeasureStatus, int64_t>& by_status) {
  std::string text;
  for (const auto& [status, count] : by_status) {
    if (status == MeasureStatus::kOk || count == 0) continue;
    text += (text.empty() ? "" : ", ") + fmt::format("{} {}", count, StatusName(status));
  }
  return text;
}

namespace {

// Flags that only some targets understand; giving one to another target is an Error.
const std::vector<std::string> kReplayOnly = {
    "--space", "--t1",      "--restrict",      "--device",
    "--noise", "--pace-ms", "--transfer-from", "--transfer-from-db"};
// Generated kernels (cpu and cuda).
const std::vector<std::string> kKernelOnly = {"--model",         "--input-shape", "--op",
                                              "--global-budget", "--run-timeout", "--build-jobs",
                                              "--build-timeout", "--kernel-dir",  "--compile"};
const std::vector<std::string> kCpuOnly = {"--threads",    "--overlap-builds",
                                           "--cost-model", "--hardware-budget",
                                           "--layout",     "--warm-activations"};
const std::vector<std::string> kCudaOnly = {"--arch", "--gpu", "--build-only"};

void CheckFlagsSuitTarget(const TuneFlags& flags) {
  const std::string& target = flags.target;
  if (target != "replay" && target != "cpu" && target != "cuda") {
    throw Error("--target: unknown target '" + target + "'; known: cpu, cuda, replay");
  }
  if (target != "replay") {
    for (const std::string& flag : kReplayOnly) {
      if (!flags.Given(flag)) continue;
      throw Error(flag + " applies to replayed spaces (--space), not to --target " + target +
                  "; with --target " + target + " give --model NAME or --op TEXT");
    }
  }
  for (const std::string& flag : kKernelOnly) {
    if (target == "replay" && flags.Given(flag)) {
      throw Error(flag +
                  " needs --target cpu or --target cuda (the default target replays --space FILE)");
    }
  }
  for (const std::string& flag : kCpuOnly) {
    if (target != "cpu" && flags.Given(flag)) {
      throw Error(flag + " needs --target cpu" +
                  (target == "replay" ? " (the default target replays --space FILE)"
                                      : " (not understood by --target " + target + ")"));
    }
  }
  for (const std::string& flag : kCudaOnly) {
    if (target != "cuda" && flags.Given(flag)) {
      throw Error(flag + " needs --target cuda (not understood by --target " + target + ")");
    }
  }
}

void Dispatch(TuneFlags& flags, CLI::App* command) {
  for (const CLI::Option* option : command->get_options()) {
    if (option->count() > 0) flags.given[option->get_name()] = true;
  }
  CheckFlagsSuitTarget(flags);
  if (flags.target == "cpu") {
    RunCpuTune(flags);
  } else if (flags.target == "cuda") {
    RunCudaTune(flags);
  } else {
    RunReplayTune(flags);
  }
}

}  // namespace

void AddTuneCommand(CLI::App& app) {
  auto flags = std::make_shared<TuneFlags>();
  CLI::App* command = app.add_subcommand(
      "tune",
      "Tune tasks: search their spaces, measure candidates, keep every result. Replays a "
      "recorded space (--space FILE), or tunes generated kernels on this CPU (--target cpu) or "
      "an NVIDIA GPU (--target cuda), with --model NAME or --op TEXT");
  command
      ->add_option("--target", flags->target,
                   "where candidates are measured: replay (a recorded space, --space), cpu "
                   "(kernels generated, compiled and run on this machine) or cuda (CUDA kernels "
                   "compiled with NVRTC and run on an NVIDIA GPU of this machine)")
      ->capture_default_str();

  // The recorded space (replay).
  flags->source.AddTo(command, /*positional=*/false);
  command->add_flag("--noise", flags->noise,
                    "replay: draw each time from the recorded samples instead of their mean");
  command->add_option("--pace-ms", flags->pace_ms,
                      "replay: real milliseconds spent per measurement (demonstrations, tests)");
  command->add_option("--transfer-from", flags->transfer.files,
                      "transfer learning (xgb, xgb-reg): a recorded space of the same kernel on "
                      "another device, read with this run's --t1/--restrict (repeatable)");
  command->add_flag("--transfer-from-db", flags->transfer.from_database,
                    "transfer learning (xgb, xgb-reg): this workload's records of other devices "
                    "in the database");

  // The operators (--target cpu, cuda).
  command->add_option(
      "--model", flags->model,
      "cpu, cuda: tune every distinct operator of a model: a zoo name ('glimpse model list') "
      "or an ONNX file FILE.onnx");
  command
      ->add_option("--layout", flags->layout,
                   "cpu, with --model: the activations between the convolutions: nchw, or "
                   "blocked (kept NCHW[16]c / NCHW[8]c from layer to layer, as glimpse compile "
                   "--layout blocked runs them; the convolutions are tuned as those blocked "
                   "operators)")
      ->check(CLI::IsMember({"nchw", "blocked"}))
      ->capture_default_str();
  command->add_option("--compile", flags->compile_dir,
                      "afterwards compile the model (a CNN of the zoo or an ONNX file) with "
                      "the database into a library in DIR, build it, check it and time it "
                      "(glimpse compile [--target cuda] + glimpse run); cuda: with the measured "
                      "GPU's records, not with --build-only");
  command->add_option(
      "--cost-model", flags->cost_model,
      "cpu: a performance model (glimpse train perf-model: the learned network, "
      "or --model xgb, XGBoost on loop features fitted on the corpus; e.g. "
      "data/models/perf-cpu-amd-epyc.json) that ranks each task's configurations before "
      "any is measured: the first batch and the base of the strategy's own model "
      "(xgb unless --tuner names xgb-reg); files joined by '+' (A.json+B.json) rank by the "
      "mean of their predicted ln-times");
  command->add_option("--hardware-budget", flags->hardware_budget,
                      "cpu: with --cost-model, N measurements per task (instead of --budget), "
                      "all the model's picks: in rounds of --batch (default N/4, at most 16), "
                      "the strategy's model refitted on the measured and the search on the "
                      "model repeated after each; --batch N: one round, the model's N best");
  command->add_option("--input-shape", flags->input_shapes,
                      "cpu, cuda: NAME=1x3x224x224, the shape of an ONNX model's input with "
                      "symbolic dimensions (repeatable)");
  command->add_option(
      "--op", flags->ops,
      "cpu, cuda: an operator, e.g. conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,pad=1 or "
      "dense:M=1,N=1000,K=512 (repeatable)");
  command->add_option(
      "--global-budget", flags->global_budget,
      "cpu, cuda: measurements for all tasks together, a quarter shared evenly and the "
      "rest in proportion to each task's weight x FLOPs (instead of --budget)");
  command
      ->add_option("--threads", flags->threads,
                   "cpu: threads (and pinned CPUs) a kernel runs on; 0: every CPU available")
      ->capture_default_str();
  command->add_flag(
      "--overlap-builds", flags->overlap_builds,
      "cpu: compile the next candidates while measuring the current ones, the compiler kept on "
      "CPUs of its own (a quarter, at least one; --threads then counts the measuring CPUs)");
  command->add_flag(
      "--warm-activations", flags->warm_activations,
      "cpu: time each candidate with its activation inputs back in the caches after the flush, as "
      "the layers before leave them in a model (weights and output stay flushed); the records are "
      "kept under the device name with '[activations warm]', apart from the flushed ones: "
      "compile them with glimpse compile --warm-activations");
  command->add_option(
      "--run-timeout", flags->run_timeout_s,
      "cpu, cuda: seconds a candidate may run (check and timing) before it counts as "
      "run-timeout; default 10 plus 4 per GFLOP of the operator (a new worker "
      "computes the reference output within its first candidate's time)");
  command
      ->add_option("--build-timeout", flags->build_timeout_s,
                   "cpu, cuda: seconds a compiler run may take before its candidates count as "
                   "build-timeout (raise it on a machine busy with other work)")
      ->capture_default_str();
  command
      ->add_option("--build-jobs", flags->build_jobs,
                   "cpu, cuda: compiler processes at once; 0: one per CPU")
      ->capture_default_str();
  command->add_option("--kernel-dir", flags->kernel_dir,
                      "cpu, cuda: keep the generated sources and shared objects in this directory "
                      "(default: a temporary one, removed at the end)");

  // The GPU (--target cuda).
  command->add_option("--arch", flags->arch,
                      "cuda: the architecture kernels are compiled for, e.g. sm_90; default: "
                      "the device's (sm_90 with --build-only and no device)");
  command->add_option("--gpu", flags->gpu, "cuda: the CUDA device ordinal to measure on")
      ->capture_default_str();
  command->add_flag("--build-only", flags->build_only,
                    "cuda: compile the candidates and check them against the device limits, "
                    "run none (no GPU needed); records have statuses but no times");

  // The search, its budget and its records.
  command
      ->add_option("--tuner", flags->tuner,
                   "search strategy; 'glimpse tune --list-tuners' shows them")
      ->capture_default_str();
  command->add_option("--tuner-option", flags->tuner_options,
                      "strategy option as key=value, e.g. population=50 (repeatable)");
  command
      ->add_option("--budget", flags->budget,
                   "measurements per task, failures included (resumed records count too)")
      ->capture_default_str();
  command->add_option("--time-budget", flags->time_budget_s,
                      "tuning-time budget in seconds per task (simulated for replay); with it "
                      "alone, no measurement budget applies");
  command->add_option("--early-stopping", flags->early_stopping,
                      "stop a task after this many measurements without improvement (0: off)");
  command->add_option("--batch", flags->batch, "configurations measured per round")
      ->capture_default_str();
  command->add_option("--seed", flags->seed, "random seed")->capture_default_str();
  command->add_option("--db", flags->database, "tuning database file ($GLIMPSE_DB)")
      ->capture_default_str();
  command->add_flag("--no-db", flags->no_database, "keep nothing: do not open a database");
  command->add_flag("--no-resume", flags->no_resume,
                    "do not warm the strategy with this task's records already in the database");
  command
      ->add_option("--template-seeds", flags->template_seeds,
                   "--target cpu: measure first at most this many template seeds, the register "
                   "blockings the template's author would try on this CPU's vector registers "
                   "(conv2d; docs/cpu-tuning.md); 0: none")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  command
      ->add_option("--sibling-seeds", flags->sibling_seeds,
                   "a model's tasks: measure first this many of the fastest configurations of the "
                   "earlier tasks that differ from the task only in the epilogue (bias, ReLU, "
                   "residual add); 0: none")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  command
      ->add_option("--sibling-sweep", flags->sibling_sweep,
                   "a model's tasks, once all are tuned: each measures this many of the fastest "
                   "configurations of every epilogue sibling, earlier or later, that it has not "
                   "measured (a few measurements beyond its budget); 0: none")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  command
      ->add_option("--recheck", flags->recheck,
                   "a model's tasks, once all are tuned: each measures its N fastest "
                   "configurations again, in one batch with the sibling sweep's (its siblings' "
                   "fastest, measured by it before or not), so that they compare in one sitting; "
                   "a configuration keeps its fastest time (docs/usage.md); with "
                   "--hardware-budget N, part of the N (N - K searched); 0: none")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  command->add_flag("--no-sibling-history", flags->no_sibling_history,
                    "a model's tasks: do not give a strategy that learns from history those "
                    "earlier tasks' records as its history");
  command->add_option("--progress", flags->progress, "auto, live, log or quiet")
      ->capture_default_str();
  command->add_flag("--json", flags->json, "print the result as JSON");
  command->add_flag_callback(
      "--list-tuners",
      [] {
        for (const std::string& name : KnownTuners()) {
          std::cout << fmt::format("{:<10} {}\n", name, TunerDescription(name));
        }
        throw CLI::Success();
      },
      "list the search strategies and exit");
  command->callback([flags, command] { Dispatch(*flags, command); });
}

}  // namespace glimpse::cli
