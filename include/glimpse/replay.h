// glimpse/replay.h — recorded search spaces: Kernel Tuner cache files, T4 result files, T1 input
// files, and the Runner that replays them.
//
// A recorded space is a brute-forced (or partly explored) space measured on one device. Replay runs
// the ordinary tuning loop with a ReplayRunner that looks every configuration up instead of
// measuring it, and charges it the recorded compile + benchmark time as simulated wall-clock.
//
// Files (times in the files are milliseconds; everything here is seconds):
//   Kernel Tuner cache (.json or .json.gz; files cut short while being written, without their
//   closing braces, are accepted): "time" is the mean of "times"; "CompilationFailedConfig" →
//   compile-device, "RuntimeFailedConfig" → runtime-device, any other string → unknown.
//   T4 results: "invalidity" correct / compile / runtime → ok / compile-device / runtime-device.
//   T1 input: tuning parameters and restriction expressions ("Conditions").
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
#include "glimpse/task.h"

namespace glimpse {

enum class RecordedFormat : uint8_t { kKernelTunerCache, kT4 };

// What one configuration's entry in a recorded file says.
struct RecordedEntry {
  MeasureStatus status = MeasureStatus::kUnknown;
  double time_s = 0.0;             // recorded mean; meaningless unless ok
  std::vector<double> samples_s;
  double compile_time_s = 0.0;
  double benchmark_time_s = 0.0;
};

struct RecordedSpace {
  std::string source_path;
  RecordedFormat format = RecordedFormat::kKernelTunerCache;
  std::string device_name;    // from the file or ReplayLoadOptions::device_name
  std::string kernel_name;    // empty for T4 files
  Json problem_size;          // null for T4 files
  ConfigSpace space;          // knobs from the file (or T1), restrictions from T1 / options
  // Entries by dense index in `space`. Entries that break a restriction are kept out of here and
  // counted in `outside_restrictions`.
  std::unordered_map<uint64_t, RecordedEntry> entries;
  int64_t outside_restrictions = 0;

  // Counts by status over `entries`; valid configurations missing from the file are not in here
  // (see MissingValid, which enumerates).
  std::map<MeasureStatus, int64_t> CountByStatus() const;
  // The fastest ok entry, if any.
  std::optional<std::pair<uint64_t, RecordedEntry>> Best() const;
  // The task this space replays: name "<kernel> <problem size>", device, description
  // {"kernel": …, "problem_size": …, "source": "replay"}.
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
  std::string t1_path;                      // knobs' order and restrictions from a T1 file
  std::vector<std::string> restrictions;    // extra restriction expressions
  std::string device_name;                  // overrides / fills in the file's device name
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

// Looks configurations up in a recorded space. A valid configuration that the file lacks is a
// failed measurement (status unknown, error "not in the recorded space"), charged the median
// recorded compile time.
class ReplayRunner : public Runner {
 public:
  ReplayRunner(std::shared_ptr<const RecordedSpace> recorded, ReplayOptions options = {});
  std::vector<MeasureResult> Run(const std::vector<MeasureInput>& inputs,
                                 const std::vector<BuildResult>& builds) override;
  bool IsSimulated() const override { return true; }
  int64_t measurements() const { return measurements_; }

 private:
  std::shared_ptr<const RecordedSpace> recorded_;
  ReplayOptions options_;
  Rng rng_;
  double missing_cost_s_ = 0.0;
  int64_t measurements_ = 0;
};

// Writing records in the Kernel Tuner ecosystem's formats, so that its tools read ours. Only
// spaces of ordered/categorical knobs can be written (Kernel Tuner has no split knobs); others
// are an Error. `records` are of one workload on one device.
void WriteKernelTunerCache(const Task& task, const std::vector<TuningRecord>& records,
                           std::ostream& out);
void WriteT4Results(const Task& task, const std::vector<TuningRecord>& records, std::ostream& out);

// A recorded space's entries as database records (strategy "import"), for `glimpse db import`.
std::vector<TuningRecord> RecordsFromRecordedSpace(const RecordedSpace& recorded);

}  // namespace glimpse
