// Small builders shared by the database tests.
#pragma once

#include <string>
#include <vector>

#include "glimpse/database.h"
#include "test_paths.h"

namespace glimpse::testing {

inline WorkloadEntry MakeWorkload(const std::string& key, const std::string& name = "matmul") {
  WorkloadEntry workload;
  workload.key = key;
  workload.name = name;
  workload.description = Json{{"kernel", name}, {"size", Json::array({64, 64})}};
  workload.space = Json{{"knobs", Json::array({Json{{"name", "tile"}, {"values", {1, 2, 4}}}})}};
  return workload;
}

// An ok record of configuration `hash` that took `time_s`, started at `started_at`.
inline TuningRecord MakeRecord(const std::string& workload_key, const std::string& device,
                               const std::string& hash, double time_s, double started_at,
                               MeasureStatus status = MeasureStatus::kOk) {
  TuningRecord record;
  record.workload_key = workload_key;
  record.device = device;
  record.config = Json{{"tile", 4}, {"order", "row"}, {"split", Json::array({2, 8})}};
  record.config_hash = hash;
  record.status = status;
  record.time_s = time_s;
  record.samples_s = {time_s * 1.01, time_s, time_s * 0.99};
  record.compile_time_s = 0.25;
  record.cost_s = 1.5;
  record.error = status == MeasureStatus::kOk ? "" : "launch failed: too many resources";
  record.strategy = "random";
  record.started_at = started_at;
  record.finished_at = started_at + 1.75;
  return record;
}

// A path for a new database in a fresh temporary directory.
inline std::string NewDatabasePath(const std::string& prefix = "glimpse-db") {
  return MakeTempDir(prefix) + "/tuning.db";
}

}  // namespace glimpse::testing
