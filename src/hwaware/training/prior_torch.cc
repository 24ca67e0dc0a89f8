// The prior generator's libtorch module and its training batches (hwaware/training/prior_torch.h).
#include "hwaware/training/prior_torch.h"

#include <algorithm>

#include "hwaware/training/torch_layers.h"

namespace glimpse {
namespace hwaware {

PriorNetImpl::PriorNetImpl(int blueprint_components, int hidden, int embedding) {
  int knob = kPriorKnobFeatures;
  int value = kPriorValueFeatures;
  generator1 =
      register_module("generator1", torch::nn::Linear(blueprint_components + knob, hidden));
  generator2 = register_module("generator2", torch::nn::Linear(hidden, embedding));
  embed1 = register_module("embed1", torch::nn::Linear(value + knob, hidden));
  embed2 = register_module("embed2", torch::nn::Linear(hidden, embedding));
  bias1 = register_module("bias1", torch::nn::Linear(value + knob, hidden));
  bias2 = register_module("bias2", torch::nn::Linear(hidden, 1));
}

torch::Tensor PriorNetImpl::forward(const torch::Tensor& blueprint, const torch::Tensor& knob,
                                    const torch::Tensor& value, const torch::Tensor& mask) {
  // Θ and the knob generate the weights that score the knob's values.
  torch::Tensor w = generator2(torch::tanh(generator1(torch::cat({blueprint, knob}, 1))));
  int64_t values = value.size(1);
  torch::Tensor knob_per_value = knob.unsqueeze(1).expand({knob.size(0), values, knob.size(1)});
  torch::Tensor value_in = torch::cat({value, knob_per_value}, 2);
  torch::Tensor e = embed2(torch::tanh(embed1(value_in)));           // [R, V, E]
  torch::Tensor b = bias2(torch::tanh(bias1(value_in))).squeeze(2);  // [R, V]
  torch::Tensor logits = (e * w.unsqueeze(1)).sum(2) + b;
  return logits.masked_fill(mask.logical_not(), -1e9);
}

PriorGenerator::Network ToPriorNetwork(PriorNet& net, int hidden, int embedding) {
  PriorGenerator::Network network;
  network.hidden = hidden;
  network.embedding = embedding;
  network.generator1 = ToDenseLayer(net->generator1);
  network.generator2 = ToDenseLayer(net->generator2);
  network.embed1 = ToDenseLayer(net->embed1);
  network.embed2 = ToDenseLayer(net->embed2);
  network.bias1 = ToDenseLayer(net->bias1);
  network.bias2 = ToDenseLayer(net->bias2);
  return network;
}

PriorBatch MakeBatch(const std::vector<std::vector<double>>& blueprint_rows,
                     const std::vector<std::vector<double>>& knob_rows,
                     const std::vector<std::vector<std::vector<double>>>& value_rows) {
  auto rows = static_cast<int64_t>(knob_rows.size());
  int64_t components = rows ? static_cast<int64_t>(blueprint_rows[0].size()) : 0;
  int64_t width = 1;
  for (const auto& v : value_rows) width = std::max<int64_t>(width, static_cast<int64_t>(v.size()));
  PriorBatch batch;
  batch.blueprint = torch::zeros({rows, components}, torch::kFloat32);
  batch.knob = torch::zeros({rows, kPriorKnobFeatures}, torch::kFloat32);
  batch.value = torch::zeros({rows, width, kPriorValueFeatures}, torch::kFloat32);
  batch.mask = torch::zeros({rows, width}, torch::kBool);
  auto blueprint = batch.blueprint.accessor<float, 2>();
  auto knob = batch.knob.accessor<float, 2>();
  auto value = batch.value.accessor<float, 3>();
  auto mask = batch.mask.accessor<bool, 2>();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < components; ++c)
      blueprint[r][c] = static_cast<float>(blueprint_rows[r][c]);
    for (int64_t c = 0; c < kPriorKnobFeatures; ++c)
      knob[r][c] = static_cast<float>(knob_rows[r][c]);
    for (size_t v = 0; v < value_rows[r].size(); ++v) {
      mask[r][v] = true;
      for (int64_t c = 0; c < kPriorValueFeatures; ++c) {
        value[r][v][c] = static_cast<float>(value_rows[r][v][c]);
      }
    }
  }
  return batch;
}

}  // namespace hwaware
}  // namespace glimpse
