// The model graph on hand-built graphs: shapes and validation, the tunable layers with their
// fused epilogues (and the nodes no template describes), and the reference interpreter against
// the operators' own reference.
#include "glimpse/model_graph.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "glimpse/error.h"
#include "glimpse/reference.h"
#include "graph_builders.h"

namespace glimpse {
namespace {

using testing::AddTensor;
using testing::MakeOp;

// x[1,2,5,5] → conv 3×3 pad 1 (3 channels, bias) → ReLU → output.
ModelGraph ConvRelu() {
  ModelGraph g;
  g.name = "conv_relu";
  const int x = AddTensor(g, "x", {1, 2, 5, 5});
  const int w = AddTensor(g, "w", {3, 2, 3, 3}, true);
  const int b = AddTensor(g, "b", {3}, true);
  const int c = AddTensor(g, "c", {1, 3, 5, 5});
  const int y = AddTensor(g, "y", {1, 3, 5, 5});
  GraphOp conv = MakeOp(GraphOpKind::kConv, "conv", {x, w, b}, c);
  conv.pads = {1, 1, 1, 1};
  g.ops = {conv, MakeOp(GraphOpKind::kRelu, "relu", {c}, y)};
  g.inputs = {x};
  g.outputs = {y};
  return g;
}

std::vector<float> Ramp(int64_t n) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = std::sin(0.7f * static_cast<float>(i));
  return v;
}

TEST(ModelGraph, ValidatesShapesAndNamesTheOp) {
  ModelGraph g = ConvRelu();
  EXPECT_NO_THROW(ValidateModelGraph(g));
  g.tensors[3].shape = {1, 3, 4, 4};
  try {
    ValidateModelGraph(g);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("conv node 'conv': output 'c' has shape [1,3,4,4], the op "
                                         "computes [1,3,5,5]"),
              std::string::npos)
        << e.what();
  }
  g = ConvRelu();
  std::swap(g.ops[0], g.ops[1]);  // the ReLU reads c before the conv makes it
  EXPECT_THROW(ValidateModelGraph(g), Error);
}

TEST(ModelGraph, ConvWithBiasAndItsOnlyReluIsOneFusedLayer) {
  const ModelGraph g = ConvRelu();
  const std::vector<GraphLayer> layers = GraphLayers(g);
  ASSERT_EQ(layers.size(), 1u);
  EXPECT_EQ(layers[0].layer.name, "conv");
  EXPECT_EQ(OperatorToString(layers[0].layer.op),
            "conv2d:N=1,C=2,H=5,W=5,K=3,R=3,S=3,stride=1,pad=1,dilation=1,bias=1,relu=1");
  EXPECT_EQ(layers[0].fused, std::vector<int>{1});
  EXPECT_EQ(layers[0].output, 4);
}

TEST(ModelGraph, ReluIsNotFusedWhenTheConvOutputHasAnotherReader) {
  ModelGraph g = ConvRelu();
  g.outputs.push_back(3);  // c is also a graph output
  const std::vector<GraphLayer> layers = GraphLayers(g);
  ASSERT_EQ(layers.size(), 1u);
  EXPECT_TRUE(layers[0].fused.empty());
  EXPECT_EQ(OperatorToString(layers[0].layer.op).find("relu=1"), std::string::npos);
}

// x[1,3,5,5] → conv a (bias) → [Add with shortcut] → activation → y, where the shortcut is x
// itself or, when `late_shortcut`, a 1×1 conv b of x written after conv a (as exporters write a
// downsampling block).
ModelGraph ResidualBlock(bool late_shortcut, GraphOpKind activation, float clip_max = 6.0f) {
  ModelGraph g;
  g.name = "residual";
  const int x = AddTensor(g, "x", {1, 3, 5, 5});
  const int wa = AddTensor(g, "wa", {3, 3, 3, 3}, true);
  const int ba = AddTensor(g, "ba", {3}, true);
  const int wb = AddTensor(g, "wb", {3, 3, 1, 1}, true);
  const int a = AddTensor(g, "a", {1, 3, 5, 5});
  const int b = AddTensor(g, "b", {1, 3, 5, 5});
  const int sum = AddTensor(g, "sum", {1, 3, 5, 5});
  const int y = AddTensor(g, "y", {1, 3, 5, 5});
  GraphOp conv_a = MakeOp(GraphOpKind::kConv, "conv_a", {x, wa, ba}, a);
  conv_a.pads = {1, 1, 1, 1};
  g.ops = {conv_a};
  if (late_shortcut) g.ops.push_back(MakeOp(GraphOpKind::kConv, "conv_b", {x, wb}, b));
  g.ops.push_back(MakeOp(GraphOpKind::kAdd, "add", {a, late_shortcut ? b : x}, sum));
  GraphOp act = MakeOp(activation, "act", {sum}, y);
  act.clip_min = 0.0f;
  act.clip_max = clip_max;
  g.ops.push_back(act);
  g.inputs = {x};
  g.outputs = {y};
  ValidateModelGraph(g);
  return g;
}

TEST(ModelGraph, AResidualAddAndItsReluAreFusedIntoTheLayerThatComesLast) {
  // The shortcut is the graph input: conv a takes the Add and the ReLU, x as its residual.
  ModelGraph g = ResidualBlock(false, GraphOpKind::kRelu);
  std::vector<GraphLayer> layers = GraphLayers(g);
  ASSERT_EQ(layers.size(), 1u);
  EXPECT_EQ(OperatorToString(layers[0].layer.op),
            "conv2d:N=1,C=3,H=5,W=5,K=3,R=3,S=3,stride=1,pad=1,dilation=1,bias=1,relu=1,"
            "residual=1");
  EXPECT_EQ(layers[0].residual, g.Find("x"));
  EXPECT_EQ(layers[0].fused, (std::vector<int>{1, 2}));
  EXPECT_EQ(layers[0].output, g.Find("y"));

  // The shortcut conv b comes after conv a, so a cannot take the Add (b is not computed when a
  // runs): b takes it, with a's output as its residual, and conv a stays plain.
  g = ResidualBlock(true, GraphOpKind::kRelu);
  layers = GraphLayers(g);
  ASSERT_EQ(layers.size(), 2u);
  EXPECT_EQ(layers[0].layer.name, "conv_a");
  EXPECT_TRUE(layers[0].fused.empty());
  EXPECT_EQ(layers[0].residual, -1);
  EXPECT_EQ(layers[1].layer.name, "conv_b");
  EXPECT_EQ(OperatorToString(layers[1].layer.op),
            "conv2d:N=1,C=3,H=5,W=5,K=3,R=1,S=1,stride=1,pad=0,dilation=1,bias=0,relu=1,"
            "residual=1");
  EXPECT_EQ(layers[1].residual, g.Find("a"));
  EXPECT_EQ(layers[1].fused, (std::vector<int>{2, 3}));

  // An Add whose other side is broadcast (a constant [3,1,1] here) is not a residual.
  g = ResidualBlock(false, GraphOpKind::kRelu);
  const int c = AddTensor(g, "c", {3, 1, 1}, true);
  g.ops[1].inputs[1] = c;
  layers = GraphLayers(g);
  ASSERT_EQ(layers.size(), 1u);
  EXPECT_TRUE(layers[0].fused.empty());
  EXPECT_EQ(layers[0].residual, -1);
}

TEST(ModelGraph, AClipToZeroAndSixIsAFusedRelu6) {
  std::vector<GraphLayer> layers = GraphLayers(ResidualBlock(false, GraphOpKind::kClip, 6.0f));
  ASSERT_EQ(layers.size(), 1u);
  EXPECT_NE(OperatorToString(layers[0].layer.op).find("relu=0,residual=1,relu6=1"),
            std::string::npos);
  // A Clip to [0, ∞) is a ReLU; to [0, 3] it is neither and stays its own op.
  layers =
      GraphLayers(ResidualBlock(false, GraphOpKind::kClip, std::numeric_limits<float>::infinity()));
  EXPECT_NE(OperatorToString(layers[0].layer.op).find("relu=1,residual=1"), std::string::npos);
  layers = GraphLayers(ResidualBlock(false, GraphOpKind::kClip, 3.0f));
  EXPECT_EQ(layers[0].fused, std::vector<int>{1});  // the residual Add only
  EXPECT_EQ(OperatorToString(layers[0].layer.op).find("relu6"), std::string::npos);
}

TEST(ModelGraph, DepthwiseGroupedAndAsymmetricConvolutions) {
  ModelGraph g;
  const int x = AddTensor(g, "x", {1, 4, 6, 6});
  const int dw = AddTensor(g, "dw", {4, 1, 3, 3}, true);
  const int y = AddTensor(g, "y", {1, 4, 6, 6});
  GraphOp op = MakeOp(GraphOpKind::kConv, "depthwise", {x, dw}, y);
  op.group = 4;
  op.pads = {1, 1, 1, 1};
  g.ops = {op};
  g.inputs = {x};
  g.outputs = {y};
  ValidateModelGraph(g);
  EXPECT_EQ(OperatorName(GraphLayers(g)[0].layer.op), "depthwise_conv2d");

  ModelGraph grouped = g;
  grouped.tensors[dw].shape = {4, 2, 3, 3};
  grouped.tensors[dw].data.resize(72);
  grouped.ops[0].group = 2;
  ValidateModelGraph(grouped);
  try {
    GraphLayers(grouped);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("conv node 'depthwise': a grouped convolution (group 2"),
              std::string::npos)
        << e.what();
  }

  ModelGraph asymmetric = g;
  asymmetric.ops[0].pads = {0, 0, 2, 2};
  ValidateModelGraph(asymmetric);
  try {
    GraphLayers(asymmetric);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("pads (top 0, left 0, bottom 2, right 2)"),
              std::string::npos)
        << e.what();
  }
}

// The interpreter's convolution + ReLU equals the conv2d operator's own reference.
TEST(ModelGraph, ReferenceConvEqualsTheOperatorReference) {
  const ModelGraph g = ConvRelu();
  const std::vector<float> x = Ramp(50);
  const auto out = RunModelGraphReference(g, {x});
  ASSERT_EQ(out.size(), 1u);
  const Operator op = GraphLayers(g)[0].layer.op;
  const ReferenceResult ref = ComputeReference(op, {x, g.tensors[1].data, g.tensors[2].data});
  ASSERT_EQ(out[0].size(), ref.output.size());
  for (size_t i = 0; i < ref.output.size(); ++i) EXPECT_NEAR(out[0][i], ref.output[i], 1e-5) << i;
  EXPECT_THROW(RunModelGraphReference(g, {Ramp(49)}), Error);
}

TEST(ModelGraph, ReferenceBroadcastConcatAndSoftmax) {
  ModelGraph g;
  const int a = AddTensor(g, "a", {1, 2, 1, 3});
  const int bias = AddTensor(g, "bias", {2, 1, 1}, true);  // per channel
  const int sum = AddTensor(g, "sum", {1, 2, 1, 3});
  const int cat = AddTensor(g, "cat", {1, 4, 1, 3});
  const int soft = AddTensor(g, "soft", {1, 4, 1, 3});
  GraphOp concat = MakeOp(GraphOpKind::kConcat, "concat", {sum, a}, cat);
  concat.axis = 1;
  GraphOp softmax = MakeOp(GraphOpKind::kSoftmax, "softmax", {cat}, soft);
  softmax.axis = 3;
  g.ops = {MakeOp(GraphOpKind::kAdd, "add", {a, bias}, sum), concat, softmax};
  g.inputs = {a};
  g.outputs = {cat, soft};
  ValidateModelGraph(g);
  const std::vector<float> x = {1, 2, 3, 4, 5, 6};
  const auto out = RunModelGraphReference(g, {x});
  // bias = {-0.3, -0.2}: channel 0 gets -0.3, channel 1 -0.2; then the input itself.
  const std::vector<float> expected = {0.7f, 1.7f, 2.7f, 3.8f, 4.8f, 5.8f, 1, 2, 3, 4, 5, 6};
  ASSERT_EQ(out[0].size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(out[0][i], expected[i], 1e-6);
  for (int row = 0; row < 4; ++row) {
    const double total = out[1][3 * row] + out[1][3 * row + 1] + out[1][3 * row + 2];
    EXPECT_NEAR(total, 1.0, 1e-6);
    EXPECT_LT(out[1][3 * row], out[1][3 * row + 2]);  // a rising row stays rising
  }
}

}  // namespace
}  // namespace glimpse

namespace glimpse {
namespace {

// The zoo's CNNs as graphs: their tunable layers are the zoo's layers, in order and by name, with
// the residual Adds and the ReLUs and ReLU6s that only a layer feeds fused.
TEST(ZooGraph, LayersAreTheZoosWithTheirEpiloguesFused) {
  for (const std::string& name : ZooModelNames()) {
    if (!HasZooGraph(name)) {
      EXPECT_THROW(ZooGraph(name), Error) << name;
      continue;
    }
    const ModelGraph graph = ZooGraph(name);
    ValidateModelGraph(graph);
    const std::vector<GraphLayer> layers = GraphLayers(graph);
    const std::vector<ModelLayer> zoo = ZooModel(name);
    ASSERT_EQ(layers.size(), zoo.size()) << name;
    int activations = 0, residuals = 0;
    for (size_t i = 0; i < zoo.size(); ++i) {
      EXPECT_EQ(layers[i].layer.name, zoo[i].name) << name;
      Operator unfused = layers[i].layer.op;
      std::visit(
          [&](auto& shape) {
            activations += shape.relu + shape.relu6;
            residuals += shape.residual;
            shape.relu = shape.relu6 = shape.residual = false;
          },
          unfused);
      EXPECT_EQ(OperatorToString(unfused), OperatorToString(zoo[i].op)) << name << " " << i;
    }
    // ResNet-18: the stem, each block's first conv and each block's residual Add (into its
    // second conv, or its downsampling conv, which comes after it); VGG-16: 13 convs and 2 dense
    // layers; MobileNet-v2: the stem, 16 expansions, 17 depthwise convs and the last 1×1 conv
    // (ReLU6), and the 10 blocks with a shortcut (into their projection).
    const std::map<std::string, std::pair<int, int>> expected = {{"resnet18", {17, 8}},
                                                                 {"resnet50", {49, 16}},
                                                                 {"vgg16", {15, 0}},
                                                                 {"mobilenet_v2", {35, 10}}};
    if (expected.count(name)) {
      EXPECT_EQ(activations, expected.at(name).first) << name;
      EXPECT_EQ(residuals, expected.at(name).second) << name;
    }
    EXPECT_EQ(graph.tensors[graph.outputs[0]].shape, (std::vector<int64_t>{1, 1000})) << name;
  }
  // Seeded: the same seed gives the same weights.
  EXPECT_EQ(ZooGraph("alexnet", 3).tensors[1].data, ZooGraph("alexnet", 3).tensors[1].data);
  EXPECT_NE(ZooGraph("alexnet", 3).tensors[1].data, ZooGraph("alexnet", 4).tensors[1].data);
}

}  // namespace
}  // namespace glimpse
