// glimpse/replay.h — recorded search spaces: Kernel Tuner cache files, T4 result files, T1 input
// files, and the Runner that replays them.
//
// A recorded space is a brute-forced (or partly explored) space measured on one device. Replay runs
// the ordinary tuning loop with a ReplayRunner that looks every configuration up instead of
// measuring it, and charges it the recorded compile + benchmark time as simulated wall-clock.
//
// Files (times in the files are milliseconds; everything here is seconds):
//   Kernel Tuner cache (.json or .json.gz; files cut short while being written, without their
//   closing braces, are accepted: their complete entries are read): knobs from "tune_params" in
//   "tune_params_keys" order (ordered when every value is a number, categorical otherwise), each
//   entry's knob values from its own fields; "time" is the mean of "times";
//   "CompilationFailedConfig" → compile-device, "RuntimeFailedConfig" → runtime-device, any other
//   string (e.g. "InvalidConfig") → unknown; "compile_time" and "benchmark_time" (missing → 0).
//   T4 results: knobs inferred from all configurations (sorted distinct values, parameter order
//   of the first configuration); "invalidity" correct / compile / runtime → ok / compile-device /
//   runtime-device (and correctness / timeout / constraints → wrong-answer / run-timeout /
//   instantiation, anything else → unknown); samples from times.runtimes, compile time from
//   times.compilation, benchmark time from times.benchmark (missing → 0), time from the "time"
//   measurement (else the mean of the runtimes); metadata.timeunit must be milliseconds.
//   T1 input: tuning parameters and restriction expressions ("Conditions"); "Values" is a JSON
//   list or a Python list expression string ("[1, 2]", "[32 * i for i in range(1, 32)]", sums).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "glimpse/database.h"
#include "glimpse/measure.h"
#include "glimpse/space.h"
#include "glimpse/target.h"
#include "glimpse/task.h"
#include "glimpse/validity.h"

namespace glimpse {

enum class RecordedFormat : uint8_t { kKernelTunerCache, kT4 };

// What one configuration's entry in a recorded file says.
struct RecordedEntry {
  MeasureStatus status = MeasureStatus::kUnknown;
  double time_s = 0.0;  // recorded mean; meaningless unless ok
  std::vector<double> samples_s;
  double compile_time_s = 0.0;
  double benchmark_time_s = 0.0;
};

struct RecordedSpace {
  std::string source_path;
  RecordedFormat format = RecordedFormat::kKernelTunerCache;
  // ReplayLoadOptions::device_name when given, else the file's "device_name", else (empty in the
  // file, or a T4 file) the file's base name: "MI250X" for ".../MI250X.json.gz".
  std::string device_name;
  std::string kernel_name;  // empty for T4 files
  Json problem_size;        // null for T4 files
  ConfigSpace space;        // knobs from the file (or T1), restrictions from T1 / options
  // Entries by dense index in `space`. Entries that break a restriction are kept out of here and
  // counted in `outside_restrictions`.
  std::unordered_map<uint64_t, RecordedEntry> entries;
  int64_t outside_restrictions = 0;

  // Counts by status over `entries`; valid configurations missing from the file are not in here
  // (see MissingValid, which enumerates).
  std::map<MeasureStatus, int64_t> CountByStatus() const;
  // The fastest ok entry, if any.
  std::optional<std::pair<uint64_t, RecordedEntry>> Best() const;
  // The median compile time over every entry (any status), 0 without entries: what trying a
  // configuration the file lacks would have cost at least, as the ReplayRunner and the
  // ReplayValidityChecker charge it.
  double MedianCompileTime() const;
  // The task this space replays: name "<kernel> <problem size as compact JSON>" (the file's base
  // name for T4 files), device, description {"kernel": …, "problem_size": …, "source": "replay"}.
  // Neither the path nor the device is in the description, so the same kernel recorded on two
  // devices has one WorkloadKey.
  Task MakeTask() const;
};

// The contents of a T1 input file.
struct T1Space {
  std::string benchmark_name;
  std::vector<Knob> knobs;
  std::vector<std::string> restrictions;
};
// Throws Error naming the file and field on a malformed file.
T1Space LoadT1File(const std::string& path);

struct ReplayLoadOptions {
  // Knobs (order and values) and restrictions from a T1 file; every recorded configuration must
  // use values its knobs have (else Error naming the knob and value).
  std::string t1_path;
  std::vector<std::string> restrictions;  // extra restriction expressions
  std::string device_name;                // overrides / fills in the file's device name
};

// Reads a recorded file of either format (detected from its content; gzip from its magic bytes).
// Throws Error naming the path and what is wrong (missing, not JSON, a field missing, a config
// with a knob the space lacks, …).
RecordedSpace LoadRecordedSpace(const std::string& path, const ReplayLoadOptions& options = {});

// Reads a whole file, inflating it when it is gzip-compressed. Throws Error naming the path.
std::string ReadMaybeGzipFile(const std::string& path);

struct ReplayOptions {
  // Draw each ok measurement's time from its recorded samples (seeded) instead of using the mean.
  bool noise = false;
  uint64_t seed = 0;
  // Real milliseconds to sleep per measurement: for demonstrating and testing long runs (progress,
  // kill and resume) on recorded data.
  double pace_ms = 0.0;
};

// Looks configurations up in a recorded space. An ok entry gives its recorded mean (or, with
// noise, one of its samples drawn uniformly by the runner's own Rng seeded with options.seed),
// its samples, compile time, and cost = compile + benchmark time. A recorded failure gives its
// status, error "recorded as CompilationFailedConfig" (…), and the same cost. A valid
// configuration that the file lacks is a failed measurement (status unknown, error "not in the
// recorded space"), charged the median recorded compile time of the file. A failed BuildResult
// passes through (its status, error and compile time). A configuration that breaks the space's
// restrictions gives instantiation at no cost and is not counted as a measurement; one out of
// the space's range is an Error.
class ReplayRunner : public Runner {
 public:
  ReplayRunner(std::shared_ptr<const RecordedSpace> recorded, ReplayOptions options = {});
  std::vector<MeasureResult> Run(const std::vector<MeasureInput>& inputs,
                                 const std::vector<BuildResult>& builds) override;
  bool IsSimulated() const override { return true; }
  // Configurations looked up so far (recorded or missing); failed builds are not counted.
  int64_t measurements() const { return measurements_; }
  // Of those, configurations the file lacks (a partial recording): status unknown, "not in the
  // recorded space". They count as failed measurements, though nothing says the kernel fails.
  int64_t not_recorded() const { return not_recorded_; }

 private:
  std::shared_ptr<const RecordedSpace> recorded_;
  ReplayOptions options_;
  Rng rng_;
  double missing_cost_s_ = 0.0;
  int64_t measurements_ = 0;
  int64_t not_recorded_ = 0;
};

// Writing records in the Kernel Tuner ecosystem's formats, so that its tools read ours. Ordered
// and categorical knobs are written as they are. Kernel Tuner has no split knobs: a Kernel Tuner
// cache writes each as one parameter whose values are strings of its factors joined by 'x'
// ("1x2x4x8", in the knob's order), which LoadRecordedSpace reads back as a categorical knob of
// those strings (a space replay tunes; the factors are no longer a split's). T4 results take no
// split knobs, and neither format permutation knobs: those are an Error naming the knob. `records`
// are of one workload on one device (the first record's device, else task.device, is written); a
// configuration recorded more than once is written once (its fastest ok record, else its last
// failure). Times are written in milliseconds; benchmark time is cost_s - compile_time_s. Failures,
// Kernel Tuner cache: compile-host, compile-device, build-timeout → "CompilationFailedConfig";
// runtime-device, run-timeout, wrong-answer → "RuntimeFailedConfig"; instantiation, unknown →
// "InvalidConfig" (read back as unknown). Failures, T4: compile-* → compile; runtime-device,
// unknown → runtime; wrong-answer → correctness; build-timeout, run-timeout → timeout;
// instantiation → constraints. LoadRecordedSpace reads both back with the same times and, where the
// mapping is one-to-one (ok, compile-device, runtime-device; unknown for caches; wrong-answer,
// run-timeout, instantiation for T4), the same statuses.
void WriteKernelTunerCache(const Task& task, const std::vector<TuningRecord>& records,
                           std::ostream& out);
void WriteT4Results(const Task& task, const std::vector<TuningRecord>& records, std::ostream& out);

// A recorded space's entries as database records (strategy "import"), for `glimpse db import`:
// one per entry in dense-index order, with config_hash from space.Hash, workload_key from
// MakeTask().WorkloadKey(), device_name, cost = compile + benchmark time, no timestamps.
std::vector<TuningRecord> RecordsFromRecordedSpace(const RecordedSpace& recorded);

// A recorded space as a tuning target (glimpse/target.h): the device it was recorded on, its one
// task (RecordedTask; it has no operators, so MakeTask refuses any), nothing to build
// (NullBuilder), its recorded measurements replayed (ReplayRunner) and its recorded statuses as the
// cheap validity check (ReplayValidityChecker). The device is not described: the strategies that
// read one look the recorded device's name up in the GPU table themselves.
class ReplayTarget : public Target {
 public:
  explicit ReplayTarget(std::shared_ptr<const RecordedSpace> recorded, ReplayOptions options = {});
  std::string Name() const override { return "replay"; }
  std::string Device() const override { return recorded_->device_name; }
  // Error: a recorded space's only task is RecordedTask().
  Task MakeTask(const Operator& op) const override;
  Task RecordedTask() const { return recorded_->MakeTask(); }
  std::unique_ptr<Builder> MakeBuilder(const std::string& work_dir) const override;
  // `task` must be RecordedTask() (Error otherwise); replayed times ignore `timeout_s`.
  std::unique_ptr<Runner> MakeRunner(const Task& task, double timeout_s) const override;
  std::shared_ptr<ValidityChecker> MakeValidityChecker(const Task& task,
                                                       const std::string& work_dir) const override;
  // The same, typed: a replayed check counts its checks and their simulated cost.
  std::shared_ptr<ReplayValidityChecker> MakeReplayValidityChecker(const Task& task) const;
  const RecordedSpace& recorded() const { return *recorded_; }

 private:
  void CheckIsRecordedTask(const Task& task) const;
  std::shared_ptr<const RecordedSpace> recorded_;
  ReplayOptions options_;
  std::string recorded_key_;  // RecordedTask().WorkloadKey()
};

}  // namespace glimpse
