// A writer killed with SIGKILL at an arbitrary moment loses at most the batch in flight.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "database_test_util.h"
#include "glimpse/database.h"

namespace glimpse::testing {
namespace {

constexpr int kBatchSize = 10;

// The child: commits batches of kBatchSize records, numbered from `first_batch` (the number is in
// `strategy` and in every config hash), until it is killed or 20 s have passed.
[[noreturn]] void WriteBatchesUntilKilled(const std::string& path, int first_batch) {
  try {
    Database db(path, /*create=*/false);
    auto start = std::chrono::steady_clock::now();
    for (int batch = first_batch;
         std::chrono::steady_clock::now() - start < std::chrono::seconds(20); ++batch) {
      std::vector<TuningRecord> records;
      for (int i = 0; i < kBatchSize; ++i) {
        std::string hash = std::to_string(batch) + "-" + std::to_string(i);
        TuningRecord record = MakeRecord("w", "gpu", hash, 1e-3 * (i + 1), batch * 100.0 + i);
        record.strategy = std::to_string(batch);
        records.push_back(std::move(record));
      }
      db.CommitBatch(records);
    }
  } catch (...) {
    _exit(2);
  }
  _exit(0);
}

int64_t CountRecords(const std::string& path) {
  Database db(path, /*create=*/false);
  int64_t total = 0;
  for (const WorkloadSummary& summary : db.Summaries()) total += summary.records;
  return total;
}

std::string IntegrityCheck(const std::string& path) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &stmt, nullptr);
  std::string answer = sqlite3_step(stmt) == SQLITE_ROW
                           ? reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0))
                           : "no answer";
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return answer;
}

TEST(DatabaseDurability, KilledWriterNeverLeavesHalfABatch) {
  std::string path = NewDatabasePath();
  {
    Database db(path);  // closed before fork: a connection must not cross fork()
    db.PutWorkload(MakeWorkload("w"));
  }
  std::mt19937 random(12345);
  int committed_batches = 0;
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) WriteBatchesUntilKilled(path, committed_batches);

    // Let the child get going, then kill it at a moment it cannot choose.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (CountRecords(path) < (committed_batches + 20) * kBatchSize &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(30 + random() % 120));
    ASSERT_EQ(kill(child, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status))
        << "the writer exited by itself with status " << WEXITSTATUS(status);
    EXPECT_EQ(WTERMSIG(status), SIGKILL);

    EXPECT_EQ(IntegrityCheck(path), "ok");
    Database db(path, /*create=*/false);
    std::map<int, int> per_batch;
    for (const TuningRecord& record : db.Records("w")) {
      int batch = std::stoi(record.strategy);
      ++per_batch[batch];
      EXPECT_EQ(record.config_hash.substr(0, record.config_hash.find('-')), record.strategy);
      EXPECT_EQ(record.samples_s.size(), 3u);
    }
    ASSERT_GE(per_batch.size(), static_cast<size_t>(committed_batches + 20));
    int expected_batch = 0;
    for (const auto& [batch, count] : per_batch) {
      EXPECT_EQ(batch, expected_batch++) << "batches are committed in order, without gaps";
      EXPECT_EQ(count, kBatchSize) << "batch " << batch << " is incomplete";
    }
    committed_batches = static_cast<int>(per_batch.size());
  }
  // The database still takes new batches after the crashes.
  Database db(path, /*create=*/false);
  EXPECT_EQ(db.CommitBatch({MakeRecord("w", "gpu", "after", 1.0, 1.0)}).size(), 1u);
}

TEST(DatabaseConcurrency, ThreadsAndConnectionsCommitWithoutLoss) {
  std::string path = NewDatabasePath();
  Database first(path);
  first.PutWorkload(MakeWorkload("w"));
  Database second(path, /*create=*/false);
  constexpr int kThreads = 4, kBatches = 25;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    // Two threads share each connection (the internal lock); the two connections contend for
    // the file's write lock (the busy timeout).
    Database& db = t % 2 ? second : first;
    threads.emplace_back([&db, t] {
      for (int batch = 0; batch < kBatches; ++batch) {
        std::vector<TuningRecord> records;
        for (int i = 0; i < kBatchSize; ++i) {
          TuningRecord record = MakeRecord("w", "gpu", std::to_string(i), 1.0, batch * 10.0 + i);
          record.strategy = std::to_string(t) + "/" + std::to_string(batch);
          records.push_back(std::move(record));
        }
        db.CommitBatch(records);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::vector<TuningRecord> records = first.Records("w");
  ASSERT_EQ(records.size(), static_cast<size_t>(kThreads * kBatches * kBatchSize));
  // A batch's records are consecutive in commit order: no other commit interleaves.
  for (size_t i = 0; i < records.size(); i += kBatchSize) {
    for (int j = 1; j < kBatchSize; ++j) {
      EXPECT_EQ(records[i + j].strategy, records[i].strategy) << "at record " << i + j;
    }
  }
}

}  // namespace
}  // namespace glimpse::testing
