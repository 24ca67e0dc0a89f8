// glimpse/model_zoo.h — the tunable layers of well-known CNNs, and the distinct operators (tasks)
// a whole model is tuned as.
//
// Every CNN is at batch 1 with a 3×224×224 input (NCHW), float32, as for inference. Shapes come
// from the published architectures as torchvision builds them:
//   resnet18, resnet50  He et al., "Deep Residual Learning for Image Recognition", CVPR 2016;
//                       torchvision's v1.5 bottleneck (ResNet-50) puts the stride in the 3×3 conv.
//   vgg16               Simonyan & Zisserman, ICLR 2015, configuration D (13 conv + 3 dense).
//   alexnet             Krizhevsky et al. 2012, as torchvision's single-tower variant (64, 192,
//                       384, 256, 256 channels; 11×11/4 pad 2 first conv; 6×6×256 → 4096 → 4096 →
//                       1000 classifier).
//   mobilenet_v2        Sandler et al., "MobileNetV2", CVPR 2018, width multiplier 1.0.
//   bert_base_layer     one encoder layer of BERT-base (Devlin et al. 2019): sequence 128, batch 1,
//                       hidden 768, 12 heads of 64, feed-forward 3072; its dense and batch_matmul
//                       operators (names after Hugging Face's module paths).
//
// Conventions (docs/cpu-tuning.md, "The model zoo"):
//   - Only convolutions and dense (fully connected) layers are listed: they are what is tuned.
//     ReLU/ReLU6, residual additions, pooling, flattening and dropout are cheap elementwise or
//     reduction ops that are not tuned here, and they are left out of every figure below.
//   - Batch normalisation is folded into the preceding convolution at inference, which leaves a
//     per-channel bias: every convolution has bias=1. Dense layers have their own bias (bias=1).
//     No layer fuses its activation (relu=0).
//   - The transformer layer keeps its matrix products only: the scaling by 1/√64, the attention
//     mask, softmax, GELU, the residual additions, both LayerNorms, dropout and the reshapes of the
//     heads are left out. Its dense layers have bias=1 (M = 128 tokens), its two batch_matmuls
//     none; the attention context reads the values transposed (batch_matmul's B is [B,N,K]: V as
//     [heads, 64, 128]), as a layer that stores V head-major and transposed would.
//   - Layer names follow torchvision's module paths ("layer2.0.conv1", "layer2.0.downsample",
//     "fc", "features.0", "classifier.1"); MobileNet-v2's blocks name their parts "expand",
//     "depthwise" and "project" ("features.3.depthwise").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "glimpse/ops.h"

namespace glimpse {

// One tunable layer of a model.
struct ModelLayer {
  std::string name;  // e.g. "layer2.0.conv1"
  Operator op;
};

// A model of the zoo: its canonical name and a one-line description with the source of its shapes.
struct ZooModelInfo {
  std::string name;         // "resnet18"
  std::string description;  // "ResNet-18 (He et al. 2016; torchvision)"
};

// The known models, in a fixed order: resnet18, resnet50, vgg16, alexnet, mobilenet_v2,
// bert_base_layer.
std::vector<ZooModelInfo> ZooModels();
std::vector<std::string> ZooModelNames();

// The tunable layers of model `name`, in execution order. Names are matched ignoring case, '-' and
// '_' ("ResNet-18", "mobilenet-v2" and "MobileNetV2" are accepted). Throws Error "unknown model
// 'x'; known: resnet18, resnet50, vgg16, alexnet, mobilenet_v2, bert_base_layer" otherwise.
std::vector<ModelLayer> ZooModel(const std::string& name);
// The canonical name of `name` (as ZooModel matches it); throws the same Error.
std::string CanonicalZooModelName(const std::string& name);

// A distinct operator of a model: what one tuning task optimises.
struct ModelTask {
  Operator op;
  std::string op_text;              // OperatorToString(op): the identity used to deduplicate
  int64_t weight = 0;               // how many layers compute this operator
  std::vector<std::string> layers;  // their names, in model order
  double Flops() const { return OperatorFlops(op); }  // one execution (2 · multiply-adds)
  double TotalFlops() const { return static_cast<double>(weight) * Flops(); }
};

// The distinct operators of `layers` (identical OperatorToString), in order of first occurrence;
// weights sum to layers.size().
std::vector<ModelTask> ExtractTasks(const std::vector<ModelLayer>& layers);

// Σ OperatorFlops over the layers (2 · multiply-adds; elementwise ops not counted).
double ModelFlops(const std::vector<ModelLayer>& layers);

// Splits a measurement budget `total` over `tasks`: a quarter of it evenly (⌊total / 4n⌋ each, at
// least 1), the rest in proportion to each task's TotalFlops() (weight × FLOPs, its share of the
// model's arithmetic and so, at similar efficiency, of the model's latency), rounded by largest
// remainders (ties to the earlier task). The shares sum to `total` exactly. The even part keeps
// small operators tunable: ResNet-18's dense layer is 0.03 % of its work. Throws Error (naming
// --global-budget) when total < tasks.size() or tasks is empty.
std::vector<int64_t> SplitGlobalBudget(const std::vector<ModelTask>& tasks, int64_t total);

}  // namespace glimpse
