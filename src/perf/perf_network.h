// The performance model's network in plain C++ (glimpse/perf_model.h): its layers, the
// standardisation of its inputs and the forward pass of one graph. Training (src/perf/training)
// copies libtorch's parameters into these layers; the forward pass here matches libtorch's to
// float rounding (tests/perf/perf_model_torch_test.cc).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "glimpse/json.h"
#include "glimpse/perf_model.h"
#include "glimpse/program_graph.h"

// The forward pass's hot functions are compiled for AVX2+FMA and AVX-512 as well as the baseline
// x86-64, the loader picking the widest the CPU has (GCC's function multi-versioning); elsewhere
// they are compiled once.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GLIMPSE_VECTOR_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define GLIMPSE_VECTOR_CLONES
#endif

namespace glimpse {
namespace perf {

constexpr int kTileFeatures = graph_feature::kTileDims + 2;

// y = W x + b, torch::nn::Linear's layout (weight: outputs × inputs, row-major).
struct PerfDenseLayer {
  int inputs = 0;
  int outputs = 0;
  std::vector<float> weight;
  std::vector<float> bias;
  std::vector<float> weight_t;  // inputs × outputs (Finish): rows stream through the outputs

  // Fills weight_t; call after setting the weights.
  void Finish();
  // `rows` inputs of `inputs` values → `rows` outputs of `outputs` values.
  void ApplyRows(const float* x, int rows, float* y) const;
  Json ToJson() const;
  // Error naming `where` for a missing field or sizes other than inputs × outputs.
  static PerfDenseLayer FromJson(const Json& json, const std::string& where, int inputs,
                                 int outputs);
};

// Inputs are standardised with the training set's statistics: node features and the tile
// sub-vector per column, the target (ln s) as a whole. A column without spread has std 1.
struct PerfNormalisation {
  std::vector<float> feature_mean, feature_std;  // kProgramGraphFeatureWidth
  std::vector<float> tile_mean, tile_std;        // kTileFeatures
  double target_mean = 0.0, target_std = 1.0;    // ln(seconds)
};

// The relations (glimpse/perf_model.h): relation 2·t + 0 is edge list t forward (messages go
// from → to), 2·t + 1 backward; t: nesting, data flow, sequence.
const std::vector<GraphEdge>& RelationEdges(const ProgramGraph& graph, int relation);
bool RelationForward(int relation);

}  // namespace perf

// The whole network (declared in glimpse/perf_model.h).
struct PerfModelState {
  using PerfDenseLayer = perf::PerfDenseLayer;
  PerfModelShape shape;
  perf::PerfNormalisation normalisation;
  PerfDenseLayer embed;  // f1: features → hidden
  // GraphSAGE: per hop, a message layer per relation (f2, hidden → hidden) and the combining layer
  // (f3, (1 + relations) · hidden → hidden).
  std::vector<std::vector<PerfDenseLayer>> message;
  std::vector<PerfDenseLayer> combine;
  // LSTM: gates (i, f, g, o, as torch::nn::LSTM) = input(x) + recurrent(h), each hidden → 4 hidden.
  PerfDenseLayer lstm_input, lstm_recurrent;
  PerfDenseLayer readout_hidden;  // only when shape.readout_hidden > 0
  PerfDenseLayer readout;         // kernel embedding → 1

  // Inputs of the readout's first layer: sum, mean and max of the nodes (GraphSAGE) or the last
  // state (LSTM), then the tile sub-vector.
  int KernelWidth() const {
    return (shape.architecture == PerfModelArchitecture::kGraphSage ? 3 : 1) * shape.hidden +
           perf::kTileFeatures;
  }
};

namespace perf {

// Standardised node features (nodes × kProgramGraphFeatureWidth) and tile sub-vector.
std::vector<float> StandardisedFeatures(const PerfNormalisation& norm, const ProgramGraph& graph);
std::array<float, kTileFeatures> StandardisedTile(const PerfNormalisation& norm,
                                                  const ProgramGraph& graph);

// The network's output for one graph: the standardised ln time (before target_mean/std).
float ForwardGraph(const PerfModelState& state, const ProgramGraph& graph);

// Creates the layers of `shape` with zero weights (training copies its own in). Without
// `allocate_weights` the layers know their sizes but hold no weights: what a file's reader fills,
// so that memory follows the file's contents rather than the shape it declares.
PerfModelState EmptyPerfModelState(const PerfModelShape& shape, bool allocate_weights = true);

}  // namespace perf
}  // namespace glimpse
