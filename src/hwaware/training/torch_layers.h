// Between libtorch's nn::Linear and the plain layers inference runs on (hwaware/dense_layer.h):
// training builds its modules, trains them, and hands their parameters to the plain layers.
#pragma once

#include "hwaware/dense_layer.h"
#include "hwaware/training/torch_parts.h"

namespace glimpse {
namespace hwaware {

// The parameters of `linear` (float32) as a plain layer.
DenseLayer ToDenseLayer(const torch::nn::Linear& linear);
// Copies a plain layer's parameters into `linear` (same sizes; Error otherwise).
void LoadDenseLayer(const DenseLayer& layer, torch::nn::Linear& linear);

}  // namespace hwaware
}  // namespace glimpse
