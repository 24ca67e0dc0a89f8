// glimpse/onnx_import.h — an ONNX model file as a model graph (glimpse/model_graph.h), read with
// the ONNX library (Debian's libonnx-dev) and checked by its shape inference.
//
//   OnnxImportOptions options;
//   options.input_shapes["input"] = {1, 3, 224, 224};   // fixes symbolic dimensions
//   ModelGraph graph = ImportOnnx("resnet18.onnx", options);
//
// What is read (docs/onnx.md): opsets kMinOnnxOpset to kMaxOnnxOpset of the default domain;
// float32 inputs, outputs and weights (int64 only for shapes and Clip's bounds); the ops of
// SupportedOnnxOps(). On the way in:
//   - BatchNormalization is folded into the convolution before it (its weights and bias
//     rescaled), which needs that convolution's output to feed the BatchNormalization alone;
//   - Gemm (transA 0, constant B and C, any alpha/beta) and MatMul with a constant 2-D B become
//     dense (B stored [N, K]); MatMul of two activations of rank ≥ 3 becomes batch_matmul;
//   - Conv's auto_pad (SAME_UPPER, SAME_LOWER, VALID) becomes explicit pads;
//   - Identity, Dropout (inference) and Constant disappear (their values are aliased or become
//     constants); Relu, Clip, Add, MaxPool, AveragePool, GlobalAveragePool, Flatten, Reshape,
//     Concat and Softmax map to the graph's ops.
// Errors are one Error naming the file and, where there is one, the node (its name and op type)
// with what is supported: an unknown op type, an opset outside the range, an attribute value the
// graph cannot hold (MaxPool ceil_mode 1, a Softmax not on the last axis before opset 13 …),
// a symbolic dimension without --input-shape, an input shape that contradicts the file, a file
// that is not an ONNX model, and the shape inference's own complaints.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "glimpse/model_graph.h"

namespace glimpse {

constexpr int kMinOnnxOpset = 7;
constexpr int kMaxOnnxOpset = 17;

struct OnnxImportOptions {
  // Fixed shapes of graph inputs by name; required for an input with a symbolic or unknown
  // dimension, checked against the fixed ones otherwise.
  std::map<std::string, std::vector<int64_t>> input_shapes;
};

ModelGraph ImportOnnx(const std::string& path, const OnnxImportOptions& options = {});

// The op types ImportOnnx reads, sorted.
const std::vector<std::string>& SupportedOnnxOps();

// "name=1x3x224x224" → {"name", {1, 3, 224, 224}}. Throws Error naming `text` and the expected
// form.
std::pair<std::string, std::vector<int64_t>> ParseInputShape(const std::string& text);

// Whether `model` names an ONNX file rather than a zoo model: it ends in ".onnx" (any case).
bool IsOnnxPath(const std::string& model);

}  // namespace glimpse
