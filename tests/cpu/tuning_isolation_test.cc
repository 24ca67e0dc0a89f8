// Isolation at the level of whole tuning runs: chosen configurations are replaced by planted
// kernels that crash (in an OpenMP region, by abort, by exiting the process), hang in an OpenMP
// region, compute a wrong (non-finite) answer or do not compile. Each becomes its status, the run
// measures its whole budget, the database holds exactly what the summary counts, a resumed run
// measures none of them again, and a second task tuned with the same builder, runner and database
// keeps its records apart.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cpu_fixtures.h"
#include "glimpse/cpu.h"
#include "glimpse/database.h"
#include "glimpse/tuner.h"
#include "glimpse/tuning_loop.h"

namespace glimpse {
namespace {

enum class Plant { kOmpCrash, kAbort, kExit, kOmpHang, kNonFinite, kCompileError };

struct Planted {
  Plant plant;
  MeasureStatus status;  // what the run must record
  std::string error;     // a piece of the recorded error text
};

std::string PlantedSource(Plant plant, const Task& task, const Config& config,
                          const std::string& symbol) {
  const std::string signature =
      "extern \"C\" void " + symbol + "(const float* const* inputs, float* output)";
  switch (plant) {
    case Plant::kOmpCrash:  // a fault on one of OpenMP's threads, not the calling one
      return signature +
             " {\n#pragma omp parallel for\n  for (int i = 0; i < 64; ++i) if (i == 63) { "
             "volatile float* p = nullptr; *p = inputs[0][0]; }\n}\n";
    case Plant::kAbort:
      return signature + " { __builtin_abort(); }\n";
    case Plant::kExit:  // leaves the worker without a signal
      return signature + " { __builtin__exit(3); }\n";
    case Plant::kOmpHang:  // every OpenMP thread spins: only killing the process stops it
      return signature +
             " {\n#pragma omp parallel for\n  for (int i = 0; i < 64; ++i) for (;;) asm "
             "volatile(\"\");\n}\n";
    case Plant::kNonFinite: {  // the real kernel, then a NaN
      const std::string real = symbol + "_real";
      std::string source = GenerateCpuKernel(task, config, real) + signature + " { " + real +
                           "(inputs, output); output[0] = __builtin_nanf(\"\"); }\n";
      if (source.find(real + "_prepare") != std::string::npos) {  // forward the prepare step
        source += "extern \"C\" int64_t " + symbol + "_prepared_size() { return " + real +
                  "_prepared_size(); }\nextern \"C\" void " + symbol +
                  "_prepare(const float* const* inputs, float* prepared) { " + real +
                  "_prepare(inputs, prepared); }\n";
      }
      return source;
    }
    case Plant::kCompileError:
      return signature + " { this is not C++; }\n";
  }
  return "";
}

// Builds like CpuBuilder, except that configurations chosen in advance (by their stable hash)
// get planted sources. It never sees the tuner: what it builds is whatever the loop asks for.
class PlantingBuilder : public Builder {
 public:
  PlantingBuilder(CpuBuilderOptions options, std::map<uint64_t, Plant> plants)
      : inner_(std::move(options)), plants_(std::move(plants)) {}

  std::vector<BuildResult> Build(const std::vector<MeasureInput>& inputs) override {
    std::vector<KernelSource> sources;
    for (const MeasureInput& input : inputs) {
      const std::string symbol = "tuning_isolation_" + std::to_string(next_symbol_++);
      auto it = plants_.find(input.task->space.Hash(input.config));
      if (it == plants_.end()) {
        sources.push_back({GenerateCpuKernel(*input.task, input.config, symbol), symbol});
      } else {
        ++built_planted_;
        sources.push_back({PlantedSource(it->second, *input.task, input.config, symbol), symbol});
      }
    }
    return inner_.BuildSources(sources);
  }
  int built_planted() const { return built_planted_; }

 private:
  CpuBuilder inner_;
  std::map<uint64_t, Plant> plants_;
  int64_t next_symbol_ = 0;
  int built_planted_ = 0;
};

// The first `n` valid configurations in dense-index order: what the grid strategy proposes first.
std::vector<Config> FirstValid(const ConfigSpace& space, size_t n) {
  std::vector<Config> out;
  for (uint64_t i = 0; out.size() < n && i < space.RawSize(); ++i) {
    Config config = space.FromDenseIndex(i);
    if (space.IsValid(config)) out.push_back(config);
  }
  return out;
}

TuneOptions Budget(int64_t measurements) {
  TuneOptions options;
  options.max_measurements = measurements;
  options.batch_size = 4;
  options.progress = ProgressMode::kQuiet;
  return options;
}

// The database holds exactly what the summary counts, and agrees with it on the best.
void ExpectDatabaseMatches(const Database& database, const Task& task, const TuneSummary& summary) {
  std::vector<TuningRecord> records = database.Records(task.WorkloadKey());
  ASSERT_EQ(records.size(), static_cast<size_t>(summary.measurements));
  std::map<MeasureStatus, int64_t> stored;
  std::set<std::string> hashes;
  for (const TuningRecord& record : records) {
    ++stored[record.status];
    EXPECT_TRUE(hashes.insert(record.config_hash).second) << "measured twice: " << record.config;
    EXPECT_EQ(record.device, task.device);
    if (record.status == MeasureStatus::kOk) {
      EXPECT_TRUE(std::isfinite(record.time_s));
      EXPECT_FALSE(record.samples_s.empty());
    } else {
      EXPECT_TRUE(std::isinf(record.time_s));
      EXPECT_FALSE(record.error.empty()) << StatusName(record.status);
    }
  }
  for (const auto& [status, count] : summary.by_status) {
    EXPECT_EQ(stored[status], count) << StatusName(status);
  }
  ASSERT_TRUE(summary.best_config.has_value());
  std::vector<TuningRecord> best = database.Best(task.WorkloadKey(), task.device, 1);
  ASSERT_EQ(best.size(), 1u);
  EXPECT_DOUBLE_EQ(best[0].time_s, summary.best_time_s);
  EXPECT_EQ(best[0].config, task.space.ConfigToJson(*summary.best_config));
}

class TuningIsolationTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeTempDir("glimpse-tuning-isolation"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(TuningIsolationTest, PlantedFailuresAreRecordedAndNeverMeasuredAgain) {
  Task task = MakeCpuTask(ParseOperator("dense:M=4,N=8,K=8,bias=1"));
  const std::vector<Config> first = FirstValid(task.space, 12);
  ASSERT_EQ(first.size(), 12u);
  // Positions in the grid's order; 1 and 2 share a batch (of 4) with a good kernel, 4..7 fill a
  // batch with failures but one, and the last batch holds the hang.
  const std::map<size_t, Planted> planted = {
      {1, {Plant::kOmpCrash, MeasureStatus::kRuntimeDevice, "signal"}},
      {2, {Plant::kCompileError, MeasureStatus::kCompileHost, "not C++"}},
      {4, {Plant::kAbort, MeasureStatus::kRuntimeDevice, "signal 6"}},
      {5, {Plant::kExit, MeasureStatus::kRuntimeDevice, "exit status 3"}},
      {6, {Plant::kNonFinite, MeasureStatus::kWrongAnswer, ""}},
      {9, {Plant::kOmpHang, MeasureStatus::kRunTimeout, "no result within"}},
  };
  std::map<uint64_t, Plant> plants;
  for (const auto& [position, plant] : planted) {
    plants[task.space.Hash(first[position])] = plant.plant;
  }
  PlantingBuilder builder(testing::FastBuild(dir_ + "/build"), plants);
  CpuRunnerOptions run_options = testing::FastRun();
  run_options.timeout_s = 1.5;
  run_options.threads = 2;  // so that the OpenMP plants really run on more than one thread
  CpuRunner runner(run_options);
  Database database(dir_ + "/tuning.db");

  std::unique_ptr<Tuner> grid = MakeTuner("grid");
  TuneSummary summary = Tune(task, *grid, builder, runner, &database, Budget(12));
  EXPECT_EQ(summary.measurements, 12);
  EXPECT_EQ(summary.stop_reason, "measurement budget");
  EXPECT_EQ(builder.built_planted(), 6);
  EXPECT_EQ(summary.by_status[MeasureStatus::kRuntimeDevice], 3);
  EXPECT_EQ(summary.by_status[MeasureStatus::kCompileHost], 1);
  EXPECT_EQ(summary.by_status[MeasureStatus::kWrongAnswer], 1);
  EXPECT_EQ(summary.by_status[MeasureStatus::kRunTimeout], 1);
  EXPECT_EQ(summary.by_status[MeasureStatus::kOk], 6);
  EXPECT_EQ(summary.failed, 6);
  // The first worker, and one after each of the crash, abort, exit and hang.
  EXPECT_EQ(runner.workers_started(), 5);
  ExpectDatabaseMatches(database, task, summary);

  // Each planted configuration is recorded once, with its status and the reason.
  std::map<std::string, TuningRecord> by_hash;
  for (const TuningRecord& record : database.Records(task.WorkloadKey())) {
    by_hash[record.config_hash] = record;
  }
  for (const auto& [position, plant] : planted) {
    SCOPED_TRACE(position);
    const TuningRecord& record = by_hash.at(HashToHex(task.space.Hash(first[position])));
    EXPECT_EQ(record.status, plant.status) << record.error;
    EXPECT_NE(record.error.find(plant.error), std::string::npos) << record.error;
  }

  // Resumed with a larger budget: the 12 records count, only 4 new configurations are measured,
  // none of them planted.
  std::unique_ptr<Tuner> again = MakeTuner("grid");
  TuneSummary resumed = Tune(task, *again, builder, runner, &database, Budget(16));
  EXPECT_EQ(resumed.resumed, 12);
  EXPECT_EQ(resumed.measurements, 16);
  EXPECT_EQ(resumed.failed, 6);
  EXPECT_EQ(builder.built_planted(), 6);
  ExpectDatabaseMatches(database, task, resumed);

  // Another task through the same builder, runner and database keeps its records apart.
  Task conv = MakeCpuTask(ParseOperator("conv2d:N=1,C=2,H=6,W=6,K=4,R=3,S=3,pad=1,bias=1"));
  std::unique_ptr<Tuner> random = MakeTuner("random");
  TuneSummary other = Tune(conv, *random, builder, runner, &database, Budget(4));
  EXPECT_EQ(other.by_status[MeasureStatus::kOk], 4);
  ExpectDatabaseMatches(database, conv, other);
  EXPECT_EQ(database.Records(task.WorkloadKey()).size(), 16u);
  EXPECT_EQ(database.Workloads().size(), 2u);
}

}  // namespace
}  // namespace glimpse
