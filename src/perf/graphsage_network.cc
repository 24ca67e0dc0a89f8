// The performance model's forward pass in plain C++ (src/perf/perf_network.h): the node
// embedding, GraphSAGE's hops or the LSTM, the kernel embedding and the readout, on one graph at a
// time. Arithmetic is float, as libtorch's training modules (src/perf/training/perf_torch.cc);
// each step there has its twin here.
#include <algorithm>
#include <cmath>

#include "perf/perf_network.h"

namespace glimpse {
namespace perf {

void PerfDenseLayer::Finish() {
  weight_t.assign(static_cast<size_t>(inputs) * outputs, 0.0f);
  for (int o = 0; o < outputs; ++o) {
    for (int i = 0; i < inputs; ++i)
      weight_t[size_t(i) * outputs + o] = weight[size_t(o) * inputs + i];
  }
}

namespace {

// One block of kBlock outputs of one row: the accumulators stay in vector registers across the
// inputs (kBlock is a compile-time size and nothing aliases), each input adds its scaled row of
// weights; zero inputs (one-hot features, ReLU'd embeddings: about half of them) are skipped.
template <int kBlock>
[[gnu::always_inline]] inline void AccumulateBlock(const float* __restrict x, int inputs,
                                                   const float* __restrict weight_t, int stride,
                                                   const float* __restrict bias,
                                                   float* __restrict y) {
  float acc[kBlock];
  for (int o = 0; o < kBlock; ++o) acc[o] = bias[o];
  for (int i = 0; i < inputs; ++i) {
    const float xi = x[i];
    if (xi == 0.0f) continue;
    const float* __restrict w = weight_t + size_t(i) * stride;
    for (int o = 0; o < kBlock; ++o) acc[o] += xi * w[o];
  }
  for (int o = 0; o < kBlock; ++o) y[o] = acc[o];
}

}  // namespace

// The ranking of a tuner's candidates spends most of its time here: compiled for the wider vector
// units too and chosen at load time (the build itself targets the baseline x86-64).
GLIMPSE_VECTOR_CLONES
void PerfDenseLayer::ApplyRows(const float* x, int rows, float* y) const {
  const float* wt = weight_t.data();
  const float* b = bias.data();
  for (int r = 0; r < rows; ++r) {
    const float* xr = x + size_t(r) * inputs;
    float* yr = y + size_t(r) * outputs;
    int o = 0;
    for (; o + 32 <= outputs; o += 32)
      AccumulateBlock<32>(xr, inputs, wt + o, outputs, b + o, yr + o);
    for (; o + 8 <= outputs; o += 8) AccumulateBlock<8>(xr, inputs, wt + o, outputs, b + o, yr + o);
    for (; o < outputs; ++o) AccumulateBlock<1>(xr, inputs, wt + o, outputs, b + o, yr + o);
  }
}

const std::vector<GraphEdge>& RelationEdges(const ProgramGraph& graph, int relation) {
  switch (relation / 2) {
    case 0:
      return graph.nesting;
    case 1:
      return graph.data_flow;
    default:
      return graph.sequence;
  }
}

bool RelationForward(int relation) { return relation % 2 == 0; }

std::vector<float> StandardisedFeatures(const PerfNormalisation& norm, const ProgramGraph& graph) {
  const int width = kProgramGraphFeatureWidth;
  std::vector<float> x(graph.nodes.size() * width);
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    for (int f = 0; f < width; ++f) {
      x[n * width + f] = (graph.nodes[n].features[f] - norm.feature_mean[f]) / norm.feature_std[f];
    }
  }
  return x;
}

std::array<float, kTileFeatures> StandardisedTile(const PerfNormalisation& norm,
                                                  const ProgramGraph& graph) {
  std::array<float, kTileFeatures> tile = TileSubVector(graph.tile_sizes);
  for (int f = 0; f < kTileFeatures; ++f)
    tile[f] = (tile[f] - norm.tile_mean[f]) / norm.tile_std[f];
  return tile;
}

namespace {

void ReluInPlace(std::vector<float>& v) {
  for (float& x : v) x = std::max(x, 0.0f);
}

float Sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// Who sends and how many a node receives in one relation: the same for every hop.
struct RelationShape {
  std::vector<int> senders;          // nodes with an edge out in this relation
  std::vector<float> inverse_count;  // per node, 1 / max(1, messages received)
};

std::vector<RelationShape> RelationShapes(const ProgramGraph& graph) {
  const int n = static_cast<int>(graph.nodes.size());
  std::vector<RelationShape> shapes(kPerfModelRelations);
  std::vector<char> sends(n);
  for (int r = 0; r < kPerfModelRelations; ++r) {
    const bool forward = RelationForward(r);
    std::fill(sends.begin(), sends.end(), 0);
    std::vector<float> count(n, 0.0f);
    for (const GraphEdge& e : RelationEdges(graph, r)) {
      sends[forward ? e.from : e.to] = 1;
      count[forward ? e.to : e.from] += 1.0f;
    }
    for (int v = 0; v < n; ++v) {
      if (sends[v]) shapes[r].senders.push_back(v);
    }
    shapes[r].inverse_count.resize(n);
    for (int v = 0; v < n; ++v) shapes[r].inverse_count[v] = 1.0f / std::max(count[v], 1.0f);
  }
  return shapes;
}

// GraphSAGE's node embeddings after the last hop (nodes × hidden).
std::vector<float> SageHops(const PerfModelState& s, const ProgramGraph& graph,
                            std::vector<float> h) {
  const int n = static_cast<int>(graph.nodes.size());
  const int hidden = s.shape.hidden;
  const int wide = (1 + kPerfModelRelations) * hidden;
  const std::vector<RelationShape> relations = RelationShapes(graph);
  std::vector<float> message(size_t(n) * hidden), concat(size_t(n) * wide),
      next(size_t(n) * hidden);
  for (int hop = 0; hop < s.shape.hops; ++hop) {
    std::fill(concat.begin(), concat.end(), 0.0f);
    for (int v = 0; v < n; ++v) {
      std::copy_n(h.begin() + size_t(v) * hidden, hidden, concat.begin() + size_t(v) * wide);
    }
    for (int r = 0; r < kPerfModelRelations; ++r) {
      // Messages of the nodes that send in relation r only (a loop nests, a tensor is loaded…).
      const bool forward = RelationForward(r);
      for (int v : relations[r].senders) {
        float* row = message.data() + size_t(v) * hidden;
        s.message[hop][r].ApplyRows(h.data() + size_t(v) * hidden, 1, row);
        for (int k = 0; k < hidden; ++k) row[k] = std::max(row[k], 0.0f);
      }
      // Mean of the messages from each node's neighbours in relation r (zero without any).
      const size_t offset = size_t(1 + r) * hidden;
      for (const GraphEdge& e : RelationEdges(graph, r)) {
        const int src = forward ? e.from : e.to;
        const int dst = forward ? e.to : e.from;
        float* __restrict out = concat.data() + size_t(dst) * wide + offset;
        const float* __restrict in = message.data() + size_t(src) * hidden;
        for (int k = 0; k < hidden; ++k) out[k] += in[k];
      }
      for (int v = 0; v < n; ++v) {
        const float inv = relations[r].inverse_count[v];
        float* out = concat.data() + size_t(v) * wide + offset;
        for (int k = 0; k < hidden; ++k) out[k] *= inv;
      }
    }
    s.combine[hop].ApplyRows(concat.data(), n, next.data());
    ReluInPlace(next);
    for (int v = 0; v < n; ++v) {
      float* row = next.data() + size_t(v) * hidden;
      float squares = 0.0f;
      for (int k = 0; k < hidden; ++k) squares += row[k] * row[k];
      const float norm = std::max(std::sqrt(squares), 1e-12f);
      for (int k = 0; k < hidden; ++k) row[k] /= norm;
    }
    h.swap(next);
  }
  return h;
}

// The LSTM's last hidden state over the nodes in order.
std::vector<float> LstmLastState(const PerfModelState& s, int n, const std::vector<float>& x) {
  const int hidden = s.shape.hidden;
  std::vector<float> gates_in(size_t(n) * 4 * hidden), gates(4 * hidden);
  s.lstm_input.ApplyRows(x.data(), n, gates_in.data());
  std::vector<float> h(hidden, 0.0f), c(hidden, 0.0f);
  for (int t = 0; t < n; ++t) {
    s.lstm_recurrent.ApplyRows(h.data(), 1, gates.data());
    const float* in = gates_in.data() + size_t(t) * 4 * hidden;
    for (int k = 0; k < hidden; ++k) {
      const float i = Sigmoid(in[k] + gates[k]);
      const float f = Sigmoid(in[hidden + k] + gates[hidden + k]);
      const float g = std::tanh(in[2 * hidden + k] + gates[2 * hidden + k]);
      const float o = Sigmoid(in[3 * hidden + k] + gates[3 * hidden + k]);
      c[k] = f * c[k] + i * g;
      h[k] = o * std::tanh(c[k]);
    }
  }
  return h;
}

}  // namespace

GLIMPSE_VECTOR_CLONES
float ForwardGraph(const PerfModelState& s, const ProgramGraph& graph) {
  const int n = static_cast<int>(graph.nodes.size());
  const int hidden = s.shape.hidden;
  std::vector<float> x = StandardisedFeatures(s.normalisation, graph);
  std::vector<float> h(size_t(n) * hidden);
  s.embed.ApplyRows(x.data(), n, h.data());
  ReluInPlace(h);

  std::vector<float> kernel;
  kernel.reserve(s.KernelWidth());
  if (s.shape.architecture == PerfModelArchitecture::kGraphSage) {
    h = SageHops(s, graph, std::move(h));
    std::vector<float> sum(hidden, 0.0f), max(hidden, 0.0f);
    for (int v = 0; v < n; ++v) {
      for (int k = 0; k < hidden; ++k) {
        const float value = h[size_t(v) * hidden + k];
        sum[k] += value;
        max[k] = v == 0 ? value : std::max(max[k], value);
      }
    }
    kernel.insert(kernel.end(), sum.begin(), sum.end());
    for (int k = 0; k < hidden; ++k) kernel.push_back(n ? sum[k] / static_cast<float>(n) : 0.0f);
    kernel.insert(kernel.end(), max.begin(), max.end());
  } else {
    std::vector<float> last = LstmLastState(s, n, h);
    kernel.insert(kernel.end(), last.begin(), last.end());
  }
  std::array<float, kTileFeatures> tile = StandardisedTile(s.normalisation, graph);
  kernel.insert(kernel.end(), tile.begin(), tile.end());

  if (s.shape.readout_hidden > 0) {
    std::vector<float> hid(s.shape.readout_hidden);
    s.readout_hidden.ApplyRows(kernel.data(), 1, hid.data());
    ReluInPlace(hid);
    kernel.swap(hid);
  }
  float out = 0.0f;
  s.readout.ApplyRows(kernel.data(), 1, &out);
  return out;
}

namespace {

PerfDenseLayer ZeroLayer(int inputs, int outputs, bool allocate) {
  PerfDenseLayer layer;
  layer.inputs = inputs;
  layer.outputs = outputs;
  if (allocate) {
    layer.weight.assign(size_t(inputs) * outputs, 0.0f);
    layer.bias.assign(outputs, 0.0f);
    layer.Finish();
  }
  return layer;
}

}  // namespace

PerfModelState EmptyPerfModelState(const PerfModelShape& shape, bool allocate_weights) {
  auto zero_layer = [&](int inputs, int outputs) {
    return ZeroLayer(inputs, outputs, allocate_weights);
  };
  PerfModelState s;
  s.shape = shape;
  const int h = shape.hidden;
  s.normalisation.feature_mean.assign(kProgramGraphFeatureWidth, 0.0f);
  s.normalisation.feature_std.assign(kProgramGraphFeatureWidth, 1.0f);
  s.normalisation.tile_mean.assign(kTileFeatures, 0.0f);
  s.normalisation.tile_std.assign(kTileFeatures, 1.0f);
  s.embed = zero_layer(kProgramGraphFeatureWidth, h);
  if (shape.architecture == PerfModelArchitecture::kGraphSage) {
    for (int hop = 0; hop < shape.hops; ++hop) {
      s.message.emplace_back();
      for (int r = 0; r < kPerfModelRelations; ++r) s.message.back().push_back(zero_layer(h, h));
      s.combine.push_back(zero_layer((1 + kPerfModelRelations) * h, h));
    }
  } else {
    s.lstm_input = zero_layer(h, 4 * h);
    s.lstm_recurrent = zero_layer(h, 4 * h);
  }
  if (shape.readout_hidden > 0) {
    s.readout_hidden = zero_layer(s.KernelWidth(), shape.readout_hidden);
    s.readout = zero_layer(shape.readout_hidden, 1);
  } else {
    s.readout = zero_layer(s.KernelWidth(), 1);
  }
  return s;
}

}  // namespace perf
}  // namespace glimpse
