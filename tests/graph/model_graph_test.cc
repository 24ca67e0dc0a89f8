// The model graph on hand-built graphs: shapes and validation, the tunable layers with their
// fused epilogues (and the nodes no template describes), and the reference interpreter against
// the operators' own reference.
#include "glimpse/model_graph.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <numeric>

#include "glimpse/error.h"
#include "glimpse/reference.h"

namespace glimpse {
namespace {

int Add(ModelGraph& g, const std::string& name, std::vector<int64_t> shape, bool constant = false) {
  GraphTensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.constant = constant;
  if (constant) {
    t.data.resize(t.Elements());
    for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = 0.1f * static_cast<float>(i % 7) - 0.3f;
  }
  g.tensors.push_back(t);
  return static_cast<int>(g.tensors.size()) - 1;
}

GraphOp Op(GraphOpKind kind, const std::string& name, std::vector<int> inputs, int output) {
  GraphOp op;
  op.kind = kind;
  op.name = name;
  op.inputs = std::move(inputs);
  op.output = output;
  return op;
}

// x[1,2,5,5] → conv 3×3 pad 1 (3 channels, bias) → ReLU → output.
ModelGraph ConvRelu() {
  ModelGraph g;
  g.name = "conv_relu";
  const int x = Add(g, "x", {1, 2, 5, 5});
  const int w = Add(g, "w", {3, 2, 3, 3}, true);
  const int b = Add(g, "b", {3}, true);
  const int c = Add(g, "c", {1, 3, 5, 5});
  const int y = Add(g, "y", {1, 3, 5, 5});
  GraphOp conv = Op(GraphOpKind::kConv, "conv", {x, w, b}, c);
  conv.pads = {1, 1, 1, 1};
  g.ops = {conv, Op(GraphOpKind::kRelu, "relu", {c}, y)};
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

TEST(ModelGraph, DepthwiseGroupedAndAsymmetricConvolutions) {
  ModelGraph g;
  const int x = Add(g, "x", {1, 4, 6, 6});
  const int dw = Add(g, "dw", {4, 1, 3, 3}, true);
  const int y = Add(g, "y", {1, 4, 6, 6});
  GraphOp op = Op(GraphOpKind::kConv, "depthwise", {x, dw}, y);
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
  const int a = Add(g, "a", {1, 2, 1, 3});
  const int bias = Add(g, "bias", {2, 1, 1}, true);  // per channel
  const int sum = Add(g, "sum", {1, 2, 1, 3});
  const int cat = Add(g, "cat", {1, 4, 1, 3});
  const int soft = Add(g, "soft", {1, 4, 1, 3});
  GraphOp concat = Op(GraphOpKind::kConcat, "concat", {sum, a}, cat);
  concat.axis = 1;
  GraphOp softmax = Op(GraphOpKind::kSoftmax, "softmax", {cat}, soft);
  softmax.axis = 3;
  g.ops = {Op(GraphOpKind::kAdd, "add", {a, bias}, sum), concat, softmax};
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
// the ReLUs that only a layer feeds fused.
TEST(ZooGraph, LayersAreTheZoosWithReluFused) {
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
    int fused = 0;
    for (size_t i = 0; i < zoo.size(); ++i) {
      EXPECT_EQ(layers[i].layer.name, zoo[i].name) << name;
      Operator unfused = layers[i].layer.op;
      std::visit(
          [&](auto& shape) {
            fused += shape.relu;
            shape.relu = false;
          },
          unfused);
      EXPECT_EQ(OperatorToString(unfused), OperatorToString(zoo[i].op)) << name << " " << i;
    }
    // ResNet-18: the stem and each block's first conv; VGG-16: 13 convs and 2 dense layers;
    // MobileNet-v2's ReLU6 is a Clip, not fused.
    const std::map<std::string, int> expected_fused = {
        {"resnet18", 9}, {"vgg16", 15}, {"mobilenet_v2", 0}};
    if (expected_fused.count(name)) {
      EXPECT_EQ(fused, expected_fused.at(name)) << name;
    }
    EXPECT_EQ(graph.tensors[graph.outputs[0]].shape, (std::vector<int64_t>{1, 1000})) << name;
  }
  // Seeded: the same seed gives the same weights.
  EXPECT_EQ(ZooGraph("alexnet", 3).tensors[1].data, ZooGraph("alexnet", 3).tensors[1].data);
  EXPECT_NE(ZooGraph("alexnet", 3).tensors[1].data, ZooGraph("alexnet", 4).tensors[1].data);
}

}  // namespace
}  // namespace glimpse
