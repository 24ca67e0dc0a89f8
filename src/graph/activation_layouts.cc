// PlanBlockedActivations (glimpse/activation_layouts.h): which activations stay channel-blocked
// between a model's convolutions.
#include "glimpse/activation_layouts.h"

#include <set>
#include <variant>

namespace glimpse {

namespace {

bool IsConvolution(const GraphLayer& layer) {
  return std::holds_alternative<Conv2dShape>(layer.layer.op) ||
         std::holds_alternative<DepthwiseConv2dShape>(layer.layer.op);
}

// Ops that compute lane by lane and so run on either layout, their output in their input's.
bool WorksOnEitherLayout(const ModelGraph& graph, const GraphOp& op) {
  switch (op.kind) {
    case GraphOpKind::kRelu:
    case GraphOpKind::kClip:
    case GraphOpKind::kMaxPool:
    case GraphOpKind::kAveragePool:
    case GraphOpKind::kGlobalAveragePool:
      return graph.tensors[op.inputs[0]].shape.size() == 4;
    case GraphOpKind::kAdd: {
      // Two activations of one shape: element by element whatever the order of the elements.
      if (op.inputs.size() != 2) return false;
      const GraphTensor& a = graph.tensors[op.inputs[0]];
      const GraphTensor& b = graph.tensors[op.inputs[1]];
      return !a.constant && !b.constant && a.shape == b.shape && a.shape.size() == 4;
    }
    default:
      return false;
  }
}

class Planner {
 public:
  Planner(const ModelGraph& graph, std::vector<GraphLayer>& layers)
      : graph_(graph), layers_(layers) {
    plan_.tensor_block.assign(graph.tensors.size(), 0);
    for (size_t i = 0; i < layers.size(); ++i) {
      layer_of_op_[layers[i].op] = static_cast<int>(i);
      fused_.insert(layers[i].fused.begin(), layers[i].fused.end());
    }
    for (int output : graph.outputs) graph_outputs_.insert(output);
    // Who takes each tensor blocked: convolution layers (their input or residual) and the ops
    // that work on either layout.
    for (size_t o = 0; o < graph.ops.size(); ++o) {
      if (fused_.count(static_cast<int>(o))) continue;
      auto layer = layer_of_op_.find(static_cast<int>(o));
      if (layer != layer_of_op_.end()) {
        const GraphLayer& l = layers[layer->second];
        if (!IsConvolution(l)) continue;
        takes_blocked_.insert(graph.ops[o].inputs[0]);
        if (l.residual >= 0) takes_blocked_.insert(l.residual);
      } else if (WorksOnEitherLayout(graph, graph.ops[o])) {
        for (int input : graph.ops[o].inputs) takes_blocked_.insert(input);
      }
    }
  }

  ActivationLayoutPlan Run() {
    for (size_t o = 0; o < graph_.ops.size(); ++o) {
      const int op = static_cast<int>(o);
      if (fused_.count(op)) continue;
      auto layer = layer_of_op_.find(op);
      if (layer != layer_of_op_.end()) {
        Layer(op, layers_[layer->second]);
      } else {
        PlainOp(op);
      }
    }
    return std::move(plan_);
  }

 private:
  // Whether `tensor` may be written blocked: read blocked by someone, and not a graph output.
  bool MayBlock(int tensor) const {
    return takes_blocked_.count(tensor) && !graph_outputs_.count(tensor);
  }

  void Read(int op, int tensor, int64_t block) {
    if (!graph_.tensors[tensor].constant) plan_.read_block[{op, tensor}] = block;
  }

  void Layer(int op, GraphLayer& layer) {
    const GraphOp& node = graph_.ops[op];
    const int input = node.inputs[0];
    if (auto* conv = std::get_if<Conv2dShape>(&layer.layer.op)) {
      conv->in_block = plan_.tensor_block[input];
      conv->out_block = MayBlock(layer.output) ? ActivationBlockFor(conv->k) : 0;
      Convolution(op, layer, conv->in_block, conv->out_block);
    } else if (auto* depthwise = std::get_if<DepthwiseConv2dShape>(&layer.layer.op)) {
      // One block for input and output: the input's, unless the output must be NCHW.
      const int64_t block = MayBlock(layer.output) ? plan_.tensor_block[input] : 0;
      depthwise->in_block = depthwise->out_block = block;
      Convolution(op, layer, block, block);
    } else {
      for (int t : node.inputs) Read(op, t, 0);
      if (layer.residual >= 0) Read(op, layer.residual, 0);
      plan_.tensor_block[layer.output] = 0;
    }
  }

  void Convolution(int op, const GraphLayer& layer, int64_t in_block, int64_t out_block) {
    Read(op, graph_.ops[op].inputs[0], in_block);
    if (layer.residual >= 0) Read(op, layer.residual, out_block);
    plan_.tensor_block[layer.output] = out_block;
  }

  void PlainOp(int op) {
    const GraphOp& node = graph_.ops[op];
    if (!WorksOnEitherLayout(graph_, node)) {
      for (int t : node.inputs) Read(op, t, 0);
      plan_.tensor_block[node.output] = 0;
      return;
    }
    int64_t block = 0;
    for (int t : node.inputs) block = block != 0 ? block : plan_.tensor_block[t];
    if (graph_outputs_.count(node.output)) block = 0;
    for (int t : node.inputs) Read(op, t, block);
    // Global pooling's [N, C, 1, 1] result is NCHW whichever layout it read.
    plan_.tensor_block[node.output] = node.kind == GraphOpKind::kGlobalAveragePool ? 0 : block;
  }

  const ModelGraph& graph_;
  std::vector<GraphLayer>& layers_;
  ActivationLayoutPlan plan_;
  std::map<int, int> layer_of_op_;
  std::set<int> fused_, graph_outputs_, takes_blocked_;
};

}  // namespace

int64_t ActivationBlockFor(int64_t channels) {
  for (int64_t block : {16, 8, 4}) {
    if (channels % block == 0) return block;
  }
  return 0;
}

int64_t ActivationLayoutPlan::ReadBlock(int op, int tensor) const {
  auto it = read_block.find({op, tensor});
  return it == read_block.end() ? 0 : it->second;
}

ActivationLayoutPlan PlanBlockedActivations(const ModelGraph& graph,
                                            std::vector<GraphLayer>& layers) {
  return Planner(graph, layers).Run();
}

}  // namespace glimpse
