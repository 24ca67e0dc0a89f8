// The tunable layers of a model graph (glimpse/model_graph.h GraphLayers): each convolution and
// matrix product as the operator glimpse tunes, with its epilogue fused — the bias, a residual
// Add and a ReLU or ReLU6 that only it feeds.
#include <fmt/format.h>

#include <cmath>

#include "glimpse/error.h"
#include "glimpse/model_graph.h"

namespace glimpse {
namespace {

[[noreturn]] void Unsupported(const GraphOp& op, const std::string& what) {
  throw Error(OpLabel(op) + ": " + what);
}

// The one value of a pair that must match along height and width, or the reason it cannot.
int64_t Square(const GraphOp& op, const std::array<int64_t, 2>& pair, const char* what) {
  if (pair[0] != pair[1]) {
    Unsupported(op, fmt::format("{} {}x{} differ along height and width; supported: equal {} "
                                "(the conv2d templates take one value)",
                                what, pair[0], pair[1], what));
  }
  return pair[0];
}

int64_t SymmetricPad(const GraphOp& op) {
  const auto& p = op.pads;
  if (p[0] != p[1] || p[0] != p[2] || p[0] != p[3]) {
    Unsupported(op, fmt::format("pads (top {}, left {}, bottom {}, right {}) are not the same on "
                                "every side; supported: symmetric padding",
                                p[0], p[1], p[2], p[3]));
  }
  return p[0];
}

Operator ConvOperator(const ModelGraph& graph, const GraphOp& op) {
  const auto& x = graph.tensors[op.inputs[0]].shape;
  const auto& w = graph.tensors[op.inputs[1]].shape;
  const bool bias = op.inputs.size() == 3;
  const int64_t stride = Square(op, op.strides, "strides");
  const int64_t dilation = Square(op, op.dilations, "dilations");
  const int64_t pad = SymmetricPad(op);
  if (op.group == 1) {
    Conv2dShape s;
    s.n = x[0], s.c = x[1], s.h = x[2], s.w = x[3], s.k = w[0], s.r = w[2], s.s = w[3];
    s.stride = stride, s.pad = pad, s.dilation = dilation, s.bias = bias;
    return s;
  }
  if (op.group == x[1] && w[0] == x[1]) {
    DepthwiseConv2dShape s;
    s.n = x[0], s.c = x[1], s.h = x[2], s.w = x[3], s.r = w[2], s.s = w[3];
    s.stride = stride, s.pad = pad, s.dilation = dilation, s.bias = bias;
    return s;
  }
  Unsupported(op, fmt::format("a grouped convolution (group {} of {} input and {} output "
                              "channels); supported: group 1, or depthwise (group = input "
                              "channels = output channels)",
                              op.group, x[1], w[0]));
}

// The product of `shape`'s dimensions but the last `drop`: the rows a matrix product runs over.
int64_t LeadingProduct(const std::vector<int64_t>& shape, size_t drop) {
  // Checked: a zero extent elsewhere can hide an overflow here from the whole shape's count.
  const size_t kept = shape.size() > drop ? shape.size() - drop : 0;
  return ShapeElements(std::vector<int64_t>(shape.begin(), shape.begin() + kept));
}

Operator DenseOperator(const ModelGraph& graph, const GraphOp& op) {
  const auto& a = graph.tensors[op.inputs[0]].shape;
  const auto& b = graph.tensors[op.inputs[1]].shape;
  DenseShape s;
  s.m = LeadingProduct(a, 1), s.n = b[0], s.k = b[1], s.bias = op.inputs.size() == 3;
  return s;
}

Operator BatchMatmulOperator(const ModelGraph& graph, const GraphOp& op) {
  const auto& a = graph.tensors[op.inputs[0]].shape;
  const auto& b = graph.tensors[op.inputs[1]].shape;
  BatchMatmulShape s;
  s.b = LeadingProduct(a, 2), s.m = a[a.size() - 2], s.k = a.back(), s.n = b.back();
  return s;
}

// Whether `op` is an activation the operators' epilogue has: ReLU, or a Clip to [0, 6] (ReLU6)
// or to [0, ∞) (a ReLU written as a Clip).
bool FusableActivation(const GraphOp& op, bool* relu6) {
  *relu6 = false;
  if (op.kind == GraphOpKind::kRelu) return true;
  if (op.kind != GraphOpKind::kClip || op.clip_min != 0.0f) return false;
  if (op.clip_max == 6.0f) {
    *relu6 = true;
    return true;
  }
  return std::isinf(op.clip_max) && op.clip_max > 0;
}

void SetActivation(Operator& op, bool relu6) {
  std::visit(
      [relu6](auto& shape) {
        shape.relu = !relu6;
        shape.relu6 = relu6;
      },
      op);
}

}  // namespace

std::vector<GraphLayer> GraphLayers(const ModelGraph& graph, std::vector<std::string>* untunable) {
  const std::vector<int> consumers = graph.Consumers();
  // The op reading each tensor, when exactly one does; the op writing it.
  std::vector<int> reader(graph.tensors.size(), -1), writer(graph.tensors.size(), -1);
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    for (int input : graph.ops[i].inputs) reader[input] = static_cast<int>(i);
    writer[graph.ops[i].output] = static_cast<int>(i);
  }
  std::vector<GraphLayer> layers;
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const GraphOp& op = graph.ops[i];
    GraphLayer layer;
    layer.layer.name = op.name;
    layer.op = static_cast<int>(i);
    layer.output = op.output;
    try {
      switch (op.kind) {
        case GraphOpKind::kConv:
          layer.layer.op = ConvOperator(graph, op);
          break;
        case GraphOpKind::kDense:
          layer.layer.op = DenseOperator(graph, op);
          break;
        case GraphOpKind::kBatchMatmul:
          layer.layer.op = BatchMatmulOperator(graph, op);
          break;
        default:
          continue;
      }
    } catch (const Error& error) {
      if (untunable == nullptr) throw;
      untunable->push_back(error.what());
      continue;
    }
    // The op that alone reads the layer's current output, or -1.
    auto sole_reader = [&]() -> int {
      return consumers[layer.output] == 1 ? reader[layer.output] : -1;
    };
    // A matrix product without a bias followed by the addition of a constant vector (MatMul then
    // Add, as exporters write a linear layer): the addition is the bias.
    if (op.kind == GraphOpKind::kDense && op.inputs.size() == 2 && sole_reader() >= 0) {
      const GraphOp& add = graph.ops[sole_reader()];
      const int other =
          add.inputs.size() == 2 ? add.inputs[add.inputs[0] == layer.output ? 1 : 0] : -1;
      const int64_t n = std::get<DenseShape>(layer.layer.op).n;
      if (add.kind == GraphOpKind::kAdd && other >= 0 && graph.tensors[other].constant &&
          graph.tensors[other].Elements() == n && graph.tensors[other].shape.back() == n) {
        std::get<DenseShape>(layer.layer.op).bias = true;
        layer.fused.push_back(sole_reader());
        layer.output = add.output;
      }
    }
    // A residual Add: the output plus another activation of exactly its shape (a residual
    // block's shortcut). The layer runs where its node is, so the shortcut must be computed
    // before it: a graph input or an earlier op's output. (Where a block's downsampling
    // convolution comes after its last convolution, as exporters write it, the Add is fused
    // into the downsampling one — the sum is the same.)
    if (sole_reader() >= 0 && graph.ops[sole_reader()].kind == GraphOpKind::kAdd) {
      const GraphOp& add = graph.ops[sole_reader()];
      const int other = add.inputs.size() == 2 && add.inputs[0] != add.inputs[1]
                            ? add.inputs[add.inputs[0] == layer.output ? 1 : 0]
                            : -1;
      if (other >= 0 && !graph.tensors[other].constant &&
          graph.tensors[other].shape == graph.tensors[layer.output].shape &&
          writer[other] < static_cast<int>(i)) {
        std::visit([](auto& shape) { shape.residual = true; }, layer.layer.op);
        layer.residual = other;
        layer.fused.push_back(sole_reader());
        layer.output = add.output;
      }
    }
    bool relu6 = false;
    if (sole_reader() >= 0 && FusableActivation(graph.ops[sole_reader()], &relu6)) {
      SetActivation(layer.layer.op, relu6);
      const int activation = sole_reader();
      layer.fused.push_back(activation);
      layer.output = graph.ops[activation].output;
    }
    layers.push_back(std::move(layer));
  }
  return layers;
}

std::vector<ModelLayer> ModelLayers(const std::vector<GraphLayer>& layers) {
  std::vector<ModelLayer> out;
  out.reserve(layers.size());
  for (const GraphLayer& layer : layers) out.push_back(layer.layer);
  return out;
}

}  // namespace glimpse
