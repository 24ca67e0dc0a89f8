// DeclareOperatorCompute: each operator's axes, the elements its operands read where a template
// binds the axes (padding guarded), reads and fills of copies, and the output statement.
#include "glimpse/op_compute.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "glimpse/error.h"

namespace glimpse {
namespace {

using E = AffineExpr;

std::vector<std::string> AxisNames(const OperatorCompute& compute, bool reduction) {
  std::vector<std::string> names;
  for (const ComputeAxis& axis : compute.axes) {
    if (axis.reduction == reduction) names.push_back(axis.name);
  }
  return names;
}

void ExpectIndex(const Access& access, const std::vector<E>& expected) {
  ASSERT_EQ(access.index.size(), expected.size());
  for (size_t d = 0; d < expected.size(); ++d) {
    const E difference = access.index[d] + expected[d] * -1;
    EXPECT_TRUE(difference.terms.empty() && difference.constant == 0) << "dimension " << d;
  }
}

TEST(OpComputeTest, AxesAreTheOutputsDimensionsThenTheReductions) {
  LoopNest conv, depthwise, dense, batched;
  const OperatorCompute c = DeclareOperatorCompute(
      conv, ParseOperator("conv2d:N=1,C=3,H=9,W=7,K=4,R=3,S=2,stride=2,pad=1"));
  EXPECT_EQ(AxisNames(c, false), (std::vector<std::string>{"n", "k", "oh", "ow"}));
  EXPECT_EQ(AxisNames(c, true), (std::vector<std::string>{"c", "r", "s"}));
  EXPECT_EQ(c.Extent("oh"), 5);
  EXPECT_EQ(c.Extent("ow"), 4);
  EXPECT_EQ(c.Extent("s"), 2);
  EXPECT_THROW(c.Extent("m"), Error);
  const OperatorCompute d = DeclareOperatorCompute(
      depthwise, ParseOperator("depthwise_conv2d:N=1,C=8,H=10,W=10,R=3,S=3,pad=1"));
  EXPECT_EQ(AxisNames(d, false), (std::vector<std::string>{"n", "c", "oh", "ow"}));
  EXPECT_EQ(AxisNames(d, true), (std::vector<std::string>{"r", "s"}));
  const OperatorCompute m = DeclareOperatorCompute(dense, ParseOperator("dense:M=2,N=5,K=3"));
  EXPECT_EQ(AxisNames(m, false), (std::vector<std::string>{"m", "n"}));
  EXPECT_EQ(AxisNames(m, true), (std::vector<std::string>{"k"}));
  const OperatorCompute b =
      DeclareOperatorCompute(batched, ParseOperator("batch_matmul:B=3,M=2,N=5,K=4"));
  EXPECT_EQ(AxisNames(b, false), (std::vector<std::string>{"b", "m", "n"}));
  EXPECT_EQ(b.Extent("b"), 3);
}

TEST(OpComputeTest, ConvolutionReadsTheWindowAndGuardsThePadding) {
  LoopNest nest;
  const OperatorCompute compute = DeclareOperatorCompute(
      nest, ParseOperator("conv2d:N=1,C=3,H=9,W=9,K=4,R=3,S=3,stride=2,pad=1,dilation=2,bias=1"));
  const AxisBinding at = {{"n", E::Var("n")},  {"k", E::Var("k0", 2) + E::Var("k1")},
                          {"oh", E::Var("y")}, {"ow", E::Var("x")},
                          {"c", E::Var("c")},  {"r", E::Var("r")},
                          {"s", E::Var("s")}};
  const Stmt mac = compute.MultiplyAdd(
      {nest.AddTensor({"acc", {1}, "", DType::kFloat32, TensorRole::kTemp}), {E::Const(0)}}, at);
  EXPECT_EQ(mac.kind, StmtKind::kMultiplyAdd);
  EXPECT_EQ(mac.a.tensor, compute.tensors.input);
  EXPECT_TRUE(mac.a.zero_outside);
  ExpectIndex(mac.a, {E::Var("n"), E::Var("c"), E::Var("y", 2) + E::Var("r", 2) + E::Const(-1),
                      E::Var("x", 2) + E::Var("s", 2) + E::Const(-1)});
  EXPECT_EQ(mac.b.tensor, compute.tensors.weight);
  EXPECT_FALSE(mac.b.zero_outside);
  ExpectIndex(mac.b, {E::Var("k0", 2) + E::Var("k1"), E::Var("c"), E::Var("r"), E::Var("s")});

  // Without padding nothing is guarded.
  LoopNest unpadded;
  const OperatorCompute plain =
      DeclareOperatorCompute(unpadded, ParseOperator("conv2d:N=1,C=3,H=9,W=9,K=4,R=3,S=3"));
  EXPECT_FALSE(plain.Read(Operand::kInput, at).zero_outside);

  AxisBinding partial = at;
  partial.erase("r");
  EXPECT_THROW(compute.Read(Operand::kInput, partial), Error);
}

TEST(OpComputeTest, CopiesHoldThePaddingOrKeepTheGuard) {
  LoopNest nest;
  const OperatorCompute compute =
      DeclareOperatorCompute(nest, ParseOperator("depthwise_conv2d:N=1,C=8,H=6,W=6,R=3,S=3,pad=1"));
  const AxisBinding at = {{"n", E::Var("n")},  {"c", E::Var("c0", 4) + E::Var("c1")},
                          {"oh", E::Var("y")}, {"ow", E::Var("x")},
                          {"r", E::Var("r")},  {"s", E::Var("s")}};
  // A padded copy: filled with guarded reads, read unguarded.
  const Relayout padded_layout = compute.LayoutOf(Operand::kInput).Pad(2, 1).Pad(3, 1);
  const OperandCopy padded{
      nest.AddTensor({"P", padded_layout.shape(), "NCHW", DType::kFloat32, TensorRole::kTemp}),
      padded_layout};
  const Access read = compute.Read(Operand::kInput, at, padded);
  EXPECT_EQ(read.tensor, padded.tensor);
  EXPECT_FALSE(read.zero_outside);
  ExpectIndex(read, {E::Var("n"), E::Var("c0", 4) + E::Var("c1"), E::Var("y") + E::Var("r"),
                     E::Var("x") + E::Var("s")});
  const Stmt fill =
      compute.Fill(Operand::kInput, padded, {E::Var("a"), E::Var("b"), E::Var("h"), E::Var("w")});
  EXPECT_EQ(fill.kind, StmtKind::kCopy);
  EXPECT_EQ(fill.dst.tensor, padded.tensor);
  EXPECT_EQ(fill.a.tensor, compute.tensors.input);
  EXPECT_TRUE(fill.a.zero_outside);
  ExpectIndex(fill.a,
              {E::Var("a"), E::Var("b"), E::Var("h") + E::Const(-1), E::Var("w") + E::Const(-1)});

  // A channel-blocked copy without padding: the read keeps the operator's guard.
  const Relayout blocked_layout = compute.LayoutOf(Operand::kInput).Split(1, 4, 4);
  const OperandCopy blocked{
      nest.AddTensor({"Ip", blocked_layout.shape(), "NCHW4c", DType::kFloat32, TensorRole::kTemp}),
      blocked_layout};
  const Access blocked_read = compute.Read(Operand::kInput, at, blocked);
  EXPECT_TRUE(blocked_read.zero_outside);
  ExpectIndex(blocked_read, {E::Var("n"), E::Var("c0"), E::Var("y") + E::Var("r") + E::Const(-1),
                             E::Var("x") + E::Var("s") + E::Const(-1), E::Var("c1")});
  EXPECT_FALSE(compute
                   .Fill(Operand::kInput, blocked,
                         {E::Var("a"), E::Var("b"), E::Var("h"), E::Var("w"), E::Var("v")})
                   .a.zero_outside);
}

TEST(OpComputeTest, TileStartsAtTheElementTheOriginReads) {
  LoopNest nest;
  const OperatorCompute compute = DeclareOperatorCompute(
      nest, ParseOperator("conv2d:N=1,C=8,H=16,W=16,K=4,R=3,S=3,stride=2,pad=1"));
  const AxisBinding origin = {{"n", E::Var("n")},      {"k", E::Var("bf", 2)},
                              {"oh", E::Var("by", 4)}, {"ow", E::Var("bx", 4)},
                              {"c", E::Var("rco", 2)}, {"r", E::Const(0)},
                              {"s", E::Const(0)}};
  const Relayout tile = compute.Tile(Operand::kInput, origin, {0, 2, 9, 9});
  EXPECT_EQ(tile.shape(), (std::vector<int64_t>{2, 9, 9}));
  const std::vector<E> source = tile.SourceIndex({E::Var("i"), E::Var("h"), E::Var("w")});
  ExpectIndex(Access{0, source}, {E::Var("n"), E::Var("rco", 2) + E::Var("i"),
                                  E::Var("by", 8) + E::Var("h") + E::Const(-1),
                                  E::Var("bx", 8) + E::Var("w") + E::Const(-1)});
  EXPECT_THROW(compute.Tile(Operand::kInput, origin, {2, 9, 9}), Error);
}

TEST(OpComputeTest, StoreWritesTheOutputElementWithBiasAndRelu) {
  LoopNest nest;
  const OperatorCompute compute =
      DeclareOperatorCompute(nest, ParseOperator("batch_matmul:B=2,M=3,N=4,K=5,bias=1,relu=1"));
  const int acc = nest.AddTensor({"acc", {1}, "", DType::kFloat32, TensorRole::kTemp});
  const Stmt store = compute.Store({{"b", E::Var("b")}, {"m", E::Var("i")}, {"n", E::Var("j")}},
                                   {acc, {E::Const(0)}},
                                   /*guarded=*/true);
  EXPECT_EQ(store.dst.tensor, compute.tensors.output);
  EXPECT_TRUE(store.dst.zero_outside);
  ExpectIndex(store.dst, {E::Var("b"), E::Var("i"), E::Var("j")});
  ASSERT_TRUE(store.bias.has_value());
  ExpectIndex(*store.bias, {E::Var("j")});
  EXPECT_TRUE(store.relu);
}

}  // namespace
}  // namespace glimpse
