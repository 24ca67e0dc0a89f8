// The prior generator's network (glimpse/prior_generator.h) and what its .cc files share. Only
// src/hwaware/prior_model.cc, prior_training.cc and prior_model_file.cc include this (and with
// it libtorch, ~30 s of compile time per file).
#pragma once

#include "hwaware/torch_parts.h"

#include <vector>

#include "glimpse/prior_generator.h"

namespace glimpse {
namespace hwaware {

// G, V and B of the file comment in prior_generator.h.
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

// The rows one forward pass scores: the knobs (with more than one value) of some spaces, padded
// to the largest value count.
struct PriorBatch {
  torch::Tensor blueprint, knob, value, mask;
  std::vector<size_t> knob_of_row;  // for one space: the knob each row is
  std::vector<size_t> example_of_row;
};
// Rows for the knobs of `space` with more than one value (Θ repeated on each).
void AppendRows(const ConfigSpace& space, const PriorTask& task,
                const std::vector<double>& blueprint, size_t example,
                std::vector<std::vector<double>>* blueprint_rows,
                std::vector<std::vector<double>>* knob_rows,
                std::vector<std::vector<std::vector<double>>>* value_rows,
                std::vector<size_t>* knob_of_row, std::vector<size_t>* example_of_row);
PriorBatch MakeBatch(const std::vector<std::vector<double>>& blueprint_rows,
                     const std::vector<std::vector<double>>& knob_rows,
                     const std::vector<std::vector<std::vector<double>>>& value_rows);

}  // namespace hwaware

struct PriorGenerator::Network {
  hwaware::PriorNet net{nullptr};
  int hidden = 0;
  int embedding = 0;
};

}  // namespace glimpse
