// The performance model as a libtorch module (training only; inference is src/perf's plain C++):
// a batch of graphs as one tensor of nodes with per-relation edge indices, the module whose every
// step mirrors perf::ForwardGraph, and the copies of its parameters to and from PerfModelState.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/types.h>

#include <array>
#include <vector>

#include "perf/perf_network.h"

namespace glimpse {
namespace perf {

// Graphs stacked: their nodes one after another (graph b's are offsets[b] … offsets[b + 1] − 1).
struct PerfBatch {
  torch::Tensor features;        // nodes × kProgramGraphFeatureWidth, standardised
  torch::Tensor tile;            // graphs × kTileFeatures, standardised
  std::vector<int64_t> offsets;  // graphs + 1
  std::array<torch::Tensor, kPerfModelRelations> source, target;  // int64 node indices
  std::array<torch::Tensor, kPerfModelRelations> inverse_count;   // nodes × 1: 1 / max(1, in)
  torch::Tensor sequence_index;  // graphs × longest: node index, or `nodes` past a graph's end
  torch::Tensor lengths;         // graphs, int64
};
PerfBatch MakePerfBatch(const PerfNormalisation& norm,
                        const std::vector<const ProgramGraph*>& graphs);

struct PerfNetImpl : torch::nn::Module {
  explicit PerfNetImpl(const PerfModelShape& shape);
  // The standardised ln time of each graph (graphs).
  torch::Tensor forward(const PerfBatch& batch);

  PerfModelShape shape;
  torch::nn::Linear embed{nullptr};
  std::vector<std::vector<torch::nn::Linear>> message;
  std::vector<torch::nn::Linear> combine;
  torch::nn::Linear lstm_input{nullptr}, lstm_recurrent{nullptr};
  torch::nn::Linear readout_hidden{nullptr}, readout{nullptr};
};
TORCH_MODULE(PerfNet);

// The module's parameters as the plain network (with `norm`), and back.
PerfModelState ToPerfModelState(PerfNet& net, const PerfNormalisation& norm);
void LoadPerfModelState(const PerfModelState& state, PerfNet& net);

}  // namespace perf
}  // namespace glimpse
