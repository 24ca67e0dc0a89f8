// The acquisition function's libtorch module, and a fresh AcquisitionNetwork initialised by it
// (hwaware/training/acquisition_torch.h).
#include "hwaware/training/acquisition_torch.h"

#include <fmt/format.h>

#include "glimpse/error.h"
#include "hwaware/training/torch_layers.h"

namespace glimpse {
namespace hwaware {

namespace {
// The UCB term's starting weight: a z-score spread of about ±2 over a pool becomes logits of ±6,
// so the untrained softmax policy already concentrates on UCB's choices.
constexpr double kInitialUcbWeight = 3.0;
// The MLP's output layer starts this much smaller than libtorch's default initialisation, so
// that it perturbs UCB's ranking rather than replacing it.
constexpr double kInitialResidualScale = 0.1;
}  // namespace

AcquisitionNetImpl::AcquisitionNetImpl(int inputs, int hidden) {
  layer1 = register_module("layer1", torch::nn::Linear(inputs, hidden));
  layer2 = register_module("layer2", torch::nn::Linear(hidden, hidden));
  layer3 = register_module("layer3", torch::nn::Linear(hidden, 1));
  {
    torch::NoGradGuard no_grad;
    layer3->weight.mul_(kInitialResidualScale);
    layer3->bias.mul_(kInitialResidualScale);
  }
  ucb_weight = register_parameter("ucb_weight", torch::full({1}, kInitialUcbWeight));
}

torch::Tensor AcquisitionNetImpl::forward(const torch::Tensor& features) {
  torch::Tensor ucb = features.select(1, 0) + kAcquisitionUcbKappa * features.select(1, 1);
  torch::Tensor centred = ucb - ucb.mean();
  // Population deviation; a pool of one candidate, or of equal UCB values, gives z = 0.
  torch::Tensor z = centred / (centred.pow(2).mean().sqrt() + 1e-6);
  torch::Tensor residual = layer3(torch::tanh(layer2(torch::tanh(layer1(features))))).squeeze(1);
  return ucb_weight * z + residual;
}

torch::Tensor FeatureTensor(const std::vector<std::vector<double>>& rows, int64_t width) {
  auto n = static_cast<int64_t>(rows.size());
  torch::Tensor t = torch::zeros({n, width}, torch::kFloat32);
  auto a = t.accessor<float, 2>();
  for (int64_t r = 0; r < n; ++r) {
    if (static_cast<int64_t>(rows[r].size()) != width) {
      throw Error(
          fmt::format("acquisition network: candidate {} has {} features; the model takes {}", r,
                      rows[r].size(), width));
    }
    for (int64_t c = 0; c < width; ++c) a[r][c] = static_cast<float>(rows[r][c]);
  }
  return t;
}

AcquisitionNetwork::Network ToAcquisitionLayers(AcquisitionNet& net) {
  torch::NoGradGuard no_grad;
  AcquisitionNetwork::Network layers;
  layers.layer1 = ToDenseLayer(net->layer1);
  layers.layer2 = ToDenseLayer(net->layer2);
  layers.layer3 = ToDenseLayer(net->layer3);
  layers.ucb_weight = net->ucb_weight.item<float>();
  return layers;
}

void LoadAcquisitionLayers(const AcquisitionNetwork::Network& layers, AcquisitionNet& net) {
  torch::NoGradGuard no_grad;
  LoadDenseLayer(layers.layer1, net->layer1);
  LoadDenseLayer(layers.layer2, net->layer2);
  LoadDenseLayer(layers.layer3, net->layer3);
  net->ucb_weight.fill_(layers.ucb_weight);
}

}  // namespace hwaware

AcquisitionNetwork::AcquisitionNetwork(int blueprint_components, int hidden, uint64_t seed)
    : blueprint_components_(blueprint_components), hidden_(hidden) {
  if (blueprint_components < 0 || hidden < 1) {
    throw Error(
        fmt::format("acquisition network: Blueprint components {} (≥ 0) and hidden width {} (≥ 1)",
                    blueprint_components, hidden));
  }
  // One thread: the network is small, and a fixed reduction order keeps results reproducible.
  torch::set_num_threads(1);
  torch::manual_seed(seed);
  hwaware::AcquisitionNet net(kAcquisitionBaseFeatures + blueprint_components, hidden);
  network_ = std::make_unique<Network>(hwaware::ToAcquisitionLayers(net));
}

}  // namespace glimpse
