// The whole-model graph (glimpse/model_graph.h): names, consumers, the shape every op computes,
// validation and a readable summary.
#include "glimpse/model_graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <numeric>

#include "glimpse/error.h"

namespace glimpse {
namespace {

[[noreturn]] void Fail(const GraphOp& op, const std::string& what) {
  throw Error(OpLabel(op) + ": " + what);
}

// The product of a shape's extents. Shapes come from files (ONNX): a negative extent or a product
// beyond int64 (a fuzzed Reshape asked for 6.5·10¹⁷ × 17) is an Error, not an overflow.
int64_t Product(std::vector<int64_t>::const_iterator begin,
                std::vector<int64_t>::const_iterator end) {
  int64_t product = 1;
  for (auto it = begin; it != end; ++it) {
    if (*it < 0 || __builtin_mul_overflow(product, *it, &product)) {
      throw Error(
          fmt::format("shape {} has {}", ShapeText(std::vector<int64_t>(begin, end)),
                      *it < 0 ? "a negative extent" : "more elements than 64-bit sizes count"));
    }
  }
  return product;
}

// Output extent of a window of `kernel` (dilated) over `in` padded by `before` + `after`.
int64_t WindowOut(const GraphOp& op, int64_t in, int64_t kernel, int64_t stride, int64_t dilation,
                  int64_t before, int64_t after) {
  const int64_t span = dilation * (kernel - 1) + 1;
  if (stride < 1 || dilation < 1 || kernel < 1)
    Fail(op, "kernel, strides and dilations must be ≥ 1");
  if (in + before + after < span) {
    Fail(op, fmt::format("a window of {} does not fit an input of {} padded by {}+{}", span, in,
                         before, after));
  }
  return (in + before + after - span) / stride + 1;
}

}  // namespace

const char* GraphOpKindName(GraphOpKind kind) {
  switch (kind) {
    case GraphOpKind::kConv:
      return "conv";
    case GraphOpKind::kDense:
      return "dense";
    case GraphOpKind::kBatchMatmul:
      return "batch_matmul";
    case GraphOpKind::kRelu:
      return "relu";
    case GraphOpKind::kClip:
      return "clip";
    case GraphOpKind::kAdd:
      return "add";
    case GraphOpKind::kMaxPool:
      return "max_pool";
    case GraphOpKind::kAveragePool:
      return "average_pool";
    case GraphOpKind::kGlobalAveragePool:
      return "global_average_pool";
    case GraphOpKind::kFlatten:
      return "flatten";
    case GraphOpKind::kReshape:
      return "reshape";
    case GraphOpKind::kConcat:
      return "concat";
    case GraphOpKind::kSoftmax:
      return "softmax";
  }
  return "?";
}

int64_t ShapeElements(const std::vector<int64_t>& shape) {
  return Product(shape.begin(), shape.end());
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  return fmt::format("[{}]", fmt::join(shape, ","));
}

std::string OpLabel(const GraphOp& op) {
  return fmt::format("{} node '{}'", op.source.empty() ? GraphOpKindName(op.kind) : op.source,
                     op.name);
}

int64_t GraphTensor::Elements() const { return Product(shape.begin(), shape.end()); }

int ModelGraph::Find(const std::string& name) const {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

std::vector<int> ModelGraph::Consumers() const {
  std::vector<int> count(tensors.size(), 0);
  for (const GraphOp& op : ops) {
    for (int input : op.inputs) {
      if (input >= 0 && input < static_cast<int>(count.size())) ++count[input];
    }
  }
  for (int output : outputs) {
    if (output >= 0 && output < static_cast<int>(count.size())) ++count[output];
  }
  return count;
}

std::vector<int64_t> OpOutputShape(const ModelGraph& graph, const GraphOp& op) {
  auto shape = [&](size_t i) -> const std::vector<int64_t>& {
    if (i >= op.inputs.size()) Fail(op, fmt::format("input {} is missing", i));
    return graph.tensors.at(op.inputs[i]).shape;
  };
  auto need_inputs = [&](size_t low, size_t high) {
    if (op.inputs.size() < low || op.inputs.size() > high) {
      Fail(op, fmt::format("takes {} to {} inputs, has {}", low, high, op.inputs.size()));
    }
  };
  switch (op.kind) {
    case GraphOpKind::kConv: {
      need_inputs(2, 3);
      const auto& x = shape(0);
      const auto& w = shape(1);
      if (x.size() != 4 || w.size() != 4) {
        Fail(op, fmt::format("input {} and weight {} must be 4-D (N,C,H,W and K,C/group,R,S)",
                             ShapeText(x), ShapeText(w)));
      }
      if (op.group < 1 || w[1] * op.group != x[1] || w[0] % op.group != 0) {
        Fail(op, fmt::format("weight {} does not fit input {} with group {}", ShapeText(w),
                             ShapeText(x), op.group));
      }
      if (op.inputs.size() == 3 && shape(2) != std::vector<int64_t>{w[0]}) {
        Fail(op, fmt::format("bias {} is not [{}]", ShapeText(shape(2)), w[0]));
      }
      return {x[0], w[0],
              WindowOut(op, x[2], w[2], op.strides[0], op.dilations[0], op.pads[0], op.pads[2]),
              WindowOut(op, x[3], w[3], op.strides[1], op.dilations[1], op.pads[1], op.pads[3])};
    }
    case GraphOpKind::kDense: {
      need_inputs(2, 3);
      const auto& a = shape(0);
      const auto& b = shape(1);
      if (a.empty() || b.size() != 2 || a.back() != b[1]) {
        Fail(op, fmt::format("a {} and b {} do not make a product (b is [N, K], a ends in K)",
                             ShapeText(a), ShapeText(b)));
      }
      if (op.inputs.size() == 3 && shape(2) != std::vector<int64_t>{b[0]}) {
        Fail(op, fmt::format("bias {} is not [{}]", ShapeText(shape(2)), b[0]));
      }
      std::vector<int64_t> out(a.begin(), a.end() - 1);
      out.push_back(b[0]);
      return out;
    }
    case GraphOpKind::kBatchMatmul: {
      need_inputs(2, 2);
      const auto& a = shape(0);
      const auto& b = shape(1);
      if (a.size() < 3 || a.size() != b.size() || !std::equal(a.begin(), a.end() - 2, b.begin()) ||
          a.back() != b[b.size() - 2]) {
        Fail(op, fmt::format("a {} and b {} do not make a batched product (same batch "
                             "dimensions, [.., M, K] · [.., K, N])",
                             ShapeText(a), ShapeText(b)));
      }
      std::vector<int64_t> out(a.begin(), a.end() - 1);
      out.push_back(b.back());
      return out;
    }
    case GraphOpKind::kRelu:
    case GraphOpKind::kClip:
    case GraphOpKind::kSoftmax:
      need_inputs(1, 1);
      if (op.kind == GraphOpKind::kSoftmax && op.axis >= static_cast<int64_t>(shape(0).size())) {
        Fail(op, fmt::format("axis {} is outside {}", op.axis, ShapeText(shape(0))));
      }
      return shape(0);
    case GraphOpKind::kAdd: {
      need_inputs(2, 2);
      const auto& a = shape(0);
      const auto& b = shape(1);
      const size_t rank = std::max(a.size(), b.size());
      std::vector<int64_t> out(rank);
      for (size_t i = 0; i < rank; ++i) {
        const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
        const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
        if (da != db && da != 1 && db != 1) {
          Fail(op, fmt::format("{} and {} do not broadcast", ShapeText(a), ShapeText(b)));
        }
        out[i] = std::max(da, db);
      }
      return out;
    }
    case GraphOpKind::kMaxPool:
    case GraphOpKind::kAveragePool: {
      need_inputs(1, 1);
      const auto& x = shape(0);
      if (x.size() != 4) Fail(op, fmt::format("input {} must be 4-D", ShapeText(x)));
      return {x[0], x[1],
              WindowOut(op, x[2], op.kernel[0], op.strides[0], 1, op.pads[0], op.pads[2]),
              WindowOut(op, x[3], op.kernel[1], op.strides[1], 1, op.pads[1], op.pads[3])};
    }
    case GraphOpKind::kGlobalAveragePool: {
      need_inputs(1, 1);
      const auto& x = shape(0);
      if (x.size() != 4) Fail(op, fmt::format("input {} must be 4-D", ShapeText(x)));
      return {x[0], x[1], 1, 1};
    }
    case GraphOpKind::kFlatten: {
      need_inputs(1, 1);
      const auto& x = shape(0);
      if (op.axis < 0 || op.axis > static_cast<int64_t>(x.size())) {
        Fail(op, fmt::format("axis {} is outside {}", op.axis, ShapeText(x)));
      }
      try {
        return {Product(x.begin(), x.begin() + op.axis), Product(x.begin() + op.axis, x.end())};
      } catch (const Error& error) {
        Fail(op, error.what());
      }
    }
    case GraphOpKind::kReshape: {
      need_inputs(1, 1);
      const auto& out = graph.tensors.at(op.output).shape;
      int64_t out_elements = 0, in_elements = 0;
      try {
        out_elements = Product(out.begin(), out.end());
        in_elements = graph.tensors.at(op.inputs[0]).Elements();
      } catch (const Error& error) {
        Fail(op, error.what());
      }
      if (out_elements != in_elements) {
        Fail(op, fmt::format("{} cannot be reshaped to {}", ShapeText(shape(0)), ShapeText(out)));
      }
      return out;
    }
    case GraphOpKind::kConcat: {
      if (op.inputs.empty()) Fail(op, "has no inputs");
      std::vector<int64_t> out = shape(0);
      if (op.axis >= static_cast<int64_t>(out.size())) {
        Fail(op, fmt::format("axis {} is outside {}", op.axis, ShapeText(out)));
      }
      for (size_t i = 1; i < op.inputs.size(); ++i) {
        const auto& other = shape(i);
        bool fits = other.size() == out.size();
        for (size_t d = 0; fits && d < out.size(); ++d) {
          fits = static_cast<int64_t>(d) == op.axis || other[d] == out[d];
        }
        if (!fits) {
          Fail(op, fmt::format("{} and {} do not concatenate along axis {}", ShapeText(out),
                               ShapeText(other), op.axis));
        }
        out[op.axis] += other[op.axis];
      }
      return out;
    }
  }
  Fail(op, "unknown kind");
}

void ValidateModelGraph(const ModelGraph& graph) {
  const int count = static_cast<int>(graph.tensors.size());
  std::vector<bool> made(graph.tensors.size(), false);
  for (int input : graph.inputs) {
    if (input < 0 || input >= count) throw Error("model graph: an input index is out of range");
    made[input] = true;
  }
  for (size_t i = 0; i < graph.tensors.size(); ++i) {
    if (graph.tensors[i].constant) {
      made[i] = true;
      if (static_cast<int64_t>(graph.tensors[i].data.size()) != graph.tensors[i].Elements()) {
        throw Error(fmt::format("model graph: constant '{}' holds {} values for shape {}",
                                graph.tensors[i].name, graph.tensors[i].data.size(),
                                ShapeText(graph.tensors[i].shape)));
      }
    }
  }
  for (const GraphOp& op : graph.ops) {
    for (int input : op.inputs) {
      if (input < 0 || input >= count) Fail(op, "reads a tensor index out of range");
      if (!made[input]) {
        Fail(op, fmt::format("reads '{}' before any op makes it", graph.tensors[input].name));
      }
    }
    if (op.output < 0 || op.output >= count) Fail(op, "writes a tensor index out of range");
    if (made[op.output]) {
      Fail(op,
           fmt::format("writes '{}', which already has a value", graph.tensors[op.output].name));
    }
    const std::vector<int64_t> expected = OpOutputShape(graph, op);
    if (expected != graph.tensors[op.output].shape) {
      Fail(op, fmt::format("output '{}' has shape {}, the op computes {}",
                           graph.tensors[op.output].name, ShapeText(graph.tensors[op.output].shape),
                           ShapeText(expected)));
    }
    made[op.output] = true;
  }
  for (int output : graph.outputs) {
    if (output < 0 || output >= count || !made[output]) {
      throw Error("model graph: an output is out of range or never made");
    }
  }
}

std::string ModelGraphSummary(const ModelGraph& graph) {
  std::string out;
  for (const GraphOp& op : graph.ops) {
    std::vector<std::string> inputs;
    for (int input : op.inputs) inputs.push_back(graph.tensors[input].name);
    out += fmt::format("{} {} {} <- {}\n", GraphOpKindName(op.kind), op.name,
                       ShapeText(graph.tensors[op.output].shape), fmt::join(inputs, ", "));
  }
  return out;
}

}  // namespace glimpse
