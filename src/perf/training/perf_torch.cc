// The performance model's libtorch module (src/perf/training/perf_torch.h). Each step has its
// plain-C++ twin in src/perf/graphsage_network.cc; tests/perf/perf_model_torch_test.cc holds
// them equal.
#include "perf/training/perf_torch.h"

#include <fmt/format.h>

#include <algorithm>

#include "glimpse/error.h"

namespace glimpse {
namespace perf {

PerfBatch MakePerfBatch(const PerfNormalisation& norm,
                        const std::vector<const ProgramGraph*>& graphs) {
  PerfBatch batch;
  const int width = kProgramGraphFeatureWidth;
  std::vector<float> features, tile;
  std::array<std::vector<int64_t>, kPerfModelRelations> source, target;
  batch.offsets.push_back(0);
  int64_t longest = 0;
  for (const ProgramGraph* graph : graphs) {
    const int64_t base = batch.offsets.back();
    std::vector<float> x = StandardisedFeatures(norm, *graph);
    features.insert(features.end(), x.begin(), x.end());
    std::array<float, kTileFeatures> t = StandardisedTile(norm, *graph);
    tile.insert(tile.end(), t.begin(), t.end());
    for (int r = 0; r < kPerfModelRelations; ++r) {
      const bool forward = RelationForward(r);
      for (const GraphEdge& e : RelationEdges(*graph, r)) {
        source[r].push_back(base + (forward ? e.from : e.to));
        target[r].push_back(base + (forward ? e.to : e.from));
      }
    }
    const int64_t n = static_cast<int64_t>(graph->nodes.size());
    longest = std::max(longest, n);
    batch.offsets.push_back(base + n);
  }
  const int64_t nodes = batch.offsets.back();
  const int64_t count = static_cast<int64_t>(graphs.size());
  batch.features = torch::from_blob(features.data(), {nodes, width}, torch::kFloat32).clone();
  batch.tile = torch::from_blob(tile.data(), {count, kTileFeatures}, torch::kFloat32).clone();
  for (int r = 0; r < kPerfModelRelations; ++r) {
    const int64_t edges = static_cast<int64_t>(source[r].size());
    batch.source[r] = torch::from_blob(source[r].data(), {edges}, torch::kInt64).clone();
    batch.target[r] = torch::from_blob(target[r].data(), {edges}, torch::kInt64).clone();
    std::vector<float> in(nodes, 0.0f);
    for (int64_t v : target[r]) in[v] += 1.0f;
    for (float& c : in) c = 1.0f / std::max(c, 1.0f);
    batch.inverse_count[r] = torch::from_blob(in.data(), {nodes, 1}, torch::kFloat32).clone();
  }
  std::vector<int64_t> index(count * longest, nodes), lengths(count);
  for (int64_t b = 0; b < count; ++b) {
    lengths[b] = batch.offsets[b + 1] - batch.offsets[b];
    for (int64_t t = 0; t < lengths[b]; ++t) index[b * longest + t] = batch.offsets[b] + t;
  }
  batch.sequence_index = torch::from_blob(index.data(), {count, longest}, torch::kInt64).clone();
  batch.lengths = torch::from_blob(lengths.data(), {count}, torch::kInt64).clone();
  return batch;
}

PerfNetImpl::PerfNetImpl(const PerfModelShape& s) : shape(s) {
  const int h = shape.hidden;
  embed = register_module("embed", torch::nn::Linear(kProgramGraphFeatureWidth, h));
  if (shape.architecture == PerfModelArchitecture::kGraphSage) {
    for (int hop = 0; hop < shape.hops; ++hop) {
      message.emplace_back();
      for (int r = 0; r < kPerfModelRelations; ++r) {
        message.back().push_back(
            register_module(fmt::format("message{}_{}", hop, r), torch::nn::Linear(h, h)));
      }
      combine.push_back(register_module(fmt::format("combine{}", hop),
                                        torch::nn::Linear((1 + kPerfModelRelations) * h, h)));
    }
  } else {
    lstm_input = register_module("lstm_input", torch::nn::Linear(h, 4 * h));
    lstm_recurrent = register_module("lstm_recurrent", torch::nn::Linear(h, 4 * h));
  }
  const int kernel =
      (shape.architecture == PerfModelArchitecture::kGraphSage ? 3 : 1) * h + kTileFeatures;
  if (shape.readout_hidden > 0) {
    readout_hidden =
        register_module("readout_hidden", torch::nn::Linear(kernel, shape.readout_hidden));
    readout = register_module("readout", torch::nn::Linear(shape.readout_hidden, 1));
  } else {
    readout = register_module("readout", torch::nn::Linear(kernel, 1));
  }
}

torch::Tensor PerfNetImpl::forward(const PerfBatch& batch) {
  const int64_t nodes = batch.features.size(0);
  const int64_t graphs = static_cast<int64_t>(batch.offsets.size()) - 1;
  const int64_t hidden = shape.hidden;
  torch::Tensor h = torch::relu(embed->forward(batch.features));
  torch::Tensor kernel;
  if (shape.architecture == PerfModelArchitecture::kGraphSage) {
    for (int hop = 0; hop < shape.hops; ++hop) {
      std::vector<torch::Tensor> parts{h};
      for (int r = 0; r < kPerfModelRelations; ++r) {
        torch::Tensor m = torch::relu(message[hop][r]->forward(h));
        torch::Tensor sum = torch::zeros({nodes, hidden})
                                .index_add(0, batch.target[r], m.index_select(0, batch.source[r]));
        parts.push_back(sum * batch.inverse_count[r]);
      }
      torch::Tensor next = torch::relu(combine[hop]->forward(torch::cat(parts, 1)));
      h = next / next.norm(2, 1, true).clamp_min(1e-12);
    }
    std::vector<torch::Tensor> rows;
    for (int64_t b = 0; b < graphs; ++b) {
      const int64_t n = batch.offsets[b + 1] - batch.offsets[b];
      torch::Tensor slice = h.narrow(0, batch.offsets[b], n);
      torch::Tensor sum = slice.sum(0);
      rows.push_back(torch::cat({sum, sum / static_cast<float>(n), std::get<0>(slice.max(0))}));
    }
    kernel = torch::stack(rows);
  } else {
    // Padded sequences: index `nodes` is a zero row; a graph's state stops at its length.
    torch::Tensor padded =
        torch::cat({h, torch::zeros({1, hidden})}).index_select(0, batch.sequence_index.flatten());
    torch::Tensor gates_in =
        lstm_input->forward(padded).view({graphs, batch.sequence_index.size(1), 4 * hidden});
    torch::Tensor state = torch::zeros({graphs, hidden}), cell = torch::zeros({graphs, hidden});
    for (int64_t t = 0; t < batch.sequence_index.size(1); ++t) {
      torch::Tensor gates = gates_in.select(1, t) + lstm_recurrent->forward(state);
      std::vector<torch::Tensor> g = gates.chunk(4, 1);
      torch::Tensor c = torch::sigmoid(g[1]) * cell + torch::sigmoid(g[0]) * torch::tanh(g[2]);
      torch::Tensor s = torch::sigmoid(g[3]) * torch::tanh(c);
      torch::Tensor running = (batch.lengths > t).unsqueeze(1);
      cell = torch::where(running, c, cell);
      state = torch::where(running, s, state);
    }
    kernel = state;
  }
  kernel = torch::cat({kernel, batch.tile}, 1);
  if (shape.readout_hidden > 0) kernel = torch::relu(readout_hidden->forward(kernel));
  return readout->forward(kernel).squeeze(1);
}

namespace {

PerfDenseLayer ToLayer(const torch::nn::Linear& linear) {
  torch::NoGradGuard no_grad;
  const torch::Tensor weight = linear->weight.to(torch::kFloat32).contiguous();
  const torch::Tensor bias = linear->bias.to(torch::kFloat32).contiguous();
  PerfDenseLayer layer;
  layer.outputs = static_cast<int>(weight.size(0));
  layer.inputs = static_cast<int>(weight.size(1));
  layer.weight.assign(weight.data_ptr<float>(), weight.data_ptr<float>() + weight.numel());
  layer.bias.assign(bias.data_ptr<float>(), bias.data_ptr<float>() + bias.numel());
  layer.Finish();
  return layer;
}

void LoadLayer(const PerfDenseLayer& layer, torch::nn::Linear& linear) {
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

}  // namespace

PerfModelState ToPerfModelState(PerfNet& net, const PerfNormalisation& norm) {
  PerfModelState state = EmptyPerfModelState(net->shape);
  state.normalisation = norm;
  state.embed = ToLayer(net->embed);
  for (size_t hop = 0; hop < net->combine.size(); ++hop) {
    for (int r = 0; r < kPerfModelRelations; ++r)
      state.message[hop][r] = ToLayer(net->message[hop][r]);
    state.combine[hop] = ToLayer(net->combine[hop]);
  }
  if (net->shape.architecture == PerfModelArchitecture::kLstm) {
    state.lstm_input = ToLayer(net->lstm_input);
    state.lstm_recurrent = ToLayer(net->lstm_recurrent);
  }
  if (net->shape.readout_hidden > 0) state.readout_hidden = ToLayer(net->readout_hidden);
  state.readout = ToLayer(net->readout);
  return state;
}

void LoadPerfModelState(const PerfModelState& state, PerfNet& net) {
  LoadLayer(state.embed, net->embed);
  for (size_t hop = 0; hop < net->combine.size(); ++hop) {
    for (int r = 0; r < kPerfModelRelations; ++r)
      LoadLayer(state.message[hop][r], net->message[hop][r]);
    LoadLayer(state.combine[hop], net->combine[hop]);
  }
  if (net->shape.architecture == PerfModelArchitecture::kLstm) {
    LoadLayer(state.lstm_input, net->lstm_input);
    LoadLayer(state.lstm_recurrent, net->lstm_recurrent);
  }
  if (net->shape.readout_hidden > 0) LoadLayer(state.readout_hidden, net->readout_hidden);
  LoadLayer(state.readout, net->readout);
}

}  // namespace perf
}  // namespace glimpse
