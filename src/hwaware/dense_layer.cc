// Fully connected layers in plain C++ (hwaware/dense_layer.h).
#include "hwaware/dense_layer.h"

#include <fmt/format.h>

#include <cmath>

#include "glimpse/error.h"
#include "hwaware/model_file_fields.h"

namespace glimpse {
namespace hwaware {

void DenseLayer::Apply(const float* x, float* y) const {
  for (int o = 0; o < outputs; ++o) {
    const float* row = weight.data() + static_cast<size_t>(o) * inputs;
    float sum = 0.0f;
    for (int i = 0; i < inputs; ++i) sum += row[i] * x[i];
    y[o] = sum + bias[o];
  }
}

std::vector<float> DenseLayer::Apply(const std::vector<float>& x) const {
  if (static_cast<int>(x.size()) != inputs) {
    throw Error(fmt::format("dense layer: {} inputs given, the layer takes {}", x.size(), inputs));
  }
  std::vector<float> y(outputs);
  Apply(x.data(), y.data());
  return y;
}

Json DenseLayer::ToJson() const {
  return {{"inputs", inputs}, {"outputs", outputs}, {"weight", weight}, {"bias", bias}};
}

DenseLayer DenseLayer::FromJson(const Json& json, const std::string& where, int inputs,
                                int outputs) {
  DenseLayer layer;
  layer.inputs = Field<int>(json, "inputs", where);
  layer.outputs = Field<int>(json, "outputs", where);
  if (layer.inputs != inputs || layer.outputs != outputs) {
    throw Error(
        fmt::format("{}: the weights do not fit the network: a layer of {} → {}, the "
                    "network needs {} → {}",
                    where, layer.inputs, layer.outputs, inputs, outputs));
  }
  layer.weight = Field<std::vector<float>>(json, "weight", where);
  layer.bias = Field<std::vector<float>>(json, "bias", where);
  if (layer.weight.size() != static_cast<size_t>(inputs) * outputs ||
      layer.bias.size() != static_cast<size_t>(outputs)) {
    throw Error(
        fmt::format("{}: the weights do not fit the network: {} weights and {} biases, a "
                    "layer of {} → {} has {} and {}",
                    where, layer.weight.size(), layer.bias.size(), inputs, outputs,
                    static_cast<size_t>(inputs) * outputs, outputs));
  }
  return layer;
}

void TanhInPlace(std::vector<float>& values) {
  for (float& v : values) v = std::tanh(v);
}

}  // namespace hwaware
}  // namespace glimpse
