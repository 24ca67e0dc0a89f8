// Inference runs on plain layers (hwaware/dense_layer.h) so that the Glimpse tuner needs no
// libtorch; training runs on libtorch modules. These tests check that both compute the same
// logits from the same parameters, for the prior generator and the acquisition function.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "glimpse/glimpse_tuner.h"
#include "glimpse/prior_generator.h"
#include "glimpse/random.h"
#include "hwaware/acquisition_internal.h"
#include "hwaware/prior_internal.h"
#include "hwaware/training/acquisition_torch.h"
#include "hwaware/training/prior_torch.h"

namespace glimpse {
namespace {

std::vector<double> RandomVector(size_t n, Rng& rng) {
  std::vector<double> v(n);
  for (double& x : v) x = 2.0 * UniformUnit(rng) - 1.0;
  return v;
}

TEST(TorchInferenceTest, PriorLogitsMatchTheModule) {
  torch::manual_seed(5);
  const int components = 4, hidden = 12, embedding = 6;
  hwaware::PriorNet net(components, hidden, embedding);
  PriorGenerator::Network layers = hwaware::ToPriorNetwork(net, hidden, embedding);
  Rng rng(9);
  // Rows of 2, 5 and 3 values: the module pads them to 5 and masks the padding.
  std::vector<std::vector<double>> blueprint_rows, knob_rows;
  std::vector<std::vector<std::vector<double>>> value_rows;
  for (size_t values : {2u, 5u, 3u}) {
    blueprint_rows.push_back(RandomVector(components, rng));
    knob_rows.push_back(RandomVector(kPriorKnobFeatures, rng));
    std::vector<std::vector<double>> rows;
    for (size_t v = 0; v < values; ++v) rows.push_back(RandomVector(kPriorValueFeatures, rng));
    value_rows.push_back(rows);
  }
  hwaware::PriorBatch batch = hwaware::MakeBatch(blueprint_rows, knob_rows, value_rows);
  torch::NoGradGuard no_grad;
  torch::Tensor logits = net->forward(batch.blueprint, batch.knob, batch.value, batch.mask);
  auto a = logits.accessor<float, 2>();
  double largest = 0.0;
  for (size_t r = 0; r < value_rows.size(); ++r) {
    std::vector<float> ours =
        hwaware::PriorLogits(layers, blueprint_rows[r], knob_rows[r], value_rows[r]);
    ASSERT_EQ(ours.size(), value_rows[r].size());
    for (size_t v = 0; v < ours.size(); ++v) {
      EXPECT_NEAR(ours[v], a[r][v], 1e-5) << "row " << r << " value " << v;
      largest = std::max(largest, std::abs(static_cast<double>(a[r][v])));
    }
  }
  EXPECT_GT(largest, 1e-3);  // the comparison is not of zeros
}

TEST(TorchInferenceTest, AcquisitionLogitsMatchTheModule) {
  torch::manual_seed(6);
  const int components = 3, hidden = 10;
  const int width = kAcquisitionBaseFeatures + components;
  hwaware::AcquisitionNet net(width, hidden);
  {
    // Away from the initial residual scale and UCB weight, so both terms matter.
    torch::NoGradGuard no_grad;
    net->layer3->weight.mul_(10.0);
    net->ucb_weight.fill_(1.7);
  }
  AcquisitionNetwork::Network layers = hwaware::ToAcquisitionLayers(net);
  EXPECT_FLOAT_EQ(layers.ucb_weight, 1.7f);
  Rng rng(4);
  std::vector<std::vector<double>> pool;
  for (int r = 0; r < 24; ++r) pool.push_back(RandomVector(width, rng));
  torch::NoGradGuard no_grad;
  torch::Tensor logits = net->forward(hwaware::FeatureTensor(pool, width));
  auto a = logits.accessor<float, 1>();
  std::vector<double> ours = hwaware::AcquisitionLogits(layers, pool, width);
  ASSERT_EQ(ours.size(), pool.size());
  for (size_t r = 0; r < ours.size(); ++r) EXPECT_NEAR(ours[r], a[r], 1e-5) << "candidate " << r;

  // And back: a module loaded from the layers computes the same logits.
  hwaware::AcquisitionNet other(width, hidden);
  hwaware::LoadAcquisitionLayers(layers, other);
  torch::Tensor again = other->forward(hwaware::FeatureTensor(pool, width));
  EXPECT_TRUE(torch::allclose(logits, again, 0.0, 0.0));
}

}  // namespace
}  // namespace glimpse
