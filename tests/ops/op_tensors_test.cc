// DeclareOperatorTensors: the tensors every template's nest starts from agree with the operator's
// input shapes, output shape and constant inputs (glimpse/ops.h), for every kind of operator.
#include "glimpse/op_tensors.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace glimpse {
namespace {

void ExpectAgreesWithTheOperator(const std::string& text) {
  SCOPED_TRACE(text);
  const Operator op = ParseOperator(text);
  LoopNest nest;
  const OperatorTensors t = DeclareOperatorTensors(nest, op);
  const std::vector<std::vector<int64_t>> inputs = OperatorInputShapes(op);
  const std::vector<int> declared = {t.input, t.weight, t.bias};
  ASSERT_EQ(nest.tensors.size(), inputs.size() + 1);
  for (size_t i = 0; i < inputs.size(); ++i) {
    ASSERT_GE(declared[i], 0);
    const TensorDecl& tensor = nest.tensors[declared[i]];
    EXPECT_EQ(tensor.role, TensorRole::kInput);
    EXPECT_EQ(tensor.input_index, static_cast<int>(i));
    EXPECT_EQ(tensor.shape, inputs[i]);
    EXPECT_EQ(tensor.constant, OperatorInputIsConstant(op, static_cast<int>(i)));
  }
  if (inputs.size() < 3) {
    EXPECT_EQ(t.bias, -1);
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

}  // namespace
}  // namespace glimpse
