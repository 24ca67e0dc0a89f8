// ONNX export: a graph with every op kind written and read back by ImportOnnx computes the same
// outputs; a zoo CNN comes back as the same tunable layers (so its tuning records serve the
// exported file); an unwritable path is an error that names it.
#include "glimpse/onnx_export.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <set>

#include "glimpse/error.h"
#include "glimpse/onnx_import.h"
#include "glimpse/random.h"
#include "graph_builders.h"
#include "test_paths.h"

namespace glimpse {
namespace {

namespace fs = std::filesystem;
using testing::AddTensor;
using testing::MakeOp;

// Every GraphOpKind at least once: a ReLU6 convolution, both poolings, a residual-style add, a
// depthwise convolution, a concat, global pooling, a 2-D dense (Gemm) into a softmax, and a
// reshape into a 3-D dense (MatMul + Add) and a batched product.
ModelGraph EveryKindGraph() {
  ModelGraph g;
  g.name = "every_kind";
  const int x = AddTensor(g, "x", {1, 4, 8, 8});
  const int w1 = AddTensor(g, "w1", {8, 4, 3, 3}, true), b1 = AddTensor(g, "b1", {8}, true);
  const int c1 = AddTensor(g, "c1", {1, 8, 8, 8}), r1 = AddTensor(g, "r1", {1, 8, 8, 8});
  const int p1 = AddTensor(g, "p1", {1, 8, 4, 4}), p2 = AddTensor(g, "p2", {1, 8, 4, 4});
  const int a1 = AddTensor(g, "a1", {1, 8, 4, 4});
  const int wd = AddTensor(g, "wd", {8, 1, 3, 3}, true), d1 = AddTensor(g, "d1", {1, 8, 4, 4});
  const int r2 = AddTensor(g, "r2", {1, 8, 4, 4}), cat = AddTensor(g, "cat", {1, 16, 4, 4});
  const int gap = AddTensor(g, "gap", {1, 16, 1, 1}), flat = AddTensor(g, "flat", {1, 16});
  const int wf = AddTensor(g, "wf", {10, 16}, true), bf = AddTensor(g, "bf", {10}, true);
  const int logits = AddTensor(g, "logits", {1, 10}), probs = AddTensor(g, "probs", {1, 10});
  const int rs = AddTensor(g, "rs", {1, 16, 16});
  const int w3 = AddTensor(g, "w3", {5, 16}, true), b3 = AddTensor(g, "b3", {5}, true);
  const int z = AddTensor(g, "z", {1, 16, 5}), bmm = AddTensor(g, "bmm", {1, 16, 5});

  // A convolution's window is its weights' (op.kernel stays {1, 1}, as in the zoo's graphs).
  GraphOp conv = MakeOp(GraphOpKind::kConv, "conv", {x, w1, b1}, c1);
  conv.pads = {1, 1, 1, 1};
  GraphOp clip = MakeOp(GraphOpKind::kClip, "relu6", {c1}, r1);
  clip.clip_min = 0.0f;
  clip.clip_max = 6.0f;
  GraphOp max_pool = MakeOp(GraphOpKind::kMaxPool, "max_pool", {r1}, p1);
  max_pool.kernel = {2, 2};
  max_pool.strides = {2, 2};
  GraphOp average_pool = MakeOp(GraphOpKind::kAveragePool, "average_pool", {p1}, p2);
  average_pool.kernel = {3, 3};
  average_pool.pads = {1, 1, 1, 1};
  average_pool.count_include_pad = true;
  GraphOp depthwise = MakeOp(GraphOpKind::kConv, "depthwise", {a1, wd}, d1);
  depthwise.pads = {1, 1, 1, 1};
  depthwise.group = 8;
  GraphOp concat = MakeOp(GraphOpKind::kConcat, "concat", {a1, r2}, cat);
  concat.axis = 1;
  GraphOp flatten = MakeOp(GraphOpKind::kFlatten, "flatten", {gap}, flat);
  flatten.axis = 1;
  GraphOp softmax = MakeOp(GraphOpKind::kSoftmax, "softmax", {logits}, probs);
  softmax.axis = 1;
  g.ops = {conv,
           clip,
           max_pool,
           average_pool,
           MakeOp(GraphOpKind::kAdd, "add", {p1, p2}, a1),
           depthwise,
           MakeOp(GraphOpKind::kRelu, "relu", {d1}, r2),
           concat,
           MakeOp(GraphOpKind::kGlobalAveragePool, "gap", {cat}, gap),
           flatten,
           MakeOp(GraphOpKind::kDense, "fc", {flat, wf, bf}, logits),
           softmax,
           MakeOp(GraphOpKind::kReshape, "reshape", {cat}, rs),
           MakeOp(GraphOpKind::kDense, "fc3", {rs, w3, b3}, z),
           MakeOp(GraphOpKind::kBatchMatmul, "bmm", {rs, z}, bmm)};
  g.inputs = {x};
  g.outputs = {probs, bmm};
  return g;
}

TEST(OnnxExport, EveryOpKindReadsBackAndComputesTheSameOutputs) {
  const ModelGraph graph = EveryKindGraph();
  const fs::path dir = testing::MakeTempDir("glimpse_onnx_export");
  const std::string path = (dir / "every_kind.onnx").string();
  ExportOnnx(graph, path);
  const ModelGraph back = ImportOnnx(path);

  std::set<GraphOpKind> kinds;
  for (const GraphOp& op : back.ops) kinds.insert(op.kind);
  EXPECT_EQ(kinds.size(), 13u) << ModelGraphSummary(back);  // every GraphOpKind
  for (const GraphOp& op : back.ops) {
    if (op.name == "depthwise") {
      EXPECT_EQ(op.group, 8);
      EXPECT_EQ(op.pads, (std::array<int64_t, 4>{1, 1, 1, 1}));
    }
    if (op.name == "average_pool") {
      EXPECT_TRUE(op.count_include_pad);
    }
    if (op.name == "relu6") {
      EXPECT_EQ(op.clip_min, 0.0f);
      EXPECT_EQ(op.clip_max, 6.0f);
    }
  }

  Rng rng(5);
  std::vector<float> input(4 * 8 * 8);
  for (float& v : input) v = static_cast<float>(UniformUnit(rng) * 2.0 - 1.0);
  const auto want = RunModelGraphReference(graph, {input});
  const auto got = RunModelGraphReference(back, {input});
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < want.size(); ++o) {
    ASSERT_EQ(got[o].size(), want[o].size()) << "output " << o;
    for (size_t i = 0; i < want[o].size(); ++i) {
      EXPECT_NEAR(got[o][i], want[o][i], 1e-6 * (1.0 + std::fabs(want[o][i])))
          << "output " << o << " element " << i;
    }
  }
}

// The exported zoo model is tuned as the same operators: a database tuned on the zoo's name
// compiles the exported file (MobileNet-v2: ReLU6, depthwise, residual adds, the classifier).
TEST(OnnxExport, AZooModelComesBackAsTheSameTunableLayers) {
  const ModelGraph zoo = ZooGraph("mobilenet_v2", 0);
  const fs::path dir = testing::MakeTempDir("glimpse_onnx_export_zoo");
  const std::string path = (dir / "mobilenet_v2.onnx").string();
  ExportOnnx(zoo, path);
  const ModelGraph back = ImportOnnx(path);
  const std::vector<GraphLayer> want = GraphLayers(zoo), got = GraphLayers(back);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(OperatorToString(got[i].layer.op), OperatorToString(want[i].layer.op)) << i;
    EXPECT_EQ(got[i].layer.name, want[i].layer.name);
  }
  // The weights travel: the first convolution's weights read back bit for bit.
  const GraphTensor& w = zoo.tensors[zoo.ops[0].inputs[1]];
  const GraphTensor& w_back = back.tensors[back.ops[0].inputs[1]];
  EXPECT_EQ(w_back.data, w.data);
  EXPECT_FALSE(w.data.empty());
}

TEST(OnnxExport, AnUnwritablePathIsNamed) {
  const fs::path dir = testing::MakeTempDir("glimpse_onnx_export_bad");
  const std::string path = (dir / "missing_dir" / "x.onnx").string();
  try {
    ExportOnnx(EveryKindGraph(), path);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace glimpse
