// The prior generator's network (glimpse/prior_generator.h) as plain layers, and what its .cc
// files share. No libtorch: the training side (src/hwaware/training/prior_torch.h) has the
// libtorch module and copies its parameters into these layers.
#pragma once

#include <vector>

#include "glimpse/json.h"
#include "glimpse/prior_generator.h"
#include "hwaware/dense_layer.h"

namespace glimpse {

// G, V and B of the file comment in prior_generator.h:
//   w = generator2(tanh(generator1([Θ, knob])))                      the generated weights [E]
//   e_v = embed2(tanh(embed1([value_v, knob])))                      a value's embedding [E]
//   b_v = bias2(tanh(bias1([value_v, knob])))                        a value's bias
//   logit_v = e_v · w + b_v
struct PriorGenerator::Network {
  int hidden = 0;
  int embedding = 0;
  hwaware::DenseLayer generator1, generator2, embed1, embed2, bias1, bias2;
};

namespace hwaware {

// The logits of one knob's values (in value order) for Blueprint vector Θ.
std::vector<float> PriorLogits(const PriorGenerator::Network& network,
                               const std::vector<double>& blueprint,
                               const std::vector<double>& knob_features,
                               const std::vector<std::vector<double>>& value_features);

// The layers as the model file's "weights" (name → DenseLayer::ToJson), and back: Error naming
// `where` when a layer is missing or does not fit a network of these sizes.
Json PriorWeightsToJson(const PriorGenerator::Network& network);
void PriorWeightsFromJson(const Json& weights, const std::string& where, int blueprint_components,
                          PriorGenerator::Network* network);

// The numbers of a problem_size: the number itself, or an array's numbers (its other entries
// skipped); none for anything else. A recorded space's and a task description's read the same.
std::vector<double> ProblemSizeNumbers(const Json& size);

// Rows for the knobs of `space` with more than one value (Θ repeated on each).
void AppendRows(const ConfigSpace& space, const PriorTask& task,
                const std::vector<double>& blueprint, size_t example,
                std::vector<std::vector<double>>* blueprint_rows,
                std::vector<std::vector<double>>* knob_rows,
                std::vector<std::vector<std::vector<double>>>* value_rows,
                std::vector<size_t>* knob_of_row, std::vector<size_t>* example_of_row);

}  // namespace hwaware
}  // namespace glimpse
