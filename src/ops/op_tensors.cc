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

// I, a weight of `weight_shape`, the bias, O: the convolutions' tensors.
OperatorTensors DeclareConvolution(LoopNest& nest, std::vector<int64_t> input_shape,
                                   std::vector<int64_t> weight_shape, std::string weight_layout,
                                   bool bias, std::string bias_layout,
                                   std::vector<int64_t> output_shape) {
  OperatorTensors t;
  const int64_t channels = output_shape[1];
  t.input = Input(nest, "I", std::move(input_shape), "NCHW", 0, false);
  t.weight = Input(nest, "Wt", std::move(weight_shape), std::move(weight_layout), 1, true);
  if (bias) t.bias = Input(nest, "bias", {channels}, bias_layout, 2, true);
  t.output = Output(nest, "O", std::move(output_shape), "NCHW");
  t.channel_dim = 1;
  return t;
}

}  // namespace

MatmulDims MatmulDimsOf(const DenseShape& shape) {
  return {"dense", 0, shape.m, shape.n, shape.k, shape.bias, shape.relu};
}

MatmulDims MatmulDimsOf(const BatchMatmulShape& shape) {
  return {"batch_matmul", shape.b, shape.m, shape.n, shape.k, shape.bias, shape.relu};
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
  t.output = Output(nest, "C", with_batch({dims.m, dims.n}), batched ? "BMN" : "MN");
  t.channel_dim = batched ? 2 : 1;
  t.relu = dims.relu;
  return t;
}

Stmt OperatorTensors::Store(Access dst, Access value) const {
  if (dst.tensor != output || static_cast<int>(dst.index.size()) <= channel_dim) {
    throw Error("an operator's output statement must write its output tensor");
  }
  Stmt store{StmtKind::kCopy, std::move(dst), std::move(value)};
  if (bias >= 0) store.bias = Access{bias, {store.dst.index[channel_dim]}};
  store.relu = relu;
  return store;
}

OperatorTensors DeclareOperatorTensors(LoopNest& nest, const Operator& op) {
  return std::visit(
      [&](const auto& shape) -> OperatorTensors {
        using Shape = std::decay_t<decltype(shape)>;
        if constexpr (std::is_same_v<Shape, Conv2dShape>) {
          OperatorTensors t = DeclareConvolution(
              nest, {shape.n, shape.c, shape.h, shape.w}, {shape.k, shape.c, shape.r, shape.s},
              "KCRS", shape.bias, "K", {shape.n, shape.k, shape.OutH(), shape.OutW()});
          t.relu = shape.relu;
          return t;
        } else if constexpr (std::is_same_v<Shape, DepthwiseConv2dShape>) {
          OperatorTensors t = DeclareConvolution(
              nest, {shape.n, shape.c, shape.h, shape.w}, {shape.c, shape.r, shape.s}, "CRS",
              shape.bias, "C", {shape.n, shape.c, shape.OutH(), shape.OutW()});
          t.relu = shape.relu;
          return t;
        } else {
          return DeclareMatmulTensors(nest, MatmulDimsOf(shape));
        }
      },
      op);
}

}  // namespace glimpse
