// The exact GP of the DGP tuner (model/gaussian_process.h): posteriors against hand-computed
// values, interpolation, and the likelihood's gradient against finite differences.
#include "model/gaussian_process.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/random.h"

namespace glimpse::model {
namespace {

TEST(CholeskyTest, FactorsAndSolvesAKnownMatrix) {
  // [[4, 2], [2, 3]] = L·Lᵀ with L = [[2, 0], [1, √2]].
  std::vector<double> a = {4, 2, 2, 3};
  ASSERT_TRUE(CholeskyInPlace(a, 2));
  EXPECT_DOUBLE_EQ(a[0], 2.0);
  EXPECT_DOUBLE_EQ(a[1], 0.0);
  EXPECT_DOUBLE_EQ(a[2], 1.0);
  EXPECT_NEAR(a[3], std::sqrt(2.0), 1e-15);
  // A·x = (8, 7) has x = (1.25, 1.5).
  double b[2] = {8, 7};
  SolveLower(a, 2, b);
  SolveLowerTransposed(a, 2, b);
  EXPECT_NEAR(b[0], 1.25, 1e-12);
  EXPECT_NEAR(b[1], 1.5, 1e-12);

  std::vector<double> indefinite = {1, 2, 2, 1};
  EXPECT_FALSE(CholeskyInPlace(indefinite, 2));
}

TEST(ExactGpTest, OnePointPosteriorMatchesTheHandComputedValues) {
  // One observation y = 1 at x = 0; s² = 1, σ² = 0.25 (+ the 1e-6 floor).
  // At x* = 1: k* = e^(−½) = 0.6065306597; mean = k*·y/(s² + σ²) = 0.4852245278,
  // variance = s² − k*²/(s² + σ²) = 1 − 0.3678794412/1.25 = 0.7056964471;
  // log p(y) = −½·y²/1.25 − ½·log(2π·1.25) = −0.4 − 1.0305104 = −1.4305104.
  GpHyper hyper;
  hyper.log_signal = 0.0;
  hyper.log_noise = std::log(0.25);
  ExactGp gp;
  gp.Condition({0.0}, 1, {1.0}, hyper);
  const double x_star = 1.0;
  double mean = 0.0, variance = 0.0;
  gp.Predict(&x_star, &mean, &variance);
  EXPECT_NEAR(mean, 0.4852245278, 1e-5);
  EXPECT_NEAR(variance, 0.7056964471, 1e-5);
  EXPECT_NEAR(gp.LogMarginalLikelihood(), -1.4305104, 1e-5);

  // Far away the posterior is the prior.
  const double far = 40.0;
  gp.Predict(&far, &mean, &variance);
  EXPECT_NEAR(mean, 0.0, 1e-12);
  EXPECT_NEAR(variance, 1.0, 1e-12);
}

TEST(ExactGpTest, InterpolatesItsTrainingPointsWithSmallNoise) {
  const std::vector<double> x = {-1.0, 0.0, 0.7, 2.0};  // one feature per row
  const std::vector<double> y = {0.3, -1.2, 0.8, 2.5};
  GpHyper hyper;
  hyper.log_signal = std::log(2.0);
  hyper.log_noise = std::log(1e-9);  // σ² ≈ the 1e-6 floor
  ExactGp gp;
  gp.Condition(x, 1, y, hyper);
  for (size_t i = 0; i < x.size(); ++i) {
    double mean = 0.0, variance = 0.0;
    gp.Predict(&x[i], &mean, &variance);
    EXPECT_NEAR(mean, y[i], 1e-3) << "at x = " << x[i];
    EXPECT_LT(variance, 1e-4) << "at x = " << x[i];
  }
  // Between training points the GP is uncertain.
  const double between = 1.35;
  double mean = 0.0, variance = 0.0;
  gp.Predict(&between, &mean, &variance);
  EXPECT_GT(variance, 0.01);
}

TEST(ExactGpTest, MismatchedSizesAreAnError) {
  ExactGp gp;
  EXPECT_THROW(gp.Condition({0.0, 1.0, 2.0}, 2, {1.0}, GpHyper{}), Error);
}

TEST(ExactGpTest, LikelihoodGradientMatchesFiniteDifferences) {
  Rng rng(5);
  const size_t n = 7, d = 2;
  std::vector<double> features(n * d), residuals(n);
  for (double& f : features) f = 2.0 * UniformUnit(rng) - 1.0;
  for (double& r : residuals) r = 2.0 * UniformUnit(rng) - 1.0;
  GpHyper hyper;
  hyper.log_signal = std::log(1.5);
  hyper.log_noise = std::log(0.1);
  const GpLikelihoodGradient gradient = LogLikelihoodGradient(features, d, residuals, hyper);

  auto likelihood = [&](const std::vector<double>& f, const std::vector<double>& r,
                        const GpHyper& h) {
    ExactGp gp;
    gp.Condition(f, d, r, h);
    return gp.LogMarginalLikelihood();
  };
  EXPECT_NEAR(gradient.value, likelihood(features, residuals, hyper), 1e-10);
  const double step = 1e-6;
  for (size_t k = 0; k < features.size(); ++k) {
    std::vector<double> up = features, down = features;
    up[k] += step;
    down[k] -= step;
    const double numeric =
        (likelihood(up, residuals, hyper) - likelihood(down, residuals, hyper)) / (2 * step);
    EXPECT_NEAR(gradient.d_features[k], numeric, 1e-5) << "feature value " << k;
  }
  for (size_t k = 0; k < n; ++k) {
    std::vector<double> up = residuals, down = residuals;
    up[k] += step;
    down[k] -= step;
    const double numeric =
        (likelihood(features, up, hyper) - likelihood(features, down, hyper)) / (2 * step);
    EXPECT_NEAR(gradient.d_residuals[k], numeric, 1e-5) << "residual " << k;
  }
  GpHyper up = hyper, down = hyper;
  up.log_signal += step;
  down.log_signal -= step;
  EXPECT_NEAR(
      gradient.d_log_signal,
      (likelihood(features, residuals, up) - likelihood(features, residuals, down)) / (2 * step),
      1e-5);
  up = hyper;
  down = hyper;
  up.log_noise += step;
  down.log_noise -= step;
  EXPECT_NEAR(
      gradient.d_log_noise,
      (likelihood(features, residuals, up) - likelihood(features, residuals, down)) / (2 * step),
      1e-5);
}

}  // namespace
}  // namespace glimpse::model
