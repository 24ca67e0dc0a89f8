// The model zoo: layer counts, distinct tasks, total work against the published figures, and the
// shapes that distinguish each architecture.
#include "glimpse/model_zoo.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "glimpse/error.h"

namespace glimpse {
namespace {

struct Expected {
  const char* model;
  size_t layers;
  size_t tasks;
  int conv2d, depthwise, dense, batch_matmul;  // distinct tasks per operator
  double macs;                                 // Σ multiply-adds of our layers (exact)
  double published_macs;                       // the paper's / torchvision's figure
};

// MACs: exact sums of our shapes (checked by hand and by an independent script);
// published: ResNet-18 1.8 G, ResNet-50 4.1 G (He et al. Table 1: 1.8·10⁹ and 3.8·10⁹ for v1; the
// v1.5 stride placement gives torchvision's 4.09 G), VGG-16 15.5 G, AlexNet 0.71 G (torchvision),
// MobileNet-v2 300 M (Sandler et al. Table 4); a BERT-base layer at sequence 128 0.93 G
// (4·s·h² + 2·s·h·4h + 2·s²·h: the 11.2 GMACs, ~22 GFLOPs, quoted for its 12 layers).
const Expected kExpected[] = {
    {"resnet18", 21, 12, 11, 0, 1, 0, 1814073344.0, 1.8e9},
    {"resnet50", 54, 24, 23, 0, 1, 0, 4089184256.0, 4.1e9},
    {"vgg16", 16, 12, 9, 0, 3, 0, 15470264320.0, 15.5e9},
    {"alexnet", 8, 8, 5, 0, 3, 0, 714188480.0, 0.71e9},
    {"mobilenet_v2", 53, 31, 20, 10, 1, 0, 300774272.0, 0.30e9},
    {"bert_base_layer", 8, 5, 0, 0, 3, 2, 931135488.0, 0.93e9},
};

TEST(ModelZooTest, KnownModelsInOrder) {
  std::vector<std::string> names = ZooModelNames();
  EXPECT_EQ(names, (std::vector<std::string>{"resnet18", "resnet50", "vgg16", "alexnet",
                                             "mobilenet_v2", "bert_base_layer"}));
  ASSERT_EQ(ZooModels().size(), names.size());
  for (const ZooModelInfo& info : ZooModels()) EXPECT_FALSE(info.description.empty());
}

TEST(ModelZooTest, CountsAndTotalWorkMatchThePublishedArchitectures) {
  for (const Expected& e : kExpected) {
    SCOPED_TRACE(e.model);
    std::vector<ModelLayer> layers = ZooModel(e.model);
    EXPECT_EQ(layers.size(), e.layers);
    std::vector<ModelTask> tasks = ExtractTasks(layers);
    EXPECT_EQ(tasks.size(), e.tasks);
    int conv = 0, depthwise = 0, dense = 0, batch_matmul = 0;
    int64_t weights = 0;
    double task_flops = 0;
    for (const ModelTask& task : tasks) {
      conv += std::holds_alternative<Conv2dShape>(task.op);
      depthwise += std::holds_alternative<DepthwiseConv2dShape>(task.op);
      dense += std::holds_alternative<DenseShape>(task.op);
      batch_matmul += std::holds_alternative<BatchMatmulShape>(task.op);
      weights += task.weight;
      EXPECT_EQ(task.layers.size(), static_cast<size_t>(task.weight));
      task_flops += task.TotalFlops();
    }
    EXPECT_EQ(conv, e.conv2d);
    EXPECT_EQ(depthwise, e.depthwise);
    EXPECT_EQ(dense, e.dense);
    EXPECT_EQ(batch_matmul, e.batch_matmul);
    EXPECT_EQ(weights, static_cast<int64_t>(layers.size()));

    double macs = ModelFlops(layers) / 2;
    EXPECT_DOUBLE_EQ(macs, e.macs);
    EXPECT_DOUBLE_EQ(task_flops / 2, e.macs);
    EXPECT_LT(std::fabs(macs / e.published_macs - 1.0), 0.03)
        << macs / 1e9 << " GMACs against the published " << e.published_macs / 1e9;
  }
}

TEST(ModelZooTest, EveryLayerIsNamedOnceWithFoldedBiasAndNoFusedRelu) {
  for (const std::string& name : ZooModelNames()) {
    SCOPED_TRACE(name);
    const bool cnn = name != "bert_base_layer";
    std::set<std::string> seen;
    for (const ModelLayer& layer : ZooModel(name)) {
      EXPECT_TRUE(seen.insert(layer.name).second) << "duplicate layer name " << layer.name;
      Json json = OperatorToJson(layer.op);
      // The transformer's batch_matmuls have no bias (the CNNs' layers all do).
      EXPECT_EQ(json["bias"], json["op"] == "batch_matmul" ? 0 : 1) << layer.name;
      EXPECT_EQ(json["relu"], 0) << layer.name;
      // Batch 1: a CNN's dense rows and convolution images; the transformer's 128 tokens.
      if (json["op"] == "dense") {
        EXPECT_EQ(json["M"], cnn ? 1 : 128) << layer.name;
      } else if (cnn) {
        EXPECT_EQ(json["N"], 1) << layer.name;
      }
      // Every operator round-trips through the text form users pass to --op.
      EXPECT_EQ(OperatorToString(ParseOperator(OperatorToString(layer.op))),
                OperatorToString(layer.op));
    }
  }
}

std::vector<std::string> Canonical(const std::vector<std::string>& ops) {
  std::vector<std::string> out;
  for (const std::string& op : ops) out.push_back(OperatorToString(ParseOperator(op)));
  return out;
}

TEST(ModelZooTest, ResNet18HasTwelveDistinctTasks) {
  std::vector<ModelTask> tasks = ExtractTasks(ZooModel("resnet18"));
  std::vector<std::string> texts;
  std::vector<int64_t> weights;
  for (const ModelTask& task : tasks) {
    texts.push_back(task.op_text);
    weights.push_back(task.weight);
  }
  EXPECT_EQ(texts, Canonical({
                       "conv2d:N=1,C=3,H=224,W=224,K=64,R=7,S=7,stride=2,pad=3,bias=1",
                       "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1,bias=1",
                       "conv2d:N=1,C=64,H=56,W=56,K=128,R=3,S=3,stride=2,pad=1,bias=1",
                       "conv2d:N=1,C=128,H=28,W=28,K=128,R=3,S=3,stride=1,pad=1,bias=1",
                       "conv2d:N=1,C=64,H=56,W=56,K=128,R=1,S=1,stride=2,pad=0,bias=1",
                       "conv2d:N=1,C=128,H=28,W=28,K=256,R=3,S=3,stride=2,pad=1,bias=1",
                       "conv2d:N=1,C=256,H=14,W=14,K=256,R=3,S=3,stride=1,pad=1,bias=1",
                       "conv2d:N=1,C=128,H=28,W=28,K=256,R=1,S=1,stride=2,pad=0,bias=1",
                       "conv2d:N=1,C=256,H=14,W=14,K=512,R=3,S=3,stride=2,pad=1,bias=1",
                       "conv2d:N=1,C=512,H=7,W=7,K=512,R=3,S=3,stride=1,pad=1,bias=1",
                       "conv2d:N=1,C=256,H=14,W=14,K=512,R=1,S=1,stride=2,pad=0,bias=1",
                       "dense:M=1,N=1000,K=512,bias=1",
                   }));
  EXPECT_EQ(weights, (std::vector<int64_t>{1, 4, 1, 3, 1, 1, 3, 1, 1, 3, 1, 1}));
  EXPECT_EQ(tasks[1].layers, (std::vector<std::string>{"layer1.0.conv1", "layer1.0.conv2",
                                                       "layer1.1.conv1", "layer1.1.conv2"}));
  EXPECT_EQ(tasks[4].layers, (std::vector<std::string>{"layer2.0.downsample"}));
  EXPECT_EQ(tasks[11].layers, (std::vector<std::string>{"fc"}));
}

// The layer named `name` of `model`; fails the test when absent.
std::string LayerOp(const std::string& model, const std::string& name) {
  for (const ModelLayer& layer : ZooModel(model)) {
    if (layer.name == name) return OperatorToString(layer.op);
  }
  ADD_FAILURE() << model << " has no layer " << name;
  return "";
}

std::string Op(const std::string& text) { return OperatorToString(ParseOperator(text)); }

TEST(ModelZooTest, DistinguishingShapes) {
  // ResNet-50 v1.5: the stride sits in the 3×3 conv; the projection shortcut strides as well.
  EXPECT_EQ(LayerOp("resnet50", "layer2.0.conv1"),
            Op("conv2d:N=1,C=256,H=56,W=56,K=128,R=1,S=1,bias=1"));
  EXPECT_EQ(LayerOp("resnet50", "layer2.0.conv2"),
            Op("conv2d:N=1,C=128,H=56,W=56,K=128,R=3,S=3,stride=2,pad=1,bias=1"));
  EXPECT_EQ(LayerOp("resnet50", "layer2.0.downsample"),
            Op("conv2d:N=1,C=256,H=56,W=56,K=512,R=1,S=1,stride=2,bias=1"));
  EXPECT_EQ(LayerOp("resnet50", "layer1.0.downsample"),
            Op("conv2d:N=1,C=64,H=56,W=56,K=256,R=1,S=1,bias=1"));
  EXPECT_EQ(LayerOp("resnet50", "fc"), Op("dense:M=1,N=1000,K=2048,bias=1"));
  // VGG-16: the last conv runs at 14×14, the first dense layer reads 512·7·7.
  EXPECT_EQ(LayerOp("vgg16", "features.28"),
            Op("conv2d:N=1,C=512,H=14,W=14,K=512,R=3,S=3,pad=1,bias=1"));
  EXPECT_EQ(LayerOp("vgg16", "classifier.0"), Op("dense:M=1,N=4096,K=25088,bias=1"));
  // AlexNet (torchvision): 11×11/4 pad 2 → 55×55, then 27 and 13; 256·6·6 into the classifier.
  EXPECT_EQ(LayerOp("alexnet", "features.0"),
            Op("conv2d:N=1,C=3,H=224,W=224,K=64,R=11,S=11,stride=4,pad=2,bias=1"));
  EXPECT_EQ(LayerOp("alexnet", "features.3"),
            Op("conv2d:N=1,C=64,H=27,W=27,K=192,R=5,S=5,pad=2,bias=1"));
  EXPECT_EQ(LayerOp("alexnet", "features.10"),
            Op("conv2d:N=1,C=256,H=13,W=13,K=256,R=3,S=3,pad=1,bias=1"));
  EXPECT_EQ(LayerOp("alexnet", "classifier.1"), Op("dense:M=1,N=4096,K=9216,bias=1"));
  // MobileNet-v2: the first block has no expansion; the second expands 16 → 96 and strides in its
  // depthwise conv; the head is a 1×1 conv to 1280 channels at 7×7.
  EXPECT_EQ(LayerOp("mobilenet_v2", "features.1.depthwise"),
            Op("depthwise_conv2d:N=1,C=32,H=112,W=112,R=3,S=3,pad=1,bias=1"));
  EXPECT_EQ(LayerOp("mobilenet_v2", "features.2.expand"),
            Op("conv2d:N=1,C=16,H=112,W=112,K=96,R=1,S=1,bias=1"));
  EXPECT_EQ(LayerOp("mobilenet_v2", "features.2.depthwise"),
            Op("depthwise_conv2d:N=1,C=96,H=112,W=112,R=3,S=3,stride=2,pad=1,bias=1"));
  EXPECT_EQ(LayerOp("mobilenet_v2", "features.17.project"),
            Op("conv2d:N=1,C=960,H=7,W=7,K=320,R=1,S=1,bias=1"));
  EXPECT_EQ(LayerOp("mobilenet_v2", "features.18"),
            Op("conv2d:N=1,C=320,H=7,W=7,K=1280,R=1,S=1,bias=1"));
  EXPECT_EQ(LayerOp("mobilenet_v2", "classifier.1"), Op("dense:M=1,N=1000,K=1280,bias=1"));
}

TEST(ModelZooTest, BertBaseLayerHasTheTransformerShapes) {
  std::vector<ModelTask> tasks = ExtractTasks(ZooModel("bert_base_layer"));
  std::vector<std::string> texts;
  std::vector<int64_t> weights;
  for (const ModelTask& task : tasks) {
    texts.push_back(task.op_text);
    weights.push_back(task.weight);
  }
  EXPECT_EQ(texts, Canonical({
                       "dense:M=128,N=768,K=768,bias=1",
                       "batch_matmul:B=12,M=128,N=128,K=64",
                       "batch_matmul:B=12,M=128,N=64,K=128",
                       "dense:M=128,N=3072,K=768,bias=1",
                       "dense:M=128,N=768,K=3072,bias=1",
                   }));
  EXPECT_EQ(weights, (std::vector<int64_t>{4, 1, 1, 1, 1}));
  EXPECT_EQ(tasks[0].layers,
            (std::vector<std::string>{"attention.self.query", "attention.self.key",
                                      "attention.self.value", "attention.output.dense"}));
  EXPECT_EQ(CanonicalZooModelName("BERT-base-layer"), "bert_base_layer");
}

TEST(ModelZooTest, NamesMatchLoosely) {
  EXPECT_EQ(CanonicalZooModelName("ResNet-18"), "resnet18");
  EXPECT_EQ(CanonicalZooModelName("MobileNetV2"), "mobilenet_v2");
  EXPECT_EQ(CanonicalZooModelName("mobilenet-v2"), "mobilenet_v2");
  EXPECT_EQ(ZooModel("VGG_16").size(), 16u);
}

TEST(ModelZooTest, UnknownModelListsTheKnownOnes) {
  try {
    ZooModel("resnet19");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "unknown model 'resnet19'; known: resnet18, resnet50, vgg16, alexnet, "
                 "mobilenet_v2, bert_base_layer");
  }
}

TEST(ModelZooTest, ExtractTasksMergesIdenticalOperatorsInFirstOccurrenceOrder) {
  Operator a = ParseOperator("dense:M=1,N=8,K=4");
  Operator b = ParseOperator("dense:M=1,N=8,K=4,bias=1");  // differs in the bias only
  std::vector<ModelTask> tasks = ExtractTasks(
      {{"x", b}, {"y", a}, {"z", b}, {"w", ParseOperator("dense:K=4,N=8,M=1,bias=1")}});
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_EQ(tasks[0].op_text, OperatorToString(b));
  EXPECT_EQ(tasks[0].weight, 3);
  EXPECT_EQ(tasks[0].layers, (std::vector<std::string>{"x", "z", "w"}));
  EXPECT_EQ(tasks[1].weight, 1);
  EXPECT_DOUBLE_EQ(tasks[0].TotalFlops(), 3 * 2.0 * 8 * 4);
  EXPECT_TRUE(ExtractTasks({}).empty());
}

TEST(ModelZooTest, GlobalBudgetIsSharedEvenlyAndByWork) {
  std::vector<ModelTask> tasks = ExtractTasks(ZooModel("resnet18"));
  for (int64_t total : {12, 13, 100, 1200, 5000}) {
    SCOPED_TRACE(total);
    std::vector<int64_t> shares = SplitGlobalBudget(tasks, total);
    ASSERT_EQ(shares.size(), tasks.size());
    int64_t sum = 0;
    for (int64_t share : shares) {
      EXPECT_GE(share, std::max<int64_t>(1, total / (4 * 12)));
      sum += share;
    }
    EXPECT_EQ(sum, total);
    // More work never gets fewer measurements.
    for (size_t i = 0; i < tasks.size(); ++i) {
      for (size_t j = 0; j < tasks.size(); ++j) {
        if (tasks[i].TotalFlops() > tasks[j].TotalFlops()) {
          EXPECT_GE(shares[i], shares[j]);
        }
      }
    }
  }
  // 1200: 25 each evenly; of the remaining 900, layer1's four 3×3 convs (25.5 % of the work) get
  // 229.4 → 229 or 230, and the dense layer (0.03 %) rounds to nothing more than its 25.
  std::vector<int64_t> shares = SplitGlobalBudget(tasks, 1200);
  EXPECT_NEAR(shares[1], 25 + 900 * tasks[1].TotalFlops() / ModelFlops(ZooModel("resnet18")), 1);
  EXPECT_EQ(shares[11], 25);
  EXPECT_EQ(SplitGlobalBudget(tasks, 12), std::vector<int64_t>(12, 1));
}

TEST(ModelZooTest, GlobalBudgetBelowTheTaskCountIsAnError) {
  std::vector<ModelTask> tasks = ExtractTasks(ZooModel("alexnet"));
  try {
    SplitGlobalBudget(tasks, 7);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--global-budget"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("(8)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace glimpse
