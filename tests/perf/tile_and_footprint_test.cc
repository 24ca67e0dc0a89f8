// The tile-size sub-vector and the footprint bounds, on their own.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "glimpse/cpu.h"
#include "glimpse/program_graph.h"
#include "glimpse/random.h"
#include "perf/access_analysis.h"

namespace glimpse {
namespace {
namespace gf = graph_feature;
using E = AffineExpr;

float Log(double x) { return static_cast<float>(std::log2(1.0 + x)); }

TEST(TileSubVectorTest, SizesMinorToMajorThenSumAndProduct) {
  // A conv2d accumulator acc[k 16][oh 2][ow 8]: minor (ow) first.
  const auto v = TileSubVector({16, 2, 8});
  EXPECT_FLOAT_EQ(v[0], Log(8));
  EXPECT_FLOAT_EQ(v[1], Log(2));
  EXPECT_FLOAT_EQ(v[2], Log(16));
  EXPECT_EQ(v[3], 0);  // padding: no fourth dimension
  EXPECT_FLOAT_EQ(v[4], Log(26));
  EXPECT_FLOAT_EQ(v[5], Log(256));
}

TEST(TileSubVectorTest, MajorDimensionsBeyondTheWidthFoldIntoTheLastSlot) {
  const auto v = TileSubVector({2, 3, 4, 5, 6});  // minor to major: 6 5 4 3 2
  EXPECT_FLOAT_EQ(v[0], Log(6));
  EXPECT_FLOAT_EQ(v[1], Log(5));
  EXPECT_FLOAT_EQ(v[2], Log(4));
  EXPECT_FLOAT_EQ(v[3], Log(3 * 2));
  EXPECT_FLOAT_EQ(v[4], Log(20));
  EXPECT_FLOAT_EQ(v[5], Log(720));
  for (float x : TileSubVector({})) EXPECT_EQ(x, 0);
}

// acc[4][8] (a temporary) accumulates A[4][8]·w[8]: the tile is the accumulator's shape, however
// the loops around the product run.
TEST(ProgramTileSizesTest, AnAccumulatorTemporaryIsTheTile) {
  LoopNest nest;
  nest.name = "accumulate";
  const int a = nest.AddTensor({"A", {4, 8}, "MK", DType::kFloat32, TensorRole::kInput, 0});
  const int w = nest.AddTensor({"w", {8}, "K", DType::kFloat32, TensorRole::kInput, 1});
  const int acc = nest.AddTensor({"acc", {4, 8}, "MK", DType::kFloat32, TensorRole::kTemp});
  const int out = nest.AddTensor({"out", {4, 8}, "MK", DType::kFloat32, TensorRole::kOutput});
  Stmt zero{StmtKind::kZero, {acc, {E::Var("zm"), E::Var("zk")}}};
  Stmt mac{StmtKind::kMultiplyAdd,
           {acc, {E::Var("m"), E::Var("k")}},
           {a, {E::Var("m"), E::Var("k")}},
           {w, {E::Var("k")}}};
  Stmt copy{
      StmtKind::kCopy, {out, {E::Var("cm"), E::Var("ck")}}, {acc, {E::Var("cm"), E::Var("ck")}}};
  nest.body.push_back(NestLoops({{"zm", 4}, {"zk", 8}}, {Node::MakeStmt(zero)}));
  nest.body.push_back(NestLoops({{"m", 4}, {"k", 8}}, {Node::MakeStmt(mac)}));
  nest.body.push_back(NestLoops({{"cm", 4}, {"ck", 8}}, {Node::MakeStmt(copy)}));
  nest.Validate();
  EXPECT_EQ(ProgramTileSizes(nest), (std::vector<int64_t>{4, 8}));
  const ProgramGraph graph = BuildProgramGraph(nest);
  EXPECT_EQ(graph.tile_sizes, (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(graph.sequence.size(), 2u);  // fill → product → copy, at the top level
  EXPECT_EQ(graph.Count(GraphNodeType::kCopy), 1);
}

// out[o] += in[2·o + r]: a strided window. The footprint of `in` over (o, r) is the index range
// when windows overlap (R = 3: 0…8, nine elements of the twelve iterations) and the iterations
// when they do not (R = 1: four elements spread over a range of seven).
TEST(FootprintTest, StridedWindowsAreBoundedByRangeAndIterations) {
  for (int64_t r : {3, 1}) {
    LoopNest nest;
    nest.name = "window";
    const int in = nest.AddTensor({"in", {9}, "W", DType::kFloat32, TensorRole::kInput, 0});
    const int w = nest.AddTensor({"w", {r}, "R", DType::kFloat32, TensorRole::kInput, 1});
    const int out = nest.AddTensor({"out", {4}, "W", DType::kFloat32, TensorRole::kOutput});
    Stmt mac{StmtKind::kMultiplyAdd,
             {out, {E::Var("o")}},
             {in, {E::Var("o", 2) + E::Var("r")}},
             {w, {E::Var("r")}}};
    nest.body.push_back(NestLoops({{"o", 4}, {"r", r}}, {Node::MakeStmt(mac)}));
    nest.Validate();
    const ProgramGraph graph = BuildProgramGraph(nest);
    // in, w, out; o, r; mac, load(in), load(w), load(out), store(out).
    ASSERT_EQ(graph.nodes.size(), 10u);
    const GraphNode& load_in = graph.nodes[6];
    ASSERT_EQ(load_in.label, "in");
    EXPECT_FLOAT_EQ(load_in.features[gf::kAccessLogFootprintNest], Log(r == 3 ? 9 : 4)) << r;
    EXPECT_FLOAT_EQ(load_in.features[gf::kAccessStride + 1], Log(2));  // o steps 2 elements
    // r is the reduction loop and innermost: one step of it finishes one output element.
    EXPECT_EQ(graph.tile_sizes, (std::vector<int64_t>{1}));
  }
}

// AccessInLoops looks each loop's coefficient up once and answers for every suffix of the loops.
// The reference below is the definition written out directly — coefficients looked up by loop
// name, for exactly the loops of the suffix — and on every access of real template nests (all
// four operator kinds, sampled configurations) the two must agree exactly.
struct ByName {
  const Access& access;
  const TensorDecl& tensor;
  std::vector<const Loop*> loops;

  int64_t FlatStride(const std::string& loop) const {
    int64_t stride = 0, row = 1;
    for (size_t d = tensor.shape.size(); d-- > 0;) {
      if (d < access.index.size()) stride += access.index[d].CoefficientOf(loop) * row;
      row *= tensor.shape[d];
    }
    return stride;
  }
  std::vector<double> FootprintPerDimension() const {
    std::vector<double> distinct(tensor.shape.size(), 1.0);
    for (size_t d = 0; d < tensor.shape.size() && d < access.index.size(); ++d) {
      double range = 1.0, iterations = 1.0;
      for (const Loop* loop : loops) {
        const int64_t c = access.index[d].CoefficientOf(loop->name);
        if (c == 0) continue;
        range += static_cast<double>(std::llabs(c)) * static_cast<double>(loop->extent - 1);
        iterations *= static_cast<double>(loop->extent);
      }
      distinct[d] = std::min({range, iterations, static_cast<double>(tensor.shape[d])});
    }
    return distinct;
  }
  double Footprint() const {
    double elements = 1.0;
    for (double extent : FootprintPerDimension()) elements *= extent;
    double iterations = 1.0;
    for (const Loop* loop : loops) {
      const bool used = std::any_of(access.index.begin(), access.index.end(),
                                    [&](const AffineExpr& e) { return e.DependsOn(loop->name); });
      if (used) iterations *= static_cast<double>(loop->extent);
    }
    return std::min(elements, iterations);
  }
};

void ExpectAccessesAgree(const LoopNest& nest, const std::vector<Node>& body,
                         std::vector<const Loop*>& loops, int& checked) {
  for (const Node& node : body) {
    if (node.is_loop) {
      loops.push_back(&node.loop);
      ExpectAccessesAgree(nest, node.body, loops, checked);
      loops.pop_back();
      continue;
    }
    std::vector<const Access*> accesses = StmtReads(node.stmt);
    accesses.push_back(&node.stmt.dst);
    for (const Access* access : accesses) {
      const TensorDecl& tensor = nest.tensors[access->tensor];
      const perf::AccessInLoops in_loops(*access, tensor, loops);
      ASSERT_EQ(in_loops.NumLoops(), loops.size());
      for (size_t first = 0; first <= loops.size(); ++first) {
        const ByName reference{*access, tensor, {loops.begin() + first, loops.end()}};
        EXPECT_EQ(in_loops.Footprint(first), reference.Footprint())
            << tensor.name << " from loop " << first;
        EXPECT_EQ(in_loops.FootprintPerDimension(first), reference.FootprintPerDimension())
            << tensor.name << " from loop " << first;
        if (first < loops.size()) {
          EXPECT_EQ(in_loops.FlatStride(first), reference.FlatStride(loops[first]->name))
              << tensor.name << " along " << loops[first]->name;
        }
      }
      ++checked;
    }
  }
}

TEST(AccessInLoopsTest, AgreesWithTheOneOffFormsOnTemplateNests) {
  for (const char* text : {"dense:M=32,N=64,K=48,bias=1,relu=1",
                           "conv2d:N=1,C=16,H=14,W=14,K=32,R=3,S=3,stride=2,pad=1",
                           "depthwise_conv2d:N=1,C=32,H=14,W=14,R=3,S=3,stride=1,pad=1",
                           "batch_matmul:B=4,M=16,N=24,K=32"}) {
    SCOPED_TRACE(text);
    const Operator op = ParseOperator(text);
    const ConfigSpace space = MakeCpuSpace(op);
    Rng rng(7);
    int checked = 0;
    for (int sample = 0; sample < 8; ++sample) {
      const LoopNest nest = MakeCpuNest(op, space, *space.SampleValid(rng));
      std::vector<const Loop*> loops;
      ExpectAccessesAgree(nest, nest.body, loops, checked);
      ExpectAccessesAgree(nest, nest.prepare, loops, checked);
    }
    EXPECT_GT(checked, 8 * 3);  // every nest has a multiply-add: three reads and a write
  }
}

}  // namespace
}  // namespace glimpse
