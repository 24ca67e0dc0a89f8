// glimpse/database.h — the tuning database: every measurement ever made, and the best per workload.
//
// SQLite in WAL mode. Workloads are kept apart from records (one row per workload, keyed by
// Task::WorkloadKey(); one row per measurement). CommitBatch is one transaction: a process killed
// at any moment (kill -9) loses at most the batch in flight, never a committed record, and never
// leaves a half-written one.
//
// Units: times in seconds; timestamps in seconds since the Unix epoch (UTC).
//
// Threads and processes: every method takes an internal lock, so one Database may be shared by
// threads (calls run one at a time). Several processes may open the same file: readers never
// block, writers wait for each other (up to 10 s). The file format is in docs/formats.md.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "glimpse/json.h"
#include "glimpse/measure.h"

namespace glimpse {

struct WorkloadEntry {
  std::string key;   // Task::WorkloadKey()
  std::string name;  // Task::name
  Json description;  // Task::description
  Json space;        // ConfigSpace::ToJson(), so records can be read back as Configs
};

struct TuningRecord {
  int64_t id = 0;  // assigned by the database
  std::string workload_key;
  std::string device;
  Json config;              // by knob name (ConfigSpace::ConfigToJson)
  std::string config_hash;  // HashToHex(ConfigSpace::Hash(config))
  MeasureStatus status = MeasureStatus::kUnknown;
  double time_s = 0.0;  // +inf is stored as NULL and read back as +inf
  std::vector<double> samples_s;
  double compile_time_s = 0.0;
  double cost_s = 0.0;
  std::string error;
  std::string strategy;     // the tuner that proposed it ("import" for imported records)
  double started_at = 0.0;  // when the measurement was started / finished
  double finished_at = 0.0;
};

// The measurement a record holds, as the runner reported it (time_s +inf unless ok).
MeasureResult ResultFromRecord(const TuningRecord& record);

// One line of `glimpse db list`.
struct WorkloadSummary {
  std::string workload_key;
  std::string name;
  std::string device;
  int64_t records = 0;
  int64_t failed = 0;
  std::optional<double> best_time_s;
};

class Database {
 public:
  // The path used when none is given: $GLIMPSE_DB if set, else "glimpse.db" in the working
  // directory.
  static std::string DefaultPath();

  // Opens (creating if `create`) the database at `path`. Throws Error naming the path when it
  // cannot be opened, is not a glimpse database, or has a schema version this build cannot read.
  // An existing file that cannot be written (a read-only file or folder) is refused, with what
  // can still read it.
  explicit Database(const std::string& path, bool create = true);
  // Opens an existing database to read it, even one whose file or folder cannot be written (a
  // shared or archived database); writing through it throws Error.
  struct ReadOnly {};
  Database(const std::string& path, ReadOnly);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  const std::string& path() const;

  // Inserts the workload, or leaves it as it is when its key exists.
  void PutWorkload(const WorkloadEntry& workload);
  std::optional<WorkloadEntry> GetWorkload(const std::string& key) const;
  std::vector<WorkloadEntry> Workloads() const;

  // Free-form notes a command keeps with the database (the performance corpus's measurement
  // protocol and machine, docs/perf-corpus.md), in the meta table beside the schema version.
  // "application" and keys starting with "schema" are the database's own and refused (Error).
  // Set replaces.
  void SetNote(const std::string& key, const std::string& value);
  std::optional<std::string> GetNote(const std::string& key) const;

  // Appends records in one transaction (all or none). Their workloads must exist. Returns the ids.
  std::vector<int64_t> CommitBatch(const std::vector<TuningRecord>& records);

  // Records of a workload (on one device, or on all when `device` is empty), in commit order.
  std::vector<TuningRecord> Records(const std::string& workload_key,
                                    const std::string& device = "") const;
  // The k fastest ok records of a workload on a device (all devices when empty), fastest first;
  // one record per distinct configuration (its best).
  std::vector<TuningRecord> Best(const std::string& workload_key, const std::string& device,
                                 int k) const;
  // One line per workload × device, ordered by name; a workload without records gets one line
  // with an empty device.
  std::vector<WorkloadSummary> Summaries() const;

  // JSON lines (docs/formats.md): one {"type": "workload", …} line per workload, then one
  // {"type": "record", …} line per record. Export writes the workloads whose key starts with
  // `key_prefix` (all when empty), and their records in commit order. Returns the number of
  // records written.
  int64_t ExportJsonLines(std::ostream& out, const std::string& key_prefix = "") const;
  // Imports what ExportJsonLines writes. Records already present (same workload, device,
  // config hash, start time) are skipped. Throws Error naming the line number of a bad line;
  // nothing of a file with a bad line is imported. Returns the number of records added.
  int64_t ImportJsonLines(std::istream& in, const std::string& source_name);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace glimpse
