// DeclareOperatorCompute (glimpse/op_compute.h): each operator's computation over named axes, and
// the statements a template asks of it.
#include "glimpse/op_compute.h"

#include <string>
#include <type_traits>
#include <utility>

#include "glimpse/error.h"

namespace glimpse {

namespace {

using E = AffineExpr;

// `declared` (over axis variables) with every axis replaced by its expression in `at`.
Access Bind(const Access& declared, const AxisBinding& at) {
  Access bound = declared;
  for (AffineExpr& index : bound.index) {
    AffineExpr value = E::Const(index.constant);
    for (const auto& [axis, coefficient] : index.terms) {
      auto it = at.find(axis);
      if (it == at.end()) throw Error("operator computation: axis '" + axis + "' is not bound");
      value = value + it->second * coefficient;
    }
    index = std::move(value);
  }
  return bound;
}

std::vector<E> Vars(const std::vector<std::string>& names) {
  std::vector<E> vars;
  for (const std::string& name : names) vars.push_back(E::Var(name));
  return vars;
}

// The convolutions' input element at output row oh, column ow and window tap (r, s).
std::vector<E> WindowedInput(const std::string& channel, int64_t stride, int64_t dilation,
                             int64_t pad) {
  return {E::Var("n"), E::Var(channel),
          E::Var("oh", stride) + E::Var("r", dilation) + E::Const(-pad),
          E::Var("ow", stride) + E::Var("s", dilation) + E::Const(-pad)};
}

}  // namespace

int64_t OperatorCompute::Extent(const std::string& axis) const {
  for (const ComputeAxis& a : axes) {
    if (a.name == axis) return a.extent;
  }
  throw Error("operator computation: no axis '" + axis + "'");
}

const Access& OperatorCompute::Declared(Operand operand) const {
  return operand == Operand::kInput ? input_ : weight_;
}

Relayout OperatorCompute::LayoutOf(Operand operand) const {
  return Relayout(operand == Operand::kInput ? input_shape_ : weight_shape_);
}

Access OperatorCompute::Stored(Operand operand, Access logical) const {
  // Only the input is an activation among the operands (the weights keep their layouts).
  if (operand == Operand::kInput && input_blocks_) {
    logical.index = input_blocks_->CopyIndex(std::move(logical.index));
  }
  return logical;
}

Relayout OperatorCompute::Tile(Operand operand, const AxisBinding& origin,
                               const std::vector<int64_t>& extents) const {
  const std::vector<AffineExpr> start = Bind(Declared(operand), origin).index;
  if (extents.size() != start.size()) {
    throw Error("operator computation: a tile of " + std::to_string(extents.size()) +
                " dimensions of an operand of " + std::to_string(start.size()));
  }
  Relayout layout = LayoutOf(operand);
  int dim = 0;  // in the layout so far: dropped dimensions shift the later ones
  for (size_t d = 0; d < extents.size(); ++d) {
    if (extents[d] == 0) {
      layout.Fix(dim, start[d]);
    } else {
      layout.Window(dim++, start[d], extents[d]);
    }
  }
  return layout;
}

Access OperatorCompute::Read(Operand operand, const AxisBinding& at) const {
  return Stored(operand, Bind(Declared(operand), at));
}

Access OperatorCompute::Read(Operand operand, const AxisBinding& at,
                             const OperandCopy& copy) const {
  const Access source = Bind(Declared(operand), at);
  return {copy.tensor, copy.layout.CopyIndex(source.index),
          source.zero_outside && !copy.layout.HasWindow()};
}

Stmt OperatorCompute::Fill(Operand operand, const OperandCopy& copy,
                           std::vector<AffineExpr> copy_index) const {
  const Access& declared = Declared(operand);
  Access source = Stored(operand, {declared.tensor, copy.layout.SourceIndex(copy_index),
                                   declared.zero_outside && copy.layout.HasWindow()});
  return Stmt{StmtKind::kCopy, {copy.tensor, std::move(copy_index)}, std::move(source)};
}

Stmt OperatorCompute::MultiplyAdd(Access dst, const AxisBinding& at, const OperandCopy* input_copy,
                                  const OperandCopy* weight_copy) const {
  Stmt mac{StmtKind::kMultiplyAdd, std::move(dst)};
  mac.a = input_copy ? Read(Operand::kInput, at, *input_copy) : Read(Operand::kInput, at);
  mac.b = weight_copy ? Read(Operand::kWeight, at, *weight_copy) : Read(Operand::kWeight, at);
  return mac;
}

Stmt OperatorCompute::Store(const AxisBinding& at, Access value, bool guarded) const {
  Access dst = Bind(output_, at);
  if (output_blocks_) dst.index = output_blocks_->CopyIndex(std::move(dst.index));
  dst.zero_outside = guarded;
  return tensors.Store(std::move(dst), std::move(value));
}

OperatorCompute DeclareMatmulCompute(LoopNest& nest, const MatmulDims& dims) {
  OperatorCompute compute;
  compute.tensors = DeclareMatmulTensors(nest, dims);
  const bool batched = dims.batch > 0;
  auto with_batch = [&](std::vector<std::string> names) {
    if (batched) names.insert(names.begin(), "b");
    return Vars(names);
  };
  if (batched) compute.axes.push_back({"b", dims.batch});
  compute.axes.push_back({"m", dims.m});
  compute.axes.push_back({"n", dims.n});
  compute.axes.push_back({"k", dims.k, true});
  compute.input_ = {compute.tensors.input, with_batch({"m", "k"})};
  compute.weight_ = {compute.tensors.weight, with_batch({"n", "k"})};
  compute.output_ = {compute.tensors.output, with_batch({"m", "n"})};
  compute.input_shape_ = nest.tensors[compute.tensors.input].shape;
  compute.weight_shape_ = nest.tensors[compute.tensors.weight].shape;
  return compute;
}

OperatorCompute DeclareOperatorCompute(LoopNest& nest, const Operator& op) {
  return std::visit(
      [&](const auto& shape) -> OperatorCompute {
        using Shape = std::decay_t<decltype(shape)>;
        if constexpr (std::is_same_v<Shape, Conv2dShape> ||
                      std::is_same_v<Shape, DepthwiseConv2dShape>) {
          constexpr bool depthwise = std::is_same_v<Shape, DepthwiseConv2dShape>;
          OperatorCompute compute;
          compute.tensors = DeclareOperatorTensors(nest, shape);
          const std::string channel = depthwise ? "c" : "k";
          int64_t channels = shape.c;
          if constexpr (!depthwise) channels = shape.k;
          compute.axes = {
              {"n", shape.n}, {channel, channels}, {"oh", shape.OutH()}, {"ow", shape.OutW()}};
          if (!depthwise) compute.axes.push_back({"c", shape.c, true});
          compute.axes.push_back({"r", shape.r, true});
          compute.axes.push_back({"s", shape.s, true});
          compute.input_ = {compute.tensors.input,
                            WindowedInput("c", shape.stride, shape.dilation, shape.pad),
                            /*zero_outside=*/shape.pad > 0};
          compute.weight_ = {compute.tensors.weight,
                             depthwise ? Vars({"c", "r", "s"}) : Vars({"k", "c", "r", "s"})};
          compute.output_ = {compute.tensors.output, Vars({"n", channel, "oh", "ow"})};
          // The computation indexes the activations in NCHW; a blocked one is stored
          // [N][C/b][H][W][b]: the channel split by b, its remainder last.
          compute.input_shape_ = {shape.n, shape.c, shape.h, shape.w};
          compute.weight_shape_ = nest.tensors[compute.tensors.weight].shape;
          if (shape.in_block != 0) {
            compute.input_blocks_ = Relayout(compute.input_shape_).Split(1, shape.in_block, 4);
          }
          if (shape.out_block != 0) {
            compute.output_blocks_ = Relayout({shape.n, channels, shape.OutH(), shape.OutW()})
                                         .Split(1, shape.out_block, 4);
          }
          return compute;
        } else {
          return DeclareMatmulCompute(nest, MatmulDimsOf(shape));
        }
      },
      op);
}

}  // namespace glimpse
