// ONNX import on the small models of scripts/onnx/make_test_models.py (tests/data/onnx): each
// runnable one, imported and run by the graph's reference interpreter, gives ONNX Runtime's
// output; the tunable layers come out with their epilogues fused; and every kind of bad input is
// one clear error.
#include "glimpse/onnx_import.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "glimpse/error.h"
#include "glimpse/json.h"
#include "test_paths.h"

namespace glimpse {
namespace {

std::string Model(const std::string& name) {
  return testing::TestDataPath("onnx/" + name + ".onnx");
}

Json Expected(const std::string& name) {
  std::ifstream in(testing::TestDataPath("onnx/" + name + ".expected.json"));
  return Json::parse(in);
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// Imports `name` (fixing the shapes of the recorded inputs), runs the reference interpreter on
// the recorded inputs and compares with ONNX Runtime's recorded outputs.
ModelGraph ExpectMatchesOnnxRuntime(const std::string& name) {
  const Json expected = Expected(name);
  OnnxImportOptions options;
  for (const auto& [input, value] : expected["inputs"].items()) {
    options.input_shapes[input] = value["shape"].get<std::vector<int64_t>>();
  }
  const ModelGraph graph = ImportOnnx(Model(name), options);
  std::vector<std::vector<float>> inputs;
  for (int index : graph.inputs) {
    inputs.push_back(
        expected["inputs"][graph.tensors[index].name]["data"].get<std::vector<float>>());
  }
  const auto outputs = RunModelGraphReference(graph, inputs);
  EXPECT_EQ(outputs.size(), expected["outputs"].size());
  for (size_t o = 0; o < outputs.size(); ++o) {
    const Json& want = expected["outputs"][graph.tensors[graph.outputs[o]].name];
    EXPECT_EQ(graph.tensors[graph.outputs[o]].shape, want["shape"].get<std::vector<int64_t>>());
    const auto data = want["data"].get<std::vector<float>>();
    EXPECT_EQ(outputs[o].size(), data.size());
    for (size_t i = 0; i < data.size() && i < outputs[o].size(); ++i) {
      EXPECT_NEAR(outputs[o][i], data[i], 1e-4 * (1.0 + std::fabs(data[i]))) << name << " " << i;
    }
  }
  return graph;
}

TEST(OnnxImport, ResidualBlockFoldsBatchNormAndFusesRelu) {
  const ModelGraph graph = ExpectMatchesOnnxRuntime("residual_block");
  for (const GraphOp& op : graph.ops) EXPECT_NE(op.source, "BatchNormalization");
  const std::vector<GraphLayer> layers = GraphLayers(graph);
  ASSERT_EQ(layers.size(), 4u);
  EXPECT_EQ(layers[0].layer.name, "conv1");
  EXPECT_EQ(OperatorToString(layers[0].layer.op),
            "conv2d:N=1,C=4,H=12,W=12,K=8,R=3,S=3,stride=1,pad=1,dilation=1,bias=1,relu=1");
  // conv2 feeds the residual Add: no ReLU of its own.
  EXPECT_EQ(OperatorToString(layers[1].layer.op),
            "conv2d:N=1,C=8,H=12,W=12,K=8,R=3,S=3,stride=1,pad=1,dilation=1,bias=1,relu=0");
  EXPECT_EQ(layers[2].layer.name, "proj");
  EXPECT_EQ(OperatorToString(layers[3].layer.op), "dense:M=1,N=10,K=8,bias=1,relu=0");
  EXPECT_NE(graph.source.find("opset 13"), std::string::npos) << graph.source;
}

TEST(OnnxImport, MobileBlockAtOpsets9And13) {
  for (const char* name : {"mobile_block_opset9", "mobile_block_opset13"}) {
    const ModelGraph graph = ExpectMatchesOnnxRuntime(name);
    const std::vector<GraphLayer> layers = GraphLayers(graph);
    ASSERT_EQ(layers.size(), 4u) << name;
    EXPECT_EQ(OperatorName(layers[1].layer.op), "depthwise_conv2d");
    // MatMul + Add of a constant vector: one dense layer with its bias.
    EXPECT_EQ(OperatorToString(layers[3].layer.op), "dense:M=1,N=5,K=108,bias=1,relu=0");
    EXPECT_EQ(layers[3].output, graph.outputs[0]);
  }
}

TEST(OnnxImport, BatchedProductWithSymbolicBatch) {
  const ModelGraph graph = ExpectMatchesOnnxRuntime("batched_product");
  const std::vector<GraphLayer> layers = GraphLayers(graph);
  ASSERT_EQ(layers.size(), 1u);
  EXPECT_EQ(OperatorToString(layers[0].layer.op), "batch_matmul:B=3,M=8,N=12,K=16,bias=0,relu=1");
}

TEST(OnnxImport, SameUpperPaddingAndGroupedConvolutionImportButAreNotTunable) {
  const ModelGraph same = ExpectMatchesOnnxRuntime("same_upper");
  EXPECT_EQ(same.ops[0].pads, (std::array<int64_t, 4>{0, 0, 1, 1}));
  EXPECT_NE(ErrorOf([&] { GraphLayers(same); }).find("not the same on every side"),
            std::string::npos);
  const ModelGraph grouped = ExpectMatchesOnnxRuntime("grouped_conv");
  EXPECT_NE(
      ErrorOf([&] { GraphLayers(grouped); }).find("Conv node 'grouped': a grouped convolution"),
      std::string::npos);
}

TEST(OnnxImport, SymbolicDimensionsNeedAnInputShape) {
  const std::string error = ErrorOf([] { ImportOnnx(Model("symbolic_batch")); });
  EXPECT_NE(error.find("input 'images' has symbolic dimensions [batch,3,8,8]; give --input-shape "
                       "images="),
            std::string::npos)
      << error;
  OnnxImportOptions wrong;
  wrong.input_shapes["images"] = {1, 4, 8, 8};
  EXPECT_NE(ErrorOf([&] {
              ImportOnnx(Model("symbolic_batch"), wrong);
            }).find("--input-shape images=1x4x8x8 contradicts the file's shape [batch,3,8,8]"),
            std::string::npos);
  OnnxImportOptions unknown;
  unknown.input_shapes["pixels"] = {1, 3, 8, 8};
  unknown.input_shapes["images"] = {1, 3, 8, 8};
  EXPECT_NE(ErrorOf([&] {
              ImportOnnx(Model("symbolic_batch"), unknown);
            }).find("--input-shape names 'pixels', which is not an input; inputs: images"),
            std::string::npos);
}

TEST(OnnxImport, UnsupportedOpOpsetAndFilesAreOneClearError) {
  std::string error = ErrorOf([] { ImportOnnx(Model("unsupported_op")); });
  EXPECT_NE(error.find("LeakyRelu node 'leaky': op type 'LeakyRelu' is not supported; supported: "
                       "Add, AveragePool"),
            std::string::npos)
      << error;
  error = ErrorOf([] { ImportOnnx(Model("opset_too_new")); });
  EXPECT_NE(error.find("opset 21 of the default ONNX domain; supported: 7 to 17"),
            std::string::npos)
      << error;
  const std::string junk = (std::filesystem::temp_directory_path() /
                            ("glimpse_junk_" + std::to_string(::getpid()) + ".onnx"))
                               .string();
  {
    std::ofstream out(junk, std::ios::binary);
    out << "this is not a protobuf \x01\x02\x03";
  }
  error = ErrorOf([&] { ImportOnnx(junk); });
  EXPECT_NE(error.find("not an ONNX model"), std::string::npos) << error;
  {
    std::ofstream out(junk, std::ios::binary);  // empty: parses as an empty ModelProto
  }
  error = ErrorOf([&] { ImportOnnx(junk); });
  EXPECT_NE(error.find("not an ONNX model"), std::string::npos) << error;
  std::filesystem::remove(junk);
  error = ErrorOf([] { ImportOnnx("/nonexistent/model.onnx"); });
  EXPECT_NE(error.find("/nonexistent/model.onnx: cannot open"), std::string::npos) << error;
}

// Two files the fuzzer made (docs/fuzzing.md) that crashed the process inside libonnx's shape
// inference: a windowed node with a zero in its window attributes (SIGFPE), refused before the
// inference; and one whose Conv makes libonnx follow a null pointer (SIGSEGV), which the
// inference's child process turns into an error about the file.
TEST(OnnxImport, FilesThatCrashOnnxShapeInferenceAreErrorsNotCrashes) {
  std::string error = ErrorOf([] { ImportOnnx(Model("fuzz_conv_zero_window")); });
  EXPECT_NE(error.find("fuzz_conv_zero_window.onnx: "), std::string::npos) << error;
  EXPECT_NE(error.find("; accepted: positive integers"), std::string::npos) << error;
  error = ErrorOf([] { ImportOnnx(Model("fuzz_conv_null_read")); });
  EXPECT_NE(error.find("fuzz_conv_null_read.onnx: ONNX shape inference crashed on this file"),
            std::string::npos)
      << error;
  // An initializer whose dimensions multiply past int64 (found by fuzzing: undefined behaviour in
  // the element count) is refused naming it.
  error = ErrorOf([] { ImportOnnx(Model("fuzz_initializer_dims_overflow")); });
  EXPECT_NE(error.find("fuzz_initializer_dims_overflow.onnx"), std::string::npos) << error;
  EXPECT_NE(error.find("has more elements than 64-bit sizes count"), std::string::npos) << error;
  // A Reshape to a shape of more elements than int64 counts (fuzzing: the graph's element count
  // overflowed) is refused naming the node.
  error = ErrorOf([] { ImportOnnx(Model("fuzz_reshape_overflow")); });
  EXPECT_NE(error.find("fuzz_reshape_overflow.onnx"), std::string::npos) << error;
  EXPECT_NE(error.find("more elements than 64-bit sizes count"), std::string::npos) << error;
  // The good files still import after a crash in the child.
  EXPECT_EQ(ErrorOf([] { ImportOnnx(Model("residual_block")); }), "(no error)");
}

TEST(OnnxImport, InputShapeSyntaxAndOnnxPaths) {
  const auto [name, dims] = ParseInputShape("input=1x3x224x224");
  EXPECT_EQ(name, "input");
  EXPECT_EQ(dims, (std::vector<int64_t>{1, 3, 224, 224}));
  EXPECT_EQ(ParseInputShape("a=b=7").second, std::vector<int64_t>{7});
  for (const char* bad : {"input", "=1x3", "input=", "input=1x", "input=1x0x3", "input=1,3"}) {
    EXPECT_NE(ErrorOf([&] { ParseInputShape(bad); }).find("expected NAME=DIMxDIMx"),
              std::string::npos)
        << bad;
  }
  EXPECT_TRUE(IsOnnxPath("models/ResNet18.ONNX"));
  EXPECT_FALSE(IsOnnxPath("resnet18"));
}

}  // namespace
}  // namespace glimpse
