// glimpse/onnx_export.h — a model graph (glimpse/model_graph.h) written as an ONNX file, so that
// ONNX Runtime can run the very graph, weights included, that glimpse compiles: the zoo's
// models (seeded random weights) are timed beside ONNX Runtime without an exporter such as
// torch.onnx.
//
//   ExportOnnx(ZooGraph("resnet50", 0), "resnet50.onnx");
//   ModelGraph again = ImportOnnx("resnet50.onnx");    // the same ops, tensors and values
//
// Opset 13, float32. Each op becomes the node ImportOnnx reads back as it: conv → Conv (pads,
// strides, dilations, group), dense → Gemm with transB = 1 (a 2-D input) or MatMul of the
// transposed weights and an Add of the bias (a higher rank), batch_matmul → MatMul, clip → Clip
// with its bounds as inputs, reshape → Reshape with the shape as an int64 initializer, the others
// their namesakes. Constants are initializers (raw little-endian floats). Throws Error naming
// the path when it cannot be written.
#pragma once

#include <string>

#include "glimpse/model_graph.h"

namespace glimpse {

constexpr int kExportOnnxOpset = 13;

void ExportOnnx(const ModelGraph& graph, const std::string& path);

}  // namespace glimpse
