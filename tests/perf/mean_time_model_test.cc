// Several performance models as one (glimpse/mean_time_model.h): the mean of their ln-time
// predictions, what it says it is, the refusals, and the "A+B" spec that `glimpse tune
// --cost-model` and `glimpse perf-model evaluate --predictors file:…` read.
#include "glimpse/mean_time_model.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <utility>

#include "glimpse/cpu.h"
#include "glimpse/error.h"
#include "glimpse/xgb_perf_model.h"
#include "synthetic_perf_corpus.h"
#include "test_errors.h"
#include "test_paths.h"

namespace glimpse {
namespace {

// Predicts scale × (index of the nest) + offset, whatever the nest.
class LinearFake : public ProgramTimeModel {
 public:
  LinearFake(double scale, double offset, Json training)
      : scale_(scale), offset_(offset), training_(std::move(training)) {}
  std::string Architecture() const override { return "fake"; }
  std::vector<double> PredictLogTimes(const std::vector<const LoopNest*>& nests) const override {
    std::vector<double> out;
    for (size_t i = 0; i < nests.size(); ++i) out.push_back(scale_ * i + offset_);
    return out;
  }
  const Json& TrainingInfo() const override { return training_; }
  std::string MadeBy() const override { return "fake " + std::to_string(scale_); }

 private:
  double scale_, offset_;
  Json training_;
};

using testing::ErrorMessageOf;

TEST(MeanTimeModelTest, PredictsTheMeanOfItsMembersLnTimes) {
  const Json machine = {{"cpu", "first"}};
  auto a = std::make_shared<const LinearFake>(1.0, -10.0, Json{{"machine", machine}});
  auto b = std::make_shared<const LinearFake>(3.0, -12.0, Json{{"machine", {{"cpu", "other"}}}});
  const auto mean = MeanOfProgramTimeModels({a, b});
  const std::vector<const LoopNest*> nests(4, nullptr);  // the fakes never read them
  const std::vector<double> predicted = mean->PredictLogTimes(nests);
  ASSERT_EQ(predicted.size(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(predicted[i], 2.0 * i - 11.0) << i;
  EXPECT_EQ(mean->Architecture(), "mean(fake+fake)");
  EXPECT_EQ(mean->MadeBy(), "fake 1.000000 + fake 3.000000");
  // The machine the warning checks is the first member's; every member's training is kept.
  EXPECT_EQ(mean->TrainingInfo().at("machine"), machine);
  ASSERT_EQ(mean->TrainingInfo().at("members").size(), 2u);
  EXPECT_EQ(mean->TrainingInfo().at("members")[1].at("machine").at("cpu"), "other");
}

TEST(MeanTimeModelTest, RefusesFewerThanTwoMembersOrANullOne) {
  auto a = std::make_shared<const LinearFake>(1.0, 0.0, Json::object());
  EXPECT_NE(ErrorMessageOf([&] { MeanOfProgramTimeModels({a}); }).find("at least two (got 1)"),
            std::string::npos);
  EXPECT_NE(ErrorMessageOf([&] {
              MeanOfProgramTimeModels({a, nullptr});
            }).find("null model"),
            std::string::npos);
}

// Two XGBoost loop-feature models of the synthetic corpus, different enough to tell apart
// (20 and 3 boosting rounds).
std::pair<XgbPerfModel, XgbPerfModel> TwoLoopFeatureModels() {
  const PerfCorpus corpus = testing_perf::SyntheticCorpus(20, 1);
  std::vector<const PerfCorpusRecord*> records;
  for (const PerfCorpusRecord& record : corpus.records) records.push_back(&record);
  XgbPerfOptions options;
  options.rounds = 20;
  XgbPerfModel first = XgbPerfModel::Train(records, options);
  options.rounds = 3;
  return {std::move(first), XgbPerfModel::Train(records, options)};
}

TEST(MeanTimeModelTest, ASpecOfFilesJoinedByPlusLoadsTheirMean) {
  const auto [first, second] = TwoLoopFeatureModels();
  const std::string dir = testing::MakeTempDir("glimpse_mean_time_model");
  first.Save(dir + "/a.json");
  second.Save(dir + "/b.json");

  const Operator op = ParseOperator(testing_perf::SyntheticOperators().front());
  const ConfigSpace space = MakeCpuSpace(op);
  Rng rng(3);
  std::vector<LoopNest> nests;
  for (int i = 0; i < 5; ++i) nests.push_back(MakeCpuNest(op, space, *space.SampleValid(rng)));
  std::vector<const LoopNest*> pointers;
  for (const LoopNest& nest : nests) pointers.push_back(&nest);

  const auto mean = LoadProgramTimeModelSpec(dir + "/a.json+" + dir + "/b.json");
  EXPECT_EQ(mean->Architecture(), "mean(xgb-loop-features+xgb-loop-features)");
  const std::vector<double> a = first.PredictLogTimes(pointers);
  const std::vector<double> b = second.PredictLogTimes(pointers);
  const std::vector<double> m = mean->PredictLogTimes(pointers);
  ASSERT_EQ(m.size(), pointers.size());
  bool members_differ = false;
  for (size_t i = 0; i < m.size(); ++i) {
    EXPECT_NEAR(m[i], (a[i] + b[i]) / 2, 1e-9) << i;
    members_differ = members_differ || std::abs(a[i] - b[i]) > 1e-6;
  }
  EXPECT_TRUE(members_differ) << "the two models predict alike: the mean would not be tested";

  ASSERT_EQ(MembersOfMean(*mean).size(), 2u);
  EXPECT_EQ(MembersOfMean(*mean)[1]->PredictLogTimes(pointers), b);

  // One file is that file, '+' in its name or not.
  EXPECT_EQ(LoadProgramTimeModelSpec(dir + "/a.json")->Architecture(), "xgb-loop-features");
  EXPECT_TRUE(MembersOfMean(*LoadProgramTimeModelSpec(dir + "/a.json")).empty());
  std::filesystem::copy_file(dir + "/a.json", dir + "/c+d.json");
  EXPECT_EQ(LoadProgramTimeModelSpec(dir + "/c+d.json")->Architecture(), "xgb-loop-features");

  // A missing member is named; an empty one says what is accepted.
  std::string message =
      ErrorMessageOf([&] { LoadProgramTimeModelSpec(dir + "/a.json+missing.json"); });
  EXPECT_NE(message.find("missing.json"), std::string::npos) << message;
  message = ErrorMessageOf([&] { LoadProgramTimeModelSpec(dir + "/a.json+"); });
  EXPECT_NE(message.find("an empty model file name"), std::string::npos) << message;
}

// `glimpse tune --cost-model A+B --tuner-option pretrained=choose`: each task's first round
// measures both models' best, and the run says which one each task chose; with one model the
// option is refused, as it is without --cost-model.
TEST(MeanTimeModelTest, PretrainedChooseTunesWithTheMembersAndSaysWhichWasChosen) {
  const auto [first, second] = TwoLoopFeatureModels();
  const std::string dir = testing::MakeTempDir("glimpse_model_choice");
  first.Save(dir + "/a.json");
  second.Save(dir + "/b.json");
  const std::string tune = "tune --target cpu --op " + testing_perf::SyntheticOperators().front() +
                           " --threads 1 --progress quiet --json --no-db --hardware-budget 8 ";
  const testing::CommandRun run = testing::RunGlimpseCommand(
      tune + "--cost-model " + dir + "/a.json+" + dir + "/b.json --tuner-option pretrained=choose",
      dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const Json report = Json::parse(run.out);
  EXPECT_EQ(report["tasks"][0]["measurements"], 8);
  const std::string op = report["tasks"][0]["op"];
  const size_t heading = run.err.find("model chosen per task (--tuner-option pretrained=choose");
  ASSERT_NE(heading, std::string::npos) << run.err;
  // The task's line names the chosen file and both files' fastest first pick.
  const std::string line = run.err.substr(run.err.find('\n', heading) + 1);
  EXPECT_EQ(line.rfind("  " + op + ": ", 0), 0u) << line;
  EXPECT_NE(line.find("a.json "), std::string::npos) << line;
  EXPECT_NE(line.find("b.json "), std::string::npos) << line;
  EXPECT_NE(line.find(" us"), std::string::npos) << line;
  // The JSON report says the same: both files' fastest first pick, and the faster one chosen.
  const Json& choice = report["tasks"][0]["cost_model_choice"];
  ASSERT_TRUE(choice.is_object()) << report["tasks"][0].dump(2);
  ASSERT_EQ(choice["first_picks"].size(), 2u) << choice.dump(2);
  EXPECT_EQ(choice["first_picks"][0]["file"], dir + "/a.json");
  EXPECT_EQ(choice["first_picks"][1]["file"], dir + "/b.json");
  const double a_time = choice["first_picks"][0]["best_time_s"];
  const double b_time = choice["first_picks"][1]["best_time_s"];
  EXPECT_GT(a_time, 0);
  EXPECT_GT(b_time, 0);
  const std::string chosen = choice["chosen"];
  EXPECT_EQ(chosen, dir + (a_time <= b_time ? "/a.json" : "/b.json")) << choice.dump(2);
  EXPECT_EQ(choice["reason"], "its first picks ran fastest");
  EXPECT_EQ(line.rfind("  " + op + ": " + chosen + " (", 0), 0u) << line;

  const testing::CommandRun one = testing::RunGlimpseCommand(
      tune + "--cost-model " + dir + "/a.json --tuner-option pretrained=choose", dir);
  EXPECT_EQ(one.exit_code, 2);
  EXPECT_NE(one.err.find("pretrained=choose chooses, per task, among several models"),
            std::string::npos)
      << one.err;
  const testing::CommandRun short_rounds =
      testing::RunGlimpseCommand(tune + "--batch 1 --cost-model " + dir + "/a.json+" + dir +
                                     "/b.json --tuner-option pretrained=choose",
                                 dir);
  EXPECT_EQ(short_rounds.exit_code, 2);
  EXPECT_NE(short_rounds.err.find("measures each of the 2 models' best in the first round, and a "
                                  "round is 1 (plan_size): give at least 2"),
            std::string::npos)
      << short_rounds.err;
  const testing::CommandRun none = testing::RunGlimpseCommand(
      "tune --target cpu --op " + testing_perf::SyntheticOperators().front() +
          " --no-db --tuner-option pretrained=choose",
      dir);
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("give them with --cost-model A.json+B.json"), std::string::npos)
      << none.err;
}

}  // namespace
}  // namespace glimpse
