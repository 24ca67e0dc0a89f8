// Graphs of real CPU template nests: well-formed, counted as a walk of the nest counts, the tile
// the template's accumulator, and the same on every build.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "glimpse/cpu.h"
#include "glimpse/program_graph.h"
#include "glimpse/random.h"

namespace glimpse {
namespace {
using T = GraphNodeType;

// What a walk of `body` finds: loops, statements by kind, accesses, tensors touched.
struct NestCounts {
  int loops = 0, zero = 0, mac = 0, copy = 0, loads = 0, stores = 0;
  std::set<int> tensors;
};

void Walk(const std::vector<Node>& body, NestCounts& counts) {
  for (const Node& node : body) {
    if (node.is_loop) {
      ++counts.loops;
      Walk(node.body, counts);
      continue;
    }
    const Stmt& s = node.stmt;
    ++counts.stores;
    counts.tensors.insert(s.dst.tensor);
    if (s.kind == StmtKind::kZero) ++counts.zero;
    if (s.kind == StmtKind::kMultiplyAdd) {
      ++counts.mac;
      counts.loads += 3;
      counts.tensors.insert({s.a.tensor, s.b.tensor});
    }
    if (s.kind == StmtKind::kCopy) {
      ++counts.copy;
      counts.loads += s.bias ? 2 : 1;
      counts.tensors.insert(s.a.tensor);
      if (s.bias) counts.tensors.insert(s.bias->tensor);
    }
  }
}

// The graph is of the program without its prefetches (hints that compute nothing).
void ExpectWellFormed(const LoopNest& nest, const ProgramGraph& graph) {
  NestCounts counts;
  Walk(WithoutPrefetches(nest).body, counts);
  EXPECT_EQ(graph.Count(T::kLoop), counts.loops);
  EXPECT_EQ(graph.Count(T::kZero), counts.zero);
  EXPECT_EQ(graph.Count(T::kMultiplyAdd), counts.mac);
  EXPECT_EQ(graph.Count(T::kCopy), counts.copy);
  EXPECT_EQ(graph.Count(T::kLoad), counts.loads);
  EXPECT_EQ(graph.Count(T::kStore), counts.stores);
  EXPECT_EQ(graph.Count(T::kTensor), static_cast<int>(counts.tensors.size()));

  const int n = static_cast<int>(graph.nodes.size());
  std::map<int, int> parents;
  for (const auto* edges : {&graph.nesting, &graph.data_flow, &graph.sequence}) {
    for (const GraphEdge& e : *edges) {
      ASSERT_TRUE(e.from >= 0 && e.from < n && e.to >= 0 && e.to < n) << e.from << "→" << e.to;
      EXPECT_NE(e.from, e.to);
    }
  }
  // Nesting: from a loop to a loop or statement, each with one parent at most.
  for (const GraphEdge& e : graph.nesting) {
    EXPECT_EQ(graph.nodes[e.from].type, T::kLoop);
    const T to = graph.nodes[e.to].type;
    EXPECT_TRUE(to == T::kLoop || to == T::kZero || to == T::kMultiplyAdd || to == T::kCopy);
    EXPECT_EQ(++parents[e.to], 1) << graph.nodes[e.to].label;
  }
  // Data flow: every load and store has exactly one edge in and one out.
  std::map<int, int> in, out;
  for (const GraphEdge& e : graph.data_flow) {
    ++out[e.from];
    ++in[e.to];
  }
  for (int i = 0; i < n; ++i) {
    if (graph.nodes[i].type == T::kLoad || graph.nodes[i].type == T::kStore) {
      EXPECT_EQ(in[i], 1) << i;
      EXPECT_EQ(out[i], 1) << i;
    }
    for (float x : graph.nodes[i].features) EXPECT_TRUE(std::isfinite(x)) << i;
  }
  EXPECT_EQ(graph.data_flow.size(), 2 * static_cast<size_t>(counts.loads + counts.stores));
}

Config Sample(const ConfigSpace& space, uint64_t seed) {
  Rng rng(seed);
  return *space.SampleValid(rng);
}

TEST(TemplateGraphTest, DenseGraphIsTheNestsAndItsTileTheAccumulator) {
  const Operator op = ParseOperator("dense:M=32,N=64,K=48,bias=1,relu=1");
  const ConfigSpace space = MakeCpuSpace(op);
  for (uint64_t seed : {1, 2, 3}) {
    SCOPED_TRACE(seed);
    const Config config = Sample(space, seed);
    const LoopNest nest = MakeCpuNest(op, space, config);
    const ProgramGraph graph = BuildCpuProgramGraph(op, space, config);
    ExpectWellFormed(nest, graph);
    EXPECT_EQ(graph.Count(T::kMultiplyAdd), 1);
    // acc[m1·m2][n1·n2] (template_dense.cc).
    const ConfigView view(space, config);
    const std::vector<int64_t> tm = view.List("tile_m"), tn = view.List("tile_n");
    EXPECT_EQ(graph.tile_sizes, (std::vector<int64_t>{tm[1] * tm[2], tn[1] * tn[2]}));
  }
}

TEST(TemplateGraphTest, Conv2dGraphsInBothLayoutsLeavePrepareOut) {
  const Operator op = ParseOperator("conv2d:N=1,C=16,H=14,W=14,K=32,R=3,S=3,stride=1,pad=1");
  const ConfigSpace space = MakeCpuSpace(op);
  std::set<std::string> layouts;
  for (uint64_t seed = 1; seed <= 40 && layouts.size() < 2; ++seed) {
    const Config config = Sample(space, seed);
    const std::string layout = ConfigView(space, config).Text("layout");
    if (!layouts.insert(layout).second) continue;
    SCOPED_TRACE(layout);
    const LoopNest nest = MakeCpuNest(op, space, config);
    const ProgramGraph graph = BuildProgramGraph(nest);
    ExpectWellFormed(nest, graph);
    std::set<std::string> tensors;
    for (const GraphNode& node : graph.nodes) {
      if (node.type == T::kTensor) tensors.insert(node.label);
    }
    // Only what the timed body touches: NCHWc's prepare step packs the weight Wt into Wp, which
    // the body reads; Wt and the prepare loops stay out (ExpectWellFormed counts the body alone).
    EXPECT_EQ(!nest.prepare.empty(), layout == "NCHWc");
    EXPECT_EQ(tensors.count("Wt"), layout == "NCHW" ? 1u : 0u);
    EXPECT_EQ(tensors.count("Wp"), layout == "NCHWc" ? 1u : 0u);
    EXPECT_FALSE(graph.tile_sizes.empty());
  }
  EXPECT_EQ(layouts.size(), 2u) << "no configuration of one of the layouts was sampled";
}

// A first layer's plain input read in place gets prefetches (template_conv2d.cc); its graph is the
// graph of the same nest without them.
TEST(TemplateGraphTest, PrefetchesLeaveTheGraphAsItWas) {
  const Operator op = ParseOperator(
      "conv2d:N=1,C=3,H=16,W=16,K=32,R=3,S=3,stride=2,pad=1,bias=1,relu6=1,out_block=16");
  const ConfigSpace space = MakeCpuSpace(op);
  const Config config = space.ConfigFromJson({{"layout", "NCHWc"},
                                              {"tile_k", {1, 2, 16}},
                                              {"tile_oh", {8, 1}},
                                              {"tile_ow", {1, 1, 8}},
                                              {"tile_c", {3, 1}},
                                              {"order", {0, 2, 3, 4, 1}},
                                              {"parallel", "oh"},
                                              {"vectorize", 1},
                                              {"unroll", 1},
                                              {"padding", "guard"}});
  const LoopNest nest = MakeCpuNest(op, space, config);
  ASSERT_TRUE(HasPrefetch(nest));
  const ProgramGraph graph = BuildProgramGraph(nest);
  ExpectWellFormed(nest, graph);
  EXPECT_EQ(ProgramGraphToJson(graph).dump(),
            ProgramGraphToJson(BuildProgramGraph(WithoutPrefetches(nest))).dump());
}

TEST(TemplateGraphTest, TheSameNestGivesTheSameGraph) {
  const Operator op = ParseOperator("conv2d:N=1,C=8,H=8,W=8,K=16,R=3,S=3,stride=1,pad=1");
  const ConfigSpace space = MakeCpuSpace(op);
  const Config config = Sample(space, 7);
  const Json first = ProgramGraphToJson(BuildCpuProgramGraph(op, space, config));
  const Json second = ProgramGraphToJson(BuildCpuProgramGraph(op, space, config));
  EXPECT_EQ(first.dump(), second.dump());
  // …and another configuration gives another graph.
  const Config other = Sample(space, 8);
  ASSERT_NE(space.ConfigToJson(config), space.ConfigToJson(other));
  EXPECT_NE(first.dump(), ProgramGraphToJson(BuildCpuProgramGraph(op, space, other)).dump());
}

}  // namespace
}  // namespace glimpse
