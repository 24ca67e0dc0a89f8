// PlanBlockedActivations on the zoo's CNNs: which activations stay channel-blocked, the blocks the
// convolution layers take, and where a reader would need a reorder.
#include "glimpse/activation_layouts.h"

#include <gtest/gtest.h>

#include <variant>

#include "graph_builders.h"

namespace glimpse {
namespace {

using testing::AddTensor;
using testing::MakeOp;

struct Planned {
  ModelGraph graph;
  std::vector<GraphLayer> layers;
  ActivationLayoutPlan plan;
};

Planned Plan(const std::string& model) {
  Planned p{ZooGraph(model, 0, /*weights=*/false), {}, {}};
  p.layers = GraphLayers(p.graph);
  p.plan = PlanBlockedActivations(p.graph, p.layers);
  return p;
}

// The reads whose layout differs from the tensor's: the reorders a compiled model would run.
int Reorders(const Planned& p) {
  int count = 0;
  for (const auto& [read, block] : p.plan.read_block) {
    count += block != p.plan.tensor_block[read.second];
  }
  return count;
}

TEST(ActivationLayouts, ABlockIsTheLargestOf16And8And4ThatDividesTheChannels) {
  EXPECT_EQ(ActivationBlockFor(64), 16);
  EXPECT_EQ(ActivationBlockFor(24), 8);
  EXPECT_EQ(ActivationBlockFor(12), 4);
  EXPECT_EQ(ActivationBlockFor(3), 0);
}

// ResNet-18: the 3-channel input stays NCHW into the first layer, every later convolution reads
// and writes NCHW16c, the max pool and the residual shortcuts follow, global pooling hands the
// classifier an NCHW vector — and nothing needs a reorder.
TEST(ActivationLayouts, ResNet18KeepsEveryActivationBlockedWithoutAReorder) {
  const Planned p = Plan("resnet18");
  int convolutions = 0;
  for (const GraphLayer& layer : p.layers) {
    if (const auto* conv = std::get_if<Conv2dShape>(&layer.layer.op)) {
      ++convolutions;
      EXPECT_EQ(conv->in_block, conv->c == 3 ? 0 : 16) << layer.layer.name;
      EXPECT_EQ(conv->out_block, 16) << layer.layer.name;
    } else {
      EXPECT_TRUE(std::holds_alternative<DenseShape>(layer.layer.op));
    }
  }
  EXPECT_GT(convolutions, 15);
  for (const GraphOp& op : p.graph.ops) {
    if (op.kind == GraphOpKind::kMaxPool) {
      EXPECT_EQ(p.plan.tensor_block[op.output], 16);
    }
    if (op.kind == GraphOpKind::kGlobalAveragePool) {
      EXPECT_EQ(p.plan.tensor_block[op.inputs[0]], 16);
      EXPECT_EQ(p.plan.tensor_block[op.output], 0);
    }
  }
  for (int output : p.graph.outputs) EXPECT_EQ(p.plan.tensor_block[output], 0);
  EXPECT_EQ(Reorders(p), 0);
}

// MobileNet-v2: the 24-channel activations take blocks of 8, depthwise layers keep their input's
// block, and the layers between agree with no reorder.
TEST(ActivationLayouts, MobileNetV2BlocksItsTwentyFourChannelActivationsByEight) {
  const Planned p = Plan("mobilenet_v2");
  bool saw_eight = false;
  for (const GraphLayer& layer : p.layers) {
    if (const auto* conv = std::get_if<Conv2dShape>(&layer.layer.op)) {
      if (conv->k == 24) {
        EXPECT_EQ(conv->out_block, 8) << layer.layer.name;
        saw_eight = true;
      }
      if (conv->c == 24) {
        EXPECT_EQ(conv->in_block, 8) << layer.layer.name;
      }
    } else if (const auto* dw = std::get_if<DepthwiseConv2dShape>(&layer.layer.op)) {
      EXPECT_EQ(dw->in_block, 16) << layer.layer.name;
      EXPECT_EQ(dw->out_block, 16) << layer.layer.name;
    }
  }
  EXPECT_TRUE(saw_eight);
  EXPECT_EQ(Reorders(p), 0);
}

// A convolution whose output is the graph's output writes NCHW; a flatten reading a blocked
// activation (a tensor of more than one pixel) is given it reordered.
TEST(ActivationLayouts, GraphOutputsAreNchwAndPlainReadersGetReorders) {
  ModelGraph graph;
  graph.name = "two_convs";
  const int x = AddTensor(graph, "x", {1, 16, 4, 4});
  const int w1 = AddTensor(graph, "w1", {32, 16, 1, 1}, true);
  const int w2 = AddTensor(graph, "w2", {16, 32, 1, 1}, true);
  const int y1 = AddTensor(graph, "y1", {1, 32, 4, 4}), y2 = AddTensor(graph, "y2", {1, 16, 4, 4});
  const int flat = AddTensor(graph, "flat", {1, 512});
  graph.ops = {MakeOp(GraphOpKind::kConv, "c1", {x, w1}, y1),
               MakeOp(GraphOpKind::kConv, "c2", {y1, w2}, y2),
               MakeOp(GraphOpKind::kFlatten, "flatten", {y1}, flat)};
  graph.inputs = {x};
  graph.outputs = {y2, flat};
  std::vector<GraphLayer> layers = GraphLayers(graph);
  const ActivationLayoutPlan plan = PlanBlockedActivations(graph, layers);
  const auto& c1 = std::get<Conv2dShape>(layers[0].layer.op);
  const auto& c2 = std::get<Conv2dShape>(layers[1].layer.op);
  EXPECT_EQ(c1.in_block, 0);  // a graph input
  EXPECT_EQ(c1.out_block, 16);
  EXPECT_EQ(c2.in_block, 16);
  EXPECT_EQ(c2.out_block, 0);  // a graph output
  EXPECT_EQ(plan.tensor_block[y1], 16);
  EXPECT_EQ(plan.ReadBlock(2, y1), 0);  // the flatten reads it reordered to NCHW
}

}  // namespace
}  // namespace glimpse
