// The XGBoost cost model: ranking quality, persistence with feature versions, transfer margins.
#include "glimpse/cost_model.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "glimpse/error.h"
#include "model/ranking.h"
#include "model_fixtures.h"

namespace glimpse {
namespace {

using model_testing::BowlDevice;
using model_testing::BowlSpace;
using model_testing::PairwiseAccuracy;
using model_testing::SampleConfigs;

// Throughput-like scores of the bowl device: 1 / time, 0 for failures.
std::vector<double> Scores(const BowlDevice& device, const std::vector<Config>& configs) {
  std::vector<double> scores;
  for (const Config& config : configs) {
    scores.push_back(device.Fails(config) ? 0.0 : 1.0 / device.TimeOf(config));
  }
  return scores;
}

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("glimpse-model-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

class CostModelLossTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CostModelLossTest, RanksHeldOutConfigurationsOfASmoothFunction) {
  ConfigSpace space = BowlSpace();
  BowlDevice device(BowlDevice::DefaultTarget());
  XgbCostModelOptions options;
  options.loss_type = GetParam();
  auto model = MakeXgbCostModel(space, options);
  std::vector<Config> train = SampleConfigs(space, 300, 1);
  model->Fit(train, Scores(device, train));
  ASSERT_TRUE(model->IsFitted());

  std::vector<Config> test = SampleConfigs(space, 300, 2);
  std::vector<double> predicted = model->Predict(test);
  ASSERT_EQ(predicted.size(), test.size());
  const double accuracy = PairwiseAccuracy(predicted, Scores(device, test));
  EXPECT_GT(accuracy, 0.8) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Losses, CostModelLossTest, ::testing::Values("rank", "reg"));

TEST(CostModelTest, IndexFeaturesAlsoRank) {
  ConfigSpace space = BowlSpace();
  BowlDevice device(BowlDevice::DefaultTarget());
  XgbCostModelOptions options;
  options.feature_type = "index";
  auto model = MakeXgbCostModel(space, options);
  std::vector<Config> train = SampleConfigs(space, 300, 3);
  model->Fit(train, Scores(device, train));
  std::vector<Config> test = SampleConfigs(space, 200, 4);
  EXPECT_GT(PairwiseAccuracy(model->Predict(test), Scores(device, test)), 0.8);
}

TEST(CostModelTest, FitIsReproducibleForAFixedSeed) {
  ConfigSpace space = BowlSpace();
  BowlDevice device(BowlDevice::DefaultTarget());
  std::vector<Config> train = SampleConfigs(space, 200, 5);
  std::vector<Config> test = SampleConfigs(space, 50, 6);
  auto first = MakeXgbCostModel(space);
  auto second = MakeXgbCostModel(space);
  first->Fit(train, Scores(device, train));
  second->Fit(train, Scores(device, train));
  EXPECT_EQ(first->Predict(test), second->Predict(test));
}

// XGBoost takes a signed 64-bit seed; a seed of the top half of uint64 (a hashed one, as the
// corpus command gives its tuning runs) fitted, once, with an error at the first boosting round.
TEST(CostModelTest, AnySeedFits) {
  ConfigSpace space = BowlSpace();
  BowlDevice device(BowlDevice::DefaultTarget());
  std::vector<Config> train = SampleConfigs(space, 100, 7);
  XgbCostModelOptions options;
  options.seed = 11765713987240050583ULL;  // ≥ 2^63
  auto model = MakeXgbCostModel(space, options);
  EXPECT_NO_THROW(model->Fit(train, Scores(device, train)));
  EXPECT_EQ(model->Predict(train).size(), train.size());
}

TEST(CostModelTest, SaveLoadRoundTripPredictsTheSame) {
  ConfigSpace space = BowlSpace();
  BowlDevice device(BowlDevice::DefaultTarget());
  auto model = MakeXgbCostModel(space);
  std::vector<Config> train = SampleConfigs(space, 200, 7);
  model->Fit(train, Scores(device, train));
  const std::string path = TempPath("roundtrip.json");
  model->Save(path);

  auto loaded = MakeXgbCostModel(space);
  EXPECT_FALSE(loaded->IsFitted());
  loaded->Load(path);
  EXPECT_TRUE(loaded->IsFitted());
  std::vector<Config> test = SampleConfigs(space, 100, 8);
  std::vector<double> expected = model->Predict(test), actual = loaded->Predict(test);
  ASSERT_EQ(expected.size(), actual.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_FLOAT_EQ(expected[i], actual[i]) << i;
  std::filesystem::remove(path);
}

TEST(CostModelTest, RefusesAFileWithAnotherFeatureVersion) {
  ConfigSpace space = BowlSpace();
  BowlDevice device(BowlDevice::DefaultTarget());
  auto knob_model = MakeXgbCostModel(space);
  std::vector<Config> train = SampleConfigs(space, 100, 9);
  knob_model->Fit(train, Scores(device, train));
  const std::string path = TempPath("version.json");
  knob_model->Save(path);

  XgbCostModelOptions index_options;
  index_options.feature_type = "index";
  auto index_model = MakeXgbCostModel(space, index_options);
  EXPECT_NE(index_model->FeatureVersion(), knob_model->FeatureVersion());
  try {
    index_model->Load(path);
    FAIL() << "a model with another feature version was accepted";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find("feature version"), std::string::npos) << message;
    EXPECT_NE(message.find(knob_model->FeatureVersion()), std::string::npos) << message;
    EXPECT_NE(message.find(index_model->FeatureVersion()), std::string::npos) << message;
  }
  EXPECT_FALSE(index_model->IsFitted());

  // Another space (one more restriction) is another feature version too.
  ConfigSpace other = BowlSpace();
  other.AddRestriction("a != 0");
  auto other_model = MakeXgbCostModel(other);
  EXPECT_THROW(other_model->Load(path), Error);
  std::filesystem::remove(path);
}

TEST(CostModelTest, RefusesFilesThatAreNotCostModels) {
  ConfigSpace space = BowlSpace();
  auto model = MakeXgbCostModel(space);
  const std::string path = TempPath("garbage.json");
  std::ofstream(path) << "{\"format\": \"something else\"}";
  try {
    model->Load(path);
    FAIL() << "a file that is not a cost model was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("not a glimpse cost model"), std::string::npos);
  }
  std::filesystem::remove(path);
  EXPECT_THROW(model->Load(path), Error);  // missing file
}

TEST(CostModelTest, MisuseIsAnError) {
  ConfigSpace space = BowlSpace();
  auto model = MakeXgbCostModel(space);
  std::vector<Config> configs = SampleConfigs(space, 4, 10);
  EXPECT_THROW(model->Predict(configs), Error);
  EXPECT_THROW(model->Fit(configs, {1.0, 2.0}), Error);
  EXPECT_THROW(model->Fit({}, {}), Error);
  EXPECT_THROW(model->Fit(configs, {1.0, -1.0, 2.0, 3.0}), Error);
  EXPECT_THROW(model->Save(TempPath("unfitted.json")), Error);
  XgbCostModelOptions bad;
  bad.loss_type = "hinge";
  try {
    MakeXgbCostModel(space, bad);
    FAIL();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("accepted: rank, reg"), std::string::npos);
  }
  bad = {};
  bad.feature_type = "itervar";
  EXPECT_THROW(MakeXgbCostModel(space, bad), Error);
}

TEST(CostModelTest, BaseModelShiftsPredictionsUntilItIsDiscounted) {
  ConfigSpace space = BowlSpace();
  BowlDevice device(BowlDevice::DefaultTarget());
  std::vector<Config> history = SampleConfigs(space, 300, 11);
  std::shared_ptr<CostModel> base = MakeXgbCostModel(space);
  base->Fit(history, Scores(device, history));

  std::vector<Config> few = SampleConfigs(space, 20, 12);
  std::vector<Config> test = SampleConfigs(space, 50, 13);
  auto plain = MakeXgbCostModel(space);
  auto transferred = MakeXgbCostModel(space);
  transferred->SetBaseModel(base);
  plain->Fit(few, Scores(device, few));
  transferred->Fit(few, Scores(device, few));
  EXPECT_TRUE(transferred->HasBaseModel());
  EXPECT_NE(plain->Predict(test), transferred->Predict(test));
  // With 20 samples, the base model's knowledge of the other 280 configurations helps ranking.
  EXPECT_GT(PairwiseAccuracy(transferred->Predict(test), Scores(device, test)),
            PairwiseAccuracy(plain->Predict(test), Scores(device, test)));

  // 300 samples: discount 2^(−300/64) < 0.05, so the base is dropped as AutoTVM does.
  std::vector<Config> many = SampleConfigs(space, 300, 14);
  transferred->Fit(many, Scores(device, many));
  EXPECT_FALSE(transferred->HasBaseModel());
}

TEST(AverageRecallTest, MatchesAutoTvmDefinition) {
  // Labels best-first at rows 0..3. Perfect order: recall(i) = i/(i+1) for i ≥ 1.
  model::AverageRecall metric({3.0f, 2.0f, 1.0f, 0.0f}, 4);
  EXPECT_NEAR(metric.Score({4.0f, 3.0f, 2.0f, 1.0f}), (0.0 + 1.0 / 2 + 2.0 / 3 + 3.0 / 4) / 4,
              1e-12);
  // Reversed order: true ranks 3, 2, 1, 0 → recall 0, 0, 1/3, 3/4.
  EXPECT_NEAR(metric.Score({1.0f, 2.0f, 3.0f, 4.0f}), (1.0 / 3 + 3.0 / 4) / 4, 1e-12);
  // k beyond the rows divides by k, as AutoTVM's np.sum(curve[:N]) / N.
  model::AverageRecall wide({3.0f, 2.0f, 1.0f, 0.0f}, 8);
  EXPECT_NEAR(wide.Score({4.0f, 3.0f, 2.0f, 1.0f}), (0.5 + 2.0 / 3 + 0.75) / 8, 1e-12);
}

TEST(SubmodularPickTest, PrefersCandidatesThatCoverNewKnobValues) {
  std::vector<std::vector<uint32_t>> knobs = {{0, 0}, {0, 0}, {0, 1}, {1, 1}, {1, 0}};
  std::vector<size_t> picked = model::SubmodularPick({0, 0, 0, 0, 0}, knobs, 2);
  ASSERT_EQ(picked.size(), 2u);
  EXPECT_EQ(picked[0], 0u);  // ties go to the first candidate
  EXPECT_EQ(picked[1], 3u);  // the only one that is new in both knobs
  // Scores dominate when they are large compared with the knob weight.
  picked = model::SubmodularPick({0, 10, 0, 0, 0}, knobs, 1);
  EXPECT_EQ(picked[0], 1u);
  EXPECT_EQ(model::SubmodularPick({0, 0}, {{0}, {1}}, 5).size(), 2u);
}

}  // namespace
}  // namespace glimpse
