// The acquisition function's libtorch module (glimpse/glimpse_tuner.h, AcquisitionNetwork). Only
// src/hwaware/acquisition_*.cc include this (and with it libtorch).
#pragma once

#include "hwaware/torch_parts.h"

#include <vector>

#include "glimpse/glimpse_tuner.h"

namespace glimpse {
namespace hwaware {

// features [N, F] → logits [N]: ucb_weight · z(UCB) + the MLP F → hidden → hidden → 1 (tanh
// between), where z(UCB) is the pool-standardised mean + kAcquisitionUcbKappa · std (features [0]
// and [1]). See AcquisitionNetwork for why.
struct AcquisitionNetImpl : torch::nn::Module {
  AcquisitionNetImpl(int inputs, int hidden);
  torch::Tensor forward(const torch::Tensor& features);

  torch::nn::Linear layer1{nullptr}, layer2{nullptr}, layer3{nullptr};
  torch::Tensor ucb_weight;
};
TORCH_MODULE(AcquisitionNet);

// Rows of `width` values (float32 [N, width]); Error when a row's length differs.
torch::Tensor FeatureTensor(const std::vector<std::vector<double>>& rows, int64_t width);

}  // namespace hwaware

struct AcquisitionNetwork::Network {
  hwaware::AcquisitionNet net{nullptr};
};

}  // namespace glimpse
