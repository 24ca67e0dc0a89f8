// Training the acquisition function: the REINFORCE update on a toy problem, and TrainAcquisition
// with the Glimpse tuner on the repo's recorded spaces.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "glimpse/error.h"
#include "glimpse/glimpse_tuner.h"
#include "glimpse/hardware.h"
#include "hwaware/acquisition_internal.h"
#include "test_paths.h"

namespace glimpse {
namespace {

using testing::CommandRun;
using testing::MakeTempDir;
using testing::RepoDataPath;
using testing::RunGlimpseCommand;

TEST(AcquisitionTrainingTest, ReturnsSumTheFutureRewards) {
  EXPECT_EQ(hwaware::ReturnsOf({-1.0, -0.5, -0.25}), (std::vector<double>{-1.75, -0.75, -0.25}));
  EXPECT_TRUE(hwaware::ReturnsOf({}).empty());
}

// A toy bandit: pools of 8 candidates with random features; the reward is 0 when the chosen one
// is the candidate of the largest feature [3], −1 otherwise. The network starts out ranking by
// UCB (features [0] and [1], unrelated to [3] here), so it must learn from the rewards alone to
// leave UCB for feature [3].
TEST(AcquisitionTrainingTest, ReinforceLearnsToPreferTheRewardedFeature) {
  AcquisitionNetwork network(0, 16, 5);
  hwaware::AcquisitionLearner learner(network, 0.02);
  Rng rng(9);
  auto pool = [&] {
    std::vector<std::vector<double>> rows(8);
    for (auto& row : rows) {
      for (int c = 0; c < kAcquisitionBaseFeatures; ++c) row.push_back(UniformUnit(rng));
    }
    return rows;
  };
  auto best_of = [](const std::vector<std::vector<double>>& rows) {
    size_t best = 0;
    for (size_t i = 1; i < rows.size(); ++i) {
      if (rows[i][3] > rows[best][3]) best = i;
    }
    return best;
  };
  auto hit_rate = [&](int trials) {
    int hits = 0;
    for (int t = 0; t < trials; ++t) {
      std::vector<std::vector<double>> rows = pool();
      std::vector<double> scores = network.Score(rows);
      size_t top = std::max_element(scores.begin(), scores.end()) - scores.begin();
      hits += top == best_of(rows);
    }
    return static_cast<double>(hits) / trials;
  };
  double before = hit_rate(200);
  for (int iteration = 0; iteration < 150; ++iteration) {
    std::vector<hwaware::PolicyEpisode> episodes(8);
    for (hwaware::PolicyEpisode& e : episodes) {
      for (int step = 0; step < 2; ++step) {
        std::vector<std::vector<double>> rows = pool();
        std::vector<size_t> chosen = hwaware::SamplePlackettLuce(network.Score(rows), 1, rng);
        e.rewards.push_back(chosen[0] == best_of(rows) ? 0.0 : -1.0);
        e.decisions.push_back({rows, chosen});
      }
    }
    learner.Update(episodes, 0.0);
  }
  double after = hit_rate(200);
  // Chance is 1/8; the learned policy must be far better than chance and than where it began.
  EXPECT_GT(after, 0.6) << "before " << before;
  EXPECT_GT(after, before + 0.3);
}

TEST(AcquisitionTrainingTest, BadOptionsNameTheFields) {
  AcquisitionTrainingOptions options;
  options.episode_budget = 0;
  try {
    TrainAcquisition({}, Blueprint::Default(), nullptr, nullptr, options);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("episode budget 0"), std::string::npos) << e.what();
  }
  options = {};
  options.episodes_per_space = 5;  // does not divide 12
  try {
    TrainAcquisition({}, Blueprint::Default(), nullptr, nullptr, options);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("episodes_per_space 5"), std::string::npos) << e.what();
  }
  options = {};
  EXPECT_THROW(TrainAcquisition({}, Blueprint::Default(), nullptr, nullptr, options), Error);
}

TEST(AcquisitionTrainingTest, TrainsWithTheTunerOnRecordedSpaces) {
  LoadedTrainingSpaces loaded =
      LoadValidityTrainingSpaces({RepoDataPath("recorded")}, {}, GpuTable::Default());
  ASSERT_EQ(loaded.spaces.size(), 2u);
  AcquisitionTrainingOptions options;
  options.iterations = 2;
  options.episodes_per_iteration = 2;
  options.episodes_per_space = 2;
  options.episode_budget = 16;
  options.batch_size = 4;
  options.hidden = 8;
  options.seed = 3;
  AcquisitionTrainingReport report;
  std::ostringstream progress;
  AcquisitionNetwork network = TrainAcquisition(loaded.spaces, Blueprint::Default(), nullptr,
                                                nullptr, options, &report, &progress);
  ASSERT_EQ(report.mean_return.size(), 2u);
  for (double r : report.mean_return) {
    // Three decisions per episode (16 measurements in batches of 4, the first from the prior's
    // fallback), each rewarded in [−1, 0].
    EXPECT_LE(r, 0.0);
    EXPECT_GE(r, -3.0);
  }
  EXPECT_NE(progress.str().find("acquisition: iteration 2/2, mean return"), std::string::npos)
      << progress.str();
  std::vector<std::vector<double>> rows(
      3, std::vector<double>(kAcquisitionBaseFeatures + Blueprint::Default().components(), 0.1));
  EXPECT_EQ(network.Score(rows).size(), 3u);
  // The episodes made decisions, and the updates moved the weights away from their start.
  AcquisitionNetwork untrained(Blueprint::Default().components(), options.hidden, options.seed);
  EXPECT_NE(network.Score(rows), untrained.Score(rows));
  const Json& info = network.training_info();
  EXPECT_EQ(info.at("spaces").size(), 2u);
  EXPECT_EQ(info.at("mean_return").size(), 2u);
  EXPECT_EQ(info.at("options").at("episode_budget"), 16);

  // The same seed gives the same model.
  AcquisitionNetwork again =
      TrainAcquisition(loaded.spaces, Blueprint::Default(), nullptr, nullptr, options);
  EXPECT_EQ(again.Score(rows), network.Score(rows));

  // Its file works as the tuner's acquisition model.
  std::string path = MakeTempDir("train_acquisition") + "/acquisition.json";
  network.Save(path);
  EXPECT_EQ(AcquisitionNetwork::Load(path).Score(rows), network.Score(rows));
}

// ---- The command line

TEST(TrainAcquisitionCommandTest, TrainsOnTheBundledSpaces) {
  std::string dir = MakeTempDir("train_acquisition_cli");
  std::string model = dir + "/acquisition.json";
  std::string tiny =
      " --episodes 2 --episodes-per-space 2 --episode-budget 12 --batch-size 4 --hidden 4";
  CommandRun run = RunGlimpseCommand("train acquisition --spaces " + RepoDataPath("recorded") +
                                         " --prior none --validity none --iterations 1" + tiny +
                                         " --out " + model,
                                     dir);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.err.find("acquisition: iteration 1/1, mean return"), std::string::npos) << run.err;
  EXPECT_NE(run.out.find("wrote " + model + " (2 training spaces)"), std::string::npos) << run.out;
  AcquisitionNetwork loaded = AcquisitionNetwork::Load(model);
  EXPECT_NE(loaded.made_by().find("glimpse train acquisition --spaces"), std::string::npos);
  EXPECT_NE(loaded.made_by().find(" --episodes 2 --episodes-per-space 2 "), std::string::npos)
      << loaded.made_by();
  EXPECT_EQ(loaded.training_info().at("prior"), "none");

  // The shipped models saw every GPU: using them with an exclusion is warned about.
  run = RunGlimpseCommand("train acquisition --spaces " + RepoDataPath("recorded") +
                              " --exclude-device A100" + tiny + " --iterations 0 --out " + model,
                          dir);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.err.find("saw the excluded GPU"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace glimpse
