// The acquisition function: features, the UCB fallback, the neural policy and its model file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "glimpse/error.h"
#include "glimpse/glimpse_tuner.h"
#include "glimpse/json_file.h"
#include "hwaware/acquisition_internal.h"
#include "test_paths.h"

namespace glimpse {
namespace {

using testing::MakeTempDir;

AcquisitionInput ThreeCandidates() {
  AcquisitionInput input;
  input.mean = {0.5, 0.9, 0.7};
  input.std = {0.1, 0.0, 0.3};
  input.best_observed = 1.0;
  input.budget_fraction = 0.25;
  input.budget = 100.0;
  input.blueprint = {1.5, -2.0};
  return input;
}

TEST(AcquisitionFeaturesTest, LayoutAndBlueprintPadding) {
  std::vector<std::vector<double>> rows = AcquisitionFeatures(ThreeCandidates(), 4);
  ASSERT_EQ(rows.size(), 3u);
  for (const auto& row : rows) ASSERT_EQ(row.size(), size_t{kAcquisitionBaseFeatures + 4});
  EXPECT_DOUBLE_EQ(rows[0][0], 0.5);
  EXPECT_DOUBLE_EQ(rows[0][1], 0.1);
  EXPECT_DOUBLE_EQ(rows[0][2], 0.5 - 1.0);
  // Ranks by mean, best first: candidate 1 (0.9) is 0, candidate 2 is 1/3, candidate 0 is 2/3.
  EXPECT_DOUBLE_EQ(rows[1][3], 0.0);
  EXPECT_DOUBLE_EQ(rows[2][3], 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(rows[0][3], 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(rows[0][4], 0.25);
  EXPECT_DOUBLE_EQ(rows[0][5], 2.0 / 3.0);  // log10(100) / 3
  EXPECT_DOUBLE_EQ(rows[2][6], 1.5);
  EXPECT_DOUBLE_EQ(rows[2][7], -2.0);
  EXPECT_DOUBLE_EQ(rows[2][8], 0.0);  // padding
  EXPECT_DOUBLE_EQ(rows[2][9], 0.0);
}

TEST(AcquisitionFeaturesTest, TooLongABlueprintIsAnError) {
  try {
    AcquisitionFeatures(ThreeCandidates(), 1);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("2 components"), std::string::npos) << e.what();
  }
}

TEST(UcbAcquisitionTest, PicksTheLargestMeanPlusKappaStd) {
  std::vector<std::vector<double>> rows = AcquisitionFeatures(ThreeCandidates(), 2);
  Rng rng(1);
  // kappa 0: by mean → 1, 2, 0. kappa 2: 0.7, 0.9, 1.3 → 2, 1.
  EXPECT_EQ(MakeUcbAcquisition(0.0)->Choose(rows, 3, rng), (std::vector<size_t>{1, 2, 0}));
  EXPECT_EQ(MakeUcbAcquisition(2.0)->Choose(rows, 2, rng), (std::vector<size_t>{2, 1}));
  // More wanted than there are: all of them.
  EXPECT_EQ(MakeUcbAcquisition(2.0)->Choose(rows, 10, rng).size(), 3u);
  // Ties: the lower index first.
  std::vector<std::vector<double>> tied = {{1, 0}, {2, 0}, {2, 0}, {1, 0}};
  EXPECT_EQ(MakeUcbAcquisition(1.0)->Choose(tied, 3, rng), (std::vector<size_t>{1, 2, 0}));
}

std::vector<std::vector<double>> RandomRows(size_t n, int components, uint64_t seed) {
  Rng rng(seed);
  std::vector<std::vector<double>> rows(n);
  for (auto& row : rows) {
    for (int c = 0; c < kAcquisitionBaseFeatures + components; ++c) {
      row.push_back(UniformUnit(rng) * 2 - 1);
    }
  }
  return rows;
}

TEST(AcquisitionNetworkTest, NeuralPolicyTakesTheTopScoresAndIsSeeded) {
  AcquisitionNetwork a(3, 8, 7), b(3, 8, 7), c(3, 8, 8);
  std::vector<std::vector<double>> rows = RandomRows(20, 3, 1);
  std::vector<double> scores = a.Score(rows);
  ASSERT_EQ(scores.size(), 20u);
  EXPECT_EQ(scores, b.Score(rows));
  EXPECT_NE(scores, c.Score(rows));
  Rng rng(0);
  std::vector<size_t> chosen = MakeNeuralAcquisition(a)->Choose(rows, 5, rng);
  ASSERT_EQ(chosen.size(), 5u);
  for (size_t i = 1; i < chosen.size(); ++i) EXPECT_GE(scores[chosen[i - 1]], scores[chosen[i]]);
  double fifth = scores[chosen.back()];
  int above = 0;
  for (double s : scores) above += s > fifth;
  EXPECT_EQ(above, 4);
  // A row of the wrong width names the widths.
  rows[3].pop_back();
  EXPECT_THROW(a.Score(rows), Error);
}

// An untrained network ranks like UCB (kappa kAcquisitionUcbKappa): its residual MLP starts
// small, so its top choice is UCB's on nearly every pool, whatever the other features say.
TEST(AcquisitionNetworkTest, AnUntrainedNetworkRanksLikeUcb) {
  AcquisitionNetwork network(3, 16, 11);
  std::unique_ptr<AcquisitionPolicy> ucb = MakeUcbAcquisition(kAcquisitionUcbKappa);
  int agree = 0;
  const int pools = 200;
  for (int p = 0; p < pools; ++p) {
    std::vector<std::vector<double>> rows = RandomRows(32, 3, 100 + p);
    Rng rng(0);
    std::vector<double> scores = network.Score(rows);
    size_t top = std::max_element(scores.begin(), scores.end()) - scores.begin();
    agree += top == ucb->Choose(rows, 1, rng)[0];
  }
  EXPECT_GE(agree, pools * 9 / 10);
}

TEST(AcquisitionNetworkTest, SaveAndLoadGiveTheSameScores) {
  AcquisitionNetwork network(3, 8, 11);
  network.set_made_by("glimpse train acquisition --spaces x --out y");
  network.training_info()["mean_return"] = {-3.0, -2.5};
  std::string path = MakeTempDir("acquisition_model") + "/acquisition.json";
  network.Save(path);
  AcquisitionNetwork loaded = AcquisitionNetwork::Load(path);
  std::vector<std::vector<double>> rows = RandomRows(16, 3, 2);
  EXPECT_EQ(loaded.Score(rows), network.Score(rows));
  EXPECT_EQ(loaded.blueprint_components(), 3);
  EXPECT_EQ(loaded.made_by(), network.made_by());
  EXPECT_EQ(loaded.training_info()["mean_return"], network.training_info()["mean_return"]);
}

void ExpectRefused(const Json& json, const std::vector<std::string>& words) {
  try {
    AcquisitionNetwork::FromJson(json, "model.json");
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    for (const std::string& w : words) {
      EXPECT_NE(std::string(e.what()).find(w), std::string::npos) << e.what();
    }
  }
}

TEST(AcquisitionNetworkTest, OtherVersionsAndFormatsAreRefused) {
  Json good = AcquisitionNetwork(2, 4, 0).ToJson();
  ASSERT_NO_THROW(AcquisitionNetwork::FromJson(good, "model.json"));
  Json json = good;
  json["version"] = kAcquisitionModelVersion + 1;
  ExpectRefused(
      json, {"model.json", "version " + std::to_string(kAcquisitionModelVersion + 1),
             "version " + std::to_string(kAcquisitionModelVersion), "glimpse train acquisition"});
  json = good;
  json["format"] = "glimpse-prior";
  ExpectRefused(json, {"'glimpse-prior'", kAcquisitionModelFormat});
  json = good;
  json["features"]["version"] = 99;
  ExpectRefused(json, {"features version 99", std::to_string(kAcquisitionFeatureVersion)});
  json = good;
  json["blueprint"]["version"] = 99;
  ExpectRefused(json, {"Blueprint version 99"});
  json = good;
  json["network"]["hidden"] = 5;
  ExpectRefused(json, {"do not fit"});
  // Numbers an int cannot hold are refused, not converted (found by fuzzing: 1.5e42).
  for (const Json& number : {Json(1.5e42), Json(2.5), Json(int64_t{1} << 40)}) {
    json = good;
    json["network"]["hidden"] = number;
    ExpectRefused(json, {"model.json", "'hidden'", "out of range"});
  }
}

TEST(PlackettLuceTest, SamplesDistinctIndicesFavouringLargeLogits) {
  Rng rng(3);
  std::vector<double> logits = {0.0, 3.0, 0.0, -50.0, 0.0};
  int first_is_1 = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<size_t> chosen = hwaware::SamplePlackettLuce(logits, 3, rng);
    ASSERT_EQ(chosen.size(), 3u);
    EXPECT_NE(chosen[0], chosen[1]);
    EXPECT_NE(chosen[1], chosen[2]);
    EXPECT_NE(chosen[0], chosen[2]);
    for (size_t c : chosen) EXPECT_NE(c, 3u);  // e^−50 next to e^0: never drawn in 400 trials
    first_is_1 += chosen[0] == 1;
  }
  // P(first = 1) = e^3 / (e^3 + 3) ≈ 0.87.
  EXPECT_NEAR(first_is_1 / 400.0, 0.87, 0.06);
  EXPECT_EQ(hwaware::SamplePlackettLuce(logits, 9, rng).size(), 5u);
}

}  // namespace
}  // namespace glimpse
