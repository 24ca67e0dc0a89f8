// glimpse/evaluation.h — the evaluation harness behind `glimpse bench`: studies of recorded spaces
// × strategies × seeds, their results file, and the metrics computed from it.
//
// A study (a JSON file, see docs/bench-results.md "Study files") names groups of recorded spaces
// (one kernel measured on several devices), strategies and a budget. RunStudy replays every
// (space, strategy, seed) run in parallel and returns a StudyResults, which is written as the
// results file (schema "glimpse-bench-results/1" in docs/bench-results.md). Summaries are never
// trusted from a file: Summarize recomputes them from the runs, so results of several tools
// (glimpse, the Kernel Tuner peer in bench/peers/) merge into one table.
//
// Units: seconds everywhere; "performance" of a time t on a space is optimum_s / t (1.0 at the
// optimum, 0 for a failure or before the first success).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "glimpse/json.h"
#include "glimpse/measure.h"
#include "glimpse/replay.h"
#include "glimpse/tuner.h"

namespace glimpse {

// ---------------------------------------------------------------------------------------------
// Study files

struct StudyGroup {
  std::string name;                       // "convolution_milo"; the space ids' prefix
  std::vector<std::string> files;         // as written in the study (relative to the root)
  std::string t1;                         // as written; empty: knobs from the files alone
  std::vector<std::string> restrictions;  // extra restriction expressions
};

struct StudyStrategy {
  std::string name;               // the label in results ("xgb-tl"); unique in a study
  std::string tuner;              // registry name (MakeTuner); defaults to `name`
  Json options = Json::object();  // passed to the tuner's factory
  // "" (none) or a TransferMode name: the tuner (xgb, xgb-reg or glimpse) gets as history
  // every recorded entry of the run's group's devices the mode lets it see.
  std::string transfer;
  // The tuner (xgb or xgb-reg) initialises with Rieber et al.'s presampling; the runner gives it
  // a ReplayValidityChecker on the run's space and charges the checks as the run's presampling_s.
  // Set by the strategy's "validity_init": true, or by the same key in its options.
  bool validity_init = false;
};

struct StudyConfig {
  std::string path;  // the study file, for messages
  std::string root;  // directory the groups' relative paths are resolved against
  std::vector<StudyGroup> groups;
  std::vector<StudyStrategy> strategies;
  int seeds = 25;                  // seeds 0 .. seeds-1
  int64_t max_measurements = 400;  // per run; 0: none (max_seconds must then be set)
  double max_seconds = 0.0;        // simulated seconds per run; 0: none
  int batch_size = 16;             // configurations proposed and measured together
  int first_batch = 64;            // measurements whose performance forms the first batch
  std::vector<int64_t> checkpoints = {25, 50, 100, 200, 400};
  std::vector<double> fractions = {0.9, 0.95, 0.99, 1.0};

  // `root` joined with a path of the study (absolute paths are kept).
  std::string Resolve(const std::string& path) const;
  // Keeps only the named group / strategy (empty: all). Unknown names are an Error listing the
  // known ones.
  void Select(const std::string& group, const std::string& strategy);
};

// Parses a study. Relative paths resolve against `root_override` when it is not empty, else the
// study's "root" (itself relative to the study file's directory), else the study file's directory.
// Unknown keys, wrong types, bad values and missing files are an Error naming the study path and
// the field ("bench/configs/full.json: groups[2].files[1]: no such file '…'").
StudyConfig ParseStudyConfig(const Json& json, const std::string& path,
                             const std::string& root_override = "");
StudyConfig LoadStudyConfig(const std::string& path, const std::string& root_override = "");

// ---------------------------------------------------------------------------------------------
// Results

struct CurvePoint {
  int64_t measurement = 0;   // 1-based
  double simulated_s = 0.0;  // simulated tuning time when that measurement completed
  double best_time_s = 0.0;  // best time so far (finite: points start at the first success)
};

// One tuning run (see docs/bench-results.md for each field).
struct RunRecord {
  std::string space;  // SpaceInfo::id
  std::string tool = "glimpse";
  std::string strategy;
  uint64_t seed = 0;
  int64_t measurements = 0;
  int64_t failed = 0;
  // Of the failed, configurations missing from a partial recording (ReplayRunner::not_recorded):
  // holes in the data that every strategy meets alike, not failures of the kernel. 0 in files
  // written before the field existed.
  int64_t not_recorded = 0;
  std::string stop_reason;   // "measurement budget", "time budget", "space exhausted", …
  double simulated_s = 0.0;  // measurements' cost plus presampling_s
  // Validity checks before the first measurement (validity_init), in simulated seconds; 0 for
  // other strategies. Included in simulated_s and in every best_curve point's simulated_s.
  double presampling_s = 0.0;
  double tuner_cpu_s = 0.0;  // NaN when the tool does not report it (null in the file)
  double wall_s = 0.0;       // real seconds of the run (timing; not compared between runs)
  // The run's measurement budget; 0 when only a time budget applied. Files that lack it per run
  // take settings.max_measurements.
  int64_t max_measurements = 0;
  std::vector<CurvePoint> best_curve;  // one point per improvement
  std::vector<double> first_batch_performance;
};

struct SpaceInfo {
  std::string id;  // "<group>/<file name without .json[.gz]>"
  std::string group;
  std::string device;
  std::string file;         // as written in the study
  int64_t valid = 0;        // configurations that satisfy the restrictions
  int64_t recorded_ok = 0;  // ok entries among them
  double optimum_s = 0.0;   // the fastest ok entry
};

struct StudySettings {
  int64_t max_measurements = 0;  // 0: none (null in the file)
  double max_seconds = 0.0;      // 0: none (null in the file)
  int seeds = 0;
  int first_batch = 64;
  std::vector<int64_t> checkpoints = {25, 50, 100, 200, 400};
  std::vector<double> fractions = {0.9, 0.95, 0.99, 1.0};
  bool leave_one_device_out = false;
  int batch_size = 16;
  bool noise = false;
};

struct Quantiles {
  double median = 0.0, q1 = 0.0, q3 = 0.0;
};

// Quantiles that also count the runs that never got there.
struct ReachQuantiles {
  Quantiles q;
  int64_t not_reached = 0;
};

struct RunSummary {
  std::string space, tool, strategy;
  int64_t runs = 0;
  std::map<double, ReachQuantiles> measurements_to_fraction;  // by fraction
  std::map<int64_t, Quantiles> fraction_at;                   // by checkpoint
  Quantiles failed_fraction;
  Quantiles first_batch;
  double first_batch_best_median = 0.0;
  ReachQuantiles simulated_s_to_95;
  Quantiles tuner_cpu_s;
};

struct StudyResults {
  std::string created;  // UTC, ISO 8601
  std::string machine;
  std::string command;
  StudySettings settings;
  std::vector<SpaceInfo> spaces;
  std::vector<RunRecord> runs;
  std::vector<RunSummary> summaries;
};

inline constexpr const char* kResultsSchema = "glimpse-bench-results/1";

Json RunToJson(const RunRecord& run);
// `where` names the file and position for messages; `default_budget` fills a missing
// max_measurements.
RunRecord RunFromJson(const Json& json, const std::string& where, int64_t default_budget);
Json ResultsToJson(const StudyResults& results);
// Validates the schema; an Error names the path and the field. The file's summaries are not read:
// they are recomputed from its runs.
StudyResults ResultsFromJson(const Json& json, const std::string& path);
StudyResults LoadResults(const std::string& path);
// Writes `path` atomically (a temporary file beside it, then rename).
void WriteResults(const StudyResults& results, const std::string& path);

// Merges result files: spaces by id (the first file's optimum wins; a disagreement beyond 1e-9
// relative is reported in `warnings`), runs appended. The same (space, tool, strategy, seed) in
// two files is an Error naming both. Settings come from the first file. Summaries are recomputed.
StudyResults MergeResults(const std::vector<std::pair<std::string, StudyResults>>& files,
                          std::vector<std::string>* warnings);

// "AMD EPYC 7B13, 2 hardware threads".
std::string MachineDescription();

// ---------------------------------------------------------------------------------------------
// Metrics (pure functions of runs; see docs/bench-results.md)

// Linear interpolation between order statistics (numpy's default percentile); q in [0, 1].
// An empty input gives NaN.
double Quantile(std::vector<double> values, double q);
Quantiles ComputeQuantiles(const std::vector<double>& values);

// Best-so-far performance after `measurement` measurements (0 before the first success).
double PerformanceAt(const RunRecord& run, double optimum_s, int64_t measurement);

// Where a run first reaches `fraction` of the optimum's performance (relative tolerance 1e-9).
// Not reached: `value` is the run's budget — max_measurements, or its measurement count when it
// stopped because the space was exhausted or only a time budget applied — and reached is false.
struct Reach {
  double value = 0.0;
  bool reached = false;
};
Reach MeasurementsToFraction(const RunRecord& run, double optimum_s, double fraction);
// Same in simulated seconds; not reached counts at the run's total simulated time.
Reach SimulatedSecondsToFraction(const RunRecord& run, double optimum_s, double fraction);

// The summary of one (space, tool, strategy): `runs` all belong to it. A checkpoint enters
// fraction_at only from runs whose budget reaches it (or that exhausted the space).
RunSummary SummarizeRuns(const std::vector<const RunRecord*>& runs, double optimum_s,
                         const StudySettings& settings);
// Recomputes results.summaries from results.runs; runs of a space missing from results.spaces
// are an Error.
void Summarize(StudyResults& results);

// The plain-text table: per space, one row per (tool, strategy); then the aggregate over spaces
// (median of the per-space medians).
void PrintResultsTable(const StudyResults& results, std::ostream& out);

// ---------------------------------------------------------------------------------------------
// Running a study

// What a run on one device of a group may learn from the group's other devices: every other
// device, or only those of another architecture, or of another vendor (as the GPU table,
// glimpse/hardware.h, names a recorded space's device) — the splits of the leave-one-GPU-out,
// leave-one-architecture-out and leave-one-vendor-out studies.
enum class TransferMode : uint8_t { kOtherDevices, kOtherArchitectures, kOtherVendors };
// "leave-one-device-out", "leave-one-architecture-out", "leave-one-vendor-out"
const char* TransferModeName(TransferMode mode);
// Error naming the known modes for an unknown name.
TransferMode ParseTransferMode(const std::string& name);

// The positions in `group` whose entries a run on group[held_out] may learn from under `mode`.
// Error (naming the device) when the mode needs a device's architecture or vendor and the GPU
// table does not know it.
std::vector<size_t> TransferSources(const std::vector<std::shared_ptr<const RecordedSpace>>& group,
                                    size_t held_out, TransferMode mode);

// Every recorded entry of group[i] for i in `sources`, mapped into group[held_out]'s space by knob
// name (ConfigToJson / ConfigFromJson); entries whose configuration is not a valid point of that
// space are skipped. Results carry status, time and cost, no samples.
TransferHistory TransferHistoryFrom(const std::vector<std::shared_ptr<const RecordedSpace>>& group,
                                    size_t held_out, const std::vector<size_t>& sources);
// TransferHistoryFrom(group, held_out, TransferSources(group, held_out, kOtherDevices)).
TransferHistory LeaveOneDeviceOutHistory(
    const std::vector<std::shared_ptr<const RecordedSpace>>& group, size_t held_out);

struct StudyRunOptions {
  std::string output_path;           // the results file; the journal is <output_path>.partial.jsonl
  int jobs = 0;                      // worker threads; 0: the hardware threads
  bool noise = false;                // replay noise, seeded with each run's seed
  bool resume = true;                // skip runs already in the journal (same settings)
  std::string command;               // recorded in the results
  std::ostream* progress = nullptr;  // nullptr: std::cerr
  double log_interval_s = 5.0;       // progress lines when the stream is not a terminal
};

// A strategy's options for one run: every string value (at any depth) has "{device}" replaced by
// `device`, the space's file name without .json[.gz] ("A100", "RTX_2080_Ti"), and "{group}" by
// `group`, its group's name ("convolution_milo"); keys and other values are kept. So one strategy
// can name per-device models ("models/prior-without-{device}.json") or the kernel space.
Json SubstituteRunPlaceholders(const Json& options, const std::string& device,
                               const std::string& group);

// Loads every space once, checks every strategy (an unknown tuner is an Error before any run),
// runs spaces × strategies × seeds over `jobs` threads, appends each finished run to the journal,
// writes the results file and returns it (summaries included).
StudyResults RunStudy(const StudyConfig& study, const StudyRunOptions& options);

}  // namespace glimpse
