// DeclareOperatorTensors: the tensors every template's nest starts from agree with the operator's
// input shapes, output shape and constant inputs (glimpse/ops.h), for every kind of operator.
#include "glimpse/op_tensors.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "glimpse/error.h"

namespace glimpse {
namespace {

void ExpectAgreesWithTheOperator(const std::string& text) {
  SCOPED_TRACE(text);
  const Operator op = ParseOperator(text);
  LoopNest nest;
  const OperatorTensors t = DeclareOperatorTensors(nest, op);
  const std::vector<std::vector<int64_t>> inputs = OperatorInputShapes(op);
  std::vector<int> declared = {t.input, t.weight};
  if (t.bias >= 0) declared.push_back(t.bias);
  if (t.residual >= 0) declared.push_back(t.residual);
  ASSERT_EQ(nest.tensors.size(), inputs.size() + 1);
  for (size_t i = 0; i < inputs.size(); ++i) {
    ASSERT_GE(declared[i], 0);
    const TensorDecl& tensor = nest.tensors[declared[i]];
    EXPECT_EQ(tensor.role, TensorRole::kInput);
    EXPECT_EQ(tensor.input_index, static_cast<int>(i));
    EXPECT_EQ(tensor.shape, inputs[i]);
    EXPECT_EQ(tensor.constant, OperatorInputIsConstant(op, static_cast<int>(i)));
  }
  EXPECT_EQ(t.bias >= 0, OperatorBiasInput(op) >= 0);
  EXPECT_EQ(t.residual >= 0, OperatorResidualInput(op) >= 0);
  if (t.residual >= 0) {
    EXPECT_EQ(nest.tensors[t.residual].input_index, OperatorResidualInput(op));
    EXPECT_EQ(nest.tensors[t.residual].layout, nest.tensors[t.output].layout);
  }
  const TensorDecl& output = nest.tensors.at(t.output);
  EXPECT_EQ(output.role, TensorRole::kOutput);
  EXPECT_EQ(output.shape, OperatorOutputShape(op));
  EXPECT_EQ(&nest.Output(), &output);
}

TEST(OpTensorsTest, EveryOperatorDeclaresItsInputsInOrderAndItsOutput) {
  ExpectAgreesWithTheOperator("conv2d:N=1,C=3,H=9,W=7,K=4,R=3,S=3,stride=2,pad=1,bias=1");
  ExpectAgreesWithTheOperator("conv2d:N=2,C=3,H=9,W=7,K=4,R=1,S=1");
  ExpectAgreesWithTheOperator("depthwise_conv2d:N=1,C=8,H=10,W=10,R=3,S=3,pad=1,bias=1");
  ExpectAgreesWithTheOperator("dense:M=2,N=5,K=3,bias=1");
  ExpectAgreesWithTheOperator("dense:M=2,N=5,K=3");
  ExpectAgreesWithTheOperator("batch_matmul:B=3,M=2,N=5,K=4,bias=1");
  // The residual follows the bias, or takes its place.
  ExpectAgreesWithTheOperator("conv2d:N=1,C=3,H=9,W=7,K=4,R=3,S=3,pad=1,bias=1,residual=1");
  ExpectAgreesWithTheOperator("conv2d:N=1,C=3,H=9,W=7,K=4,R=3,S=3,pad=1,residual=1,relu6=1");
  ExpectAgreesWithTheOperator("depthwise_conv2d:N=1,C=8,H=10,W=10,R=3,S=3,pad=1,residual=1");
  ExpectAgreesWithTheOperator("dense:M=2,N=5,K=3,bias=1,residual=1");
  ExpectAgreesWithTheOperator("batch_matmul:B=3,M=2,N=5,K=4,residual=1");
}

TEST(OpTensorsTest, TheOutputStatementAddsTheResidualOfItsOwnElementAndAppliesRelu6) {
  using E = AffineExpr;
  LoopNest conv;
  const OperatorTensors c = DeclareOperatorTensors(
      conv, ParseOperator("conv2d:N=1,C=3,H=8,W=8,K=4,R=3,S=3,bias=1,residual=1,relu6=1"));
  EXPECT_EQ(conv.tensors[c.residual].name, "Res");
  EXPECT_EQ(conv.tensors[c.residual].shape, conv.tensors[c.output].shape);
  EXPECT_FALSE(conv.tensors[c.residual].constant);
  const Access dst{c.output, {E::Var("n"), E::Var("k"), E::Var("y"), E::Var("x")}, true};
  const Stmt store = c.Store(dst, {c.input, {E::Var("n"), E::Var("k"), E::Var("y"), E::Var("x")}});
  ASSERT_TRUE(store.residual.has_value());
  EXPECT_EQ(store.residual->tensor, c.residual);
  ASSERT_EQ(store.residual->index.size(), 4u);
  for (size_t d = 0; d < 4; ++d) {
    EXPECT_EQ(store.residual->index[d].terms, dst.index[d].terms);
    EXPECT_EQ(store.residual->index[d].constant, dst.index[d].constant);
  }
  EXPECT_TRUE(store.residual->zero_outside);  // guarded where the destination is
  EXPECT_TRUE(store.relu6);
  EXPECT_FALSE(store.relu);
  EXPECT_DOUBLE_EQ(EpilogueFlops(store), 1.0 + 1.0 + 2.0);
}

TEST(OpTensorsTest, NamesAndLayoutsAreTheKernelAbisOnes) {
  LoopNest conv;
  DeclareOperatorTensors(conv, ParseOperator("conv2d:N=1,C=3,H=8,W=8,K=4,R=3,S=3,bias=1"));
  std::vector<std::string> names, layouts;
  for (const TensorDecl& t : conv.tensors) {
    names.push_back(t.name);
    layouts.push_back(t.layout);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"I", "Wt", "bias", "O"}));
  EXPECT_EQ(layouts, (std::vector<std::string>{"NCHW", "KCRS", "K", "NCHW"}));

  LoopNest batched;
  const MatmulDims dims = MatmulDimsOf(BatchMatmulShape{2, 3, 4, 5});
  EXPECT_EQ(dims.name, "batch_matmul");
  EXPECT_EQ(dims.batch, 2);
  DeclareMatmulTensors(batched, dims);
  EXPECT_EQ(batched.tensors[0].layout, "BMK");
  EXPECT_EQ(batched.tensors[1].layout, "BNK");
  EXPECT_FALSE(batched.tensors[1].constant);  // an activation
  EXPECT_EQ(MatmulDimsOf(DenseShape{7, 8, 9}).batch, 0);
}

TEST(OpTensorsTest, TheOutputStatementAddsTheBiasOfItsChannelAndTheOperatorsRelu) {
  using E = AffineExpr;
  LoopNest conv;
  const OperatorTensors c = DeclareOperatorTensors(
      conv, ParseOperator("conv2d:N=1,C=3,H=8,W=8,K=4,R=3,S=3,bias=1,relu=1"));
  const int acc = conv.AddTensor({"acc", {4}, "K", DType::kFloat32, TensorRole::kTemp});
  const Stmt store = c.Store({c.output, {E::Var("n"), E::Var("k"), E::Var("y"), E::Var("x")}},
                             {acc, {E::Var("k")}});
  EXPECT_EQ(store.kind, StmtKind::kCopy);
  ASSERT_TRUE(store.bias.has_value());
  EXPECT_EQ(store.bias->tensor, c.bias);
  ASSERT_EQ(store.bias->index.size(), 1u);
  EXPECT_EQ(store.bias->index[0].CoefficientOf("k"), 1);  // the output's channel (dimension 1)
  EXPECT_TRUE(store.relu);
  EXPECT_EQ(store.a.tensor, acc);
  // Writing anything but the output is not the operator's output statement.
  EXPECT_THROW(c.Store({acc, {E::Var("k")}}, {acc, {E::Var("k")}}), Error);

  LoopNest batched;
  const OperatorTensors m =
      DeclareOperatorTensors(batched, ParseOperator("batch_matmul:B=2,M=3,N=4,K=5,bias=1"));
  const Stmt out = m.Store({m.output, {E::Var("b"), E::Var("i"), E::Var("j")}},
                           {m.input, {E::Var("b"), E::Var("i"), E::Var("j")}});
  ASSERT_TRUE(out.bias.has_value());
  EXPECT_EQ(out.bias->index[0].CoefficientOf("j"), 1);  // [B, M, N]: the last dimension
  EXPECT_FALSE(out.relu);

  LoopNest plain;
  const OperatorTensors d = DeclareOperatorTensors(plain, ParseOperator("dense:M=2,N=3,K=4"));
  EXPECT_FALSE(
      d.Store({d.output, {E::Var("i"), E::Var("j")}}, {d.input, {E::Var("i"), E::Var("j")}})
          .bias.has_value());
}

}  // namespace
}  // namespace glimpse
