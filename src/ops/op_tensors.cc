// DeclareOperatorTensors (glimpse/op_tensors.h): the tensors every template's nest starts from.
#include "glimpse/op_tensors.h"

#include <type_traits>
#include <utility>
#include <vector>

#include "glimpse/error.h"

namespace glimpse {

namespace {

int Input(LoopNest& nest, std::string name, std::vector<int64_t> shape, std::string layout,
          int index, bool constant) {
  const int t = nest.AddTensor({std::move(name), std::move(shape), std::move(layout),
                                DType::kFloat32, TensorRole::kInput, index});
  nest.tensors[t].constant = constant;
  return t;
}

int Output(LoopNest& nest, std::string name, std::vector<int64_t> shape, std::string layout) {
  return nest.AddTensor(
      {std::move(name), std::move(shape), std::move(layout), DType::kFloat32, TensorRole::kOutput});
}

// The residual Res (the output's shape and layout), the input after the bias, when there is one.
void DeclareResidual(LoopNest& nest, OperatorTensors& t, bool residual,
                     const std::vector<int64_t>& output_shape, const std::string& layout) {
  if (!residual) return;
  t.residual = Input(nest, "Res", output_shape, layout, t.bias >= 0 ? 3 : 2, false);
}

// "NCHW", or "NCHW16c" for an activation blocked by 16.
std::string ActivationLayout(int64_t block) {
  return block == 0 ? "NCHW" : "NCHW" + std::to_string(block) + "c";
}

// I, a weight of `weight_shape`, the bias, Res, O: the convolutions' tensors, the activations in
// their stored shapes (OperatorInputShapes, OperatorOutputShape).
template <typename Shape>
OperatorTensors DeclareConvolution(LoopNest& nest, const Shape& shape,
                                   std::vector<int64_t> weight_shape, std::string weight_layout,
                                   std::string bias_layout, int64_t channels) {
  OperatorTensors t;
  const Operator op = shape;
  const std::vector<int64_t> output_shape = OperatorOutputShape(op);
  t.input =
      Input(nest, "I", OperatorInputShapes(op)[0], ActivationLayout(shape.in_block), 0, false);
  t.weight = Input(nest, "Wt", std::move(weight_shape), std::move(weight_layout), 1, true);
  if (shape.bias) t.bias = Input(nest, "bias", {channels}, std::move(bias_layout), 2, true);
  DeclareResidual(nest, t, shape.residual, output_shape, ActivationLayout(shape.out_block));
  t.output = Output(nest, "O", output_shape, ActivationLayout(shape.out_block));
  t.channel_dim = 1;
  t.channel_block = shape.out_block;
  t.relu = shape.relu, t.relu6 = shape.relu6;
  return t;
}

}  // namespace

MatmulDims MatmulDimsOf(const DenseShape& shape) {
  return {"dense",    0,          shape.m,        shape.n,    shape.k,
          shape.bias, shape.relu, shape.residual, shape.relu6};
}

MatmulDims MatmulDimsOf(const BatchMatmulShape& shape) {
  return {"batch_matmul", shape.b,    shape.m,        shape.n,    shape.k,
          shape.bias,     shape.relu, shape.residual, shape.relu6};
}

OperatorTensors DeclareMatmulTensors(LoopNest& nest, const MatmulDims& dims) {
  const bool batched = dims.batch > 0;
  auto with_batch = [&](std::vector<int64_t> shape) {
    if (batched) shape.insert(shape.begin(), dims.batch);
    return shape;
  };
  OperatorTensors t;
  t.input = Input(nest, "A", with_batch({dims.m, dims.k}), batched ? "BMK" : "MK", 0, false);
  // dense's B is a weight; batch_matmul's an activation.
  t.weight = Input(nest, "B", with_batch({dims.n, dims.k}), batched ? "BNK" : "NK", 1, !batched);
  if (dims.bias) t.bias = Input(nest, "bias", {dims.n}, "N", 2, true);
  const std::string output_layout = batched ? "BMN" : "MN";
  DeclareResidual(nest, t, dims.residual, with_batch({dims.m, dims.n}), output_layout);
  t.output = Output(nest, "C", with_batch({dims.m, dims.n}), output_layout);
  t.channel_dim = batched ? 2 : 1;
  t.relu = dims.relu, t.relu6 = dims.relu6;
  return t;
}

Stmt OperatorTensors::Store(Access dst, Access value) const {
  if (dst.tensor != output || static_cast<int>(dst.index.size()) <= channel_dim) {
    throw Error("an operator's output statement must write its output tensor");
  }
  Stmt store{StmtKind::kCopy, std::move(dst), std::move(value)};
  if (bias >= 0) {
    // A blocked output's channel is (block index)·block + (the lane, the last dimension).
    store.bias = Access{bias,
                        {channel_block == 0 ? store.dst.index[channel_dim]
                                            : store.dst.index[channel_dim] * channel_block +
                                                  store.dst.index.back()}};
  }
  // Res has the output's shape: the destination's element. Read guarded where the destination is:
  // a guarded store is skipped outside the output, so the guard only keeps validation exact.
  if (residual >= 0) store.residual = Access{residual, store.dst.index, store.dst.zero_outside};
  store.relu = relu, store.relu6 = relu6;
  return store;
}

OperatorTensors DeclareOperatorTensors(LoopNest& nest, const Operator& op) {
  return std::visit(
      [&](const auto& shape) -> OperatorTensors {
        using Shape = std::decay_t<decltype(shape)>;
        if constexpr (std::is_same_v<Shape, Conv2dShape>) {
          return DeclareConvolution(nest, shape, {shape.k, shape.c, shape.r, shape.s}, "KCRS", "K",
                                    shape.k);
        } else if constexpr (std::is_same_v<Shape, DepthwiseConv2dShape>) {
          return DeclareConvolution(nest, shape, {shape.c, shape.r, shape.s}, "CRS", "C", shape.c);
        } else {
          return DeclareMatmulTensors(nest, MatmulDimsOf(shape));
        }
      },
      op);
}

}  // namespace glimpse
