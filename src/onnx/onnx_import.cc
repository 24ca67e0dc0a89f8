// ONNX → model graph (glimpse/onnx_import.h). A map of this file:
//   - TensorValues: float and int64 data of TensorProtos (raw or typed fields);
//   - Importer::Load, FixInputs, Infer: the file, the input shapes, ONNX's shape inference;
//   - Importer's per-op-type handlers (Conv, BatchNormalization folding, Gemm/MatMul, …);
//   - Importer::CheckInferred: each op's output shape against what ONNX inferred.
#include "glimpse/onnx_import.h"

#include <fmt/format.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <numeric>
#include <set>
#include <type_traits>

#include "glimpse/error.h"

namespace glimpse {
namespace {

// ShapeElements with `where` (the file, the tensor or node) in front of its error.
int64_t ElementCount(const std::vector<int64_t>& dims, const std::string& where) {
  try {
    return ShapeElements(dims);
  } catch (const Error& error) {
    throw Error(where + ": " + error.what());
  }
}

const char* DataTypeName(int type) {
  switch (type) {
    case onnx::TensorProto::FLOAT:
      return "float32";
    case onnx::TensorProto::INT64:
      return "int64";
    case onnx::TensorProto::INT32:
      return "int32";
    case onnx::TensorProto::FLOAT16:
      return "float16";
    case onnx::TensorProto::DOUBLE:
      return "float64";
    case onnx::TensorProto::UINT8:
      return "uint8";
    case onnx::TensorProto::INT8:
      return "int8";
    case onnx::TensorProto::BOOL:
      return "bool";
    default:
      return "another type";
  }
}

std::vector<int64_t> Dims(const onnx::TensorProto& tensor) {
  return {tensor.dims().begin(), tensor.dims().end()};
}

// The values of a TensorProto of element type `T`: `raw_data` (little-endian, as every x86
// machine) or the typed field `typed`, as `Out`. Throws (with `where`) for external data and
// sizes that do not match the dims.
template <typename T, typename Out, typename Typed>
std::vector<Out> Values(const onnx::TensorProto& tensor, const Typed& typed,
                        const std::string& where) {
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    throw Error(where +
                ": its data is in an external file; supported: data inside the model file "
                "(onnx.save(model, path, save_as_external_data=False))");
  }
  const size_t count = static_cast<size_t>(ElementCount(Dims(tensor), where));
  if (count > std::numeric_limits<size_t>::max() / sizeof(T)) {
    throw Error(fmt::format("{}: shape {} is too large", where, ShapeText(Dims(tensor))));
  }
  std::vector<Out> out;
  if (tensor.has_raw_data()) {
    if (tensor.raw_data().size() != count * sizeof(T)) {
      throw Error(fmt::format("{}: {} bytes of data for {} {} values", where,
                              tensor.raw_data().size(), count, DataTypeName(tensor.data_type())));
    }
    if constexpr (std::is_same_v<T, Out>) {
      out.resize(count);  // straight in: weights can be a hundred megabytes
      std::memcpy(out.data(), tensor.raw_data().data(), count * sizeof(T));
    } else {
      std::vector<T> raw(count);
      std::memcpy(raw.data(), tensor.raw_data().data(), count * sizeof(T));
      out.assign(raw.begin(), raw.end());
    }
  } else {
    out.assign(typed.begin(), typed.end());
  }
  if (out.size() != count) {
    throw Error(
        fmt::format("{}: {} values for shape {}", where, out.size(), ShapeText(Dims(tensor))));
  }
  return out;
}

std::vector<float> FloatValues(const onnx::TensorProto& tensor, const std::string& where) {
  if (tensor.data_type() != onnx::TensorProto::FLOAT) {
    throw Error(fmt::format("{}: a {} tensor; supported: float32", where,
                            DataTypeName(tensor.data_type())));
  }
  return Values<float, float>(tensor, tensor.float_data(), where);
}

std::vector<int64_t> IntValues(const onnx::TensorProto& tensor, const std::string& where) {
  if (tensor.data_type() == onnx::TensorProto::INT64) {
    return Values<int64_t, int64_t>(tensor, tensor.int64_data(), where);
  }
  if (tensor.data_type() == onnx::TensorProto::INT32) {
    return Values<int32_t, int64_t>(tensor, tensor.int32_data(), where);
  }
  throw Error(fmt::format("{}: a {} tensor; supported: int64 or int32", where,
                          DataTypeName(tensor.data_type())));
}

// ONNX's shape inference, run in a child process. libonnx trusts what it reads: fuzzing found
// malformed Conv nodes that make it divide by zero (SIGFPE) or follow a null pointer (SIGSEGV)
// inside convPoolShapeInference. In a child, such a file costs an error naming it, not glimpse's
// process. The child sends back the model with its inferred shapes ('M' + the serialised model)
// or the inference's own error ('E' + its text).
onnx::ModelProto InferShapesInChild(const onnx::ModelProto& model, const std::string& path) {
  // ONNX registers its operator schemas (thousands, every opset) on the first lookup. Done here,
  // in the parent, it happens once per process; left to the child, every import (and every input
  // a fuzzer tries) would pay for it again.
  static const bool schemas_registered = [] {
    return onnx::OpSchemaRegistry::Schema("Relu", 14, "") != nullptr;
  }();
  (void)schemas_registered;
  int fds[2];
  if (pipe(fds) != 0) throw Error(path + ": cannot run ONNX shape inference (pipe failed)");
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    throw Error(path + ": cannot run ONNX shape inference (fork failed)");
  }
  if (pid == 0) {
    close(fds[0]);
    // Die of the signal itself: no handler of the parent's (a sanitizer's, a fuzzer's) reports
    // the child's crash as the parent's own.
    for (int signal_number : {SIGSEGV, SIGFPE, SIGBUS, SIGILL, SIGABRT}) {
      std::signal(signal_number, SIG_DFL);
    }
    std::string answer;
    try {
      onnx::ModelProto inferred = model;
      onnx::ShapeInferenceOptions options(/*check_type=*/true, /*error_mode=*/1,
                                          /*data_prop=*/true);
      onnx::shape_inference::InferShapes(inferred, onnx::OpSchemaRegistry::Instance(), options);
      answer = "M" + inferred.SerializeAsString();
    } catch (const std::exception& error) {
      answer = std::string("E") + error.what();
    }
    for (size_t done = 0; done < answer.size();) {
      const ssize_t n = write(fds[1], answer.data() + done, answer.size() - done);
      if (n <= 0 && errno != EINTR) _exit(1);
      if (n > 0) done += static_cast<size_t>(n);
    }
    _exit(0);  // no destructors, no atexit handlers of the parent's state
  }
  close(fds[1]);
  std::string answer;
  char chunk[65536];
  for (;;) {
    const ssize_t n = read(fds[0], chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    answer.append(chunk, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status) || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || answer.empty()) {
    const std::string how =
        WIFSIGNALED(status)
            ? fmt::format("signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)))
            : fmt::format("exit status {}", WEXITSTATUS(status));
    throw Error(fmt::format(
        "{}: ONNX shape inference crashed on this file ({}): a node has attributes or inputs "
        "that the ONNX library does not check (a malformed file)",
        path, how));
  }
  if (answer[0] == 'E') {
    throw Error(fmt::format("{}: ONNX shape inference failed: {}", path, answer.substr(1)));
  }
  onnx::ModelProto inferred;
  if (answer[0] != 'M' || !inferred.ParseFromString(answer.substr(1))) {
    throw Error(path + ": ONNX shape inference returned an unreadable model");
  }
  return inferred;
}

class Importer {
 public:
  Importer(std::string path, const OnnxImportOptions& options)
      : path_(std::move(path)), options_(options) {}

  ModelGraph Run() {
    Load();
    FixInputs();
    CheckWindowAttributes();
    Infer();
    TakeInferredShapes();
    ReadInitializers();
    CountUses();
    const auto& nodes = model_.graph().node();
    for (int i = 0; i < nodes.size(); ++i) Node(nodes[i], i);
    for (const auto& output : model_.graph().output()) {
      graph_.outputs.push_back(Value(output.name(), "graph output '" + output.name() + "'"));
    }
    ValidateModelGraph(graph_);
    return std::move(graph_);
  }

 private:
  // ---- The file and its inputs

  void Load() {
    std::ifstream in(path_, std::ios::binary);
    if (!in) throw Error(path_ + ": cannot open the ONNX file");
    if (!model_.ParseFromIstream(&in) || !model_.has_graph() || model_.ir_version() <= 0) {
      throw Error(path_ +
                  ": not an ONNX model (the file does not parse as an ONNX ModelProto "
                  "with a graph)");
    }
    for (const auto& opset : model_.opset_import()) {
      if (opset.domain().empty() || opset.domain() == "ai.onnx") opset_ = opset.version();
    }
    if (opset_ < kMinOnnxOpset || opset_ > kMaxOnnxOpset) {
      throw Error(
          fmt::format("{}: opset {} of the default ONNX domain; supported: {} to {} "
                      "(export with opset_version={})",
                      path_, opset_ == 0 ? "none" : std::to_string(opset_), kMinOnnxOpset,
                      kMaxOnnxOpset, kMaxOnnxOpset));
    }
    graph_.name = std::filesystem::path(path_).stem().string();
    std::string producer = model_.producer_name();
    if (!model_.producer_version().empty()) producer += " " + model_.producer_version();
    graph_.source =
        fmt::format("{} (opset {}{})", path_, opset_, producer.empty() ? "" : ", from " + producer);
  }

  // Gives every graph input fixed dimensions: the file's, or --input-shape's for symbolic ones.
  void FixInputs() {
    std::set<std::string> initializers;
    for (const auto& init : model_.graph().initializer()) initializers.insert(init.name());
    std::set<std::string> inputs;
    for (auto& input : *model_.mutable_graph()->mutable_input()) {
      if (initializers.count(input.name())) continue;  // a weight listed as an input (IR < 4)
      inputs.insert(input.name());
      const std::string where = fmt::format("{}: input '{}'", path_, input.name());
      if (!input.type().has_tensor_type()) throw Error(where + ": not a tensor");
      auto* tensor = input.mutable_type()->mutable_tensor_type();
      if (tensor->elem_type() != onnx::TensorProto::FLOAT) {
        throw Error(fmt::format("{}: {} elements; supported: float32", where,
                                DataTypeName(tensor->elem_type())));
      }
      std::vector<std::string> file_dims;
      bool symbolic = false;
      for (const auto& dim : tensor->shape().dim()) {
        if (dim.has_dim_value()) {
          file_dims.push_back(std::to_string(dim.dim_value()));
        } else {
          symbolic = true;
          file_dims.push_back(dim.has_dim_param() ? dim.dim_param() : "?");
        }
      }
      const std::string file_text = "[" + fmt::format("{}", fmt::join(file_dims, ",")) + "]";
      auto given = options_.input_shapes.find(input.name());
      std::vector<int64_t> dims;
      if (given != options_.input_shapes.end()) {
        dims = given->second;
        bool fits = static_cast<int>(dims.size()) == tensor->shape().dim_size();
        for (int d = 0; fits && d < tensor->shape().dim_size(); ++d) {
          const auto& dim = tensor->shape().dim(d);
          fits = !dim.has_dim_value() || dim.dim_value() == dims[d];
        }
        if (!fits) {
          throw Error(fmt::format("{}: --input-shape {}={} contradicts the file's shape {}", where,
                                  input.name(), fmt::join(dims, "x"), file_text));
        }
      } else if (symbolic || !tensor->has_shape()) {
        throw Error(
            fmt::format("{} has symbolic dimensions {}; give --input-shape {}=AxBx… "
                        "with a number for each",
                        where, tensor->has_shape() ? file_text : "(no shape)", input.name()));
      } else {
        for (const auto& dim : tensor->shape().dim()) dims.push_back(dim.dim_value());
      }
      if (std::any_of(dims.begin(), dims.end(), [](int64_t d) { return d < 1; })) {
        throw Error(fmt::format("{}: dimensions must be ≥ 1 (got {})", where, ShapeText(dims)));
      }
      auto* shape = tensor->mutable_shape();
      shape->clear_dim();
      for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
      const int index = AddTensor(input.name(), dims);
      graph_.inputs.push_back(index);
    }
    for (const auto& [name, dims] : options_.input_shapes) {
      if (!inputs.count(name)) {
        throw Error(fmt::format("{}: --input-shape names '{}', which is not an input; inputs: {}",
                                path_, name, fmt::join(inputs, ", ")));
      }
    }
  }

  // ONNX's own shape inference divides by strides and multiplies by dilations and kernel sizes
  // without checking them (a Conv with strides [0, 0] kills the process with SIGFPE inside
  // libonnx), so those attributes of every windowed node are checked here first.
  void CheckWindowAttributes() const {
    static const std::set<std::string> kWindowed = {"Conv",        "ConvTranspose", "ConvInteger",
                                                    "QLinearConv", "MaxPool",       "AveragePool",
                                                    "LpPool",      "MaxUnpool"};
    const auto& nodes = model_.graph().node();
    for (int i = 0; i < nodes.size(); ++i) {
      const onnx::NodeProto& node = nodes[i];
      if (!kWindowed.count(node.op_type())) continue;
      for (const onnx::AttributeProto& attribute : node.attribute()) {
        const std::string& name = attribute.name();
        if (name != "strides" && name != "dilations" && name != "kernel_shape" && name != "group") {
          continue;
        }
        std::vector<int64_t> values(attribute.ints().begin(), attribute.ints().end());
        if (name == "group") values = {attribute.i()};
        for (int64_t value : values) {
          if (value > 0) continue;
          throw Error(fmt::format(
              "{}: {} node '{}' (node {}): attribute {} has {}; accepted: positive integers", path_,
              node.op_type(), node.name(), i, name, value));
        }
      }
    }
  }

  void Infer() { model_ = InferShapesInChild(model_, path_); }

  void TakeInferredShapes() {
    auto take = [&](const onnx::ValueInfoProto& value) {
      if (!value.type().has_tensor_type() || !value.type().tensor_type().has_shape()) return;
      std::vector<int64_t> dims;
      for (const auto& dim : value.type().tensor_type().shape().dim()) {
        if (!dim.has_dim_value()) return;
        dims.push_back(dim.dim_value());
      }
      inferred_[value.name()] = dims;
    };
    for (const auto& value : model_.graph().value_info()) take(value);
    for (const auto& value : model_.graph().output()) take(value);
  }

  void ReadInitializers() {
    for (const auto& init : model_.graph().initializer()) {
      const std::string where = fmt::format("{}: initializer '{}'", path_, init.name());
      if (init.data_type() == onnx::TensorProto::FLOAT) {
        AddConstant(init.name(), Dims(init), FloatValues(init, where));
      } else if (init.data_type() == onnx::TensorProto::INT64 ||
                 init.data_type() == onnx::TensorProto::INT32) {
        ints_[init.name()] = IntValues(init, where);
      } else {
        other_[init.name()] = DataTypeName(init.data_type());
      }
    }
  }

  void CountUses() {
    for (const auto& node : model_.graph().node()) {
      for (const std::string& input : node.input()) ++uses_[input];
    }
    for (const auto& output : model_.graph().output()) ++uses_[output.name()];
  }

  // ---- Tensors

  int AddTensor(const std::string& name, std::vector<int64_t> shape) {
    GraphTensor tensor;
    tensor.name = name;
    tensor.shape = std::move(shape);
    graph_.tensors.push_back(std::move(tensor));
    const int index = static_cast<int>(graph_.tensors.size()) - 1;
    by_name_[name] = index;
    return index;
  }

  int AddConstant(const std::string& name, std::vector<int64_t> shape, std::vector<float> data) {
    const int index = AddTensor(name, std::move(shape));
    graph_.tensors[index].constant = true;
    graph_.tensors[index].data = std::move(data);
    return index;
  }

  // The tensor an ONNX value name stands for (through aliases).
  int Value(const std::string& name, const std::string& who) const {
    auto it = by_name_.find(name);
    if (it != by_name_.end()) return it->second;
    if (ints_.count(name)) {
      throw Error(fmt::format("{}: {} reads '{}', an integer tensor; supported: float32", path_,
                              who, name));
    }
    if (other_.count(name)) {
      throw Error(fmt::format("{}: {} reads '{}', a {} tensor; supported: float32", path_, who,
                              name, other_.at(name)));
    }
    throw Error(fmt::format("{}: {} reads '{}', which no earlier node makes", path_, who, name));
  }

  // ---- Nodes

  struct NodeContext {
    const onnx::NodeProto& node;
    std::string name;
    std::string who;  // "Conv node 'name'"
  };

  [[noreturn]] void Fail(const NodeContext& c, const std::string& what) const {
    throw Error(fmt::format("{}: {}: {}", path_, c.who, what));
  }

  const onnx::AttributeProto* Attr(const NodeContext& c, const std::string& name) const {
    for (const auto& a : c.node.attribute()) {
      if (a.name() == name) return &a;
    }
    return nullptr;
  }
  int64_t AttrInt(const NodeContext& c, const std::string& name, int64_t fallback) const {
    const auto* a = Attr(c, name);
    return a ? a->i() : fallback;
  }
  float AttrFloat(const NodeContext& c, const std::string& name, float fallback) const {
    const auto* a = Attr(c, name);
    return a ? a->f() : fallback;
  }
  std::string AttrString(const NodeContext& c, const std::string& name,
                         const std::string& fallback) const {
    const auto* a = Attr(c, name);
    return a ? a->s() : fallback;
  }
  std::vector<int64_t> AttrInts(const NodeContext& c, const std::string& name,
                                std::vector<int64_t> fallback) const {
    const auto* a = Attr(c, name);
    if (!a) return fallback;
    return {a->ints().begin(), a->ints().end()};
  }

  bool HasInput(const NodeContext& c, int i) const {
    return c.node.input_size() > i && !c.node.input(i).empty();
  }
  int Input(const NodeContext& c, int i) const {
    if (!HasInput(c, i)) Fail(c, fmt::format("input {} is missing", i));
    return Value(c.node.input(i), c.who);
  }
  int ConstantInput(const NodeContext& c, int i, const char* what) const {
    const int index = Input(c, i);
    if (!graph_.tensors[index].constant) {
      Fail(c, fmt::format("its {} '{}' is computed by the model; supported: a constant "
                          "(an initializer or a Constant node)",
                          what, c.node.input(i)));
    }
    return index;
  }
  const std::vector<int64_t>& Shape(int tensor) const { return graph_.tensors[tensor].shape; }

  // Every output but the first must be unused (BatchNormalization's training outputs, Dropout's
  // mask, MaxPool's indices).
  void OnlyFirstOutput(const NodeContext& c) const {
    for (int i = 1; i < c.node.output_size(); ++i) {
      if (!c.node.output(i).empty() && uses_.count(c.node.output(i))) {
        Fail(c, fmt::format("its output {} ('{}') is used; supported: the first output only", i,
                            c.node.output(i)));
      }
    }
  }

  // Adds `op` (inputs set) writing the node's first output; the shape is what the op computes.
  int Emit(const NodeContext& c, GraphOp op, std::vector<int64_t> reshape_to = {}) {
    OnlyFirstOutput(c);
    op.name = c.name;
    op.source = c.node.op_type();
    op.output = AddTensor(c.node.output(0), std::move(reshape_to));
    try {
      graph_.tensors[op.output].shape = OpOutputShape(graph_, op);
      // Every shape of the graph has a countable number of elements (Error otherwise), so that
      // products over part of it cannot overflow either.
      graph_.tensors[op.output].Elements();
    } catch (const Error& error) {
      throw Error(fmt::format("{}: {}", path_, error.what()));
    }
    auto inferred = inferred_.find(c.node.output(0));
    if (inferred != inferred_.end() && inferred->second != graph_.tensors[op.output].shape) {
      Fail(c, fmt::format("its output has shape {} here and {} by ONNX's shape inference",
                          ShapeText(graph_.tensors[op.output].shape), ShapeText(inferred->second)));
    }
    graph_.ops.push_back(std::move(op));
    return graph_.ops.back().output;
  }

  void Alias(const NodeContext& c, int input) {
    OnlyFirstOutput(c);
    by_name_[c.node.output(0)] = input;
  }

  // Window attributes shared by Conv and the pools: kernel, strides, dilations, pads and auto_pad
  // on the spatial dimensions of `in` (N, C, H, W).
  void Window(const NodeContext& c, GraphOp& op, const std::vector<int64_t>& in,
              std::vector<int64_t> kernel) {
    if (kernel.size() != 2 || in.size() != 4) {
      Fail(c, fmt::format("a {}-D window on input {}; supported: 2-D (N, C, H, W)", kernel.size(),
                          ShapeText(in)));
    }
    const auto strides = AttrInts(c, "strides", {1, 1});
    const auto dilations = AttrInts(c, "dilations", {1, 1});
    auto pads = AttrInts(c, "pads", {0, 0, 0, 0});
    if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4) {
      Fail(c, "strides, dilations and pads must have 2, 2 and 4 values");
    }
    const std::string auto_pad = AttrString(c, "auto_pad", "NOTSET");
    if (auto_pad == "VALID") {
      pads = {0, 0, 0, 0};
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      for (int d = 0; d < 2; ++d) {
        const int64_t out = (in[2 + d] + strides[d] - 1) / strides[d];
        const int64_t total = std::max<int64_t>(
            0, (out - 1) * strides[d] + dilations[d] * (kernel[d] - 1) + 1 - in[2 + d]);
        const int64_t small = total / 2, large = total - small;
        pads[d] = auto_pad == "SAME_UPPER" ? small : large;
        pads[d + 2] = auto_pad == "SAME_UPPER" ? large : small;
      }
    } else if (auto_pad != "NOTSET") {
      Fail(c, fmt::format("auto_pad '{}'; supported: NOTSET, SAME_UPPER, SAME_LOWER, VALID",
                          auto_pad));
    }
    op.kernel = {kernel[0], kernel[1]};
    op.strides = {strides[0], strides[1]};
    op.dilations = {dilations[0], dilations[1]};
    op.pads = {pads[0], pads[1], pads[2], pads[3]};
  }

  int64_t Axis(const NodeContext& c, int64_t axis, size_t rank) const {
    const int64_t r = static_cast<int64_t>(rank);
    if (axis < -r || axis >= r)
      Fail(c, fmt::format("axis {} is outside a rank-{} tensor", axis, r));
    return axis < 0 ? axis + r : axis;
  }

  void Conv(const NodeContext& c) {
    GraphOp op;
    op.kind = GraphOpKind::kConv;
    const int x = Input(c, 0);
    const int w = ConstantInput(c, 1, "weight");
    op.inputs = {x, w};
    if (HasInput(c, 2)) op.inputs.push_back(ConstantInput(c, 2, "bias"));
    const auto& wshape = Shape(w);
    if (wshape.size() != 4) {
      Fail(c,
           fmt::format("weight {}; supported: 2-D convolutions (a 4-D weight)", ShapeText(wshape)));
    }
    const auto kernel = AttrInts(c, "kernel_shape", {wshape[2], wshape[3]});
    if (kernel != std::vector<int64_t>{wshape[2], wshape[3]}) {
      Fail(c, fmt::format("kernel_shape {} differs from the weight's {}", ShapeText(kernel),
                          ShapeText(wshape)));
    }
    Window(c, op, Shape(x), kernel);
    op.group = AttrInt(c, "group", 1);
    Emit(c, op);
  }

  // Folds y = γ (x − μ) / √(σ² + ε) + β into the convolution that makes x: w'[k] = s_k w[k],
  // b'[k] = s_k (b[k] − μ_k) + β_k with s_k = γ_k / √(σ²_k + ε).
  void BatchNormalization(const NodeContext& c) {
    const int x = Input(c, 0);
    GraphOp* conv = nullptr;
    for (GraphOp& op : graph_.ops) {
      if (op.output == x && op.kind == GraphOpKind::kConv) conv = &op;
    }
    if (conv == nullptr || uses_[c.node.input(0)] != 1) {
      Fail(c, fmt::format("its input '{}' is not the output of a Conv that feeds it alone; "
                          "supported: BatchNormalization folded into the Conv before it",
                          c.node.input(0)));
    }
    const int64_t channels = Shape(x)[1];
    std::vector<const std::vector<float>*> params;
    for (int i = 1; i <= 4; ++i) {
      const int index = ConstantInput(c, i, "parameter");
      if (Shape(index) != std::vector<int64_t>{channels}) {
        Fail(c, fmt::format("parameter '{}' has shape {}, not [{}]", c.node.input(i),
                            ShapeText(Shape(index)), channels));
      }
      params.push_back(&graph_.tensors[index].data);
    }
    if (AttrInt(c, "training_mode", 0) != 0) Fail(c, "training_mode 1; supported: inference (0)");
    const double epsilon = AttrFloat(c, "epsilon", 1e-5f);
    const auto& gamma = *params[0];
    const auto& beta = *params[1];
    const auto& mean = *params[2];
    const auto& var = *params[3];
    // New constants: the convolution's weight may be shared with another node.
    const GraphTensor& weight = graph_.tensors[conv->inputs[1]];
    std::vector<float> w = weight.data;
    std::vector<float> b(channels, 0.0f);
    if (conv->inputs.size() == 3) b = graph_.tensors[conv->inputs[2]].data;
    const int64_t per_channel = weight.Elements() / channels;
    for (int64_t k = 0; k < channels; ++k) {
      const double scale = gamma[k] / std::sqrt(static_cast<double>(var[k]) + epsilon);
      for (int64_t i = 0; i < per_channel; ++i) {
        w[k * per_channel + i] = static_cast<float>(w[k * per_channel + i] * scale);
      }
      b[k] = static_cast<float>(scale * (b[k] - mean[k]) + beta[k]);
    }
    const std::vector<int64_t> wshape = weight.shape;
    const std::string base = conv->name;
    const int new_w = AddConstant(base + ".weight(bn-folded)", wshape, std::move(w));
    const int new_b = AddConstant(base + ".bias(bn-folded)", {channels}, std::move(b));
    conv->inputs = {conv->inputs[0], new_w, new_b};  // ops do not move when tensors are added
    Alias(c, x);
  }

  void Gemm(const NodeContext& c) {
    if (AttrInt(c, "transA", 0) != 0) Fail(c, "transA 1; supported: transA 0");
    const int a = Input(c, 0);
    const int b = ConstantInput(c, 1, "B");
    const float alpha = AttrFloat(c, "alpha", 1.0f);
    const float beta = AttrFloat(c, "beta", 1.0f);
    const auto& bshape = Shape(b);
    if (bshape.size() != 2) Fail(c, fmt::format("B {} is not 2-D", ShapeText(bshape)));
    const bool trans_b = AttrInt(c, "transB", 0) != 0;
    std::vector<float> weight = DenseWeight(graph_.tensors[b].data, bshape, trans_b);
    for (float& v : weight) v *= alpha;
    const int64_t n = trans_b ? bshape[0] : bshape[1];
    const int64_t k = trans_b ? bshape[1] : bshape[0];
    GraphOp op;
    op.kind = GraphOpKind::kDense;
    op.inputs = {a, AddConstant(c.name + ".weight[N,K]", {n, k}, std::move(weight))};
    if (HasInput(c, 2)) {
      const int bias = ConstantInput(c, 2, "C");
      const auto& cshape = Shape(bias);
      if (!(cshape == std::vector<int64_t>{n} || cshape == std::vector<int64_t>{1, n})) {
        Fail(c, fmt::format("C has shape {}; supported: [{}] or [1, {}] (a bias)",
                            ShapeText(cshape), n, n));
      }
      std::vector<float> values = graph_.tensors[bias].data;
      for (float& v : values) v *= beta;
      op.inputs.push_back(AddConstant(c.name + ".bias", {n}, std::move(values)));
    }
    Emit(c, op);
  }

  // B as [N, K] row-major from [K, N] (transposed = false) or [N, K] (true).
  static std::vector<float> DenseWeight(const std::vector<float>& data,
                                        const std::vector<int64_t>& shape, bool transposed) {
    if (transposed) return data;
    const int64_t k = shape[0], n = shape[1];
    std::vector<float> out(data.size());
    for (int64_t i = 0; i < k; ++i) {
      for (int64_t j = 0; j < n; ++j) out[j * k + i] = data[i * n + j];
    }
    return out;
  }

  void MatMul(const NodeContext& c) {
    const int a = Input(c, 0);
    const int b = Input(c, 1);
    const auto& ashape = Shape(a);
    const auto& bshape = Shape(b);
    GraphOp op;
    if (graph_.tensors[b].constant && bshape.size() == 2 && !graph_.tensors[a].constant) {
      op.kind = GraphOpKind::kDense;
      op.inputs = {a, AddConstant(c.name + ".weight[N,K]", {bshape[1], bshape[0]},
                                  DenseWeight(graph_.tensors[b].data, bshape, false))};
    } else if (!graph_.tensors[a].constant && !graph_.tensors[b].constant && ashape.size() >= 3 &&
               ashape.size() == bshape.size()) {
      op.kind = GraphOpKind::kBatchMatmul;
      op.inputs = {a, b};
    } else {
      Fail(c, fmt::format("a {} · b {}; supported: a constant 2-D b (dense), or two computed "
                          "tensors of the same rank ≥ 3 with equal batch dimensions "
                          "(batch_matmul)",
                          ShapeText(ashape), ShapeText(bshape)));
    }
    Emit(c, op);
  }

  void Clip(const NodeContext& c) {
    GraphOp op;
    op.kind = GraphOpKind::kClip;
    op.inputs = {Input(c, 0)};
    if (opset_ < 11) {
      op.clip_min = AttrFloat(c, "min", op.clip_min);
      op.clip_max = AttrFloat(c, "max", op.clip_max);
    } else {
      auto bound = [&](int i, float& into) {
        if (!HasInput(c, i)) return;
        const int index = ConstantInput(c, i, i == 1 ? "min" : "max");
        if (graph_.tensors[index].data.size() != 1) Fail(c, "min and max must be scalars");
        into = graph_.tensors[index].data[0];
      };
      bound(1, op.clip_min);
      bound(2, op.clip_max);
    }
    Emit(c, op);
  }

  void Pool(const NodeContext& c, GraphOpKind kind) {
    GraphOp op;
    op.kind = kind;
    const int x = Input(c, 0);
    op.inputs = {x};
    const auto kernel = AttrInts(c, "kernel_shape", {});
    if (kernel.empty()) Fail(c, "kernel_shape is missing");
    if (AttrInt(c, "ceil_mode", 0) != 0) Fail(c, "ceil_mode 1; supported: ceil_mode 0");
    if (AttrInt(c, "storage_order", 0) != 0) Fail(c, "storage_order 1; supported: 0");
    Window(c, op, Shape(x), kernel);
    if (op.dilations != std::array<int64_t, 2>{1, 1}) Fail(c, "dilations; supported: 1");
    op.count_include_pad = AttrInt(c, "count_include_pad", 0) != 0;
    Emit(c, op);
  }

  void Flatten(const NodeContext& c) {
    GraphOp op;
    op.kind = GraphOpKind::kFlatten;
    const int x = Input(c, 0);
    op.inputs = {x};
    const int64_t rank = static_cast<int64_t>(Shape(x).size());
    int64_t axis = AttrInt(c, "axis", 1);
    if (axis < -rank || axis > rank) Fail(c, fmt::format("axis {} outside rank {}", axis, rank));
    op.axis = axis < 0 ? axis + rank : axis;
    Emit(c, op);
  }

  void Reshape(const NodeContext& c) {
    const int x = Input(c, 0);
    if (!HasInput(c, 1)) Fail(c, "the shape input is missing");
    auto shape_it = ints_.find(c.node.input(1));
    std::vector<int64_t> target;
    if (shape_it != ints_.end()) {
      const auto& in = Shape(x);
      const bool allow_zero = AttrInt(c, "allowzero", 0) != 0;
      target = shape_it->second;
      int infer = -1;
      for (size_t i = 0; i < target.size(); ++i) {
        if (target[i] == 0 && !allow_zero) {
          if (i >= in.size()) Fail(c, "a 0 in the shape copies a dimension the input lacks");
          target[i] = in[i];
        } else if (target[i] == -1) {
          if (infer >= 0) Fail(c, "more than one -1 in the shape");
          infer = static_cast<int>(i);
        } else if (target[i] < 0) {
          Fail(c, fmt::format("dimension {} in the shape", target[i]));
        }
      }
      if (infer >= 0) {
        std::vector<int64_t> others = target;
        others.erase(others.begin() + infer);
        const std::string where = path_ + ": " + c.who;
        const int64_t known = ElementCount(others, where);
        const int64_t total = ElementCount(in, where);
        if (known == 0 || total % known != 0) {
          Fail(c, fmt::format("{} cannot be reshaped to {}", ShapeText(in),
                              ShapeText(shape_it->second)));
        }
        target[infer] = total / known;
      }
    } else if (auto inferred = inferred_.find(c.node.output(0)); inferred != inferred_.end()) {
      // A shape computed by the model (Shape → Gather → Concat …) that ONNX's data propagation
      // resolved.
      target = inferred->second;
    } else {
      Fail(c, fmt::format("its shape '{}' is computed at run time and ONNX's shape inference "
                          "could not resolve it; supported: a constant shape",
                          c.node.input(1)));
    }
    GraphOp op;
    op.kind = GraphOpKind::kReshape;
    op.inputs = {x};
    Emit(c, op, target);
  }

  void Concat(const NodeContext& c) {
    GraphOp op;
    op.kind = GraphOpKind::kConcat;
    for (int i = 0; i < c.node.input_size(); ++i) op.inputs.push_back(Input(c, i));
    if (op.inputs.empty()) Fail(c, "no inputs");
    const auto* axis = Attr(c, "axis");
    if (axis == nullptr) Fail(c, "axis is missing");
    op.axis = Axis(c, axis->i(), Shape(op.inputs[0]).size());
    Emit(c, op);
  }

  void Softmax(const NodeContext& c) {
    GraphOp op;
    op.kind = GraphOpKind::kSoftmax;
    const int x = Input(c, 0);
    op.inputs = {x};
    const size_t rank = Shape(x).size();
    op.axis = Axis(c, AttrInt(c, "axis", opset_ < 13 ? 1 : -1), rank);
    // Before opset 13, Softmax normalises over every dimension from `axis` on; that is one axis
    // only when the later ones are 1.
    if (opset_ < 13) {
      for (size_t d = op.axis + 1; d < rank; ++d) {
        if (Shape(x)[d] != 1) {
          Fail(c, fmt::format("opset {} normalises over dimensions {}.. of {}; supported: the "
                              "last dimension (or opset ≥ 13)",
                              opset_, op.axis, ShapeText(Shape(x))));
        }
      }
    }
    Emit(c, op);
  }

  void Constant(const NodeContext& c) {
    const auto* value = Attr(c, "value");
    if (value == nullptr || !value->has_t()) {
      Fail(c, "supported: a Constant with a 'value' tensor attribute");
    }
    const onnx::TensorProto& t = value->t();
    const std::string where = fmt::format("{}: {}", path_, c.who);
    if (t.data_type() == onnx::TensorProto::FLOAT) {
      AddConstant(c.node.output(0), Dims(t), FloatValues(t, where));
    } else if (t.data_type() == onnx::TensorProto::INT64 ||
               t.data_type() == onnx::TensorProto::INT32) {
      ints_[c.node.output(0)] = IntValues(t, where);
    } else {
      other_[c.node.output(0)] = DataTypeName(t.data_type());
    }
  }

  void Node(const onnx::NodeProto& node, int index) {
    NodeContext c{
        node, node.name().empty() ? fmt::format("{}_{}", node.op_type(), index) : node.name(), ""};
    c.who = fmt::format("{} node '{}'", node.op_type(), c.name);
    if (!node.domain().empty() && node.domain() != "ai.onnx") {
      Fail(c, fmt::format("op domain '{}'; supported: the default ONNX domain", node.domain()));
    }
    if (node.output_size() < 1 || node.output(0).empty()) Fail(c, "has no output");
    const std::string& type = node.op_type();
    auto unary = [&](GraphOpKind kind) {
      GraphOp op;
      op.kind = kind;
      op.inputs = {Input(c, 0)};
      Emit(c, op);
    };
    if (type == "Conv") return Conv(c);
    if (type == "BatchNormalization") return BatchNormalization(c);
    if (type == "Gemm") return Gemm(c);
    if (type == "MatMul") return MatMul(c);
    if (type == "Relu") return unary(GraphOpKind::kRelu);
    if (type == "Clip") return Clip(c);
    if (type == "Add") {
      GraphOp op;
      op.kind = GraphOpKind::kAdd;
      op.inputs = {Input(c, 0), Input(c, 1)};
      Emit(c, op);
      return;
    }
    if (type == "MaxPool") return Pool(c, GraphOpKind::kMaxPool);
    if (type == "AveragePool") return Pool(c, GraphOpKind::kAveragePool);
    if (type == "GlobalAveragePool") return unary(GraphOpKind::kGlobalAveragePool);
    if (type == "Flatten") return Flatten(c);
    if (type == "Reshape") return Reshape(c);
    if (type == "Concat") return Concat(c);
    if (type == "Softmax") return Softmax(c);
    if (type == "Identity" || type == "Dropout") return Alias(c, Input(c, 0));
    if (type == "Constant") return Constant(c);
    Fail(c, fmt::format("op type '{}' is not supported; supported: {}", type,
                        fmt::join(SupportedOnnxOps(), ", ")));
  }

  std::string path_;
  const OnnxImportOptions& options_;
  onnx::ModelProto model_;
  int64_t opset_ = 0;
  ModelGraph graph_;
  std::map<std::string, int> by_name_;                    // value name → tensor (aliases too)
  std::map<std::string, std::vector<int64_t>> ints_;      // integer constants (shapes)
  std::map<std::string, std::string> other_;              // constants of other types
  std::map<std::string, std::vector<int64_t>> inferred_;  // ONNX's inferred shapes
  std::map<std::string, int> uses_;                       // readers of each value name
};

}  // namespace

const std::vector<std::string>& SupportedOnnxOps() {
  static const std::vector<std::string> ops = {"Add",
                                               "AveragePool",
                                               "BatchNormalization",
                                               "Clip",
                                               "Concat",
                                               "Constant",
                                               "Conv",
                                               "Dropout",
                                               "Flatten",
                                               "Gemm",
                                               "GlobalAveragePool",
                                               "Identity",
                                               "MatMul",
                                               "MaxPool",
                                               "Relu",
                                               "Reshape",
                                               "Softmax"};
  return ops;
}

ModelGraph ImportOnnx(const std::string& path, const OnnxImportOptions& options) {
  return Importer(path, options).Run();
}

std::pair<std::string, std::vector<int64_t>> ParseInputShape(const std::string& text) {
  const std::string expected =
      "expected NAME=DIMxDIMx… with positive integers, e.g. "
      "input=1x3x224x224";
  const size_t eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw Error("--input-shape '" + text + "': " + expected);
  }
  std::vector<int64_t> dims;
  size_t start = eq + 1;
  while (start <= text.size()) {
    size_t end = text.find('x', start);
    if (end == std::string::npos) end = text.size();
    const std::string part = text.substr(start, end - start);
    if (part.empty() || part.size() > 12 ||
        !std::all_of(part.begin(), part.end(), [](char ch) { return std::isdigit(ch); }) ||
        std::stoll(part) < 1) {
      throw Error("--input-shape '" + text + "': " + expected);
    }
    dims.push_back(std::stoll(part));
    start = end + 1;
  }
  return {text.substr(0, eq), dims};
}

bool IsOnnxPath(const std::string& model) {
  if (model.size() < 5) return false;
  std::string tail = model.substr(model.size() - 5);
  std::transform(tail.begin(), tail.end(), tail.begin(),
                 [](unsigned char ch) { return std::tolower(ch); });
  return tail == ".onnx";
}

}  // namespace glimpse
