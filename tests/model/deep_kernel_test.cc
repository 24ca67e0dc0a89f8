// The deep-kernel GP of the DGP tuner (model/deep_kernel.h): the MAP objective's gradient through
// the feature network, and transfer: a model pretrained on a source function and adapted on a few
// points of a shifted target ranks the target better than a model fitted on those points alone.
#include "model/deep_kernel.h"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/random.h"
#include "model_fixtures.h"

namespace glimpse::model {
namespace {

double Source(double x1, double x2) { return std::sin(3 * x1) + 0.5 * std::cos(4 * x2) + x1 * x2; }
// The target: the source moved a little, scaled and offset (another device's landscape).
double Target(double x1, double x2) { return 1.3 * Source(x1 + 0.15, x2 - 0.1) + 0.8; }

DeepKernelData Sample(double (*f)(double, double), size_t rows, Rng& rng) {
  DeepKernelData data;
  for (size_t i = 0; i < rows; ++i) {
    const double x1 = 2 * UniformUnit(rng) - 1, x2 = 2 * UniformUnit(rng) - 1;
    data.inputs.push_back(x1);
    data.inputs.push_back(x2);
    data.targets.push_back(f(x1, x2));
  }
  data.prior_mean.assign(rows, 0.0);
  return data;
}

TEST(DeepKernelTest, ObjectiveGradientMatchesFiniteDifferences) {
  Rng rng(3);
  DeepKernelGp model({2, 5, 3});
  model.InitRandom(rng);
  DeepKernelData data = Sample(Source, 9, rng);
  for (double& m : data.prior_mean) m = UniformUnit(rng);
  std::vector<double> reference = model.params();
  for (double& r : reference) r += 0.1 * (UniformUnit(rng) - 0.5);
  std::vector<double> grad;
  model.Objective(data, reference, 0.7, grad);
  ASSERT_EQ(grad.size(), model.params().size());
  std::vector<double> scratch;
  const double step = 1e-6;
  for (size_t k = 0; k < grad.size(); ++k) {
    const double saved = model.params()[k];
    model.params()[k] = saved + step;
    const double up = model.Objective(data, reference, 0.7, scratch);
    model.params()[k] = saved - step;
    const double down = model.Objective(data, reference, 0.7, scratch);
    model.params()[k] = saved;
    EXPECT_NEAR(grad[k], (up - down) / (2 * step), 1e-4 * (1 + std::abs(grad[k])))
        << "parameter " << k;
  }
}

TEST(DeepKernelTest, FitRaisesTheObjective) {
  Rng rng(4);
  DeepKernelGp model({2, 8, 3});
  model.InitRandom(rng);
  const DeepKernelData data = Sample(Source, 40, rng);
  const std::vector<double> reference = model.params();
  std::vector<double> grad;
  const double before = model.Objective(data, reference, 0.01, grad);
  DeepKernelFitOptions fit;
  fit.steps = 100;
  fit.prior_precision = 0.01;
  model.Fit(data, reference, fit, rng);
  EXPECT_GT(model.Objective(data, reference, 0.01, grad), before + 10.0);
  EXPECT_THROW(model.Fit(data, {1.0, 2.0}, fit, rng), Error);
}

TEST(DeepKernelTest, PretrainedModelRanksAShiftedTargetBetterThanAColdOne) {
  const std::vector<size_t> widths = {2, 16, 16, 4};
  std::vector<double> transfer_accuracy, cold_accuracy;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    Rng rng(seed);
    // Pretraining on 400 source points, as the tuner pretrains on the history.
    DeepKernelGp source(widths);
    source.InitRandom(rng);
    const DeepKernelData history = Sample(Source, 400, rng);
    DeepKernelFitOptions pretrain;
    pretrain.steps = 300;
    pretrain.batch = 100;
    pretrain.prior_precision = 0.01;
    source.Fit(history, source.params(), pretrain, rng);

    // 12 target measurements (the tuning set) and 300 held-out target points.
    DeepKernelData tuning = Sample(Target, 12, rng);
    DeepKernelData test = Sample(Target, 300, rng);
    source.Predict(tuning.inputs, tuning.prior_mean, &tuning.prior_mean, nullptr);
    source.Predict(test.inputs, test.prior_mean, &test.prior_mean, nullptr);

    // Transfer: the pretrained model with m(x) = the source's prediction, MAP-adapted.
    DeepKernelGp adapted = source;
    adapted.params()[adapted.params().size() - 2] = 1.0;
    adapted.params()[adapted.params().size() - 1] = 0.0;
    const std::vector<double> pretrained = adapted.params();
    DeepKernelFitOptions adapt;
    adapt.steps = 50;
    adapt.prior_precision = 1.0;
    adapted.Fit(tuning, pretrained, adapt, rng);
    std::vector<double> predicted;
    adapted.Predict(test.inputs, test.prior_mean, &predicted, nullptr);
    transfer_accuracy.push_back(model_testing::PairwiseAccuracy(predicted, test.targets));

    // Cold: the same surrogate from a random start on the same 12 points, without a prior mean.
    DeepKernelGp cold(widths);
    cold.InitRandom(rng);
    DeepKernelData tuning_cold = tuning;
    tuning_cold.prior_mean.assign(tuning.rows(), 0.0);
    DeepKernelFitOptions fit_cold;
    fit_cold.steps = 100;
    fit_cold.prior_precision = 0.01;
    cold.Fit(tuning_cold, cold.params(), fit_cold, rng);
    cold.Predict(test.inputs, std::vector<double>(test.rows(), 0.0), &predicted, nullptr);
    cold_accuracy.push_back(model_testing::PairwiseAccuracy(predicted, test.targets));
    std::cout << "seed " << seed << ": pairwise ranking accuracy on the target, transfer "
              << transfer_accuracy.back() << ", cold " << cold_accuracy.back() << "\n";
  }
  EXPECT_GT(model_testing::Median(transfer_accuracy), 0.85);
  EXPECT_GT(model_testing::Median(transfer_accuracy), model_testing::Median(cold_accuracy) + 0.05);
}

}  // namespace
}  // namespace glimpse::model
