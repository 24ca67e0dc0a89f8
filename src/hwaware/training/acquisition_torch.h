// The acquisition function's libtorch module, for training (glimpse/glimpse_tuner.h,
// AcquisitionNetwork). Its layers and their names are those of AcquisitionNetwork::Network
// (src/hwaware/acquisition_internal.h), which inference runs on.
#pragma once

#include <vector>

#include "glimpse/glimpse_tuner.h"
#include "hwaware/acquisition_internal.h"
#include "hwaware/training/torch_parts.h"

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

// The module's parameters as the plain network, and back (same sizes; Error otherwise).
AcquisitionNetwork::Network ToAcquisitionLayers(AcquisitionNet& net);
void LoadAcquisitionLayers(const AcquisitionNetwork::Network& layers, AcquisitionNet& net);

// Rows of `width` values (float32 [N, width]); Error when a row's length differs.
torch::Tensor FeatureTensor(const std::vector<std::vector<double>>& rows, int64_t width);

}  // namespace hwaware
}  // namespace glimpse
