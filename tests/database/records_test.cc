// Workloads, committing batches, and the queries over records.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "database_test_util.h"
#include "glimpse/database.h"
#include "glimpse/error.h"

namespace glimpse::testing {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

class DatabaseRecords : public ::testing::Test {
 protected:
  DatabaseRecords() : db_(NewDatabasePath()) {
    db_.PutWorkload(MakeWorkload("w1", "conv"));
    db_.PutWorkload(MakeWorkload("w2", "dense"));
  }
  Database db_;
};

TEST_F(DatabaseRecords, PutWorkloadKeepsTheFirstEntry) {
  WorkloadEntry changed = MakeWorkload("w1", "renamed");
  changed.description = Json{{"other", true}};
  db_.PutWorkload(changed);
  std::optional<WorkloadEntry> stored = db_.GetWorkload("w1");
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->name, "conv");
  EXPECT_EQ(stored->description, MakeWorkload("w1", "conv").description);
  EXPECT_EQ(stored->space, MakeWorkload("w1", "conv").space);
  EXPECT_FALSE(db_.GetWorkload("w3").has_value());
  std::vector<WorkloadEntry> all = db_.Workloads();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].key, "w1");
  EXPECT_EQ(all[1].key, "w2");
}

TEST_F(DatabaseRecords, CommitBatchReturnsIdsAndRecordsReadBackExactly) {
  TuningRecord ok = MakeRecord("w1", "gpu", "aa", 1.25e-4, 1700000000.123456);
  TuningRecord failed =
      MakeRecord("w1", "gpu", "bb", kInf, 1700000001.5, MeasureStatus::kCompileDevice);
  failed.compile_time_s = kInf;
  std::vector<int64_t> ids = db_.CommitBatch({ok, failed});
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_LT(ids[0], ids[1]);
  std::vector<TuningRecord> records = db_.Records("w1");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].id, ids[0]);
  EXPECT_EQ(records[0].workload_key, "w1");
  EXPECT_EQ(records[0].device, "gpu");
  EXPECT_EQ(records[0].config, ok.config);
  EXPECT_EQ(records[0].config_hash, "aa");
  EXPECT_EQ(records[0].status, MeasureStatus::kOk);
  EXPECT_EQ(records[0].time_s, ok.time_s);
  EXPECT_EQ(records[0].samples_s, ok.samples_s);
  EXPECT_EQ(records[0].compile_time_s, ok.compile_time_s);
  EXPECT_EQ(records[0].cost_s, ok.cost_s);
  EXPECT_EQ(records[0].strategy, "random");
  EXPECT_EQ(records[0].started_at, ok.started_at);
  EXPECT_EQ(records[0].finished_at, ok.finished_at);
  EXPECT_EQ(records[1].status, MeasureStatus::kCompileDevice);
  EXPECT_TRUE(std::isinf(records[1].time_s) && records[1].time_s > 0);
  EXPECT_TRUE(std::isinf(records[1].compile_time_s));
  EXPECT_TRUE(std::isinf(records[1].samples_s[0]));
  EXPECT_EQ(records[1].error, failed.error);
}

TEST_F(DatabaseRecords, BatchWithUnknownWorkloadCommitsNothing) {
  db_.CommitBatch({MakeRecord("w1", "gpu", "aa", 1.0, 1.0)});
  std::vector<TuningRecord> batch = {MakeRecord("w1", "gpu", "bb", 2.0, 2.0),
                                     MakeRecord("w2", "gpu", "cc", 3.0, 3.0),
                                     MakeRecord("nope", "gpu", "dd", 4.0, 4.0)};
  try {
    db_.CommitBatch(batch);
    FAIL() << "expected an Error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("'nope'"), std::string::npos) << error.what();
  }
  EXPECT_EQ(db_.Records("w1").size(), 1u);
  EXPECT_EQ(db_.Records("w2").size(), 0u);
  // The database stays usable after the failed batch.
  EXPECT_EQ(db_.CommitBatch({MakeRecord("w2", "gpu", "cc", 3.0, 3.0)}).size(), 1u);
}

TEST_F(DatabaseRecords, RecordsFilterByDeviceInCommitOrder) {
  db_.CommitBatch(
      {MakeRecord("w1", "gpu", "c", 3.0, 30.0), MakeRecord("w1", "cpu", "a", 1.0, 10.0)});
  db_.CommitBatch(
      {MakeRecord("w1", "gpu", "b", 2.0, 20.0), MakeRecord("w2", "gpu", "z", 1.0, 1.0)});
  std::vector<TuningRecord> gpu = db_.Records("w1", "gpu");
  ASSERT_EQ(gpu.size(), 2u);
  EXPECT_EQ(gpu[0].config_hash, "c");  // commit order, not time or start order
  EXPECT_EQ(gpu[1].config_hash, "b");
  EXPECT_EQ(db_.Records("w1").size(), 3u);
  EXPECT_EQ(db_.Records("w1", "tpu").size(), 0u);
}

TEST_F(DatabaseRecords, BestIsFastestFirstOnePerConfiguration) {
  db_.CommitBatch({
      MakeRecord("w1", "gpu", "slow", 5.0, 1.0),
      MakeRecord("w1", "gpu", "fast", 2.0, 2.0),
      MakeRecord("w1", "gpu", "fast", 1.0, 3.0),  // a better repeat of "fast"
      MakeRecord("w1", "gpu", "mid", 3.0, 4.0),
      MakeRecord("w1", "gpu", "broken", 0.1, 5.0, MeasureStatus::kWrongAnswer),
      MakeRecord("w1", "gpu", "inf", kInf, 6.0),  // ok but without a finite time
      MakeRecord("w1", "cpu", "cpu-only", 0.5, 7.0),
      MakeRecord("w2", "gpu", "other", 0.01, 8.0),
  });
  std::vector<TuningRecord> best = db_.Best("w1", "gpu", 10);
  ASSERT_EQ(best.size(), 3u);
  EXPECT_EQ(best[0].config_hash, "fast");
  EXPECT_EQ(best[0].time_s, 1.0);
  EXPECT_EQ(best[0].started_at, 3.0);
  EXPECT_EQ(best[1].config_hash, "mid");
  EXPECT_EQ(best[2].config_hash, "slow");

  std::vector<TuningRecord> top2 = db_.Best("w1", "gpu", 2);
  ASSERT_EQ(top2.size(), 2u);
  EXPECT_EQ(top2[1].config_hash, "mid");

  std::vector<TuningRecord> any_device = db_.Best("w1", "", 10);
  ASSERT_EQ(any_device.size(), 4u);
  EXPECT_EQ(any_device[0].config_hash, "cpu-only");
  EXPECT_EQ(any_device[0].device, "cpu");

  EXPECT_TRUE(db_.Best("w1", "gpu", 0).empty());
  EXPECT_TRUE(db_.Best("w1", "tpu", 5).empty());
}

TEST_F(DatabaseRecords, SummariesCountPerWorkloadAndDevice) {
  db_.CommitBatch({
      MakeRecord("w1", "gpu", "a", 2.0, 1.0),
      MakeRecord("w1", "gpu", "b", 1.5, 2.0),
      MakeRecord("w1", "gpu", "c", kInf, 3.0, MeasureStatus::kRunTimeout),
      MakeRecord("w1", "cpu", "a", kInf, 4.0, MeasureStatus::kRuntimeDevice),
  });
  db_.PutWorkload(MakeWorkload("w3", "empty"));
  std::map<std::pair<std::string, std::string>, WorkloadSummary> by_key;
  for (const WorkloadSummary& summary : db_.Summaries()) {
    by_key[{summary.workload_key, summary.device}] = summary;
  }
  ASSERT_EQ(by_key.size(), 4u);  // w1 × {gpu, cpu}, and w2, w3 without records
  const WorkloadSummary& gpu = by_key.at({"w1", "gpu"});
  EXPECT_EQ(gpu.name, "conv");
  EXPECT_EQ(gpu.records, 3);
  EXPECT_EQ(gpu.failed, 1);
  ASSERT_TRUE(gpu.best_time_s.has_value());
  EXPECT_EQ(*gpu.best_time_s, 1.5);
  const WorkloadSummary& cpu = by_key.at({"w1", "cpu"});
  EXPECT_EQ(cpu.records, 1);
  EXPECT_EQ(cpu.failed, 1);
  EXPECT_FALSE(cpu.best_time_s.has_value());
  const WorkloadSummary& empty = by_key.at({"w3", ""});
  EXPECT_EQ(empty.name, "empty");
  EXPECT_EQ(empty.records, 0);
  EXPECT_EQ(empty.failed, 0);
  EXPECT_FALSE(empty.best_time_s.has_value());
}

}  // namespace
}  // namespace glimpse::testing
