// The zoo's CNNs as whole model graphs (glimpse/model_graph.h ZooGraph): the ops torchvision's
// ONNX export of each architecture has, with batch norms folded into the convolutions' biases,
// so that a zoo model goes through the same path as an ONNX file — fused layers, tasks, compile.
// Shapes and layer names are those of glimpse/model_zoo.h; weights are seeded random numbers
// (He-uniform initialisation), as torchvision's models with weights=None.
#include <fmt/format.h>

#include <cmath>

#include "glimpse/error.h"
#include "glimpse/model_graph.h"
#include "glimpse/random.h"

namespace glimpse {
namespace {

class GraphBuilder {
 public:
  GraphBuilder(const std::string& name, uint64_t seed, bool weights)
      : rng_(seed), weights_(weights) {
    graph_.name = name;
  }

  int Input(const std::string& name, std::vector<int64_t> shape) {
    const int t = Tensor(name, std::move(shape));
    graph_.inputs.push_back(t);
    return t;
  }

  // A convolution with a bias (the folded batch norm), `group` groups.
  int Conv(int x, const std::string& name, int64_t k, int64_t kernel, int64_t stride, int64_t pad,
           int64_t group = 1) {
    const auto& in = Shape(x);
    const int64_t fan_in = in[1] / group * kernel * kernel;
    GraphOp op;
    op.kind = GraphOpKind::kConv;
    op.name = name;
    op.strides = {stride, stride};
    op.pads = {pad, pad, pad, pad};
    op.group = group;
    op.inputs = {x,
                 Constant(name + ".weight", {k, in[1] / group, kernel, kernel},
                          std::sqrt(2.0 / static_cast<double>(fan_in))),
                 Constant(name + ".bias", {k}, 0.05)};
    return Emit(std::move(op));
  }

  int Dense(int x, const std::string& name, int64_t n) {
    const int64_t k = Shape(x).back();
    GraphOp op;
    op.kind = GraphOpKind::kDense;
    op.name = name;
    op.inputs = {x, Constant(name + ".weight", {n, k}, std::sqrt(1.0 / static_cast<double>(k))),
                 Constant(name + ".bias", {n}, 0.05)};
    return Emit(std::move(op));
  }

  int Relu(int x, const std::string& name) { return Unary(GraphOpKind::kRelu, x, name); }
  int Relu6(int x, const std::string& name) {
    GraphOp op;
    op.kind = GraphOpKind::kClip;
    op.name = name;
    op.inputs = {x};
    op.clip_min = 0.0f;
    op.clip_max = 6.0f;
    return Emit(std::move(op));
  }
  int Add(int a, int b, const std::string& name) {
    GraphOp op;
    op.kind = GraphOpKind::kAdd;
    op.name = name;
    op.inputs = {a, b};
    return Emit(std::move(op));
  }
  int MaxPool(int x, const std::string& name, int64_t kernel, int64_t stride, int64_t pad) {
    GraphOp op;
    op.kind = GraphOpKind::kMaxPool;
    op.name = name;
    op.inputs = {x};
    op.kernel = {kernel, kernel};
    op.strides = {stride, stride};
    op.pads = {pad, pad, pad, pad};
    return Emit(std::move(op));
  }
  int GlobalAveragePool(int x, const std::string& name) {
    return Unary(GraphOpKind::kGlobalAveragePool, x, name);
  }
  int Flatten(int x, const std::string& name) { return Unary(GraphOpKind::kFlatten, x, name); }

  const std::vector<int64_t>& Shape(int t) const { return graph_.tensors[t].shape; }

  ModelGraph Take(int output) {
    graph_.outputs = {output};
    ValidateModelGraph(graph_);
    return std::move(graph_);
  }

 private:
  int Tensor(const std::string& name, std::vector<int64_t> shape) {
    GraphTensor tensor;
    tensor.name = name;
    tensor.shape = std::move(shape);
    graph_.tensors.push_back(std::move(tensor));
    return static_cast<int>(graph_.tensors.size()) - 1;
  }
  // Uniform values of deviation `std` (on ±√3·std, as torch's kaiming_uniform_), from the seeded
  // stream: cheap enough for VGG-16's 138 million.
  int Constant(const std::string& name, std::vector<int64_t> shape, double std) {
    const int t = Tensor(name, std::move(shape));
    GraphTensor& tensor = graph_.tensors[t];
    tensor.constant = true;
    tensor.data.resize(tensor.Elements());
    if (!weights_) return t;
    const double bound = std::sqrt(3.0) * std;
    for (float& v : tensor.data) v = static_cast<float>(bound * (2.0 * UniformUnit(rng_) - 1.0));
    return t;
  }
  int Unary(GraphOpKind kind, int x, const std::string& name) {
    GraphOp op;
    op.kind = kind;
    op.name = name;
    op.inputs = {x};
    return Emit(std::move(op));
  }
  int Emit(GraphOp op) {
    op.source = GraphOpKindName(op.kind);
    op.output = Tensor(op.name + ":out", {});
    graph_.tensors[op.output].shape = OpOutputShape(graph_, op);
    graph_.ops.push_back(std::move(op));
    return graph_.ops.back().output;
  }

  ModelGraph graph_;
  Rng rng_;
  bool weights_;
};

std::string Dot(const std::string& a, int64_t b) { return a + "." + std::to_string(b); }

int ResNetStem(GraphBuilder& g) {
  int x = g.Input("input", {1, 3, 224, 224});
  x = g.Relu(g.Conv(x, "conv1", 64, 7, 2, 3), "relu");
  return g.MaxPool(x, "maxpool", 3, 2, 1);
}

int ResNetHead(GraphBuilder& g, int x) {
  x = g.Flatten(g.GlobalAveragePool(x, "avgpool"), "flatten");
  return g.Dense(x, "fc", 1000);
}

ModelGraph ResNet(const std::string& name, const std::vector<int>& blocks, bool bottleneck,
                  uint64_t seed, bool weights) {
  GraphBuilder g(name, seed, weights);
  int x = ResNetStem(g);
  for (size_t stage = 0; stage < blocks.size(); ++stage) {
    const int64_t width = int64_t{64} << stage, out = bottleneck ? 4 * width : width;
    for (int b = 0; b < blocks[stage]; ++b) {
      const std::string p = Dot("layer" + std::to_string(stage + 1), b);
      const int64_t stride = stage > 0 && b == 0 ? 2 : 1;
      int y;
      if (bottleneck) {
        y = g.Relu(g.Conv(x, p + ".conv1", width, 1, 1, 0), p + ".relu1");
        y = g.Relu(g.Conv(y, p + ".conv2", width, 3, stride, 1), p + ".relu2");
        y = g.Conv(y, p + ".conv3", out, 1, 1, 0);
      } else {
        y = g.Relu(g.Conv(x, p + ".conv1", out, 3, stride, 1), p + ".relu1");
        y = g.Conv(y, p + ".conv2", out, 3, 1, 1);
      }
      const int shortcut =
          stride != 1 || g.Shape(x)[1] != out ? g.Conv(x, p + ".downsample", out, 1, stride, 0) : x;
      x = g.Relu(g.Add(y, shortcut, p + ".add"), p + ".relu");
    }
  }
  return g.Take(ResNetHead(g, x));
}

// Convolutions (each with its ReLU) per stage, a 2×2/2 max pool after each, then the classifier.
ModelGraph Vgg16(uint64_t seed, bool weights) {
  GraphBuilder g("vgg16", seed, weights);
  int x = g.Input("input", {1, 3, 224, 224});
  const std::vector<std::vector<int>> stages = {
      {64, 64}, {128, 128}, {256, 256, 256}, {512, 512, 512}, {512, 512, 512}};
  int64_t index = 0;
  for (const std::vector<int>& stage : stages) {
    for (int channels : stage) {
      x = g.Relu(g.Conv(x, Dot("features", index), channels, 3, 1, 1), Dot("features", index + 1));
      index += 2;
    }
    x = g.MaxPool(x, Dot("features", index), 2, 2, 0);
    index += 1;
  }
  // The adaptive 7×7 average pool is the identity on a 7×7 map; dropout is the identity.
  x = g.Flatten(x, "flatten");
  x = g.Relu(g.Dense(x, "classifier.0", 4096), "classifier.1");
  x = g.Relu(g.Dense(x, "classifier.3", 4096), "classifier.4");
  return g.Take(g.Dense(x, "classifier.6", 1000));
}

ModelGraph AlexNet(uint64_t seed, bool weights) {
  GraphBuilder g("alexnet", seed, weights);
  int x = g.Input("input", {1, 3, 224, 224});
  x = g.Relu(g.Conv(x, "features.0", 64, 11, 4, 2), "features.1");
  x = g.MaxPool(x, "features.2", 3, 2, 0);
  x = g.Relu(g.Conv(x, "features.3", 192, 5, 1, 2), "features.4");
  x = g.MaxPool(x, "features.5", 3, 2, 0);
  x = g.Relu(g.Conv(x, "features.6", 384, 3, 1, 1), "features.7");
  x = g.Relu(g.Conv(x, "features.8", 256, 3, 1, 1), "features.9");
  x = g.Relu(g.Conv(x, "features.10", 256, 3, 1, 1), "features.11");
  x = g.MaxPool(x, "features.12", 3, 2, 0);  // 6×6: the adaptive 6×6 pool is the identity
  x = g.Flatten(x, "flatten");
  x = g.Relu(g.Dense(x, "classifier.1", 4096), "classifier.2");
  x = g.Relu(g.Dense(x, "classifier.4", 4096), "classifier.5");
  return g.Take(g.Dense(x, "classifier.6", 1000));
}

// Inverted residual blocks (expand 1×1 + ReLU6, depthwise 3×3 + ReLU6, project 1×1), the
// residual addition where stride 1 keeps the channels.
ModelGraph MobileNetV2(uint64_t seed, bool weights) {
  struct Row {
    int64_t t, c, n, s;
  };
  const std::vector<Row> rows = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                 {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  GraphBuilder g("mobilenet_v2", seed, weights);
  int x = g.Input("input", {1, 3, 224, 224});
  x = g.Relu6(g.Conv(x, "features.0", 32, 3, 2, 1), "features.0.relu6");
  int64_t index = 1;
  for (const Row& row : rows) {
    for (int64_t i = 0; i < row.n; ++i, ++index) {
      const std::string p = Dot("features", index);
      const int64_t in = g.Shape(x)[1], hidden = in * row.t, stride = i == 0 ? row.s : 1;
      int y = x;
      if (row.t != 1) y = g.Relu6(g.Conv(y, p + ".expand", hidden, 1, 1, 0), p + ".expand.relu6");
      y = g.Relu6(g.Conv(y, p + ".depthwise", hidden, 3, stride, 1, hidden),
                  p + ".depthwise.relu6");
      y = g.Conv(y, p + ".project", row.c, 1, 1, 0);
      x = stride == 1 && in == row.c ? g.Add(x, y, p + ".add") : y;
    }
  }
  x = g.Relu6(g.Conv(x, Dot("features", index), 1280, 1, 1, 0), Dot("features", index) + ".relu6");
  x = g.Flatten(g.GlobalAveragePool(x, "avgpool"), "flatten");
  return g.Take(g.Dense(x, "classifier.1", 1000));
}

}  // namespace

bool HasZooGraph(const std::string& canonical_name) {
  return canonical_name == "resnet18" || canonical_name == "resnet50" ||
         canonical_name == "vgg16" || canonical_name == "alexnet" ||
         canonical_name == "mobilenet_v2";
}

ModelGraph ZooGraph(const std::string& name, uint64_t seed, bool weights) {
  const std::string canonical = CanonicalZooModelName(name);
  ModelGraph graph;
  if (canonical == "resnet18")
    graph = ResNet("resnet18", {2, 2, 2, 2}, false, seed, weights);
  else if (canonical == "resnet50")
    graph = ResNet("resnet50", {3, 4, 6, 3}, true, seed, weights);
  else if (canonical == "vgg16")
    graph = Vgg16(seed, weights);
  else if (canonical == "alexnet")
    graph = AlexNet(seed, weights);
  else if (canonical == "mobilenet_v2")
    graph = MobileNetV2(seed, weights);
  else {
    throw Error(
        fmt::format("zoo model '{}' is a list of its matrix products, not a runnable "
                    "graph; models with graphs: resnet18, resnet50, vgg16, alexnet, "
                    "mobilenet_v2",
                    canonical));
  }
  graph.source = weights
                     ? fmt::format(
                           "the zoo's {} (glimpse/model_zoo.h; seeded random weights, "
                           "seed {})",
                           canonical, seed)
                     : fmt::format("the zoo's {} (glimpse/model_zoo.h; shapes only)", canonical);
  return graph;
}

}  // namespace glimpse
