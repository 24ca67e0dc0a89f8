// The loop with a database: records committed per batch, and resume from them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "glimpse/database.h"
#include "glimpse/tuning_loop.h"
#include "test_paths.h"
#include "tuner/synthetic.h"

namespace glimpse {
namespace {

using testing::MakeTask;
using testing::SyntheticRunner;

// Forwards to a real strategy and remembers what it was told to observe.
class RecordingTuner : public Tuner {
 public:
  explicit RecordingTuner(std::unique_ptr<Tuner> inner) : inner_(std::move(inner)) {}
  std::string Name() const override { return inner_->Name(); }
  void Init(const TuningContext& context) override { inner_->Init(context); }
  std::vector<Config> Propose(size_t n) override {
    ++proposals_;
    return inner_->Propose(n);
  }
  void Observe(const std::vector<Config>& configs,
               const std::vector<MeasureResult>& results) override {
    if (proposals_ == 0) warmed_with_ += configs.size();
    inner_->Observe(configs, results);
  }
  size_t warmed_with() const { return warmed_with_; }

 private:
  std::unique_ptr<Tuner> inner_;
  int proposals_ = 0;
  size_t warmed_with_ = 0;  // observed before the first proposal
};

class ResumeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = glimpse::testing::MakeTempDir("glimpse-loop-test");
    path_ = (std::filesystem::path(dir_) / "tuning.db").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  TuneOptions Options(int64_t budget) {
    TuneOptions options;
    options.max_measurements = budget;
    options.batch_size = 8;
    options.seed = 21;
    options.progress = ProgressMode::kQuiet;
    return options;
  }

  std::string dir_;
  std::string path_;
};

TEST_F(ResumeTest, SecondRunContinuesTheFirst) {
  Task task = MakeTask(testing::GridSpace(4, 8));
  SyntheticRunner runner(task.space, {2, 5, 1, 6}, /*fail_every=*/6);
  NullBuilder builder;
  Database database(path_);

  std::unique_ptr<Tuner> first = MakeTuner("ga", {{"population", 16}});
  TuneSummary one = Tune(task, *first, builder, runner, &database, Options(20));
  EXPECT_EQ(one.measurements, 20);
  EXPECT_EQ(database.Records(task.WorkloadKey(), task.device).size(), 20u);
  std::optional<WorkloadEntry> workload = database.GetWorkload(task.WorkloadKey());
  ASSERT_TRUE(workload.has_value());
  EXPECT_EQ(workload->name, task.name);
  EXPECT_EQ(ConfigSpace::FromJson(workload->space).Fingerprint(), task.space.Fingerprint());

  RecordingTuner second(MakeTuner("ga", {{"population", 16}}));
  TuneSummary two = Tune(task, second, builder, runner, &database, Options(50));
  EXPECT_EQ(second.warmed_with(), 20u);
  EXPECT_EQ(two.resumed, 20);
  EXPECT_EQ(two.measurements, 50);
  EXPECT_EQ(runner.runs(), 50);
  EXPECT_LE(two.best_time_s, one.best_time_s);
  ASSERT_EQ(two.trajectory.size(), 50u);
  EXPECT_EQ(two.trajectory[19].best_time_s, one.best_time_s);
  EXPECT_DOUBLE_EQ(two.tuning_time_s, 30 * 0.5);  // this run's measurements only

  std::vector<TuningRecord> records = database.Records(task.WorkloadKey(), task.device);
  ASSERT_EQ(records.size(), 50u);
  std::set<std::string> hashes;
  int64_t failed = 0;
  for (const TuningRecord& record : records) {
    EXPECT_TRUE(hashes.insert(record.config_hash).second) << "measured twice: " << record.config;
    Config config = task.space.ConfigFromJson(record.config);
    EXPECT_EQ(record.config_hash, HashToHex(task.space.Hash(config)));
    EXPECT_EQ(record.strategy, "ga");
    EXPECT_EQ(record.device, task.device);
    EXPECT_GT(record.started_at, 1.6e9);  // a Unix time in seconds
    EXPECT_GE(record.finished_at, record.started_at);
    EXPECT_DOUBLE_EQ(record.cost_s, 0.5);
    if (runner.Fails(config)) {
      ++failed;
      EXPECT_EQ(record.status, MeasureStatus::kRuntimeDevice);
      EXPECT_EQ(record.error, "synthetic launch failure");
    } else {
      EXPECT_EQ(record.status, MeasureStatus::kOk);
      EXPECT_DOUBLE_EQ(record.time_s, runner.TimeOf(config));
      EXPECT_EQ(record.samples_s.size(), 2u);
    }
  }
  EXPECT_EQ(two.failed, failed);

  // A finished command run again measures nothing and reports the same best.
  std::unique_ptr<Tuner> third = MakeTuner("ga", {{"population", 16}});
  TuneSummary three = Tune(task, *third, builder, runner, &database, Options(50));
  EXPECT_EQ(runner.runs(), 50);
  EXPECT_EQ(three.measurements, 50);
  EXPECT_EQ(three.resumed, 50);
  EXPECT_EQ(three.stop_reason, "measurement budget");
  EXPECT_EQ(three.best_time_s, two.best_time_s);
  EXPECT_EQ(three.best_config, two.best_config);
}

TEST_F(ResumeTest, ResumeOffIgnoresStoredRecords) {
  Task task = MakeTask(testing::GridSpace(3, 6));
  SyntheticRunner runner(task.space, {1, 1, 1});
  NullBuilder builder;
  Database database(path_);
  std::unique_ptr<Tuner> tuner = MakeRandomTuner();
  Tune(task, *tuner, builder, runner, &database, Options(10));
  TuneOptions options = Options(10);
  options.resume = false;
  TuneSummary summary = Tune(task, *tuner, builder, runner, &database, options);
  EXPECT_EQ(summary.resumed, 0);
  EXPECT_EQ(runner.runs(), 20);
  EXPECT_EQ(database.Records(task.WorkloadKey(), task.device).size(), 20u);
}

TEST_F(ResumeTest, RecordsThatNoLongerFitAreSkippedWithAWarning) {
  Task task = MakeTask(testing::GridSpace(3, 6));
  SyntheticRunner runner(task.space, {1, 1, 1});
  NullBuilder builder;
  Database database(path_);
  database.PutWorkload({task.WorkloadKey(), task.name, task.description, task.space.ToJson()});
  TuningRecord good;
  good.workload_key = task.WorkloadKey();
  good.device = task.device;
  good.config = task.space.ConfigToJson(Config{{1, 1, 1}});
  good.config_hash = HashToHex(task.space.Hash(Config{{1, 1, 1}}));
  good.status = MeasureStatus::kOk;
  good.time_s = 5e-4;
  good.strategy = "import";
  TuningRecord stale = good;
  stale.config = {{"k0", 99}, {"k1", 1}, {"k2", 1}};  // a value the knob does not have
  stale.config_hash = "0000000000000001";
  TuningRecord other_device = good;
  other_device.device = "Another GPU";
  database.CommitBatch({good, stale, other_device});

  std::ostringstream log;
  TuneOptions options = Options(5);
  options.progress = ProgressMode::kLog;
  options.progress_stream = &log;
  std::unique_ptr<Tuner> tuner = MakeRandomTuner();
  TuneSummary summary = Tune(task, *tuner, builder, runner, &database, options);
  EXPECT_EQ(summary.resumed, 1);
  EXPECT_EQ(summary.measurements, 5);
  EXPECT_EQ(runner.runs(), 4);
  EXPECT_DOUBLE_EQ(summary.best_time_s, 5e-4);  // the resumed record is the best
  EXPECT_EQ(summary.best_config, (Config{{1, 1, 1}}));
  EXPECT_NE(log.str().find("warning: skipped 1 of 2 stored records"), std::string::npos)
      << log.str();
}

TEST_F(ResumeTest, SeedsAreMeasuredFirstInRoundsOfTheirOwn) {
  Task task = MakeTask(testing::GridSpace(3, 6));
  SyntheticRunner runner(task.space, {1, 1, 1});
  NullBuilder builder;
  Database database(path_);
  std::unique_ptr<Tuner> first = MakeRandomTuner();
  Tune(task, *first, builder, runner, &database, Options(3));
  std::set<Config> resumed;
  for (const TuningRecord& record : database.Records(task.WorkloadKey(), task.device)) {
    resumed.insert(task.space.ConfigFromJson(record.config));
  }
  // Three configurations measured neither before nor among each other.
  std::vector<Config> fresh;
  for (uint32_t a = 0; a < 5 && fresh.size() < 3; ++a) {
    const Config config{{a, 2, 3}};
    if (task.space.IsValid(config) && !resumed.count(config)) fresh.push_back(config);
  }
  ASSERT_EQ(fresh.size(), 3u);
  const Config invalid{{5, 5, 0}};  // k0 + k1 < 10 fails
  ASSERT_FALSE(task.space.IsValid(invalid));

  TuneOptions options = Options(10);
  options.batch_size = 2;
  // A resumed one, two fresh, a repeat, an invalid one, the third fresh one.
  options.seed_configs = {*resumed.begin(), fresh[0], fresh[1], fresh[0], invalid, fresh[2]};
  RecordingTuner second(MakeRandomTuner());
  TuneSummary summary = Tune(task, second, builder, runner, &database, options);
  EXPECT_EQ(summary.resumed, 3);
  EXPECT_EQ(summary.measurements, 10);
  // The strategy was asked for nothing before it had observed the resumed records and the seeds.
  EXPECT_EQ(second.warmed_with(), 6u);

  const std::vector<TuningRecord> records = database.Records(task.WorkloadKey(), task.device);
  ASSERT_EQ(records.size(), 10u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(records[3 + i].strategy, "seed") << i;
    EXPECT_EQ(task.space.ConfigFromJson(records[3 + i].config), fresh[i]) << i;
  }
  // Rounds of their own: two seeds, then the last one alone, then the strategy's.
  EXPECT_EQ(records[3].started_at, records[4].started_at);
  EXPECT_NE(records[5].started_at, records[6].started_at);
  for (size_t i = 6; i < records.size(); ++i) EXPECT_EQ(records[i].strategy, "random") << i;
}

// The synthetic runner's times, doubled for the first `slow` candidates: a machine that ran slow
// while the search measured and at its speed when the candidates were measured again.
class SlowAtFirstRunner : public Runner {
 public:
  SlowAtFirstRunner(const SyntheticRunner& inner, int64_t slow) : inner_(inner), slow_(slow) {}
  std::vector<MeasureResult> Run(const std::vector<MeasureInput>& inputs,
                                 const std::vector<BuildResult>&) override {
    std::vector<MeasureResult> out;
    for (const MeasureInput& input : inputs) {
      MeasureResult result = inner_.Measure(input.config);
      if (runs_++ < slow_ && result.ok()) {
        result.time_s *= 2;
        for (double& sample : result.samples_s) sample *= 2;
      }
      out.push_back(result);
    }
    return out;
  }
  bool IsSimulated() const override { return true; }
  int64_t runs() const { return runs_; }

 private:
  const SyntheticRunner& inner_;
  int64_t slow_;
  int64_t runs_ = 0;
};

TEST_F(ResumeTest, RemeasuredSeedsAreMeasuredAgainAndCanOnlyLowerTheBest) {
  Task task = MakeTask(testing::GridSpace(3, 6));
  SyntheticRunner synthetic(task.space, {1, 1, 1});
  SlowAtFirstRunner runner(synthetic, 4);
  NullBuilder builder;
  Database database(path_);
  std::unique_ptr<Tuner> first = MakeRandomTuner();
  const TuneSummary searched = Tune(task, *first, builder, runner, &database, Options(4));
  ASSERT_EQ(runner.runs(), 4);
  std::vector<Config> measured;
  for (const TuningRecord& record : database.Records(task.WorkloadKey(), task.device)) {
    measured.push_back(task.space.ConfigFromJson(record.config));
  }
  ASSERT_EQ(measured.size(), 4u);
  Config fresh{{1, 1, 1}};  // the optimum, unless the search found it
  const bool optimum_measured =
      std::find(measured.begin(), measured.end(), fresh) != measured.end();
  if (optimum_measured) fresh = Config{{2, 2, 2}};
  ASSERT_EQ(std::find(measured.begin(), measured.end(), fresh), measured.end());

  TuneOptions options = Options(0);
  options.stop_after_seeds = true;
  options.remeasure_seeds = true;
  // Two measured ones, a repeat of the first, and one never measured.
  options.seed_configs = {measured[0], measured[2], measured[0], fresh};
  std::unique_ptr<Tuner> second = MakeRandomTuner();
  const TuneSummary rechecked = Tune(task, *second, builder, runner, &database, options);
  EXPECT_EQ(rechecked.stop_reason, "seeds measured");
  EXPECT_EQ(rechecked.resumed, 4);
  EXPECT_EQ(rechecked.measurements, 7);
  EXPECT_EQ(runner.runs(), 7);

  const std::vector<TuningRecord> records = database.Records(task.WorkloadKey(), task.device);
  ASSERT_EQ(records.size(), 7u);
  const std::vector<Config> again{measured[0], measured[2], fresh};
  for (size_t i = 0; i < again.size(); ++i) {
    EXPECT_EQ(records[4 + i].strategy, "recheck") << i;
    EXPECT_EQ(task.space.ConfigFromJson(records[4 + i].config), again[i]) << i;
    EXPECT_DOUBLE_EQ(records[4 + i].time_s, synthetic.TimeOf(again[i])) << i;
  }
  // Measured at half its first time, the first configuration keeps both records; its best is the
  // second.
  EXPECT_DOUBLE_EQ(records[0].time_s, 2 * synthetic.TimeOf(measured[0]));
  double best = std::min(synthetic.TimeOf(measured[0]), synthetic.TimeOf(measured[2]));
  best = std::min(best, synthetic.TimeOf(fresh));
  for (size_t i : {1, 3}) best = std::min(best, 2 * synthetic.TimeOf(measured[i]));
  EXPECT_DOUBLE_EQ(rechecked.best_time_s, best);
  EXPECT_LT(rechecked.best_time_s, searched.best_time_s);
  const std::vector<TuningRecord> fastest = database.Best(task.WorkloadKey(), task.device, 1);
  ASSERT_EQ(fastest.size(), 1u);
  EXPECT_DOUBLE_EQ(fastest[0].time_s, best);
}

}  // namespace
}  // namespace glimpse
