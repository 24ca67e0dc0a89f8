// The Glimpse tuner's surrogate: an ensemble of XGBoost regressors on bootstrap resamples. Its mean
// follows the data, its spread is small where data is dense and nil where the members cannot
// disagree, and its units do not depend on the scores' units.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "glimpse/error.h"
#include "glimpse/glimpse_tuner.h"

namespace glimpse {
namespace {

ConfigSpace LineSpace(int64_t values) {
  ConfigSpace space;
  std::vector<KnobValue> xs;
  for (int64_t x = 0; x < values; ++x) xs.emplace_back(x);
  space.AddKnob(Knob::Ordered("x", xs));
  return space;
}

Config At(uint32_t x) { return Config{{x}}; }

SurrogateOptions SmallOptions() {
  SurrogateOptions options;
  options.members = 4;
  options.num_boost_round = 60;
  return options;
}

// A bump: 1 at x = 16, 0 at the ends of 0..31.
double Bump(double x) { return 1.0 - ((x - 16.0) / 16.0) * ((x - 16.0) / 16.0); }

TEST(SurrogateEnsembleTest, MeanTracksTheDataInNormalisedUnits) {
  ConfigSpace space = LineSpace(32);
  std::vector<Config> configs;
  std::vector<double> scores;
  for (uint32_t x = 0; x < 32; ++x) {
    for (int repeat = 0; repeat < 2; ++repeat) {
      configs.push_back(At(x));
      scores.push_back(Bump(x));
    }
  }
  SurrogateEnsemble surrogate(space, SmallOptions(), 7);
  EXPECT_FALSE(surrogate.IsFitted());
  surrogate.Fit(configs, scores);
  EXPECT_TRUE(surrogate.IsFitted());
  std::vector<Config> grid;
  for (uint32_t x = 0; x < 32; ++x) grid.push_back(At(x));
  SurrogateEnsemble::Prediction p = surrogate.Predict(grid);
  ASSERT_EQ(p.mean.size(), 32u);
  ASSERT_EQ(p.std.size(), 32u);
  double worst = 0.0;
  for (uint32_t x = 0; x < 32; ++x) {
    worst = std::max(worst, std::abs(p.mean[x] - Bump(x)));
    EXPECT_GE(p.std[x], 0.0);
  }
  EXPECT_LT(worst, 0.15);
  EXPECT_GT(p.mean[16], p.mean[2]);
  EXPECT_GT(p.mean[16], p.mean[30]);

  // Scores in other units (1000×) give the same predictions: they are normalised by their max.
  std::vector<double> scaled = scores;
  for (double& s : scaled) s *= 1000.0;
  SurrogateEnsemble other(space, SmallOptions(), 7);
  other.Fit(configs, scaled);
  SurrogateEnsemble::Prediction q = other.Predict(grid);
  for (uint32_t x = 0; x < 32; ++x) EXPECT_NEAR(q.mean[x], p.mean[x], 1e-4) << x;
}

TEST(SurrogateEnsembleTest, NoSpreadWhenEveryResampleIsAlike) {
  ConfigSpace space = LineSpace(16);
  std::vector<Config> configs;
  std::vector<double> scores;
  for (uint32_t x = 0; x < 16; ++x) {
    configs.push_back(At(x));
    scores.push_back(0.25);  // one value everywhere: every member learns the same constant
  }
  SurrogateEnsemble surrogate(space, SmallOptions(), 3);
  surrogate.Fit(configs, scores);
  SurrogateEnsemble::Prediction p = surrogate.Predict({At(0), At(7), At(15)});
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(p.std[i], 0.0, 1e-6);
    EXPECT_NEAR(p.mean[i], 1.0, 0.02);  // normalised: the largest score is 1
  }
}

TEST(SurrogateEnsembleTest, SpreadIsLargerWhereDataIsSparse) {
  // Dense on 0..31 (every value three times), two points on 32..63 that disagree. A resample
  // misses a sparse point often, a dense value almost never.
  ConfigSpace space = LineSpace(64);
  std::vector<Config> configs;
  std::vector<double> scores;
  for (uint32_t x = 0; x < 32; ++x) {
    for (int repeat = 0; repeat < 3; ++repeat) {
      configs.push_back(At(x));
      scores.push_back(0.3 + 0.01 * x);
    }
  }
  configs.push_back(At(40));
  scores.push_back(0.1);
  configs.push_back(At(60));
  scores.push_back(1.0);
  SurrogateOptions options = SmallOptions();
  options.members = 8;
  SurrogateEnsemble surrogate(space, options, 11);
  surrogate.Fit(configs, scores);
  std::vector<Config> dense, sparse;
  for (uint32_t x = 0; x < 32; ++x) dense.push_back(At(x));
  for (uint32_t x = 36; x < 64; ++x) sparse.push_back(At(x));
  auto mean_std = [&](const std::vector<Config>& points) {
    std::vector<double> s = surrogate.Predict(points).std;
    return std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
  };
  EXPECT_LT(mean_std(dense), 0.5 * mean_std(sparse));
}

TEST(SurrogateEnsembleTest, SameSeedSamePredictions) {
  ConfigSpace space = LineSpace(32);
  std::vector<Config> configs;
  std::vector<double> scores;
  for (uint32_t x = 0; x < 32; x += 3) {
    configs.push_back(At(x));
    scores.push_back(Bump(x));
  }
  SurrogateEnsemble a(space, SmallOptions(), 5), b(space, SmallOptions(), 5);
  a.Fit(configs, scores);
  b.Fit(configs, scores);
  std::vector<Config> grid = {At(1), At(8), At(20), At(31)};
  EXPECT_EQ(a.Predict(grid).mean, b.Predict(grid).mean);
  EXPECT_EQ(a.Predict(grid).std, b.Predict(grid).std);
}

TEST(SurrogateEnsembleTest, MisuseIsAnError) {
  ConfigSpace space = LineSpace(8);
  SurrogateEnsemble surrogate(space, SmallOptions(), 1);
  EXPECT_THROW(surrogate.Predict({At(1)}), Error);
  EXPECT_THROW(surrogate.Fit({}, {}), Error);
  EXPECT_THROW(surrogate.Fit({At(1), At(2)}, {1.0}), Error);
  EXPECT_THROW(surrogate.Fit({At(1)}, {-1.0}), Error);
  SurrogateOptions none = SmallOptions();
  none.members = 0;
  EXPECT_THROW(SurrogateEnsemble(space, none, 1), Error);
  // All failures: a model of zeros, not an error.
  surrogate.Fit({At(1), At(2)}, {0.0, 0.0});
  SurrogateEnsemble::Prediction p = surrogate.Predict({At(3)});
  EXPECT_NEAR(p.mean[0], 0.0, 1e-6);
}

}  // namespace
}  // namespace glimpse
