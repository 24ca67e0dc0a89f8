// The learned performance model as a tuner's cost model (glimpse/learned_cost_model.h) and
// `glimpse tune --target cpu --cost-model FILE --hardware-budget N`. The model's weights are
// random: these tests check the plumbing (scores, cache, machine check, what gets measured), not
// the model's accuracy, which bench/ measures.
#include "glimpse/learned_cost_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <set>
#include <sstream>
#include <string>

#include "glimpse/cpu.h"
#include "glimpse/error.h"
#include "random_perf_model.h"
#include "test_paths.h"

namespace glimpse {
namespace {

constexpr const char* kOp = "dense:M=4,N=8,K=16,bias=1";

std::shared_ptr<const PerfModel> Model(uint64_t seed = 4) {
  return std::make_shared<const PerfModel>(
      testing_perf::RandomPerfModel(PerfModelArchitecture::kGraphSage, seed));
}

TEST(LearnedCostModelTest, ScoresAreMinusThePredictedLogTimeAndCached) {
  const Operator op = ParseOperator(kOp);
  const ConfigSpace space = MakeCpuSpace(op);
  const std::shared_ptr<const PerfModel> model = Model();
  LearnedCostModel cost(model, op, space);
  Rng rng(7);
  std::vector<Config> configs;
  for (int i = 0; i < 6; ++i) configs.push_back(*space.SampleValid(rng));
  configs.push_back(configs.front());  // a repeat is scored once
  const std::vector<double> scores = cost.Predict(configs);
  ASSERT_EQ(scores.size(), configs.size());
  for (size_t i = 0; i < configs.size(); ++i) {
    const double expected = -model->PredictLogTime(BuildCpuProgramGraph(op, space, configs[i]));
    EXPECT_NEAR(scores[i], expected, 1e-9) << i;
  }
  const size_t distinct = std::set<Config>(configs.begin(), configs.end()).size();
  EXPECT_EQ(cost.programs_scored(), distinct);
  EXPECT_EQ(cost.Predict({configs[1]}), std::vector<double>{scores[1]});  // from the cache
  EXPECT_EQ(cost.programs_scored(), distinct);
  EXPECT_TRUE(cost.IsFitted());
  EXPECT_NE(cost.FeatureVersion().find("op=dense:M=4,N=8,K=16"), std::string::npos);
}

TEST(LearnedCostModelTest, ABatchSplitAcrossThreadsScoresAsOneAtATime) {
  // Hundreds of new configurations (some without a program) are built and predicted in chunks on
  // several threads; each score must be the one the configuration gets alone.
  const Operator op = ParseOperator("conv2d:N=1,C=16,H=14,W=14,K=32,R=3,S=3,pad=1");
  const ConfigSpace space = MakeCpuSpace(op);
  const std::shared_ptr<const PerfModel> model = Model(9);
  LearnedCostModel batched(model, op, space);
  batched.set_threads(4);
  Rng rng(3);
  std::vector<Config> configs;
  for (int i = 0; i < 600; ++i) {
    configs.push_back(*space.SampleValid(rng));
    if (i % 97 == 0) configs.back().indices.pop_back();  // unbuildable
  }
  const std::vector<double> scores = batched.Predict(configs);
  LearnedCostModel alone(model, op, space);
  alone.set_threads(1);
  size_t unbuildable = 0;
  for (size_t i = 0; i < configs.size(); ++i) {
    EXPECT_EQ(scores[i], alone.Predict({configs[i]})[0]) << i;
    unbuildable += scores[i] == LearnedCostModel::kUnbuildableScore;
  }
  EXPECT_EQ(unbuildable, 7u);
}

TEST(LearnedCostModelTest, AConfigurationWithoutAProgramScoresBelowEveryPrediction) {
  const Operator op = ParseOperator(kOp);
  const ConfigSpace space = MakeCpuSpace(op);
  LearnedCostModel cost(Model(), op, space);
  Rng rng(1);
  Config broken = *space.SampleValid(rng);
  broken.indices.pop_back();  // not a configuration of this space: its nest cannot be built
  const std::vector<double> scores = cost.Predict({broken});
  EXPECT_EQ(scores, std::vector<double>{LearnedCostModel::kUnbuildableScore});
}

TEST(LearnedCostModelTest, ItIsFrozen) {
  const Operator op = ParseOperator(kOp);
  const ConfigSpace space = MakeCpuSpace(op);
  LearnedCostModel cost(Model(), op, space);
  EXPECT_THROW(cost.Fit({}, {}), Error);
  EXPECT_THROW(cost.Save("x.json"), Error);
  EXPECT_THROW(cost.Load("x.json"), Error);
  EXPECT_THROW(cost.SetBaseModel(std::make_shared<LearnedCostModel>(Model(), op, space)), Error);
  cost.SetBaseModel(nullptr);  // detaching nothing is fine
  EXPECT_FALSE(cost.HasBaseModel());
}

TEST(LearnedCostModelTest, AModelOfAnotherMachineIsFlagged) {
  PerfModel model = testing_perf::RandomPerfModel(PerfModelArchitecture::kGraphSage, 1);
  auto warning = PerfModelMachineWarning(model, "Here CPU", "m.json");
  ASSERT_TRUE(warning.has_value());
  EXPECT_NE(warning->find("'m.json' does not say which machine"), std::string::npos) << *warning;
  model.training_info()["machine"] = {{"cpu", "Here CPU"}, {"cpus", 2}};
  EXPECT_FALSE(PerfModelMachineWarning(model, "Here CPU", "m.json").has_value());
  EXPECT_EQ(PerfModelTrainingMachine(model)["cpus"], 2);
  warning = PerfModelMachineWarning(model, "Other CPU", "m.json");
  ASSERT_TRUE(warning.has_value());
  EXPECT_NE(warning->find("trained on 'Here CPU', this machine is 'Other CPU'"), std::string::npos)
      << *warning;
  // A generic name of before names carried the family and model, which this machine's extends:
  // flagged as undecidable, not as another machine. A generic name this machine's does not
  // extend is another machine.
  model.training_info()["machine"] = {{"cpu", "AMD EPYC"}};
  warning = PerfModelMachineWarning(model, "AMD EPYC (family 25, model 17)", "m.json");
  ASSERT_TRUE(warning.has_value());
  EXPECT_NE(warning->find("recorded only as 'AMD EPYC', a generic name"), std::string::npos)
      << *warning;
  warning =
      PerfModelMachineWarning(model, "Intel(R) Xeon(R) Processor (family 6, model 207)", "m.json");
  ASSERT_TRUE(warning.has_value());
  EXPECT_NE(warning->find("trained on 'AMD EPYC', this machine is 'Intel"), std::string::npos)
      << *warning;
  model.training_info()["machine"] = {{"cpu", "AMD EPYC 9R14"}};
  warning = PerfModelMachineWarning(model, "AMD EPYC 9R14 (family 25, model 17)", "m.json");
  ASSERT_TRUE(warning.has_value());
  EXPECT_NE(warning->find("trained on 'AMD EPYC 9R14', this machine"), std::string::npos)
      << *warning;
  model.training_info()["machine"] = {{"cpu", "Here CPU"}, {"cpus", 2}};
  // The machine travels in the file.
  const PerfModel loaded = PerfModel::FromJson(model.ToJson(), "m.json");
  EXPECT_FALSE(PerfModelMachineWarning(loaded, "Here CPU", "m.json").has_value());
}

// A random network whose file says it was trained on this machine (no machine warning).
PerfModel ModelTrainedHere() {
  PerfModel model = testing_perf::RandomPerfModel(PerfModelArchitecture::kGraphSage, 4);
  model.training_info()["machine"] = {{"cpu", CpuDeviceName()}};
  return model;
}

// The whole path: a model file, `--hardware-budget 3 --batch 3` (one round) on one operator, and
// the measured configurations are among the model's best predicted ones.
TEST(LearnedCostModelTest, HardwareBudgetMeasuresTheModelsBestOnly) {
  const std::string dir = testing::MakeTempDir("glimpse_learned_tune");
  const PerfModel model = ModelTrainedHere();
  const std::string model_path = dir + "/model.json";
  model.Save(model_path);
  const std::string db = dir + "/tune.db";
  const testing::CommandRun run = testing::RunGlimpseCommand(
      std::string("tune --target cpu --op ") + kOp + " --cost-model " + model_path +
          " --hardware-budget 3 --batch 3 --threads 1 --progress quiet --json --db " + db,
      dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err.find("warning"), std::string::npos) << run.err;  // trained "here"
  const Json report = Json::parse(run.out);
  EXPECT_EQ(report["tuner"], "xgb");
  // One round: one plan, at least the default size, all three of its first slots planned.
  EXPECT_EQ(report["batch"], 3);
  EXPECT_EQ(report["tuner_options"]["plan_size"], 64);
  ASSERT_EQ(report["tasks"].size(), 1u);
  EXPECT_EQ(report["tasks"][0]["measurements"], 3);

  // A sample of the space scored by the same model: the measured three rank in its top decile
  // (the planner searches on the model, it does not enumerate).
  const Operator op = ParseOperator(kOp);
  const ConfigSpace space = MakeCpuSpace(op);
  LearnedCostModel cost(std::make_shared<const PerfModel>(model), op, space);
  std::vector<Config> all;  // a uniform sample: the space is too large to enumerate in a test
  Rng rng(3);
  for (int i = 0; i < 2000; ++i) all.push_back(*space.SampleValid(rng));
  std::vector<double> scores = cost.Predict(all);
  std::vector<double> sorted = scores;
  std::sort(sorted.rbegin(), sorted.rend());
  const double top_decile = sorted[sorted.size() / 10];
  // The measured configurations, from the database's export (this test binary has no database).
  const testing::CommandRun exported = testing::RunGlimpseCommand("db export --db " + db, dir);
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  std::istringstream lines(exported.out);
  std::string line;
  int records = 0;
  while (std::getline(lines, line)) {
    const Json json = Json::parse(line);
    if (json["type"] != "record") continue;
    ++records;
    const Config config = space.ConfigFromJson(json["config"]);
    EXPECT_GE(cost.Predict({config})[0], top_decile) << json["config"].dump();
  }
  EXPECT_EQ(records, 3);
  std::cout << "sample of " << all.size() << " configurations: best predicted " << -sorted.front()
            << " ln s, top decile from " << -top_decile << " ln s\n";
}

// By default the budget is spent in four rounds: each round's plan is the round, so the strategy
// refits its online model on the learned model's margin and searches again after each.
TEST(LearnedCostModelTest, HardwareBudgetMeasuresInRounds) {
  const std::string dir = testing::MakeTempDir("glimpse_learned_rounds");
  const std::string model_path = dir + "/model.json";
  ModelTrainedHere().Save(model_path);
  auto run_with = [&](const std::string& flags) {
    const testing::CommandRun run = testing::RunGlimpseCommand(
        std::string("tune --target cpu --op ") + kOp + " --cost-model " + model_path + " " + flags +
            " --threads 1 --progress quiet --json --no-db",
        dir);
    EXPECT_EQ(run.exit_code, 0) << flags << "\n" << run.err;
    return run.exit_code == 0 ? Json::parse(run.out) : Json();
  };
  const Json eight = run_with("--hardware-budget 8");
  EXPECT_EQ(eight["batch"], 2);
  EXPECT_EQ(eight["tuner_options"]["plan_size"], 2);
  ASSERT_EQ(eight["tasks"].size(), 1u);
  EXPECT_EQ(eight["tasks"][0]["measurements"], 8);
  // xgb-rounds would size its plan from the budget again: the rounds are the plan instead.
  const Json paced = run_with("--tuner xgb-rounds --hardware-budget 8");
  EXPECT_EQ(paced["tuner"], "xgb-rounds");
  EXPECT_EQ(paced["tuner_options"]["plan_size"], 2);
  EXPECT_EQ(paced["tuner_options"]["budget_rounds"], 0);
  ASSERT_EQ(paced["tasks"].size(), 1u);
  EXPECT_EQ(paced["tasks"][0]["measurements"], 8);
}

// --recheck K with --hardware-budget N: N − K searched in rounds sized from them, then the K
// fastest measured again in one batch — N measurements in all.
TEST(LearnedCostModelTest, HardwareBudgetTakesItsRecheckOutOfTheN) {
  const std::string dir = testing::MakeTempDir("glimpse_learned_recheck");
  const std::string model_path = dir + "/model.json";
  ModelTrainedHere().Save(model_path);
  const testing::CommandRun run = testing::RunGlimpseCommand(
      std::string("tune --target cpu --op ") + kOp + " --cost-model " + model_path +
          " --hardware-budget 8 --recheck 2 --threads 1 --progress quiet --json --db " + dir +
          "/tune.db",
      dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const Json json = Json::parse(run.out);
  EXPECT_EQ(json["batch"], 2);  // ⌈6 / 4⌉: the rounds split the 6 searched
  EXPECT_EQ(json["tuner_options"]["plan_size"], 2);
  ASSERT_EQ(json["tasks"].size(), 1u);
  EXPECT_EQ(json["tasks"][0]["measurements"], 8) << json["tasks"][0].dump();
  EXPECT_EQ(json["tasks"][0]["recheck"]["measured"], 2) << json["tasks"][0].dump();
  // The database holds the 6 searched and the 2 measured again, recorded as the recheck's.
  const testing::CommandRun exported =
      testing::RunGlimpseCommand("db export --db " + dir + "/tune.db", dir);
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  std::istringstream lines(exported.out);
  std::string line;
  int records = 0, rechecked = 0;
  while (std::getline(lines, line)) {
    const Json item = Json::parse(line);
    if (item["type"] != "record") continue;
    ++records;
    if (item["strategy"] == "recheck") ++rechecked;
  }
  EXPECT_EQ(records, 8);
  EXPECT_EQ(rechecked, 2);
}

TEST(LearnedCostModelTest, FlagsAreCheckedBeforeAnythingRuns) {
  const std::string dir = testing::MakeTempDir("glimpse_learned_flags");
  const std::string model_path = dir + "/model.json";
  testing_perf::RandomPerfModel(PerfModelArchitecture::kGraphSage, 4).Save(model_path);
  const std::string base = std::string("tune --target cpu --op ") + kOp + " --no-db ";
  auto error_of = [&](const std::string& args) {
    const testing::CommandRun run = testing::RunGlimpseCommand(base + args, dir);
    EXPECT_EQ(run.exit_code, 2) << args << "\n" << run.out << run.err;
    return run.err;
  };
  EXPECT_NE(error_of("--hardware-budget 4").find("give it with --cost-model FILE"),
            std::string::npos);
  EXPECT_NE(error_of("--cost-model " + model_path + " --hardware-budget 4 --budget 9")
                .find("--hardware-budget (the measurements per task) and --budget exclude"),
            std::string::npos);
  EXPECT_NE(error_of("--cost-model " + model_path + " --hardware-budget 4 --sibling-sweep 2")
                .find("--hardware-budget spends exactly N measurements per task; --sibling-sweep"),
            std::string::npos);
  // The recheck is part of the N: below N, and only where there is a database to read.
  EXPECT_NE(error_of("--cost-model " + model_path + " --hardware-budget 4 --recheck 4")
                .find("--recheck 4 with --hardware-budget 4: the recheck is part of the N "
                      "measurements, so it must be at least 0 and below N"),
            std::string::npos);
  EXPECT_NE(error_of("--cost-model " + model_path + " --hardware-budget 4 --recheck 1")
                .find("--recheck measures again the fastest configurations the run's database "
                      "holds; drop --no-db"),
            std::string::npos);
  EXPECT_NE(error_of("--cost-model " + model_path + " --hardware-budget 100 --recheck 4 --batch 20")
                .find("--hardware-budget 100 --recheck 4 with --batch 20: a round of 20"),
            std::string::npos);
  EXPECT_NE(error_of("--cost-model " + model_path + " --hardware-budget 0")
                .find("--hardware-budget must be a positive number"),
            std::string::npos);
  // Rounds of 20 would end in a random pick each (the last 5 % of a plan); 19 would not.
  EXPECT_NE(error_of("--cost-model " + model_path + " --hardware-budget 100 --batch 20")
                .find("--hardware-budget 100 with --batch 20: a round of 20 would end in random "
                      "picks (the last 5 % of a plan); give --batch of at most 19"),
            std::string::npos);
  EXPECT_NE(error_of("--cost-model " + model_path + " --hardware-budget 8 --batch 0")
                .find("--batch (batch_size) must be a positive number"),
            std::string::npos);
  EXPECT_NE(error_of("--cost-model " + model_path + " --tuner ga")
                .find("--cost-model needs a strategy that starts from a pretrained model (xgb, "
                      "xgb-reg, xgb-rounds); --tuner is 'ga'"),
            std::string::npos);
  EXPECT_NE(error_of("--cost-model " + dir + "/missing.json --tuner xgb").find("--cost-model: "),
            std::string::npos);
  const testing::CommandRun cuda =
      testing::RunGlimpseCommand(std::string("tune --target cuda --build-only --op ") + kOp +
                                     " --no-db --cost-model " + model_path,
                                 dir);
  EXPECT_EQ(cuda.exit_code, 2);
  EXPECT_NE(cuda.err.find("--cost-model needs --target cpu"), std::string::npos) << cuda.err;
}

}  // namespace
}  // namespace glimpse
