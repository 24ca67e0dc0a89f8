// glimpse/measure.h — measuring candidates: inputs, results, builders and runners.
//
// A failed candidate is a MeasureResult with a status and an error text, never an exception; the
// statuses follow AutoTVM's taxonomy. Builders and runners work on batches so that compilation and
// measurement can be overlapped and parallelised; the *Async forms run a batch on another thread.
//
// Units: every time in this file is in seconds.
#pragma once

#include <cstdint>
#include <future>
#include <limits>
#include <string>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/space.h"
#include "glimpse/task.h"

namespace glimpse {

enum class MeasureStatus : uint8_t {
  kOk = 0,
  kInstantiation,  // the configuration is invalid for the template
  kCompileHost,    // host-side compilation failed
  kCompileDevice,  // device compilation failed, including resource limits
  kRuntimeDevice,  // launch failure, crash, device fault
  kWrongAnswer,    // ran, but the output differs from the reference
  kBuildTimeout,
  kRunTimeout,
  kUnknown,  // failed for a reason nobody recorded
};
inline constexpr int kNumMeasureStatuses = 9;

// "ok", "instantiation", "compile-host", "compile-device", "runtime-device", "wrong-answer",
// "build-timeout", "run-timeout", "unknown".
const char* StatusName(MeasureStatus status);
// Inverse of StatusName; throws Error listing the accepted names.
MeasureStatus StatusFromName(const std::string& name);

struct MeasureInput {
  const Task* task = nullptr;  // not owned; outlives the measurement
  Config config;
};

struct BuildResult {
  MeasureStatus status = MeasureStatus::kOk;
  std::string artifact;  // what the runner loads (a path, a module id); empty for replay
  double compile_time_s = 0.0;
  std::string error;
};

// What a code template made of one configuration: the kernel's source, or the template's refusal
// (status instantiation, with the reason in `error`).
template <typename Source>
struct Generated {
  MeasureStatus status = MeasureStatus::kOk;
  std::string error;
  Source source;
  bool ok() const { return status == MeasureStatus::kOk; }
};

// Runs a template: `make()`'s source, or — when it throws Error because the configuration breaks
// one of the template's rules — its refusal.
template <typename Source, typename Make>
Generated<Source> RunTemplate(Make&& make) {
  Generated<Source> generated;
  try {
    generated.source = make();
  } catch (const Error& error) {
    generated.status = MeasureStatus::kInstantiation;
    generated.error = error.what();
  }
  return generated;
}

struct MeasureResult {
  MeasureStatus status = MeasureStatus::kUnknown;
  // The figure strategies optimise: the median of the samples for a real measurement, the recorded
  // mean (or one drawn sample, with replay noise) for replay. +inf unless status is kOk.
  double time_s = std::numeric_limits<double>::infinity();
  std::vector<double> samples_s;  // every timed repeat
  double compile_time_s = 0.0;
  // Wall-clock the measurement cost, compile included; simulated (recorded compile + benchmark
  // time) for replay.
  double cost_s = 0.0;
  std::string error;

  bool ok() const { return status == MeasureStatus::kOk; }
};

class Builder {
 public:
  virtual ~Builder() = default;
  // One result per input, in order.
  virtual std::vector<BuildResult> Build(const std::vector<MeasureInput>& inputs) = 0;
  std::future<std::vector<BuildResult>> BuildAsync(std::vector<MeasureInput> inputs);
  // How many candidates one round of its parallel work builds (e.g. compile units × compiler
  // processes): the wave in which MeasureBatch overlaps building with measuring. 0: no preference.
  virtual size_t WaveSize() const { return 0; }
};

class Runner {
 public:
  virtual ~Runner() = default;
  // One result per input, in order; builds[i] belongs to inputs[i]. A failed build is passed
  // through as the result's status without running.
  virtual std::vector<MeasureResult> Run(const std::vector<MeasureInput>& inputs,
                                         const std::vector<BuildResult>& builds) = 0;
  std::future<std::vector<MeasureResult>> RunAsync(std::vector<MeasureInput> inputs,
                                                   std::vector<BuildResult> builds);
  // True when cost_s is simulated rather than real wall-clock (replay): time budgets then count
  // simulated seconds.
  virtual bool IsSimulated() const { return false; }
  // True when building other candidates at the same time does not disturb its timings: the timed
  // work runs on a GPU, or on CPUs the builder is kept off.
  virtual bool TimesBesideBuilds() const { return false; }
};

// Where a batch's wall-clock went: seconds in Builder::Build and in Runner::Run calls. Without
// overlap they add up to the batch; with it the builds of later waves run beside the runs, and
// `build_waited_s` is the part of the build time the batch waited for (the first wave, and any
// wave still building when its turn to run came).
struct BatchTimes {
  double build_s = 0;
  double build_waited_s = 0;
  double run_s = 0;
};

// Builds and measures `inputs` (one result per input, in order). When `overlap` is set and the
// runner TimesBesideBuilds, the batch is split into the builder's waves and wave k+1 is built while
// wave k is measured; the results are the same as without overlap, only sooner. `times`, when
// given, gets the batch's split added to it.
std::vector<MeasureResult> MeasureBatch(Builder& builder, Runner& runner,
                                        const std::vector<MeasureInput>& inputs, bool overlap,
                                        BatchTimes* times = nullptr);

// A builder with nothing to build (replay): every input builds "ok" in zero time.
class NullBuilder : public Builder {
 public:
  std::vector<BuildResult> Build(const std::vector<MeasureInput>& inputs) override;
};

// The runner of a build-only run: a built candidate is ok with no time (+inf: it cannot be among
// the best), a failed build passes through; the cost is the compile time.
class BuildOnlyRunner : public Runner {
 public:
  std::vector<MeasureResult> Run(const std::vector<MeasureInput>& inputs,
                                 const std::vector<BuildResult>& builds) override;
};

}  // namespace glimpse
