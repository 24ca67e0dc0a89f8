// The model zoo (see glimpse/model_zoo.h): layer lists built from each paper's stage tables.
#include "glimpse/model_zoo.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <utility>

#include "glimpse/error.h"

namespace glimpse {

namespace {

// Appends layers while tracking the feature map (channels × size × size) they run on.
class LayerList {
 public:
  LayerList(int64_t channels, int64_t size) : channels_(channels), size_(size) {}

  // A convolution (batch norm folded into its bias) from the current feature map to `k` channels.
  void Conv(const std::string& name, int64_t k, int64_t kernel, int64_t stride, int64_t pad) {
    Conv2dShape c;
    c.n = 1, c.c = channels_, c.h = size_, c.w = size_, c.k = k, c.r = kernel, c.s = kernel;
    c.stride = stride, c.pad = pad, c.bias = true;
    layers_.push_back({name, c});
    channels_ = k;
    size_ = c.OutH();
  }
  // A 3×3 depthwise convolution (channel multiplier 1, batch norm folded into its bias).
  void Depthwise(const std::string& name, int64_t stride) {
    DepthwiseConv2dShape d;
    d.n = 1, d.c = channels_, d.h = size_, d.w = size_, d.r = 3, d.s = 3;
    d.stride = stride, d.pad = 1, d.bias = true;
    layers_.push_back({name, d});
    size_ = d.OutH();
  }
  // A fully connected layer on the flattened feature map (batch 1: M = 1).
  void Dense(const std::string& name, int64_t out) {
    layers_.push_back({name, DenseShape{1, out, channels_ * size_ * size_, true, false}});
    channels_ = out;
    size_ = 1;
  }
  // Pooling changes the size only and is not tuned: (size + 2·pad − window) / stride + 1.
  void Pool(int64_t window, int64_t stride, int64_t pad = 0) {
    size_ = (size_ + 2 * pad - window) / stride + 1;
  }
  void SetSize(int64_t size) { size_ = size; }  // adaptive pooling
  void SetChannels(int64_t channels) { channels_ = channels; }
  int64_t channels() const { return channels_; }
  int64_t size() const { return size_; }
  std::vector<ModelLayer> Take() { return std::move(layers_); }

 private:
  int64_t channels_;
  int64_t size_;
  std::vector<ModelLayer> layers_;
};

std::string Dot(const std::string& a, int64_t b) { return a + "." + std::to_string(b); }

// ResNet stem shared by both depths: 7×7/2 conv to 64 channels, then a 3×3/2 max pool (224 → 56).
LayerList ResNetStem() {
  LayerList net(3, 224);
  net.Conv("conv1", 64, 7, 2, 3);
  net.Pool(3, 2, 1);
  return net;
}

// Residual networks with basic blocks (two 3×3 convs) per stage, He et al. Table 1.
std::vector<ModelLayer> ResNetBasic(const std::vector<int>& blocks) {
  LayerList net = ResNetStem();
  for (size_t stage = 0; stage < blocks.size(); ++stage) {
    const int64_t out = int64_t{64} << stage;
    for (int b = 0; b < blocks[stage]; ++b) {
      const std::string prefix = Dot("layer" + std::to_string(stage + 1), b);
      const int64_t stride = stage > 0 && b == 0 ? 2 : 1;
      const int64_t in = net.channels(), size = net.size();
      net.Conv(prefix + ".conv1", out, 3, stride, 1);
      net.Conv(prefix + ".conv2", out, 3, 1, 1);
      if (stride != 1 || in != out) {  // the projection shortcut reads the block's input
        net.SetChannels(in), net.SetSize(size);
        net.Conv(prefix + ".downsample", out, 1, stride, 0);
      }
    }
  }
  net.SetSize(1);  // global average pool
  net.Dense("fc", 1000);
  return net.Take();
}

// Residual networks with bottleneck blocks (1×1, 3×3, 1×1 ×4 channels). torchvision's v1.5
// places the stage's stride in the 3×3 conv (conv2); the projection shortcut strides too.
std::vector<ModelLayer> ResNetBottleneck(const std::vector<int>& blocks) {
  LayerList net = ResNetStem();
  for (size_t stage = 0; stage < blocks.size(); ++stage) {
    const int64_t width = int64_t{64} << stage, out = 4 * width;
    for (int b = 0; b < blocks[stage]; ++b) {
      const std::string prefix = Dot("layer" + std::to_string(stage + 1), b);
      const int64_t stride = stage > 0 && b == 0 ? 2 : 1;
      const int64_t in = net.channels(), size = net.size();
      net.Conv(prefix + ".conv1", width, 1, 1, 0);
      net.Conv(prefix + ".conv2", width, 3, stride, 1);
      net.Conv(prefix + ".conv3", out, 1, 1, 0);
      if (stride != 1 || in != out) {  // the projection shortcut reads the block's input
        net.SetChannels(in), net.SetSize(size);
        net.Conv(prefix + ".downsample", out, 1, stride, 0);
      }
    }
  }
  net.SetSize(1);
  net.Dense("fc", 1000);
  return net.Take();
}

std::vector<ModelLayer> ResNet18() { return ResNetBasic({2, 2, 2, 2}); }
std::vector<ModelLayer> ResNet50() { return ResNetBottleneck({3, 4, 6, 3}); }

// VGG-16, configuration D: five stages of 3×3 pad-1 convs, each followed by a 2×2/2 max pool,
// then three dense layers.
// Names are torchvision's indices into `features` (conv, ReLU, …, pool) and `classifier`.
std::vector<ModelLayer> Vgg16() {
  LayerList net(3, 224);
  const std::vector<std::vector<int>> stages = {
      {64, 64}, {128, 128}, {256, 256, 256}, {512, 512, 512}, {512, 512, 512}};
  int64_t index = 0;
  for (const std::vector<int>& stage : stages) {
    for (int channels : stage) {
      net.Conv(Dot("features", index), channels, 3, 1, 1);
      index += 2;  // the conv and its ReLU
    }
    net.Pool(2, 2);
    index += 1;
  }
  net.Dense("classifier.0", 4096);  // 512·7·7 → 4096 (then ReLU, dropout)
  net.Dense("classifier.3", 4096);
  net.Dense("classifier.6", 1000);
  return net.Take();
}

// AlexNet as torchvision builds it (single tower). Feature maps: 224 → 55 (11×11/4, pad 2) → 27
// (3×3/2 pool) → 27 → 13 (pool) → 13 → 6 (pool; the adaptive 6×6 average pool keeps it), so the
// classifier reads 256·6·6 = 9216 values.
std::vector<ModelLayer> AlexNet() {
  LayerList net(3, 224);
  net.Conv("features.0", 64, 11, 4, 2);
  net.Pool(3, 2);
  net.Conv("features.3", 192, 5, 1, 2);
  net.Pool(3, 2);
  net.Conv("features.6", 384, 3, 1, 1);
  net.Conv("features.8", 256, 3, 1, 1);
  net.Conv("features.10", 256, 3, 1, 1);
  net.Pool(3, 2);
  net.Dense("classifier.1", 4096);
  net.Dense("classifier.4", 4096);
  net.Dense("classifier.6", 1000);
  return net.Take();
}

// MobileNet-v2 (width 1.0), Sandler et al. Table 2: rows (expansion t, channels c, repeats n,
// stride s) of inverted residual blocks between a 3×3/2 stem and a 1×1 conv to 1280 channels.
std::vector<ModelLayer> MobileNetV2() {
  struct Row {
    int64_t t, c, n, s;
  };
  const std::vector<Row> rows = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                 {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  LayerList net(3, 224);
  net.Conv("features.0", 32, 3, 2, 1);  // 224 → 112
  int64_t index = 1;
  for (const Row& row : rows) {
    for (int64_t i = 0; i < row.n; ++i, ++index) {
      const std::string prefix = Dot("features", index);
      const int64_t hidden = net.channels() * row.t;
      if (row.t != 1) net.Conv(prefix + ".expand", hidden, 1, 1, 0);
      net.Depthwise(prefix + ".depthwise", i == 0 ? row.s : 1);
      net.Conv(prefix + ".project", row.c, 1, 1, 0);
    }
  }
  net.Conv(Dot("features", index), 1280, 1, 1, 0);
  net.SetSize(1);  // global average pool
  net.Dense("classifier.1", 1000);
  return net.Take();
}

// One BERT-base encoder layer at sequence 128 (batch 1): the Q, K and V projections, the attention
// scores Q·Kᵀ and context P·V per head, the output projection and the feed-forward pair. Names
// follow Hugging Face's BertLayer module paths; the two products are named after what they make.
std::vector<ModelLayer> BertBaseLayer() {
  const int64_t seq = 128, hidden = 768, heads = 12, head = 64, ffn = 3072;
  auto dense = [&](int64_t n, int64_t k) -> Operator { return DenseShape{seq, n, k, true, false}; };
  return {
      {"attention.self.query", dense(hidden, hidden)},
      {"attention.self.key", dense(hidden, hidden)},
      {"attention.self.value", dense(hidden, hidden)},
      {"attention.self.scores", BatchMatmulShape{heads, seq, seq, head, false, false}},
      {"attention.self.context", BatchMatmulShape{heads, seq, head, seq, false, false}},
      {"attention.output.dense", dense(hidden, hidden)},
      {"intermediate.dense", dense(ffn, hidden)},
      {"output.dense", dense(hidden, ffn)},
  };
}

struct ZooEntry {
  ZooModelInfo info;
  std::vector<ModelLayer> (*make)();
};

const std::vector<ZooEntry>& Entries() {
  static const std::vector<ZooEntry> kEntries = {
      {{"resnet18", "ResNet-18 (He et al. 2016; torchvision)"}, ResNet18},
      {{"resnet50", "ResNet-50 (He et al. 2016; torchvision v1.5, stride in the 3x3 conv)"},
       ResNet50},
      {{"vgg16", "VGG-16, configuration D (Simonyan & Zisserman 2015; torchvision)"}, Vgg16},
      {{"alexnet", "AlexNet (Krizhevsky et al. 2012; torchvision's single-tower variant)"},
       AlexNet},
      {{"mobilenet_v2", "MobileNet-v2, width 1.0 (Sandler et al. 2018; torchvision)"}, MobileNetV2},
      {{"bert_base_layer",
        "one BERT-base encoder layer, sequence 128: dense and batch_matmul only (Devlin et al. "
        "2019)"},
       BertBaseLayer},
  };
  return kEntries;
}

// Lower case without '-', '_' and spaces: "ResNet-18" and "resnet18" are the same model.
std::string Normalised(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == '-' || c == '_' || c == ' ') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

const ZooEntry& Find(const std::string& name) {
  for (const ZooEntry& entry : Entries()) {
    if (Normalised(entry.info.name) == Normalised(name)) return entry;
  }
  std::string known;
  for (const ZooEntry& entry : Entries()) known += (known.empty() ? "" : ", ") + entry.info.name;
  throw Error("unknown model '" + name + "'; known: " + known);
}

}  // namespace

std::vector<ZooModelInfo> ZooModels() {
  std::vector<ZooModelInfo> out;
  for (const ZooEntry& entry : Entries()) out.push_back(entry.info);
  return out;
}

std::vector<std::string> ZooModelNames() {
  std::vector<std::string> out;
  for (const ZooEntry& entry : Entries()) out.push_back(entry.info.name);
  return out;
}

std::string CanonicalZooModelName(const std::string& name) { return Find(name).info.name; }

std::vector<ModelLayer> ZooModel(const std::string& name) { return Find(name).make(); }

std::vector<ModelTask> ExtractTasks(const std::vector<ModelLayer>& layers) {
  std::vector<ModelTask> tasks;
  std::map<std::string, size_t> position;  // op text → index in `tasks`
  for (const ModelLayer& layer : layers) {
    std::string text = OperatorToString(layer.op);
    auto [it, inserted] = position.emplace(text, tasks.size());
    if (inserted) tasks.push_back({layer.op, std::move(text), 0, {}});
    ModelTask& task = tasks[it->second];
    ++task.weight;
    task.layers.push_back(layer.name);
  }
  return tasks;
}

double ModelFlops(const std::vector<ModelLayer>& layers) {
  double flops = 0;
  for (const ModelLayer& layer : layers) flops += OperatorFlops(layer.op);
  return flops;
}

std::vector<int64_t> SplitGlobalBudget(const std::vector<ModelTask>& tasks, int64_t total) {
  const auto n = static_cast<int64_t>(tasks.size());
  if (n == 0) throw Error("--global-budget: there are no tasks to share it");
  if (total < n) {
    throw Error("--global-budget (total measurements) must be at least the number of tasks (" +
                std::to_string(n) + "), got " + std::to_string(total));
  }
  const int64_t even = std::max<int64_t>(1, total / (4 * n));
  const int64_t rest = total - even * n;
  double work = 0;
  for (const ModelTask& task : tasks) work += task.TotalFlops();
  std::vector<int64_t> shares(tasks.size(), even);
  std::vector<std::pair<double, size_t>> remainders;  // (−fraction, index): largest first
  int64_t given = 0;
  for (size_t i = 0; i < tasks.size(); ++i) {
    double quota = static_cast<double>(rest) * tasks[i].TotalFlops() / work;
    auto whole = static_cast<int64_t>(std::floor(quota));
    shares[i] += whole;
    given += whole;
    remainders.push_back({-(quota - static_cast<double>(whole)), i});
  }
  std::sort(remainders.begin(), remainders.end());
  for (size_t j = 0; given < rest; ++j, ++given) ++shares[remainders[j % n].second];
  return shares;
}

}  // namespace glimpse
