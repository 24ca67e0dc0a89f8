// Copies between libtorch's nn::Linear and plain layers (hwaware/training/torch_layers.h).
#include "hwaware/training/torch_layers.h"

#include <fmt/format.h>

#include "glimpse/error.h"

namespace glimpse {
namespace hwaware {

DenseLayer ToDenseLayer(const torch::nn::Linear& linear) {
  torch::NoGradGuard no_grad;
  DenseLayer layer;
  const torch::Tensor weight = linear->weight.to(torch::kFloat32).contiguous();
  const torch::Tensor bias = linear->bias.to(torch::kFloat32).contiguous();
  layer.outputs = static_cast<int>(weight.size(0));
  layer.inputs = static_cast<int>(weight.size(1));
  layer.weight.assign(weight.data_ptr<float>(), weight.data_ptr<float>() + weight.numel());
  layer.bias.assign(bias.data_ptr<float>(), bias.data_ptr<float>() + bias.numel());
  return layer;
}

void LoadDenseLayer(const DenseLayer& layer, torch::nn::Linear& linear) {
  torch::NoGradGuard no_grad;
  if (linear->weight.size(0) != layer.outputs || linear->weight.size(1) != layer.inputs) {
    throw Error(fmt::format("a layer of {} → {} does not fit a module layer of {} → {}",
                            layer.inputs, layer.outputs, linear->weight.size(1),
                            linear->weight.size(0)));
  }
  linear->weight.copy_(torch::from_blob(const_cast<float*>(layer.weight.data()),
                                        {layer.outputs, layer.inputs}, torch::kFloat32));
  linear->bias.copy_(
      torch::from_blob(const_cast<float*>(layer.bias.data()), {layer.outputs}, torch::kFloat32));
}

}  // namespace hwaware
}  // namespace glimpse
