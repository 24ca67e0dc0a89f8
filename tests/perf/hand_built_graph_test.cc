// The program graph of nests built by hand, where every node, edge and feature can be worked out
// on paper: a transposing copy and a split, vectorised matmul after a zero fill.
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "glimpse/program_graph.h"

namespace glimpse {

// Edges print as "from→to" in failures.
void PrintTo(const GraphEdge& edge, std::ostream* os) { *os << edge.from << "→" << edge.to; }

namespace {
namespace gf = graph_feature;
using E = AffineExpr;

float Log(double x) { return static_cast<float>(std::log2(1.0 + x)); }

// out[i][j] = in[j][i], in[8][4] → out[4][8].
LoopNest TransposeNest() {
  LoopNest nest;
  nest.name = "transpose";
  const int in = nest.AddTensor({"in", {8, 4}, "JI", DType::kFloat32, TensorRole::kInput, 0});
  const int out = nest.AddTensor({"out", {4, 8}, "IJ", DType::kFloat32, TensorRole::kOutput});
  Stmt copy{StmtKind::kCopy, {out, {E::Var("i"), E::Var("j")}}, {in, {E::Var("j"), E::Var("i")}}};
  nest.body.push_back(NestLoops({{"i", 4}, {"j", 8}}, {Node::MakeStmt(copy)}));
  nest.Validate();
  return nest;
}

// C = 0, then C[i][j] += A[i][k] · B[k][j] with j split 2 × 8, reordered to i j0 k j1, i parallel
// and j1 vectorised: A[4][8], B[8][16], C[4][16].
LoopNest MatmulNest() {
  LoopNest nest;
  nest.name = "matmul";
  const int a = nest.AddTensor({"A", {4, 8}, "MK", DType::kFloat32, TensorRole::kInput, 0});
  const int b = nest.AddTensor({"B", {8, 16}, "KN", DType::kFloat32, TensorRole::kInput, 1});
  const int c = nest.AddTensor({"C", {4, 16}, "MN", DType::kFloat32, TensorRole::kOutput});
  Stmt zero{StmtKind::kZero, {c, {E::Var("z"), E::Var("zj")}}};
  nest.body.push_back(NestLoops({{"z", 4}, {"zj", 16}}, {Node::MakeStmt(zero)}));
  Stmt mac{StmtKind::kMultiplyAdd,
           {c, {E::Var("i"), E::Var("j")}},
           {a, {E::Var("i"), E::Var("k")}},
           {b, {E::Var("k"), E::Var("j")}}};
  nest.body.push_back(NestLoops({{"i", 4}, {"j", 16}, {"k", 8}}, {Node::MakeStmt(mac)}));
  SplitLoop(nest, "j", {2, 8}, {"j0", "j1"});
  ReorderLoops(nest, {"j0", "k", "j1"});
  SetLoopKind(nest, "i", LoopKind::kParallel);
  SetLoopKind(nest, "j1", LoopKind::kVectorized);
  nest.Validate();
  return nest;
}

std::vector<GraphNodeType> Types(const ProgramGraph& graph) {
  std::vector<GraphNodeType> types;
  for (const GraphNode& node : graph.nodes) types.push_back(node.type);
  return types;
}

// The four (stride, extent) pairs and five footprints of an access node, innermost loop first.
void ExpectAccess(const GraphNode& node, std::vector<double> strides, std::vector<double> extents,
                  std::vector<double> footprints, double nest_footprint) {
  SCOPED_TRACE(node.label);
  for (int i = 0; i < gf::kAccessLoops; ++i) {
    const double s = strides[i];
    EXPECT_FLOAT_EQ(node.features[gf::kAccessStride + i], std::copysign(Log(std::fabs(s)), s))
        << "stride " << i;
    EXPECT_FLOAT_EQ(node.features[gf::kAccessLoopLogExtent + i], extents[i] ? Log(extents[i]) : 0)
        << "extent " << i;
    EXPECT_FLOAT_EQ(node.features[gf::kAccessLogFootprint + i], Log(footprints[i]))
        << "footprint " << i;
  }
  EXPECT_FLOAT_EQ(node.features[gf::kAccessLogFootprintNest], Log(nest_footprint));
}

TEST(HandBuiltGraphTest, TransposeNodesEdgesAndStrides) {
  const ProgramGraph graph = BuildProgramGraph(TransposeNest());
  using T = GraphNodeType;
  // in, out; i, j; the copy, its load of in and its store to out.
  EXPECT_EQ(Types(graph), (std::vector<T>{T::kTensor, T::kTensor, T::kLoop, T::kLoop, T::kCopy,
                                          T::kLoad, T::kStore}));
  EXPECT_EQ(graph.nodes[0].label, "in");
  EXPECT_EQ(graph.nodes[3].label, "j");
  EXPECT_EQ(graph.nesting, (std::vector<GraphEdge>{{2, 3}, {3, 4}}));
  EXPECT_EQ(graph.data_flow, (std::vector<GraphEdge>{{0, 5}, {5, 4}, {4, 6}, {6, 1}}));
  EXPECT_TRUE(graph.sequence.empty());

  // in[j][i]: j (innermost) strides 4, i strides 1; a run of j touches a column of 8.
  ExpectAccess(graph.nodes[5], {4, 1, 0, 0}, {8, 4, 0, 0}, {8, 32, 32, 32}, 32);
  // out[i][j]: j strides 1, i strides 8.
  ExpectAccess(graph.nodes[6], {1, 8, 0, 0}, {8, 4, 0, 0}, {8, 32, 32, 32}, 32);

  const auto& copy = graph.nodes[4].features;
  EXPECT_EQ(copy[gf::kDepth], 2);
  EXPECT_FLOAT_EQ(copy[gf::kLogIterations], Log(32));
  EXPECT_EQ(copy[gf::kStmtFlops], 0);  // a plain copy: no bias, no ReLU
  const auto& in = graph.nodes[0].features;
  EXPECT_EQ(in[gf::kTensorRole + static_cast<int>(TensorRole::kInput)], 1);
  EXPECT_FLOAT_EQ(in[gf::kTensorLogElements], Log(32));
  EXPECT_EQ(in[gf::kTensorRank], 2);
  EXPECT_FLOAT_EQ(in[gf::kTensorLogMinorExtent], Log(4));

  // No multiply-add, no tile: the tile region is zero everywhere.
  EXPECT_TRUE(graph.tile_sizes.empty());
  for (const GraphNode& node : graph.nodes) {
    for (int i = gf::kTileLogSize; i <= gf::kTileLogProduct; ++i) EXPECT_EQ(node.features[i], 0);
  }
}

TEST(HandBuiltGraphTest, MatmulNodesAndEdges) {
  const ProgramGraph graph = BuildProgramGraph(MatmulNest());
  using T = GraphNodeType;
  // A B C; z zj zero store(C); i j0 k j1 mac load(A) load(B) load(C) store(C).
  EXPECT_EQ(Types(graph),
            (std::vector<T>{T::kTensor, T::kTensor, T::kTensor, T::kLoop, T::kLoop, T::kZero,
                            T::kStore, T::kLoop, T::kLoop, T::kLoop, T::kLoop, T::kMultiplyAdd,
                            T::kLoad, T::kLoad, T::kLoad, T::kStore}));
  EXPECT_EQ(graph.Count(T::kLoop), 6);
  EXPECT_EQ(graph.Count(T::kTensor), 3);
  EXPECT_EQ(graph.Count(T::kLoad), 3);
  EXPECT_EQ(graph.Count(T::kStore), 2);
  EXPECT_EQ(graph.Count(T::kCopy), 0);
  std::vector<std::string> loops;
  for (const GraphNode& node : graph.nodes) {
    if (node.type == T::kLoop) loops.push_back(node.label);
  }
  EXPECT_EQ(loops, (std::vector<std::string>{"z", "zj", "i", "j0", "k", "j1"}));

  EXPECT_EQ(graph.nesting,
            (std::vector<GraphEdge>{{3, 4}, {4, 5}, {7, 8}, {8, 9}, {9, 10}, {10, 11}}));
  EXPECT_EQ(graph.sequence, (std::vector<GraphEdge>{{3, 7}}));  // the fill runs before the product
  EXPECT_EQ(graph.data_flow, (std::vector<GraphEdge>{{5, 6},
                                                     {6, 2},  // zero → store → C
                                                     {0, 12},
                                                     {12, 11},  // A → load → mac
                                                     {1, 13},
                                                     {13, 11},  // B → load → mac
                                                     {2, 14},
                                                     {14, 11},  // C → load → mac
                                                     {11, 15},
                                                     {15, 2}}));  // mac → store → C
}

TEST(HandBuiltGraphTest, MatmulStridesAndFootprints) {
  const ProgramGraph graph = BuildProgramGraph(MatmulNest());
  // Loops around the multiply-add, innermost first: j1 (8), k (8), j0 (2), i (4).
  const std::vector<double> extents = {8, 8, 2, 4};
  // A[i][k] in A[4][8]: j1 reuses it; a row of 8 per run of k; 32 over the kernel.
  ExpectAccess(graph.nodes[12], {0, 1, 0, 8}, extents, {1, 8, 8, 32}, 32);
  // B[k][8·j0 + j1] in B[8][16]: 8 contiguous per j1, 8 rows per k, all 128 with j0.
  ExpectAccess(graph.nodes[13], {1, 16, 8, 0}, extents, {8, 64, 128, 128}, 128);
  // C[i][8·j0 + j1] in C[4][16], read and written: the 8 of j1 stay while k runs.
  ExpectAccess(graph.nodes[14], {1, 0, 8, 16}, extents, {8, 8, 16, 64}, 64);
  ExpectAccess(graph.nodes[15], {1, 0, 8, 16}, extents, {8, 8, 16, 64}, 64);
  EXPECT_EQ(graph.nodes[14].features[gf::kAccessAccumulator], 1);
  EXPECT_EQ(graph.nodes[15].features[gf::kAccessAccumulator], 1);
  EXPECT_EQ(graph.nodes[6].features[gf::kAccessAccumulator], 0);  // the zero fill's store
  EXPECT_EQ(graph.nodes[12].features[gf::kAccessAccumulator], 0);
  // The zero fill's store: zj (16) strides 1, z (4) strides 16; no third loop.
  ExpectAccess(graph.nodes[6], {1, 16, 0, 0}, {16, 4, 0, 0}, {16, 64, 64, 64}, 64);
}

TEST(HandBuiltGraphTest, MatmulLoopAndStatementFeatures) {
  const ProgramGraph graph = BuildProgramGraph(MatmulNest());
  const auto& i = graph.nodes[7].features;
  EXPECT_EQ(i[gf::kDepth], 0);
  EXPECT_EQ(i[gf::kPosition], 1);  // after the fill
  EXPECT_FLOAT_EQ(i[gf::kLogIterations], Log(4));
  EXPECT_FLOAT_EQ(i[gf::kLoopLogExtent], Log(4));
  EXPECT_EQ(i[gf::kLoopKind + 1], 1);  // parallel
  EXPECT_EQ(i[gf::kLoopKind + 0], 0);
  EXPECT_EQ(i[gf::kLoopInnermost], 0);
  EXPECT_FLOAT_EQ(i[gf::kLoopLogStatements], Log(1));
  const auto& j1 = graph.nodes[10].features;
  EXPECT_EQ(j1[gf::kDepth], 3);
  EXPECT_FLOAT_EQ(j1[gf::kLogIterations], Log(4 * 2 * 8 * 8));
  EXPECT_EQ(j1[gf::kLoopKind + 2], 1);  // vectorized
  EXPECT_EQ(j1[gf::kLoopInnermost], 1);
  const auto& k = graph.nodes[9].features;
  EXPECT_EQ(k[gf::kLoopKind + 0], 1);  // serial
  const auto& mac = graph.nodes[11].features;
  EXPECT_EQ(mac[gf::kDepth], 4);
  EXPECT_FLOAT_EQ(mac[gf::kLogIterations], Log(512));
  EXPECT_EQ(mac[gf::kStmtFlops], 2);
  EXPECT_FLOAT_EQ(mac[gf::kStmtLogFlops], Log(1024));
  EXPECT_EQ(graph.nodes[12].features[gf::kDepth], 4);  // an access repeats its statement's place
  const auto& zero = graph.nodes[5].features;
  EXPECT_FLOAT_EQ(zero[gf::kLogIterations], Log(64));
  EXPECT_EQ(zero[gf::kStmtFlops], 0);
  // Exactly one type bit per node.
  for (const GraphNode& node : graph.nodes) {
    float bits = 0;
    for (int t = 0; t < kGraphNodeTypes; ++t) bits += node.features[gf::kType + t];
    EXPECT_EQ(bits, 1) << node.label;
    EXPECT_EQ(node.features[gf::kType + static_cast<int>(node.type)], 1) << node.label;
  }
}

TEST(HandBuiltGraphTest, MatmulTileIsTheRowFinishedPerReductionStep) {
  // The product writes C directly; k is the outermost loop C's index does not use, and inside it
  // j1 runs: one step of k updates 1 × 8 of C.
  const ProgramGraph graph = BuildProgramGraph(MatmulNest());
  EXPECT_EQ(graph.tile_sizes, (std::vector<int64_t>{1, 8}));
  for (const GraphNode& node : graph.nodes) {
    const auto& f = node.features;
    EXPECT_FLOAT_EQ(f[gf::kTileLogSize + 0], Log(8)) << node.label;  // minor first
    EXPECT_FLOAT_EQ(f[gf::kTileLogSize + 1], Log(1)) << node.label;
    EXPECT_EQ(f[gf::kTileLogSize + 2], 0) << node.label;
    EXPECT_EQ(f[gf::kTileLogSize + 3], 0) << node.label;
    EXPECT_FLOAT_EQ(f[gf::kTileLogSum], Log(9)) << node.label;
    EXPECT_FLOAT_EQ(f[gf::kTileLogProduct], Log(8)) << node.label;
  }
}

// GPU nests use the same graph: bindings and cooperative copies take their own one-hot slots, and
// a shared-memory tile its scope.
TEST(HandBuiltGraphTest, GpuLoopKindsAndScopes) {
  LoopNest nest;
  nest.name = "gpu_copy";
  const int in = nest.AddTensor({"in", {4, 8}, "IJ", DType::kFloat32, TensorRole::kInput, 0});
  TensorDecl tile_decl{"tile", {8}, "J", DType::kFloat32, TensorRole::kTemp, -1, "b"};
  tile_decl.scope = MemoryScope::kShared;
  const int tile = nest.AddTensor(tile_decl);
  const int out = nest.AddTensor({"out", {4, 8}, "IJ", DType::kFloat32, TensorRole::kOutput});
  Stmt fill{StmtKind::kCopy, {tile, {E::Var("c")}}, {in, {E::Var("b"), E::Var("c")}}};
  Stmt store{StmtKind::kCopy, {out, {E::Var("b"), E::Var("t")}}, {tile, {E::Var("t")}}};
  nest.body.push_back(Node::MakeLoop(
      {"b", 4, LoopKind::kBlockX},
      {Node::MakeLoop({"t", 8, LoopKind::kThreadY},
                      {Node::MakeLoop({"c", 8, LoopKind::kCooperative}, {Node::MakeStmt(fill)}),
                       Node::MakeStmt(store)})}));
  const ProgramGraph graph = BuildProgramGraph(nest);
  // in tile out; b t c copy load store copy load store.
  ASSERT_EQ(graph.nodes.size(), 12u);
  EXPECT_EQ(graph.nodes[3].features[gf::kLoopKind + 4], 1);     // blockIdx
  EXPECT_EQ(graph.nodes[4].features[gf::kLoopKind + 5], 1);     // threadIdx
  EXPECT_EQ(graph.nodes[5].features[gf::kLoopKind + 6], 1);     // cooperative
  EXPECT_EQ(graph.nodes[1].features[gf::kTensorScope + 1], 1);  // shared
  EXPECT_EQ(graph.nodes[1].features[gf::kTensorRole + 2], 1);   // temp
  EXPECT_EQ(graph.nodes[4].features[gf::kLoopInnermost], 0);
  // t's body: the cooperative loop, then the store's copy.
  EXPECT_EQ(graph.sequence, (std::vector<GraphEdge>{{5, 9}}));
  EXPECT_EQ(graph.nesting, (std::vector<GraphEdge>{{3, 4}, {4, 5}, {5, 6}, {4, 9}}));
}

}  // namespace
}  // namespace glimpse
