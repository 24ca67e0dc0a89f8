// `glimpse tune --target cpu` end to end on tiny operators: the table and the JSON agree with the
// database, a rerun resumes, a killed run loses nothing, the global budget is split as documented,
// and every registered strategy tunes a CPU space (split and permutation knobs included).
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "cli_fixture.h"
#include "glimpse/cuda.h"
#include "glimpse/database.h"
#include "glimpse/gpu.h"
#include "glimpse/model_graph.h"
#include "glimpse/onnx_import.h"
#include "glimpse/random.h"

namespace glimpse::testing {
namespace {

const char* const kDense = "dense:M=4,N=8,K=16";

class CliCpuTest : public CliTest {
 protected:
  // `glimpse tune --target cpu --progress quiet` + `args`.
  static std::vector<std::string> CpuArgs(std::vector<std::string> args) {
    std::vector<std::string> out = {"tune", "--target", "cpu", "--progress", "quiet"};
    out.insert(out.end(), args.begin(), args.end());
    return out;
  }
};

std::vector<TuningRecord> RecordsOf(const std::string& db, const std::string& key) {
  return Database(db, /*create=*/false).Records(key);
}

// The table's row for task `index` (1-based), split at runs of two or more spaces.
std::vector<std::string> TableRow(const std::string& out, int index) {
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(std::to_string(index) + "  ", 0) != 0) continue;  // cells are 2 spaces apart
    std::vector<std::string> cells;
    size_t start = 0;
    while (start < line.size()) {
      size_t gap = line.find("  ", start);
      if (gap == std::string::npos) gap = line.size();
      if (gap > start) cells.push_back(line.substr(start, gap - start));
      start = line.find_first_not_of(' ', gap);
      if (start == std::string::npos) break;
    }
    return cells;
  }
  return {};
}

// A compiler gone from PATH is no fact about the configurations: the run stops with one error
// that names it, records nothing of the batch, and the same command resumes once it is back.
TEST_F(CliCpuTest, AMissingCompilerStopsTheRunAndTheSameCommandResumes) {
  std::vector<std::string> args =
      CpuArgs({"--op", kDense, "--budget", "4", "--db", Db(), "--json"});
  CommandResult first = RunGlimpse(args);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string key = Json::parse(first.out)["tasks"][0]["workload_key"];
  ASSERT_EQ(RecordsOf(Db(), key).size(), 4u);

  args[std::find(args.begin(), args.end(), "4") - args.begin()] = "8";
  const std::string path = getenv("PATH") ? getenv("PATH") : "";
  setenv("PATH", (dir_ + "/no-compiler-here").c_str(), /*overwrite=*/1);
  CommandResult without = RunGlimpse(args);
  setenv("PATH", path.c_str(), /*overwrite=*/1);
  EXPECT_EQ(without.exit_code, 2) << without.out << without.err;
  EXPECT_NE(without.err.find("cannot run the compiler 'c++'"), std::string::npos) << without.err;
  EXPECT_NE(without.err.find("rerun the same command to resume"), std::string::npos) << without.err;
  // The four of the first run are kept, and no failure of the lost batch was recorded.
  std::vector<TuningRecord> kept = RecordsOf(Db(), key);
  ASSERT_EQ(kept.size(), 4u);
  for (const TuningRecord& record : kept) EXPECT_EQ(record.status, MeasureStatus::kOk);

  CommandResult again = RunGlimpse(args);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  Json report = Json::parse(again.out);
  EXPECT_EQ(report["tasks"][0]["resumed"], 4);
  EXPECT_EQ(report["tasks"][0]["measurements"], 8);
  EXPECT_EQ(RecordsOf(Db(), key).size(), 8u);
}

TEST_F(CliCpuTest, OpTableShowsPositiveGflopsAndRerunResumes) {
  std::vector<std::string> args = CpuArgs({"--op", kDense, "--budget", "8", "--db", Db()});
  CommandResult first = RunGlimpse(args);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  // # | operator | weight | GFLOP/s | best | measured | failures | time
  std::vector<std::string> row = TableRow(first.out, 1);
  ASSERT_EQ(row.size(), 8u) << first.out;
  EXPECT_EQ(row[1], kDense);
  EXPECT_EQ(row[2], "1");
  const double gflops = std::stod(row[3]);
  EXPECT_GT(gflops, 0.0) << first.out;
  EXPECT_EQ(row[5], "8");
  EXPECT_NE(first.out.find("the fused epilogues included; pooling and the other operators without "
                           "a template not"),
            std::string::npos)
      << first.out;
  // Where the run's wall-clock went: 8 new measurements, shares that add up.
  EXPECT_NE(first.out.find("time: "), std::string::npos) << first.out;
  EXPECT_NE(first.out.find(" for 8 new measurements ("), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("%, running "), std::string::npos) << first.out;

  // The same command again: everything is resumed, nothing is measured.
  args.push_back("--json");
  CommandResult again = RunGlimpse(args);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  Json report = Json::parse(again.out);
  ASSERT_EQ(report["tasks"].size(), 1u);
  const Json& task = report["tasks"][0];
  EXPECT_EQ(task["status"], "tuned");
  EXPECT_EQ(task["measurements"], 8);
  EXPECT_EQ(task["resumed"], 8);
  const std::string key = task["workload_key"];
  std::vector<TuningRecord> records = RecordsOf(Db(), key);
  EXPECT_EQ(records.size(), 8u);

  // JSON, table and database agree: best time, its GFLOP/s, and the failures by status.
  Database database(Db(), false);
  std::vector<TuningRecord> best = database.Best(key, report["device"], 1);
  ASSERT_EQ(best.size(), 1u);
  const double best_s = task["best"]["time_s"];
  EXPECT_DOUBLE_EQ(best_s, best[0].time_s);
  EXPECT_DOUBLE_EQ(task["best"]["gflops"].get<double>(), 2.0 * 4 * 8 * 16 / best_s / 1e9);
  EXPECT_NEAR(gflops, task["best"]["gflops"].get<double>(), 0.006);
  EXPECT_EQ(task["best"]["config"], best[0].config);
  std::map<std::string, int64_t> stored;
  for (const TuningRecord& r : records) ++stored[StatusName(r.status)];
  for (const auto& [status, count] : task["by_status"].items()) {
    EXPECT_EQ(stored[status], count.get<int64_t>()) << status;
  }
  EXPECT_DOUBLE_EQ(report["estimated_latency_s"].get<double>(), best_s);
  EXPECT_EQ(report["device"], best[0].device);
}

// --recheck 3: the budget's 8, then the fastest 3 of them measured again in one batch; the same
// command again measures nothing.
TEST_F(CliCpuTest, TheRecheckMeasuresTheFastestAgainOnceAndARerunMeasuresNothing) {
  const std::vector<std::string> args =
      CpuArgs({"--op", kDense, "--budget", "8", "--recheck", "3", "--db", Db(), "--json"});
  CommandResult first = RunGlimpse(args);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const Json task = Json::parse(first.out)["tasks"][0];
  EXPECT_EQ(task["measurements"], 11);
  EXPECT_EQ(task["recheck"]["measured"], 3);
  const std::vector<TuningRecord> records = RecordsOf(Db(), task["workload_key"]);
  ASSERT_EQ(records.size(), 11u);
  std::vector<std::pair<double, std::string>> searched;
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_NE(records[i].strategy, "recheck") << i;
    searched.emplace_back(records[i].time_s, records[i].config_hash);
  }
  std::sort(searched.begin(), searched.end());
  const std::set<std::string> fastest = {searched[0].second, searched[1].second,
                                         searched[2].second};
  double best = searched[0].first;
  for (size_t i = 8; i < 11; ++i) {
    EXPECT_EQ(records[i].strategy, "recheck") << i;
    EXPECT_EQ(fastest.count(records[i].config_hash), 1u) << i;
    best = std::min(best, records[i].time_s);
  }
  // The reported best is the fastest record of all eleven.
  EXPECT_DOUBLE_EQ(task["best"]["time_s"].get<double>(), best);
  EXPECT_DOUBLE_EQ(task["recheck"]["best_before_s"].get<double>(), searched[0].first);

  CommandResult again = RunGlimpse(args);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const Json rerun = Json::parse(again.out)["tasks"][0];
  EXPECT_EQ(rerun["resumed"], 11);
  EXPECT_EQ(rerun["measurements"], 11);
  EXPECT_FALSE(rerun.contains("recheck"));
  EXPECT_EQ(RecordsOf(Db(), task["workload_key"]).size(), 11u);
}

TEST_F(CliCpuTest, GlobalBudgetIsSplitByWorkAndEachTaskIsItsOwnWorkload) {
  // The first operator twice (weight 2, 2048 FLOPs in all), the second once (4096 FLOPs):
  // 12 = 1 + 1 evenly, then 10 by work: 3.33 and 6.67 → 3 and 6, the last one to the larger
  // remainder → budgets 4 and 8.
  CommandResult result = RunGlimpse(
      CpuArgs({"--op", kDense, "--op", "dense:M=4,N=8,K=64", "--op", kDense, "--global-budget",
               "12", "--batch", "4", "--tuner", "random", "--db", Db(), "--json"}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  Json report = Json::parse(result.out);
  EXPECT_EQ(report["budget"]["kind"], "global");
  ASSERT_EQ(report["tasks"].size(), 2u);
  EXPECT_EQ(report["tasks"][0]["weight"], 2);
  EXPECT_EQ(report["tasks"][0]["layers"], Json({"op1", "op3"}));
  EXPECT_EQ(report["tasks"][0]["budget"], 4);
  EXPECT_EQ(report["tasks"][1]["budget"], 8);
  double latency = 0;
  std::set<std::string> keys;
  for (const Json& task : report["tasks"]) {
    EXPECT_EQ(task["measurements"], task["budget"]);
    keys.insert(task["workload_key"].get<std::string>());
    EXPECT_EQ(RecordsOf(Db(), task["workload_key"]).size(), task["budget"].get<size_t>());
    if (task["status"] == "tuned") {
      latency += task["weight"].get<double>() * task["best"]["time_s"].get<double>();
    }
  }
  EXPECT_EQ(keys.size(), 2u);
  if (report["estimated_latency_s"].is_number()) {
    EXPECT_NEAR(report["estimated_latency_s"].get<double>(), latency, 1e-15);
  } else {
    EXPECT_LT(report["latency"]["tuned_tasks"].get<int>(), 2);
  }
}

TEST_F(CliCpuTest, KilledRunResumesWithoutLossOrRepeats) {
  const int kBudget = 40, kBatch = 4;
  std::vector<std::string> args =
      CpuArgs({"--op", kDense, "--tuner", "random", "--budget", std::to_string(kBudget), "--batch",
               std::to_string(kBatch), "--seed", "5", "--db", Db(),
               // A killed run cannot remove its kernels: keep them in the test's directory.
               "--kernel-dir", dir_ + "/kernels"});
  pid_t child = SpawnGlimpse(args);
  std::vector<TuningRecord> before;
  for (int i = 0; i < 1200 && before.size() < 2 * kBatch; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    try {
      Database database(Db(), /*create=*/false);
      std::vector<WorkloadEntry> workloads = database.Workloads();
      before = workloads.empty() ? before : database.Records(workloads[0].key);
    } catch (const std::exception&) {
      // not created yet
    }
  }
  ASSERT_EQ(kill(child, SIGKILL), 0);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the run finished before it could be killed";
  Database database(Db(), false);
  const std::string key = database.Workloads().at(0).key;
  before = database.Records(key);
  ASSERT_GE(before.size(), static_cast<size_t>(2 * kBatch));
  ASSERT_LT(before.size(), static_cast<size_t>(kBudget));
  EXPECT_EQ(before.size() % kBatch, 0u) << "a batch was half-committed";

  CommandResult resumed = RunGlimpse(args);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  std::vector<TuningRecord> after = database.Records(key);
  ASSERT_EQ(after.size(), static_cast<size_t>(kBudget));
  std::set<std::string> distinct;
  for (const TuningRecord& r : after) distinct.insert(r.config_hash);
  EXPECT_EQ(distinct.size(), after.size()) << "a configuration was measured twice";
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(after[i].id, before[i].id);
    EXPECT_EQ(after[i].config_hash, before[i].config_hash);
  }
}

// A whole model, one measurement per task: every distinct operator is its own workload, and the
// latency estimate is Σ weight × best time over them.
TEST_F(CliCpuTest, ModelRunTunesEveryDistinctOperator) {
  CommandResult result =
      RunGlimpse(CpuArgs({"--model", "resnet18", "--global-budget", "19", "--batch", "1", "--tuner",
                          "random", "--db", Db(), "--json"}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  Json report = Json::parse(result.out);
  EXPECT_EQ(report["model"], "resnet18");
  EXPECT_EQ(report["layers"], 21);
  // 12 shapes; the fused ReLUs and residual Adds make 19 distinct operators of them.
  ASSERT_EQ(report["tasks"].size(), 19u);
  Database database(Db(), false);
  EXPECT_EQ(database.Workloads().size(), 19u);
  int64_t weights = 0, tuned = 0;
  double latency = 0;
  for (const Json& task : report["tasks"]) {
    weights += task["weight"].get<int64_t>();
    EXPECT_EQ(task["budget"], 1);
    EXPECT_EQ(task["measurements"], 1);
    EXPECT_EQ(database.Records(task["workload_key"]).size(), 1u) << task["op"];
    if (task["status"] == "tuned") {
      ++tuned;
      latency += task["weight"].get<double>() * task["best"]["time_s"].get<double>();
    } else {
      EXPECT_EQ(task["status"], "all-failed");
      EXPECT_TRUE(task["best"].is_null());
    }
  }
  EXPECT_EQ(weights, 21);
  // The same shape as each block's first conv, and as its second with the residual Add fused.
  EXPECT_EQ(report["tasks"][1]["layers"], Json({"layer1.0.conv1", "layer1.1.conv1"}));
  EXPECT_EQ(report["tasks"][2]["layers"], Json({"layer1.0.conv2", "layer1.1.conv2"}));
  EXPECT_EQ(report["latency"]["tuned_tasks"], tuned);
  EXPECT_NEAR(report["latency"]["sum_of_tuned_s"].get<double>(), latency, 1e-12);
  if (tuned == 19) {
    EXPECT_NEAR(report["estimated_latency_s"].get<double>(), latency, 1e-12);
  } else {
    EXPECT_TRUE(report["estimated_latency_s"].is_null());
  }
}

// Every registered strategy on a CPU space (split, permutation and categorical knobs). The model
// tuners plan after 4 observations, so their cost model is fitted on the space's features and
// their planner walks it within the 12 measurements.
TEST_F(CliCpuTest, EveryRegisteredTunerTunesACpuSpace) {
  CommandResult list = RunGlimpse({"tune", "--list-tuners"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  std::vector<std::string> tuners;
  std::istringstream lines(list.out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) tuners.push_back(line.substr(0, line.find(' ')));
  }
  ASSERT_GE(tuners.size(), 7u) << list.out;
  const std::map<std::string, std::vector<std::string>> options = {
      {"xgb", {"plan_size=4", "sa_n_iter=40"}},
      {"xgb-reg", {"plan_size=4", "sa_n_iter=40"}},
      {"xgb-rounds", {"plan_size=4", "sa_n_iter=40"}},  // plan_size bounds the paced plan
      {"chameleon", {"plan_size=4", "sa_n_iter=40", "k_min=2"}},
      {"ga", {"population=6", "elite=2"}},
  };
  for (const std::string& tuner : tuners) {
    SCOPED_TRACE(tuner);
    std::string db = Db(tuner + ".db");
    // Two batches: the model-based tuners fit their model once, on the first.
    std::vector<std::string> args = CpuArgs({"--op", kDense, "--tuner", tuner, "--budget", "8",
                                             "--batch", "4", "--seed", "3", "--db", db, "--json"});
    if (auto it = options.find(tuner); it != options.end()) {
      for (const std::string& option : it->second)
        args.insert(args.end(), {"--tuner-option", option});
    }
    CommandResult result = RunGlimpse(args);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const Json task = Json::parse(result.out)["tasks"][0];
    EXPECT_EQ(task["measurements"], 8);
    EXPECT_EQ(task["status"], "tuned") << task.dump();
    std::vector<TuningRecord> records = RecordsOf(db, task["workload_key"]);
    ASSERT_EQ(records.size(), 8u);
    std::set<std::string> distinct;
    for (const TuningRecord& r : records) {
      distinct.insert(r.config_hash);
      EXPECT_EQ(r.strategy, tuner);
    }
    EXPECT_EQ(distinct.size(), 8u);
  }
}

// Validity-driven initialisation on the CPU: presampling checks configurations by compiling them
// (CompileValidityChecker), which are not measurements.
TEST_F(CliCpuTest, XgbWithValidityInitCompilesChecksFirst) {
  CommandResult result = RunGlimpse(CpuArgs({"--op",
                                             kDense,
                                             "--tuner",
                                             "xgb",
                                             "--budget",
                                             "8",
                                             "--batch",
                                             "4",
                                             "--db",
                                             Db(),
                                             "--json",
                                             "--tuner-option",
                                             "validity_init=true",
                                             "--tuner-option",
                                             "n_samples=8",
                                             "--tuner-option",
                                             "n_parallel=4",
                                             "--tuner-option",
                                             "e0_size=4",
                                             "--tuner-option",
                                             "e0_valid=2",
                                             "--tuner-option",
                                             "plan_size=4",
                                             "--tuner-option",
                                             "sa_n_iter=40"}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const Json task = Json::parse(result.out)["tasks"][0];
  EXPECT_EQ(task["measurements"], 8);
  EXPECT_EQ(RecordsOf(Db(), task["workload_key"]).size(), 8u);
}

TEST_F(CliCpuTest, ModelListAndShow) {
  CommandResult list = RunGlimpse({"model", "list", "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  Json models = Json::parse(list.out);
  ASSERT_EQ(models.size(), 6u);
  EXPECT_EQ(models[0]["model"], "resnet18");
  EXPECT_EQ(models[5]["model"], "bert_base_layer");
  EXPECT_EQ(models[5]["tasks"], 5);
  EXPECT_EQ(models[0]["layers"], 21);
  EXPECT_EQ(models[0]["tasks"], 19);

  CommandResult show = RunGlimpse({"model", "show", "ResNet-18", "--json"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  Json model = Json::parse(show.out);
  EXPECT_EQ(model["model"], "resnet18");
  EXPECT_EQ(model["layers"].size(), 21u);
  ASSERT_EQ(model["tasks"].size(), 19u);
  int64_t weights = 0;
  double flops = 0;
  for (const Json& task : model["tasks"]) {
    weights += task["weight"].get<int64_t>();
    flops += task["total_flops"].get<double>();
    EXPECT_TRUE(task["template"].get<bool>()) << task["op"];
  }
  EXPECT_EQ(weights, 21);
  EXPECT_DOUBLE_EQ(flops, model["flops"].get<double>());
  EXPECT_EQ(model["tasks"][18]["op"], "dense:M=1,N=1000,K=512,bias=1,relu=0");
  EXPECT_EQ(model["tasks"][18]["layers"], Json({"fc"}));

  CommandResult human = RunGlimpse({"model", "show", "resnet18"});
  ASSERT_EQ(human.exit_code, 0) << human.err;
  for (const char* needle : {"layer2.0.downsample", "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,pad=1",
                             "21 layers, 19 distinct operators", "12.7 %", "relu=1,residual=1",
                             "Not tuned: flatten x1, global_average_pool x1, max_pool x1."}) {
    EXPECT_NE(human.out.find(needle), std::string::npos) << needle << " in:\n" << human.out;
  }
}

// `glimpse model export`: a zoo CNN written as ONNX is shown as the same tasks as the zoo's name
// (so a database tuned on one compiles the other); a model without a graph is refused.
TEST_F(CliCpuTest, ModelExportWritesAnOnnxFileWithTheSameTasks) {
  const std::string file = Db("resnet18.onnx");
  CommandResult exported = RunGlimpse({"model", "export", "resnet18", "-o", file});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_NE(exported.out.find("opset 13"), std::string::npos) << exported.out;
  CommandResult zoo = RunGlimpse({"model", "show", "resnet18", "--json"});
  CommandResult onnx = RunGlimpse({"model", "show", file, "--json"});
  ASSERT_EQ(zoo.exit_code, 0) << zoo.err;
  ASSERT_EQ(onnx.exit_code, 0) << onnx.err;
  const Json zoo_tasks = Json::parse(zoo.out)["tasks"], onnx_tasks = Json::parse(onnx.out)["tasks"];
  ASSERT_EQ(onnx_tasks.size(), zoo_tasks.size());
  for (size_t i = 0; i < zoo_tasks.size(); ++i) {
    EXPECT_EQ(onnx_tasks[i]["op"], zoo_tasks[i]["op"]);
    EXPECT_EQ(onnx_tasks[i]["weight"], zoo_tasks[i]["weight"]);
  }
  CommandResult bert = RunGlimpse({"model", "export", "bert_base_layer", "-o", Db("bert.onnx")});
  EXPECT_EQ(bert.exit_code, 2);
  EXPECT_NE(bert.err.find("no graph to export"), std::string::npos) << bert.err;
}

// An ONNX file goes where a zoo name goes: its symbolic batch fixed by --input-shape, its
// convolution tuned with the ReLU fused into it.
TEST_F(CliCpuTest, OnnxModelShowsAndTunesItsFusedLayers) {
  const std::string model = TestDataPath("onnx/symbolic_batch.onnx");
  CommandResult missing = RunGlimpse({"model", "show", model});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("give --input-shape images="), std::string::npos) << missing.err;

  CommandResult show =
      RunGlimpse({"model", "show", model, "--input-shape", "images=2x3x8x8", "--json"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  const Json shown = Json::parse(show.out);
  EXPECT_EQ(shown["model"], "symbolic_batch");
  ASSERT_EQ(shown["tasks"].size(), 1u);
  const std::string op =
      "conv2d:N=2,C=3,H=8,W=8,K=4,R=3,S=3,stride=1,pad=1,dilation=1,bias=1,relu=1";
  EXPECT_EQ(shown["tasks"][0]["op"], op);

  CommandResult residual = RunGlimpse({"model", "show", TestDataPath("onnx/residual_block.onnx")});
  ASSERT_EQ(residual.exit_code, 0) << residual.err;
  EXPECT_NE(residual.out.find("Not tuned: flatten x1, global_average_pool x1, max_pool x1, "
                              "softmax x1"),
            std::string::npos)
      << residual.out;

  CommandResult zoo_shape =
      RunGlimpse({"model", "show", "resnet18", "--input-shape", "images=1x3x8x8"});
  EXPECT_NE(zoo_shape.err.find("--input-shape applies to ONNX models"), std::string::npos);

  CommandResult tuned = RunGlimpse(CpuArgs({"--model", model, "--input-shape", "images=2x3x8x8",
                                            "--budget", "4", "--db", Db(), "--json"}));
  ASSERT_EQ(tuned.exit_code, 0) << tuned.err;
  const Json report = Json::parse(tuned.out);
  EXPECT_EQ(report["model"], "symbolic_batch");
  ASSERT_EQ(report["tasks"].size(), 1u);
  EXPECT_EQ(report["tasks"][0]["op"], op);
  EXPECT_EQ(RecordsOf(Db(), report["tasks"][0]["workload_key"]).size(), 4u);
}

// `glimpse compile` then `glimpse run`: the artifact builds, runs at two thread counts and
// matches the reference interpreter; a zoo model without a graph is refused with what to do.
TEST_F(CliCpuTest, CompileThenRunAnOnnxModel) {
  const std::string dir = Db("artifact");
  CommandResult compiled =
      RunGlimpse({"compile", TestDataPath("onnx/mobile_block_opset13.onnx"), "-o", dir});
  ASSERT_EQ(compiled.exit_code, 0) << compiled.err;
  EXPECT_NE(compiled.out.find("4 kernels (0 tuned, 0 from a ReLU sibling, 4 default)"),
            std::string::npos)
      << compiled.out;
  EXPECT_NE(compiled.err.find("using the default configuration"), std::string::npos);
  const std::string report = Db("run.json");
  CommandResult run =
      RunGlimpse({"run", dir, "--threads", "1,2", "--python", "none", "--min-repeats", "2",
                  "--min-time", "0", "--json", report, "--profile"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::ifstream report_in(report);
  const Json runs = Json::parse(report_in)["runs"];
  ASSERT_EQ(runs.size(), 2u);
  for (const Json& r : runs) {
    EXPECT_TRUE(r["within_tolerance"].get<bool>());
    EXPECT_LT(r["max_abs_error_vs_reference"].get<double>(), 1e-4);
    EXPECT_GE(r["glimpse"]["samples_s"].size(), 2u);
    EXPECT_GT(r["glimpse"]["median_s"].get<double>(), 0.0);
    // --profile: every step timed over --min-repeats runs, the four kernels among them.
    const Json& profile = r["glimpse"]["profile"];
    EXPECT_EQ(profile["runs"], 2);
    int kernels = 0;
    for (const Json& step : profile["steps"]) kernels += step["kind"] == "kernel";
    EXPECT_EQ(kernels, 4) << profile.dump(1);
  }
  EXPECT_NE(run.out.find("profile at 1 thread(s)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("profile at 2 thread(s)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("tuned kernels"), std::string::npos) << run.out;
  EXPECT_EQ(runs[1]["glimpse"]["threads"], 2);

  CommandResult bert = RunGlimpse({"compile", "bert_base_layer", "-o", Db("bert")});
  EXPECT_EQ(bert.exit_code, 2);
  EXPECT_NE(bert.err.find("lists its matrix products only"), std::string::npos) << bert.err;
}

// `glimpse compile --target cuda` then `glimpse run`: the artifact builds with nvcc; where a CUDA
// device is, it runs and matches the reference; where none is, `glimpse run` says that nothing
// ran. What the CUDA target does not do is refused by name.
TEST_F(CliCpuTest, CompileForCudaThenRun) {
  const std::string dir = Db("cuda");
  CommandResult compiled = RunGlimpse({"compile", TestDataPath("onnx/residual_block.onnx"),
                                       "--target", "cuda", "--arch", "sm_80", "-o", dir});
  ASSERT_EQ(compiled.exit_code, 0) << compiled.err;
  EXPECT_NE(compiled.out.find("for NVIDIA GPUs (sm_80); records of no GPU"), std::string::npos)
      << compiled.out;
  std::ifstream manifest_in(dir + "/glimpse-compile.json");
  const Json manifest = Json::parse(manifest_in);
  EXPECT_EQ(manifest["target"], "cuda");
  EXPECT_EQ(manifest["arch"], "sm_80");

  CommandResult profiled = RunGlimpse({"run", dir, "--profile"});
  EXPECT_EQ(profiled.exit_code, 2);
  EXPECT_NE(profiled.err.find("was compiled for CUDA"), std::string::npos) << profiled.err;
  CommandResult blocked = RunGlimpse({"compile", TestDataPath("onnx/residual_block.onnx"),
                                      "--target", "cuda", "--layout", "blocked", "-o", Db("b")});
  EXPECT_EQ(blocked.exit_code, 2);
  EXPECT_NE(blocked.err.find("keeps activations NCHW"), std::string::npos) << blocked.err;

  // Records of one GPU: compiled without --device, for its architecture (the GPU table's);
  // records of two: refused, naming both.
  {
    OnnxImportOptions import;
    const ModelGraph graph = ImportOnnx(TestDataPath("onnx/residual_block.onnx"), import);
    const Task task = MakeGpuTask(GraphLayers(graph)[0].layer.op, "");
    Database database(Db("gpu.db"), /*create=*/true);
    database.PutWorkload({task.WorkloadKey(), task.name, task.description, task.space.ToJson()});
    Rng rng(1);
    TuningRecord record;
    record.workload_key = task.WorkloadKey();
    record.device = "NVIDIA A100-SXM4-80GB";
    const Config config = *task.space.SampleValid(rng);
    record.config = task.space.ConfigToJson(config);
    record.config_hash = HashToHex(task.space.Hash(config));
    record.status = MeasureStatus::kOk;
    record.time_s = 1e-5;
    record.samples_s = {1e-5};
    record.strategy = "test";
    database.CommitBatch({record});
    CommandResult a100 = RunGlimpse({"compile", TestDataPath("onnx/residual_block.onnx"),
                                     "--target", "cuda", "--db", Db("gpu.db"), "-o", Db("a100")});
    ASSERT_EQ(a100.exit_code, 0) << a100.err;
    EXPECT_NE(a100.out.find("for NVIDIA GPUs (sm_80); records of NVIDIA A100-SXM4-80GB"),
              std::string::npos)
        << a100.out;
    record.device = "NVIDIA H100 80GB HBM3";  // the same configuration, slower there
    record.time_s = 2e-5;
    database.CommitBatch({record});
  }
  CommandResult two = RunGlimpse({"compile", TestDataPath("onnx/residual_block.onnx"), "--target",
                                  "cuda", "--db", Db("gpu.db"), "-o", Db("two")});
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_NE(two.err.find("several devices (NVIDIA A100-SXM4-80GB, NVIDIA H100 80GB HBM3); name one "
                         "with --device"),
            std::string::npos)
      << two.err;

  if (!NvrtcAvailable()) GTEST_SKIP() << "a build without the CUDA toolkit: no nvcc";
  const std::string report = Db("cuda-run.json");
  CommandResult run = RunGlimpse(
      {"run", dir, "--python", "none", "--min-repeats", "2", "--min-time", "0", "--json", report});
  if (run.exit_code != 0) {
    EXPECT_NE(run.err.find("this machine has no CUDA device, so nothing ran"), std::string::npos)
        << run.err;
    EXPECT_TRUE(std::filesystem::exists(dir + "/build/libresidual_block.a"));
    EXPECT_TRUE(std::filesystem::exists(dir + "/build/residual_block_run"));
    return;
  }
  std::ifstream report_in(report);
  const Json runs = Json::parse(report_in)["runs"];
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_TRUE(runs[0]["within_tolerance"].get<bool>());
  EXPECT_LT(runs[0]["max_abs_error_vs_reference"].get<double>(), 1e-4);
  EXPECT_GE(runs[0]["glimpse"]["samples_s"].size(), 2u);
  EXPECT_NE(run.out.find("GPU: "), std::string::npos) << run.out;
}

// --warm-activations: the records of the other protocol are kept under their own device name, so
// they never compete with the flushed ones for a best; glimpse compile takes them when asked to,
// and only then.
TEST_F(CliCpuTest, WarmActivationRecordsAreKeptApartAndCompiledOnRequest) {
  const std::string model = TestDataPath("onnx/mobile_block_opset13.onnx");
  CommandResult tuned = RunGlimpse(
      CpuArgs({"--model", model, "--budget", "2", "--db", Db(), "--warm-activations", "--json"}));
  ASSERT_EQ(tuned.exit_code, 0) << tuned.err;
  const Json report = Json::parse(tuned.out);
  const std::string device = report["device"];
  const std::string suffix = " [activations warm]";
  ASSERT_GT(device.size(), suffix.size());
  EXPECT_EQ(device.substr(device.size() - suffix.size()), suffix);
  ASSERT_FALSE(report["tasks"].empty()) << tuned.out;
  for (const Json& task : report["tasks"]) {
    EXPECT_EQ(task["measurements"], 2) << task.dump();
    EXPECT_EQ(task["by_status"].value("ok", 0), 2) << task.dump();
    for (const TuningRecord& record : RecordsOf(Db(), task["workload_key"])) {
      EXPECT_EQ(record.device, device);
    }
  }

  CommandResult warm =
      RunGlimpse({"compile", model, "--db", Db(), "-o", Db("warm"), "--warm-activations"});
  ASSERT_EQ(warm.exit_code, 0) << warm.err;
  EXPECT_NE(warm.out.find("4 kernels (4 tuned, "), std::string::npos) << warm.out;
  EXPECT_NE(warm.out.find(", 0 default)"), std::string::npos) << warm.out;
  EXPECT_NE(warm.out.find("measured with the activations warm"), std::string::npos) << warm.out;
  CommandResult flushed = RunGlimpse({"compile", model, "--db", Db(), "-o", Db("flushed")});
  ASSERT_EQ(flushed.exit_code, 0) << flushed.err;
  EXPECT_NE(flushed.out.find("4 kernels (0 tuned, 0 from a ReLU sibling, 4 default)"),
            std::string::npos)
      << flushed.out;

  // The flushed protocol on the same database starts from nothing: none of the warm records is
  // resumed.
  CommandResult cold =
      RunGlimpse(CpuArgs({"--model", model, "--budget", "2", "--db", Db(), "--json"}));
  ASSERT_EQ(cold.exit_code, 0) << cold.err;
  for (const Json& task : Json::parse(cold.out)["tasks"]) {
    EXPECT_EQ(task["resumed"], 0) << task.dump();
    EXPECT_EQ(task["measurements"], 2) << task.dump();
  }
}

}  // namespace
}  // namespace glimpse::testing
