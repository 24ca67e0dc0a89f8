// glimpse/model_graph.h — a whole model as glimpse compiles and runs it: a dataflow graph of
// float32 tensors (activations NCHW, as ONNX lays them out) and the operators between them.
// ONNX files become one (glimpse/onnx_import.h); its tunable nodes, with the epilogues fused into
// them, are the model's tuning tasks (GraphLayers).
//
//   ModelGraph graph = ImportOnnx("resnet18.onnx", {});
//   std::vector<GraphLayer> layers = GraphLayers(graph);   // conv2d/dense/… with bias, ReLU fused
//   std::vector<ModelTask> tasks = ExtractTasks(ModelLayers(layers));
//
// Every tensor has a fixed shape (symbolic dimensions are fixed at import). Every op has one
// output, and the ops are in an order where each input is made before it is read.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "glimpse/model_zoo.h"
#include "glimpse/ops.h"

namespace glimpse {

enum class GraphOpKind {
  kConv,               // x, w[K, C/group, R, S], [bias[K]] → [N, K, OH, OW]
  kDense,              // a[…, K], b[N, K] (constant), [bias[N]] → […, N]
  kBatchMatmul,        // a[B, M, K], b[B, K, N] (ONNX MatMul's layout: b is not transposed)
  kRelu,               // max(x, 0)
  kClip,               // min(max(x, clip_min), clip_max): ReLU6 is Clip(0, 6)
  kAdd,                // a + b, numpy broadcasting
  kMaxPool,            // kernel, strides, pads; padding never wins the max
  kAveragePool,        // kernel, strides, pads; count_include_pad
  kGlobalAveragePool,  // [N, C, H, W] → [N, C, 1, 1]
  kFlatten,            // → [Π dims before axis, Π dims from axis]
  kReshape,            // to the output tensor's shape (the data is unchanged)
  kConcat,             // along axis
  kSoftmax,            // along axis (the last one for every opset's common case)
};
// "conv", "dense", "batch_matmul", "relu", "clip", "add", "max_pool", "average_pool",
// "global_average_pool", "flatten", "reshape", "concat", "softmax".
const char* GraphOpKindName(GraphOpKind kind);

struct GraphTensor {
  std::string name;
  std::vector<int64_t> shape;
  bool constant = false;
  std::vector<float> data;  // a constant's values, row-major; empty for an activation
  int64_t Elements() const;
};

struct GraphOp {
  GraphOpKind kind = GraphOpKind::kRelu;
  std::string name;         // the source node's name, or "<op type>_<index>" when it had none
  std::string source;       // the source node's op type ("Conv", "Gemm", …), for messages
  std::vector<int> inputs;  // tensor indices
  int output = -1;          // tensor index
  // kConv, kMaxPool, kAveragePool: {height, width} and pads {top, left, bottom, right}.
  std::array<int64_t, 2> kernel{1, 1}, strides{1, 1}, dilations{1, 1};
  std::array<int64_t, 4> pads{0, 0, 0, 0};
  int64_t group = 1;                                         // kConv
  bool count_include_pad = false;                            // kAveragePool
  float clip_min = -std::numeric_limits<float>::infinity();  // kClip
  float clip_max = std::numeric_limits<float>::infinity();
  int64_t axis = 1;  // kFlatten, kConcat, kSoftmax (non-negative)
};

struct ModelGraph {
  std::string name;    // the model's (the file's stem for an import)
  std::string source;  // where it came from ("resnet18.onnx (opset 17, producer pytorch 2.1)")
  std::vector<GraphTensor> tensors;
  std::vector<GraphOp> ops;
  std::vector<int> inputs, outputs;  // tensor indices

  // The index of the tensor named `name`; -1 when there is none.
  int Find(const std::string& name) const;
  // How many ops read each tensor (graph outputs count once more).
  std::vector<int> Consumers() const;
};

// "[1,64,56,56]": how shapes appear in messages and generated comments.
std::string ShapeText(const std::vector<int64_t>& shape);
// The number of elements of `shape`. Shapes come from files (ONNX): a negative extent or a count
// beyond int64 is an Error ("shape [..] has more elements than 64-bit sizes count").
int64_t ShapeElements(const std::vector<int64_t>& shape);
// How messages name an op: "<source op type, or kind> node '<name>'" ("Conv node 'conv1'").
std::string OpLabel(const GraphOp& op);

// Throws Error naming the op when a tensor index is out of range, an op reads a tensor made after
// it or by no one (an activation that is neither a graph input nor an earlier op's output), or
// an op's output shape is not what its kind computes from its inputs (OpOutputShape).
void ValidateModelGraph(const ModelGraph& graph);

// The output shape `op` computes from its inputs' shapes (kReshape: the output tensor's, checked
// for the same element count). Throws Error naming the op for inputs it cannot take.
std::vector<int64_t> OpOutputShape(const ModelGraph& graph, const GraphOp& op);

// ---- Tunable layers

// A node of the graph that is tuned: its operator (conv2d, depthwise_conv2d, dense,
// batch_matmul) with the epilogue (glimpse/ops.h) fused into it, and what it covers, as ONNX
// Runtime and TVM fuse them. In order, each when it alone reads the output so far (and that
// output is not a graph output):
//   bias      the node's own; for a dense node without one, an Add of a constant [N] vector
//             (MatMul + Add, as exporters write a linear layer);
//   residual  an Add of another activation of exactly the output's shape that is computed before
//             the node (a graph input or an earlier op's output): a residual block's shortcut;
//   ReLU      a Relu, or a Clip to [0, ∞); ReLU6: a Clip to [0, 6].
struct GraphLayer {
  ModelLayer layer;        // name: the node's; op: the tuned operator
  int op = -1;             // the node's index in graph.ops
  std::vector<int> fused;  // ops folded into it (bias Add, residual Add, activation), in order
  int residual = -1;       // the residual Add's other input (the kernel's residual input), or -1
  int output = -1;         // the tensor the fused layer writes (the last fused op's output)
};

// The tunable layers of `graph` in graph order. A node that no operator's template describes
// (a grouped convolution that is not depthwise, asymmetric padding, different strides or
// dilations along height and width) throws Error naming the node, its attributes and what is
// supported — or, with `untunable` given, is left out (it runs as a plain loop in a compiled
// model) and that message appended.
std::vector<GraphLayer> GraphLayers(const ModelGraph& graph,
                                    std::vector<std::string>* untunable = nullptr);
std::vector<ModelLayer> ModelLayers(const std::vector<GraphLayer>& layers);

// ---- The zoo's CNNs as graphs (src/graph/zoo_graphs.cc)
//
// resnet18, resnet50, vgg16, alexnet and mobilenet_v2 as the ops torchvision's ONNX export has
// (batch norm folded into the convolutions' biases, ReLU/ReLU6, residual Adds, pooling, flatten,
// the classifier), with the zoo's shapes and layer names (glimpse/model_zoo.h) and seeded random
// weights (He-uniform initialisation). Their GraphLayers are the zoo's layers with the ReLUs fused.
// bert_base_layer has no graph (it lists matrix products only): Error.
bool HasZooGraph(const std::string& canonical_name);
// `weights` false: every constant zero (the graph for its shapes and layers, made quickly).
ModelGraph ZooGraph(const std::string& name, uint64_t seed = 0, bool weights = true);

// ---- The reference interpreter
//
// Runs `graph` with plain loops in double precision, one op after the other: what a compiled
// model's output is checked against, and how an import is checked against ONNX Runtime's output.
// `inputs` follow graph.inputs (row-major, each of its tensor's element count); the result
// follows graph.outputs. Throws Error for a wrong number or size of inputs.
std::vector<std::vector<float>> RunModelGraphReference(
    const ModelGraph& graph, const std::vector<std::vector<float>>& inputs);

// A readable summary: one line per op ("conv layer1.0.conv1 [1,64,56,56] <- x, w, b").
std::string ModelGraphSummary(const ModelGraph& graph);

}  // namespace glimpse
