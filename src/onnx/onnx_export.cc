// A model graph written as an ONNX model (glimpse/onnx_export.h), with the ONNX library's
// protobuf classes, node by node as ImportOnnx reads them back.
#include "glimpse/onnx_export.h"

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <array>
#include <cmath>
#include <cstring>
#include <fstream>

#include "glimpse/error.h"

namespace glimpse {
namespace {

void SetShape(onnx::ValueInfoProto& info, const GraphTensor& tensor) {
  info.set_name(tensor.name);
  auto* type = info.mutable_type()->mutable_tensor_type();
  type->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t extent : tensor.shape) type->mutable_shape()->add_dim()->set_dim_value(extent);
}

void AddFloats(onnx::GraphProto& graph, const std::string& name, const std::vector<int64_t>& dims,
               const std::vector<float>& values) {
  onnx::TensorProto* tensor = graph.add_initializer();
  tensor->set_name(name);
  tensor->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t extent : dims) tensor->add_dims(extent);
  std::string raw(values.size() * sizeof(float), '\0');  // little-endian, as x86 and ARM store
  std::memcpy(raw.data(), values.data(), raw.size());
  tensor->set_raw_data(std::move(raw));
}

void AddInt64s(onnx::GraphProto& graph, const std::string& name,
               const std::vector<int64_t>& values) {
  onnx::TensorProto* tensor = graph.add_initializer();
  tensor->set_name(name);
  tensor->set_data_type(onnx::TensorProto::INT64);
  tensor->add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) tensor->add_int64_data(v);
}

void SetInts(onnx::NodeProto& node, const std::string& name, const std::vector<int64_t>& values) {
  onnx::AttributeProto* attribute = node.add_attribute();
  attribute->set_name(name);
  attribute->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values) attribute->add_ints(v);
}

void SetInt(onnx::NodeProto& node, const std::string& name, int64_t value) {
  onnx::AttributeProto* attribute = node.add_attribute();
  attribute->set_name(name);
  attribute->set_type(onnx::AttributeProto::INT);
  attribute->set_i(value);
}

onnx::NodeProto& AddNode(onnx::GraphProto& graph, const std::string& type, const std::string& name,
                         const std::vector<std::string>& inputs, const std::string& output) {
  onnx::NodeProto* node = graph.add_node();
  node->set_op_type(type);
  node->set_name(name);
  for (const std::string& input : inputs) node->add_input(input);
  node->add_output(output);
  return *node;
}

// The window attributes of a pooling, or of a convolution with `kernel` its weights' R × S (the
// graph keeps a convolution's window in its weights, not in op.kernel).
void SetWindow(onnx::NodeProto& node, const GraphOp& op, std::array<int64_t, 2> kernel) {
  SetInts(node, "kernel_shape", {kernel[0], kernel[1]});
  SetInts(node, "strides", {op.strides[0], op.strides[1]});
  // Both orders are {top, left, bottom, right}: ONNX's begins of H and W, then their ends.
  SetInts(node, "pads", {op.pads[0], op.pads[1], op.pads[2], op.pads[3]});
}

void AddOp(const ModelGraph& model, const GraphOp& op, onnx::GraphProto& graph) {
  std::vector<std::string> in;
  for (int t : op.inputs) in.push_back(model.tensors[t].name);
  const std::string& out = model.tensors[op.output].name;
  switch (op.kind) {
    case GraphOpKind::kConv: {
      const std::vector<int64_t>& w = model.tensors[op.inputs[1]].shape;
      onnx::NodeProto& node = AddNode(graph, "Conv", op.name, in, out);
      SetWindow(node, op, {w[2], w[3]});
      SetInts(node, "dilations", {op.dilations[0], op.dilations[1]});
      SetInt(node, "group", op.group);
      return;
    }
    case GraphOpKind::kDense: {
      const GraphTensor& a = model.tensors[op.inputs[0]];
      const GraphTensor& b = model.tensors[op.inputs[1]];
      if (a.shape.size() == 2) {
        SetInt(AddNode(graph, "Gemm", op.name, in, out), "transB", 1);
        return;
      }
      // A higher rank: MatMul of B transposed to [K, N], then the bias.
      const int64_t n = b.shape[0], k = b.shape[1];
      std::vector<float> transposed(b.data.size());
      for (int64_t row = 0; row < n; ++row) {
        for (int64_t col = 0; col < k; ++col) transposed[col * n + row] = b.data[row * k + col];
      }
      const std::string weights = op.name + ".weight_kn";
      AddFloats(graph, weights, {k, n}, transposed);
      const std::string product = in.size() == 3 ? out + ".product" : out;
      AddNode(graph, "MatMul", op.name, {in[0], weights}, product);
      if (in.size() == 3) AddNode(graph, "Add", op.name + ".bias", {product, in[2]}, out);
      return;
    }
    case GraphOpKind::kBatchMatmul:
      AddNode(graph, "MatMul", op.name, in, out);
      return;
    case GraphOpKind::kRelu:
      AddNode(graph, "Relu", op.name, in, out);
      return;
    case GraphOpKind::kClip: {
      // Opset 13: the bounds are inputs; an infinite one is left out ("").
      std::vector<std::string> inputs = {in[0], "", ""};
      if (std::isfinite(op.clip_min)) {
        inputs[1] = op.name + ".min";
        AddFloats(graph, inputs[1], {}, {op.clip_min});
      }
      if (std::isfinite(op.clip_max)) {
        inputs[2] = op.name + ".max";
        AddFloats(graph, inputs[2], {}, {op.clip_max});
      }
      while (!inputs.empty() && inputs.back().empty()) inputs.pop_back();
      AddNode(graph, "Clip", op.name, inputs, out);
      return;
    }
    case GraphOpKind::kAdd:
      AddNode(graph, "Add", op.name, in, out);
      return;
    case GraphOpKind::kMaxPool:
      SetWindow(AddNode(graph, "MaxPool", op.name, in, out), op, op.kernel);
      return;
    case GraphOpKind::kAveragePool: {
      onnx::NodeProto& node = AddNode(graph, "AveragePool", op.name, in, out);
      SetWindow(node, op, op.kernel);
      SetInt(node, "count_include_pad", op.count_include_pad ? 1 : 0);
      return;
    }
    case GraphOpKind::kGlobalAveragePool:
      AddNode(graph, "GlobalAveragePool", op.name, in, out);
      return;
    case GraphOpKind::kFlatten:
      SetInt(AddNode(graph, "Flatten", op.name, in, out), "axis", op.axis);
      return;
    case GraphOpKind::kReshape: {
      const std::string shape = op.name + ".shape";
      AddInt64s(graph, shape, model.tensors[op.output].shape);
      AddNode(graph, "Reshape", op.name, {in[0], shape}, out);
      return;
    }
    case GraphOpKind::kConcat:
      SetInt(AddNode(graph, "Concat", op.name, in, out), "axis", op.axis);
      return;
    case GraphOpKind::kSoftmax:
      SetInt(AddNode(graph, "Softmax", op.name, in, out), "axis", op.axis);
      return;
  }
  throw Error(fmt::format("ONNX export: {} has no ONNX form", OpLabel(op)));
}

}  // namespace

void ExportOnnx(const ModelGraph& model, const std::string& path) {
  ValidateModelGraph(model);
  onnx::ModelProto proto;
  proto.set_ir_version(onnx::IR_VERSION_2020_5_8);  // IR 7, what opset 13 came with
  proto.set_producer_name("glimpse");
  onnx::OperatorSetIdProto* opset = proto.add_opset_import();
  opset->set_domain("");
  opset->set_version(kExportOnnxOpset);
  onnx::GraphProto& graph = *proto.mutable_graph();
  graph.set_name(model.name);
  for (int t : model.inputs) SetShape(*graph.add_input(), model.tensors[t]);
  for (int t : model.outputs) SetShape(*graph.add_output(), model.tensors[t]);
  for (const GraphTensor& tensor : model.tensors) {
    if (tensor.constant) AddFloats(graph, tensor.name, tensor.shape, tensor.data);
  }
  for (const GraphOp& op : model.ops) AddOp(model, op, graph);
  std::ofstream out(path, std::ios::binary);
  if (!out || !proto.SerializeToOstream(&out)) {
    throw Error("ONNX export: cannot write " + path);
  }
}

}  // namespace glimpse
