// The operators' declared computations (glimpse/op_compute.h) are their formulas: the plain nest
// of each — a loop per output dimension around the reduction loops, with no schedule at all —
// compiled and checked against the reference kernels in the worker.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cpu_fixtures.h"
#include "glimpse/codegen.h"
#include "glimpse/cpu.h"
#include "glimpse/op_compute.h"

namespace glimpse {
namespace {

using E = AffineExpr;

// for <output axes> { acc = 0; for <reduction axes> acc += input · weight; out = acc (bias, ReLU) }
LoopNest PlainNest(const Operator& op) {
  LoopNest nest;
  nest.name = "plain";
  const OperatorCompute compute = DeclareOperatorCompute(nest, op);
  std::vector<Loop> outer, reduction;
  AxisBinding at;
  for (const ComputeAxis& axis : compute.axes) {
    (axis.reduction ? reduction : outer).push_back({"x_" + axis.name, axis.extent});
    at[axis.name] = E::Var("x_" + axis.name);
  }
  const int acc =
      nest.AddTensor({"acc", {1}, "", DType::kFloat32, TensorRole::kTemp, -1, outer.back().name});
  const Access sum{acc, {E::Const(0)}};
  nest.body.push_back(
      NestLoops(outer, {Node::MakeStmt(Stmt(StmtKind::kZero, sum)),
                        NestLoops(reduction, {Node::MakeStmt(compute.MultiplyAdd(sum, at))}),
                        Node::MakeStmt(compute.Store(at, sum))}));
  nest.Validate();
  return nest;
}

TEST(DeclaredComputeTest, PlainNestsOfEveryOperatorMatchTheReference) {
  const std::vector<std::string> ops = {
      "conv2d:N=1,C=3,H=9,W=7,K=4,R=3,S=3,stride=2,pad=1,bias=1,relu=1",
      "conv2d:N=2,C=5,H=8,W=8,K=3,R=3,S=3,pad=2,dilation=2",
      "conv2d:N=1,C=6,H=6,W=6,K=4,R=1,S=1,stride=2",
      "depthwise_conv2d:N=1,C=8,H=10,W=9,R=3,S=3,stride=2,pad=1,bias=1,relu=1",
      "depthwise_conv2d:N=1,C=4,H=7,W=7,R=5,S=5,pad=2",
      "dense:M=3,N=5,K=7,bias=1,relu=1",
      "dense:M=1,N=4,K=9",
      "batch_matmul:B=3,M=2,N=5,K=4,bias=1",
  };
  const std::string dir = testing::MakeTempDir("glimpse-declared-compute-test");
  std::vector<Task> tasks;
  for (const std::string& op : ops) tasks.push_back(MakeCpuTask(ParseOperator(op)));
  std::vector<KernelSource> sources;
  std::vector<MeasureInput> inputs;
  for (size_t i = 0; i < ops.size(); ++i) {
    const std::string symbol = "plain_" + std::to_string(i);
    sources.push_back({EmitCpp(PlainNest(ParseOperator(ops[i])), symbol), symbol});
    inputs.push_back({&tasks[i], Config{}});
  }
  CpuBuilder builder(testing::FastBuild(dir));
  CpuRunner runner(testing::FastRun());
  const std::vector<BuildResult> builds = builder.BuildSources(sources);
  const std::vector<MeasureResult> results = runner.Run(inputs, builds);
  ASSERT_EQ(results.size(), ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    EXPECT_EQ(builds[i].status, MeasureStatus::kOk) << ops[i] << "\n" << builds[i].error;
    EXPECT_EQ(results[i].status, MeasureStatus::kOk) << ops[i] << "\n" << results[i].error;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace glimpse
