// Multi-task tuning (glimpse/tune_tasks.h) on a stand-in target: tasks per distinct operator, an
// operator without a template reported and skipped, each task tuned with its own budget, runner
// and (with validity_init) checker, into one database; the report's JSON.
#include "glimpse/tune_tasks.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "glimpse/error.h"
#include "test_paths.h"

namespace glimpse {
namespace {

// time_s = 1 ms / tile: the largest tile is best. The candidates whose 0-based number in the
// whole run (counted in `*measured`) is in `*slow` take 8× that: the machine ran slow then.
class TileRunner : public Runner {
 public:
  TileRunner(int64_t* measured, const std::set<int64_t>* slow) : measured_(measured), slow_(slow) {}
  std::vector<MeasureResult> Run(const std::vector<MeasureInput>& inputs,
                                 const std::vector<BuildResult>& builds) override {
    std::vector<MeasureResult> results(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      ConfigView view(inputs[i].task->space, inputs[i].config);
      const double slowdown = slow_->count((*measured_)++) ? 8.0 : 1.0;
      results[i].status = MeasureStatus::kOk;
      results[i].time_s = slowdown * 1e-3 / static_cast<double>(view.Int("tile"));
      results[i].samples_s = {results[i].time_s};
      results[i].cost_s = 0.01;
    }
    return results;
  }

 private:
  int64_t* measured_;
  const std::set<int64_t>* slow_;
};

class AllValid : public ValidityChecker {
 public:
  std::vector<ValidityResult> Check(const std::vector<Config>& configs) override {
    return std::vector<ValidityResult>(configs.size(), ValidityResult{true, MeasureStatus::kOk});
  }
};

// A target with a template for dense only; it remembers what it was asked for.
class FakeTarget : public Target {
 public:
  std::string Name() const override { return "fake"; }
  std::string Device() const override { return "Fake Device"; }
  Task MakeTask(const Operator& op) const override {
    if (OperatorName(op) != "dense")
      throw NoTemplateError("no fake template for " + OperatorName(op));
    Task task;
    task.name = OperatorToString(op);
    task.device = Device();
    task.description = OperatorToJson(op);
    task.space.AddKnob(Knob::Ordered(
        "tile", {int64_t{1}, int64_t{2}, int64_t{4}, int64_t{8}, int64_t{16}, int64_t{32}}));
    // N = 7: a shape no tile fits.
    if (std::get<DenseShape>(op).n == 7) task.space.AddRestriction("tile > 64");
    return task;
  }
  std::unique_ptr<Builder> MakeBuilder(const std::string& work_dir) const override {
    builder_dirs.push_back(work_dir);
    return std::make_unique<NullBuilder>();
  }
  std::unique_ptr<Runner> MakeRunner(const Task& task, double timeout_s) const override {
    runner_timeouts[task.name] = timeout_s;
    return std::make_unique<TileRunner>(&measured, &slow);
  }
  std::shared_ptr<ValidityChecker> MakeValidityChecker(const Task& task,
                                                       const std::string& work_dir) const override {
    checker_dirs.push_back(work_dir);
    return std::make_shared<AllValid>();
  }

  mutable std::vector<std::string> builder_dirs, checker_dirs;
  mutable std::map<std::string, double> runner_timeouts;
  mutable int64_t measured = 0;  // candidates measured by all runners
  std::set<int64_t> slow;        // ... and those that ran 8× slow (TileRunner)
};

// (tile, strategy) of each record of `task` in the database at `db_path`, in commit order.
using Tiles = std::vector<std::pair<int64_t, std::string>>;
Tiles TilesMeasured(const FakeTarget& target, const std::string& db_path, const TaskOutcome& task) {
  Tiles out;
  Database database(db_path);
  const ConfigSpace space = target.MakeTask(task.task.op).space;
  for (const TuningRecord& record : database.Records(task.workload_key)) {
    out.emplace_back(ConfigView(space, space.ConfigFromJson(record.config)).Int("tile"),
                     record.strategy);
  }
  return out;
}

std::vector<ModelLayer> Layers() {
  return {{"fc1", ParseOperator("dense:M=1,N=16,K=32")},
          {"dw", ParseOperator("depthwise_conv2d:N=1,C=8,H=8,W=8,R=3,S=3")},
          {"fc2", ParseOperator("dense:M=1,N=16,K=32")},
          {"fc3", ParseOperator("dense:M=1,N=8,K=32")}};
}

TEST(TuneTasksTest, PlanGivesOneTaskPerDistinctOperatorAndSaysWhyOneCannotBeTuned) {
  FakeTarget target;
  std::vector<TaskOutcome> tasks = PlanTasks(target, Layers());
  ASSERT_EQ(tasks.size(), 3u);
  EXPECT_EQ(tasks[0].task.weight, 2);  // fc1 and fc2
  EXPECT_TRUE(tasks[0].Tunable());
  EXPECT_EQ(tasks[0].workload_key, target.MakeTask(tasks[0].task.op).WorkloadKey());
  EXPECT_FALSE(tasks[1].Tunable());
  EXPECT_EQ(tasks[1].error, "no fake template for depthwise_conv2d");
  EXPECT_TRUE(tasks[1].workload_key.empty());
  EXPECT_EQ(tasks[1].Status(), "no-template");
  EXPECT_TRUE(tasks[2].Tunable());

  try {
    PlanTasks(target, {{"dw", ParseOperator("depthwise_conv2d:N=1,C=8,H=8,W=8,R=3,S=3")}});
    FAIL() << "nothing can be tuned";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("no operator can be tuned on fake: depthwise_conv2d"),
              std::string::npos)
        << error.what();
  }
}

// A space without a valid configuration is refused when the tasks are planned, with the
// restrictions that exclude everything; the other tasks go on.
TEST(TuneTasksTest, ATaskWhoseSpaceHasNoValidConfigurationIsRefusedWhenPlanned) {
  FakeTarget target;
  std::vector<TaskOutcome> tasks = PlanTasks(
      target,
      {{"fc", ParseOperator("dense:M=1,N=7,K=32")}, {"fc2", ParseOperator("dense:M=1,N=16,K=32")}});
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_FALSE(tasks[0].Tunable());
  EXPECT_EQ(tasks[0].error,
            "its fake space has no valid configuration (all 6 configurations break a "
            "restriction; its restrictions: 'tile > 64'): nothing can be tuned");
  EXPECT_EQ(tasks[0].Status(), "refused");
  EXPECT_TRUE(tasks[1].Tunable());
  EXPECT_THROW(PlanTasks(target, {{"fc", ParseOperator("dense:M=1,N=7,K=32")}}), Error);
}

TEST(TuneTasksTest, EachTunableTaskIsTunedWithItsBudgetIntoOneDatabase) {
  const std::string dir = testing::MakeTempDir("glimpse-tune-tasks");
  FakeTarget target;
  std::vector<TaskOutcome> tasks = PlanTasks(target, Layers());
  tasks[0].budget = 4;
  tasks[2].budget = 6;
  Database database(dir + "/tuning.db");
  TuneTasksOptions options;
  options.tuner = "grid";
  options.tune.batch_size = 2;
  options.tune.progress = ProgressMode::kQuiet;
  options.run_timeout = [](const ModelTask& task) { return 1.0 + task.weight; };
  options.work_dir = dir + "/kernels";
  std::ostringstream log;
  options.log = &log;
  TuneTasks(target, tasks, options, &database);

  EXPECT_EQ(target.builder_dirs, std::vector<std::string>{dir + "/kernels"});
  EXPECT_TRUE(target.checker_dirs.empty());  // no validity_init
  ASSERT_TRUE(tasks[0].summary && tasks[2].summary);
  EXPECT_EQ(tasks[0].summary->measurements, 4);
  EXPECT_EQ(tasks[2].summary->measurements, 6);
  EXPECT_FALSE(tasks[1].summary.has_value());
  // Grid order: tiles 1, 2, 4, 8 for the first task; all six for the last, 32 best.
  EXPECT_EQ(tasks[0].best_config["tile"], 8);
  EXPECT_EQ(tasks[2].best_config["tile"], 32);
  EXPECT_DOUBLE_EQ(tasks[2].BestTime(), 1e-3 / 32);
  EXPECT_EQ(target.runner_timeouts.at(tasks[0].task.op_text), 3.0);  // weight 2
  EXPECT_EQ(target.runner_timeouts.at(tasks[2].task.op_text), 2.0);
  EXPECT_EQ(database.Records(tasks[0].workload_key).size(), 4u);
  EXPECT_EQ(database.Records(tasks[2].workload_key).size(), 6u);
  EXPECT_NE(log.str().find("task 2/3: " + tasks[1].task.op_text + ": skipped, no fake template"),
            std::string::npos)
      << log.str();
  EXPECT_NE(log.str().find("task 3/3: " + tasks[2].task.op_text + " (weight 1, budget 6)"),
            std::string::npos)
      << log.str();

  TasksReport report;
  report.target = target.Name();
  report.device = target.Device();
  report.tasks = tasks;
  Json json = TasksReportToJson(report);
  EXPECT_EQ(json["tasks"][0]["status"], "tuned");
  EXPECT_EQ(json["tasks"][1]["status"], "no-template");
  EXPECT_EQ(json["tasks"][2]["best"]["config"]["tile"], 32);
  // One task has no result: the model's latency is not estimated, the tuned ones are summed.
  EXPECT_TRUE(json["estimated_latency_s"].is_null());
  EXPECT_EQ(json["latency"]["tuned_tasks"], 2);
  EXPECT_DOUBLE_EQ(json["latency"]["sum_of_tuned_s"].get<double>(), 2 * 1e-3 / 8 + 1e-3 / 32);
  std::filesystem::remove_all(dir);
}

// The grid strategy, telling `note` the context of each run it is initialised for (what the
// tests check a task was given: its validity checker, its history).
class NotingTuner : public Tuner {
 public:
  NotingTuner(std::string name, std::function<void(const TuningContext&)> note)
      : name_(std::move(name)), note_(std::move(note)) {}
  std::string Name() const override { return name_; }
  using Tuner::Init;
  void Init(const TuningContext& context) override {
    note_(context);
    inner_->Init(context);
  }
  std::vector<Config> Propose(size_t n) override { return inner_->Propose(n); }
  void Observe(const std::vector<Config>& configs,
               const std::vector<MeasureResult>& results) override {
    inner_->Observe(configs, results);
  }

 private:
  std::string name_;
  std::function<void(const TuningContext&)> note_;
  std::unique_ptr<Tuner> inner_ = MakeTuner("grid");
};

TEST(TuneTasksTest, ValidityInitGivesEachTaskACheckerOfItsOwn) {
  static std::vector<ValidityChecker*> seen;
  static const bool registered = [] {
    RegisterTuner(
        "checking", "grid, noting its validity checker",
        [](const Json& options) {
          return std::make_unique<NotingTuner>("checking", [](const TuningContext& context) {
            seen.push_back(context.knowledge.validity_checker.get());
          });
        },
        TunerTraits{.checks_validity = true});
    return true;
  }();
  ASSERT_TRUE(registered);
  seen.clear();
  const std::string dir = testing::MakeTempDir("glimpse-tune-tasks-validity");
  FakeTarget target;
  std::vector<TaskOutcome> tasks = PlanTasks(target, Layers());
  tasks[0].budget = tasks[2].budget = 2;
  TuneTasksOptions options;
  options.tuner = "checking";
  options.tuner_options = {{"validity_init", true}};
  options.tune.progress = ProgressMode::kQuiet;
  options.work_dir = dir;
  TuneTasks(target, tasks, options, nullptr);
  EXPECT_EQ(target.checker_dirs,
            (std::vector<std::string>{dir + "/validity-0", dir + "/validity-2"}));
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_NE(seen[0], nullptr);
  EXPECT_NE(seen[1], nullptr);
  std::filesystem::remove_all(dir);
}

TEST(TuneTasksTest, EpilogueSiblingsOfEarlierTasksSeedAndInformLaterOnes) {
  static std::vector<TransferHistory> seen;
  static const bool registered = [] {
    RegisterTuner(
        "history-noting", "grid, noting its history",
        [](const Json& options) {
          return std::make_unique<NotingTuner>("history-noting", [](const TuningContext& context) {
            seen.push_back(context.knowledge.history);
          });
        },
        TunerTraits{.learns_from_history = true});
    return true;
  }();
  ASSERT_TRUE(registered);
  const std::string dir = testing::MakeTempDir("glimpse-tune-tasks-siblings");
  FakeTarget target;
  // Task 2 is task 1 with a bias and a ReLU; task 3 another shape; task 4 task 1 with a residual.
  const std::vector<ModelLayer> layers = {
      {"fc", ParseOperator("dense:M=1,N=16,K=32")},
      {"fc_relu", ParseOperator("dense:M=1,N=16,K=32,bias=1,relu=1")},
      {"other", ParseOperator("dense:M=1,N=8,K=32,relu=1")},
      {"fc_residual", ParseOperator("dense:M=1,N=16,K=32,residual=1")}};
  struct Run {
    std::vector<TaskOutcome> tasks;
    std::string log;
  };
  const auto run = [&](const std::string& db_name, int seeds, bool history) {
    Run result;
    result.tasks = PlanTasks(target, layers);
    for (TaskOutcome& task : result.tasks) task.budget = 3;
    result.tasks[3].budget = 4;
    Database database(dir + "/" + db_name);
    TuneTasksOptions options;
    options.tuner = "history-noting";
    options.tune.batch_size = 3;
    options.tune.progress = ProgressMode::kQuiet;
    options.work_dir = dir;
    options.sibling_seeds = seeds;
    options.sibling_history = history;
    options.sibling_sweep = 0;  // the seeds alone (the sweep: the next test)
    std::ostringstream log;
    options.log = &log;
    seen.clear();
    TuneTasks(target, result.tasks, options, &database);
    result.log = log.str();
    return result;
  };
  const auto tiles = [&](const std::string& db_name, const TaskOutcome& task) {
    return TilesMeasured(target, dir + "/" + db_name, task);
  };

  // Two seeds each: task 1 measured tiles 1, 2, 4 (grid order), so task 2 measures its sibling's
  // two fastest first (4, then 2) and then the grid's first new one; task 4 the two fastest of
  // tasks 1 and 2 (4, 2), then the grid's.
  const Run on = run("on.db", 2, true);
  EXPECT_EQ(tiles("on.db", on.tasks[1]), (Tiles{{4, "seed"}, {2, "seed"}, {1, "history-noting"}}));
  EXPECT_EQ(tiles("on.db", on.tasks[2]),
            (Tiles{{1, "history-noting"}, {2, "history-noting"}, {4, "history-noting"}}));
  EXPECT_EQ(tiles("on.db", on.tasks[3]),
            (Tiles{{4, "seed"}, {2, "seed"}, {1, "history-noting"}, {8, "history-noting"}}));
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_TRUE(seen[0].empty());
  ASSERT_EQ(seen[1].size(), 3u);  // task 1's three measurements, as history
  EXPECT_EQ(ConfigView(target.MakeTask(layers[1].op).space, seen[1][2].first).Int("tile"), 4);
  EXPECT_EQ(seen[1][2].second.status, MeasureStatus::kOk);
  EXPECT_DOUBLE_EQ(seen[1][2].second.time_s, 1e-3 / 4);
  EXPECT_TRUE(seen[2].empty());   // another shape
  EXPECT_EQ(seen[3].size(), 6u);  // tasks 1 and 2
  EXPECT_EQ(on.tasks[3].siblings, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(on.tasks[3].sibling_seeds, 2);
  EXPECT_EQ(on.tasks[3].history_records, 6);
  EXPECT_TRUE(on.tasks[2].siblings.empty());
  EXPECT_NE(on.log.find("(weight 1, budget 3; epilogue sibling task 1: 2 fastest measured first, "
                        "3 records as history)"),
            std::string::npos)
      << on.log;
  EXPECT_NE(on.log.find("epilogue siblings, tasks 1, 2: 2 fastest measured first, 6 records as "
                        "history)"),
            std::string::npos)
      << on.log;
  TasksReport report;
  report.tasks = on.tasks;
  const Json json = TasksReportToJson(report);
  EXPECT_EQ(json["tasks"][3]["siblings"]["tasks"], Json::array({1, 2}));
  EXPECT_EQ(json["tasks"][3]["siblings"]["seeds"], 2);
  EXPECT_EQ(json["tasks"][3]["siblings"]["history_records"], 6);
  EXPECT_FALSE(json["tasks"][2].contains("siblings"));

  // Off: the grid's own order everywhere, and no history.
  const Run off = run("off.db", 0, false);
  EXPECT_EQ(tiles("off.db", off.tasks[1]),
            (Tiles{{1, "history-noting"}, {2, "history-noting"}, {4, "history-noting"}}));
  ASSERT_EQ(seen.size(), 4u);
  for (const TransferHistory& history : seen) EXPECT_TRUE(history.empty());
  EXPECT_EQ(off.log.find("epilogue sibling"), std::string::npos) << off.log;
  std::filesystem::remove_all(dir);
}

// Template seeds come first, whatever the strategy, then the siblings' seeds without those
// already measured as template seeds; the log line and the report say how many.
TEST(TuneTasksTest, TemplateSeedsAreMeasuredFirstAndASiblingSeedAmongThemOnlyOnce) {
  const std::string dir = testing::MakeTempDir("glimpse-tune-tasks-template-seeds");
  FakeTarget target;
  const std::vector<ModelLayer> layers = {
      {"fc", ParseOperator("dense:M=1,N=16,K=32")},
      {"fc_relu", ParseOperator("dense:M=1,N=16,K=32,bias=1,relu=1")}};
  std::vector<TaskOutcome> tasks = PlanTasks(target, layers);
  tasks[0].budget = 4;
  tasks[1].budget = 5;
  Database database(dir + "/seeds.db");
  TuneTasksOptions options;
  options.tuner = "grid";
  options.tune.batch_size = 2;
  options.tune.progress = ProgressMode::kQuiet;
  options.work_dir = dir;
  options.sibling_seeds = 2;
  options.sibling_sweep = 0;
  std::vector<std::string> asked;
  options.template_seeds = [&](const Task& tuned) {
    asked.push_back(tuned.name);
    // Tiles 32 and 8 (indices 5 and 3 of the ordered knob).
    return std::vector<Config>{tuned.space.FromDenseIndex(5), tuned.space.FromDenseIndex(3)};
  };
  std::ostringstream log;
  options.log = &log;
  TuneTasks(target, tasks, options, &database);
  EXPECT_EQ(asked.size(), 2u);
  // Task 1: the two seeds, then the grid's first two (tiles 1, 2).
  EXPECT_EQ(TilesMeasured(target, dir + "/seeds.db", tasks[0]),
            (Tiles{{32, "seed"}, {8, "seed"}, {1, "grid"}, {2, "grid"}}));
  EXPECT_EQ(tasks[0].template_seeds, 2);
  // Task 2: the template seeds 32 and 8, then of its sibling's two fastest (32, 8) none again;
  // then the grid.
  EXPECT_EQ(TilesMeasured(target, dir + "/seeds.db", tasks[1]),
            (Tiles{{32, "seed"}, {8, "seed"}, {1, "grid"}, {2, "grid"}, {4, "grid"}}));
  EXPECT_EQ(tasks[1].template_seeds, 2);
  EXPECT_EQ(tasks[1].sibling_seeds, 0);
  EXPECT_NE(log.str().find("(weight 1, budget 4, 2 template seeds first)"), std::string::npos)
      << log.str();
  TasksReport report;
  report.tasks = tasks;
  const Json json = TasksReportToJson(report);
  EXPECT_EQ(json["tasks"][0]["template_seeds"], 2);
  std::filesystem::remove_all(dir);
}

TEST(TuneTasksTest, TheSiblingSweepBringsALaterSiblingsBestBackToAnEarlierTask) {
  const std::string dir = testing::MakeTempDir("glimpse-tune-tasks-sweep");
  FakeTarget target;
  const std::vector<ModelLayer> layers = {
      {"fc", ParseOperator("dense:M=1,N=16,K=32")},
      {"fc_relu", ParseOperator("dense:M=1,N=16,K=32,bias=1,relu=1")},
      {"other", ParseOperator("dense:M=1,N=8,K=32,relu=1")},
      {"fc_residual", ParseOperator("dense:M=1,N=16,K=32,residual=1")}};
  const auto run = [&](const std::string& db_name, int sweep, std::string* log_text) {
    std::vector<TaskOutcome> tasks = PlanTasks(target, layers);
    for (TaskOutcome& task : tasks) task.budget = 3;
    tasks[3].budget = 4;  // the last sibling alone gets as far as tile 8
    Database database(dir + "/" + db_name);
    TuneTasksOptions options;
    options.tuner = "grid";
    options.tune.batch_size = 4;
    options.tune.progress = ProgressMode::kQuiet;
    options.work_dir = dir;
    options.sibling_seeds = 0;      // the sweep alone
    options.sibling_sweep = sweep;  // without a recheck (the default): only what is new to a task
    std::ostringstream log;
    options.log = &log;
    TuneTasks(target, tasks, options, &database);
    if (log_text != nullptr) *log_text = log.str();
    return tasks;
  };
  const auto tiles = [&](const std::string& db_name, const TaskOutcome& task) {
    return TilesMeasured(target, dir + "/" + db_name, task);
  };

  // The grid measures tiles 1, 2, 4 on tasks 1-3 and 1, 2, 4, 8 on task 4. The sweep then gives
  // task 1 the two fastest of tasks 2 (4, 2) and 4 (8, 4): only 8 is new to it.
  std::string log;
  const std::vector<TaskOutcome> on = run("on.db", 2, &log);
  EXPECT_EQ(tiles("on.db", on[0]), (Tiles{{1, "grid"}, {2, "grid"}, {4, "grid"}, {8, "seed"}}));
  EXPECT_EQ(on[0].sweep_measured, 1);
  EXPECT_EQ(on[0].sweep_from, (std::vector<size_t>{1, 3}));
  EXPECT_DOUBLE_EQ(on[0].best_before_sweep_s, 1e-3 / 4);
  ASSERT_TRUE(on[0].summary);
  EXPECT_DOUBLE_EQ(on[0].summary->best_time_s, 1e-3 / 8);
  EXPECT_EQ(on[0].summary->measurements, 4);
  EXPECT_EQ(on[0].best_config["tile"], 8);
  EXPECT_EQ(on[0].summary->stop_reason, "measurement budget");  // the tuning's, not the sweep's
  // Task 2 gets tile 8 too; task 3 has no sibling; task 4 had measured everything offered.
  EXPECT_EQ(on[1].sweep_measured, 1);
  EXPECT_DOUBLE_EQ(on[1].BestTime(), 1e-3 / 8);
  EXPECT_TRUE(on[2].sweep_from.empty());
  EXPECT_EQ(tiles("on.db", on[2]).size(), 3u);
  EXPECT_EQ(on[3].sweep_measured, 0);
  EXPECT_EQ(tiles("on.db", on[3]).size(), 4u);
  EXPECT_NE(log.find("sibling sweep, task 1/4: 1 configuration of tasks 2, 4 measured: best "
                     "250 µs -> 125 µs"),
            std::string::npos)
      << log;
  EXPECT_EQ(log.find("sibling sweep, task 4/4"), std::string::npos) << log;
  TasksReport report;
  report.tasks = on;
  const Json json = TasksReportToJson(report);
  EXPECT_EQ(json["tasks"][0]["sibling_sweep"]["tasks"], Json::array({2, 4}));
  EXPECT_EQ(json["tasks"][0]["sibling_sweep"]["measured"], 1);
  EXPECT_DOUBLE_EQ(json["tasks"][0]["sibling_sweep"]["best_before_s"].get<double>(), 1e-3 / 4);
  EXPECT_EQ(json["tasks"][0]["measurements"], 4);
  EXPECT_FALSE(json["tasks"][2].contains("sibling_sweep"));

  // Off: the first task keeps its own best.
  const std::vector<TaskOutcome> off = run("off.db", 0, nullptr);
  EXPECT_EQ(tiles("off.db", off[0]).size(), 3u);
  EXPECT_DOUBLE_EQ(off[0].BestTime(), 1e-3 / 4);
  EXPECT_TRUE(off[0].sweep_from.empty());
  std::filesystem::remove_all(dir);
}

TEST(TuneTasksTest, TheRecheckMeasuresTheFastestAgainInOneBatchAndKeepsTheFasterFigure) {
  const std::string dir = testing::MakeTempDir("glimpse-tune-tasks-recheck");
  const std::vector<ModelLayer> layers = {
      {"fc", ParseOperator("dense:M=1,N=16,K=32")},
      {"fc_relu", ParseOperator("dense:M=1,N=16,K=32,bias=1,relu=1")},
      {"other", ParseOperator("dense:M=1,N=8,K=32")}};
  const auto run = [&](FakeTarget& target, const std::string& db_name, int recheck,
                       std::string* log_text) {
    std::vector<TaskOutcome> tasks = PlanTasks(target, layers);
    for (TaskOutcome& task : tasks) task.budget = 4;
    tasks[2].budget = 3;
    Database database(dir + "/" + db_name);
    TuneTasksOptions options;
    options.tuner = "grid";
    options.tune.batch_size = 4;
    options.tune.progress = ProgressMode::kQuiet;
    options.work_dir = dir;
    options.sibling_seeds = 1;
    options.sibling_history = false;
    options.sibling_sweep = 2;
    options.recheck = recheck;
    std::ostringstream log;
    options.log = &log;
    TuneTasks(target, tasks, options, &database);
    if (log_text != nullptr) *log_text = log.str();
    return tasks;
  };
  // Task 1 measures tiles 1, 2, 4, 8 (candidates 0-3). Task 2 measures its sibling's fastest, 8,
  // first (candidate 4) while the machine runs slow, so that 8 looks like 1 ms; then 1, 2, 4
  // (5-7). Task 3 measures 1, 2, 4 (8-10), and its 4 runs slow too (candidate 10).
  FakeTarget target;
  target.slow = {4, 10};
  std::string log;
  const std::vector<TaskOutcome> on = run(target, "on.db", 1, &log);
  const auto tiles = [&](const std::string& db_name, const TaskOutcome& task) {
    return TilesMeasured(target, dir + "/" + db_name, task);
  };
  // Task 1: its fastest (8) again, then task 2's two fastest (4, 2), measured by it already.
  EXPECT_EQ(tiles("on.db", on[0]), (Tiles{{1, "grid"},
                                          {2, "grid"},
                                          {4, "grid"},
                                          {8, "grid"},
                                          {8, "recheck"},
                                          {4, "recheck"},
                                          {2, "recheck"}}));
  EXPECT_EQ(on[0].rechecked, 3);
  EXPECT_EQ(on[0].sweep_measured, 0);
  EXPECT_DOUBLE_EQ(on[0].BestTime(), 1e-3 / 8);
  // Task 2: its fastest (4) and task 1's (8, 4) in one batch: 8 measured at its speed this time,
  // and kept.
  EXPECT_EQ(
      tiles("on.db", on[1]),
      (Tiles{{8, "seed"}, {1, "grid"}, {2, "grid"}, {4, "grid"}, {4, "recheck"}, {8, "recheck"}}));
  EXPECT_EQ(on[1].rechecked, 2);
  EXPECT_EQ(on[1].sweep_from, (std::vector<size_t>{0}));
  EXPECT_DOUBLE_EQ(on[1].best_before_sweep_s, 1e-3 / 4);
  EXPECT_DOUBLE_EQ(on[1].BestTime(), 1e-3 / 8);
  EXPECT_EQ(on[1].best_config["tile"], 8);
  ASSERT_TRUE(on[1].summary);
  EXPECT_EQ(on[1].summary->measurements, 6);
  EXPECT_EQ(on[1].summary->stop_reason, "measurement budget");  // the tuning's, not the recheck's
  // Task 3, without siblings: its one fastest is 2 (4 ran slow), measured again; the recheck
  // cannot give back what it does not measure.
  EXPECT_EQ(tiles("on.db", on[2]), (Tiles{{1, "grid"}, {2, "grid"}, {4, "grid"}, {2, "recheck"}}));
  EXPECT_DOUBLE_EQ(on[2].BestTime(), 1e-3 / 2);
  EXPECT_NE(log.find("recheck, task 2/3: 2 measured again: best 250 µs -> 125 µs"),
            std::string::npos)
      << log;
  TasksReport report;
  report.tasks = on;
  const Json json = TasksReportToJson(report);
  EXPECT_EQ(json["tasks"][1]["recheck"]["measured"], 2);
  EXPECT_DOUBLE_EQ(json["tasks"][1]["recheck"]["best_before_s"].get<double>(), 1e-3 / 4);
  EXPECT_EQ(json["tasks"][2]["recheck"]["measured"], 1);
  // The database's pick is the faster figure, too.
  {
    Database database(dir + "/on.db");
    const std::vector<TuningRecord> best = database.Best(on[1].workload_key, "Fake Device", 1);
    ASSERT_EQ(best.size(), 1u);
    EXPECT_DOUBLE_EQ(best[0].time_s, 1e-3 / 8);
  }

  // The same run again: every task is rechecked already and nothing is measured.
  std::vector<size_t> records_before;
  for (const TaskOutcome& task : on) records_before.push_back(tiles("on.db", task).size());
  EXPECT_EQ(records_before, (std::vector<size_t>{7, 6, 4}));
  const std::vector<TaskOutcome> again = run(target, "on.db", 1, &log);
  for (size_t i = 0; i < on.size(); ++i) {
    EXPECT_EQ(tiles("on.db", again[i]).size(), records_before[i]) << i;
    EXPECT_EQ(again[i].rechecked, 0) << i;
    EXPECT_EQ(again[i].summary->measurements, on[i].summary->measurements) << i;
  }
  EXPECT_EQ(log.find("recheck,"), std::string::npos) << log;

  // Without the recheck the sweep offers task 2 nothing new, and it keeps the slower tile.
  FakeTarget same;
  same.slow = {4, 10};
  const std::vector<TaskOutcome> off = run(same, "off.db", 0, nullptr);
  EXPECT_EQ(TilesMeasured(same, dir + "/off.db", off[1]).size(), 4u);
  EXPECT_DOUBLE_EQ(off[1].BestTime(), 1e-3 / 4);
  EXPECT_EQ(off[1].rechecked, 0);
  report.tasks = off;
  EXPECT_FALSE(TasksReportToJson(report)["tasks"][1].contains("recheck"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace glimpse
