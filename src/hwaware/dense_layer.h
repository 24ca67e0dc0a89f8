// The fully connected layers of the hwaware networks (the prior generator, the acquisition
// function) in plain C++, with their weights as JSON numbers. Inference — everything the glimpse
// tuner does with a trained network — runs on these, so the tuner needs no libtorch: the command
// line without `glimpse train` (glimpse_lite, the GPU machine's) tunes with the Glimpse tuner too.
// libtorch is for training only (src/hwaware_training), which copies its modules' parameters in
// and out of these layers.
//
// Arithmetic is float, as the trained modules': a forward pass here matches libtorch's to
// rounding (tests/hwaware/torch_inference_test.cc).
#pragma once

#include <string>
#include <vector>

#include "glimpse/json.h"

namespace glimpse {
namespace hwaware {

struct DenseLayer {
  int inputs = 0;
  int outputs = 0;
  std::vector<float> weight;  // outputs × inputs, row-major (torch::nn::Linear's layout)
  std::vector<float> bias;    // outputs

  // y = W x + b for x of `inputs` values.
  void Apply(const float* x, float* y) const;
  std::vector<float> Apply(const std::vector<float>& x) const;

  // {"inputs": n, "outputs": m, "weight": [m·n numbers], "bias": [m numbers]}.
  Json ToJson() const;
  // Error naming `where` when a field is missing, of another type, or the sizes are not
  // inputs × outputs (expected from the network's shape).
  static DenseLayer FromJson(const Json& json, const std::string& where, int inputs, int outputs);
};

void TanhInPlace(std::vector<float>& values);

}  // namespace hwaware
}  // namespace glimpse
