// The prior generator's libtorch module, for training (glimpse/prior_generator.h). Its layers and
// their names are those of PriorGenerator::Network (src/hwaware/prior_internal.h), into which
// training copies them.
#pragma once

#include <vector>

#include "hwaware/prior_internal.h"
#include "hwaware/training/torch_parts.h"

namespace glimpse {
namespace hwaware {

struct PriorNetImpl : torch::nn::Module {
  PriorNetImpl(int blueprint_components, int hidden, int embedding);

  // blueprint [R, T], knob [R, K], value [R, V, F], mask [R, V] (1 for a real value, 0 for
  // padding) → logits [R, V], padding at −1e9.
  torch::Tensor forward(const torch::Tensor& blueprint, const torch::Tensor& knob,
                        const torch::Tensor& value, const torch::Tensor& mask);

  torch::nn::Linear generator1{nullptr}, generator2{nullptr};
  torch::nn::Linear embed1{nullptr}, embed2{nullptr};
  torch::nn::Linear bias1{nullptr}, bias2{nullptr};
};
TORCH_MODULE(PriorNet);

// The module's parameters as the plain network inference runs on.
PriorGenerator::Network ToPriorNetwork(PriorNet& net, int hidden, int embedding);

// The rows one forward pass scores: the knobs (with more than one value) of some spaces, padded
// to the largest value count.
struct PriorBatch {
  torch::Tensor blueprint, knob, value, mask;
};
PriorBatch MakeBatch(const std::vector<std::vector<double>>& blueprint_rows,
                     const std::vector<std::vector<double>>& knob_rows,
                     const std::vector<std::vector<std::vector<double>>>& value_rows);

}  // namespace hwaware
}  // namespace glimpse
