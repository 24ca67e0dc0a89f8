// Compiling a model graph into a library (glimpse/model_compile.h). A map of this file:
//   - ChooseKernels: one kernel per distinct tunable operator, from the database's best record or
//     a default (the first template seed, else the roofline's pick);
//   - PlanSteps: the run as steps (kernel calls and plain ops) in graph order, with blocked
//     activations a reorder before a step that reads a tensor in the other layout;
//   - WorkspacePlan: intermediate tensors placed in one workspace, reused once dead;
//   - the model.cc text: a pointer expression per tensor, a call per step;
//   - the model.cu text of the CUDA target: the same steps as launches on a stream, the weights
//     and prepared weights in the device workspace;
//   - CompileModel: every file of the artifact and its manifest.
#include "glimpse/model_compile.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <thread>
#include <variant>

#include "compile/artifact_text.h"
#include "glimpse/activation_layouts.h"
#include "glimpse/cpu.h"
#include "glimpse/cpu_seeds.h"
#include "glimpse/cuda.h"
#include "glimpse/error.h"
#include "glimpse/gpu.h"
#include "glimpse/perf_predictor.h"
#include "glimpse/random.h"

namespace glimpse {

namespace fs = std::filesystem;

namespace {

constexpr int64_t kAlignFloats = 16;  // 64 bytes

int64_t AlignUp(int64_t floats) {
  return (floats + kAlignFloats - 1) / kAlignFloats * kAlignFloats;
}

void WriteText(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw Error("compile: cannot write " + path.string());
}

// A kernel call, a plain op or a reorder, in run order.
struct Step {
  int op = -1;     // the graph op it computes (a layer's own op for a kernel); -1: a reorder
  int layer = -1;  // index into the layers, or -1 for a plain op
  std::vector<int> reads;
  int writes = -1;
  int64_t scratch_floats = 0;  // batch_matmul: B transposed for the kernel
};

// A tensor copied into another channel layout (0: NCHW, b: NCHW[b]c) for a reader that wants it.
struct ReorderedTensor {
  int source = -1;
  int64_t from_block = 0, to_block = 0;
};

// First-fit placement of tensors in one buffer, blocks freed when their tensor is dead.
class WorkspacePlan {
 public:
  int64_t Allocate(int64_t floats) {
    floats = AlignUp(std::max<int64_t>(floats, 1));
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->second < floats) continue;
      const int64_t offset = it->first;
      const int64_t left = it->second - floats;
      free_.erase(it);
      if (left > 0) free_[offset + floats] = left;
      return offset;
    }
    const int64_t offset = end_;
    end_ += floats;
    return offset;
  }
  void Free(int64_t offset, int64_t floats) {
    floats = AlignUp(std::max<int64_t>(floats, 1));
    auto [it, inserted] = free_.emplace(offset, floats);
    // Merge with the next block, then with the previous one.
    auto next = std::next(it);
    if (next != free_.end() && it->first + it->second == next->first) {
      it->second += next->second;
      free_.erase(next);
    }
    if (it != free_.begin()) {
      auto previous = std::prev(it);
      if (previous->first + previous->second == it->first) {
        previous->second += it->second;
        free_.erase(it);
      }
    }
  }
  int64_t size() const { return end_; }

 private:
  std::map<int64_t, int64_t> free_;  // offset → floats
  int64_t end_ = 0;
};

class Compiler {
 public:
  Compiler(const ModelGraph& graph, const CompileModelOptions& options)
      : graph_(graph), options_(options) {}

  CompileModelReport Run() {
    ValidateModelGraph(graph_);
    if (options_.out_dir.empty()) throw Error("compile: no output directory");
    if (options_.target != "cpu" && options_.target != "cuda") {
      throw Error("compile: unknown target '" + options_.target + "'; accepted: cpu, cuda");
    }
    if (cuda() && options_.blocked_activations) {
      throw Error(
          "compile: the CUDA target keeps activations NCHW (its templates take no channel-blocked "
          "layout); drop the blocked layout");
    }
    if (cuda()) cuda_arch_ = options_.cuda_arch.empty() ? DefaultCudaArch() : options_.cuda_arch;
    if (cuda()) cuda_limits_ = GpuLimitsForArch(cuda_arch_);
    report_.name = LibraryIdentifier(options_.name.empty() ? graph_.name : options_.name);
    report_.dir = options_.out_dir;
    std::vector<std::string> untunable;
    layers_ = GraphLayers(graph_, &untunable);
    for (const std::string& why : untunable) {
      Warn("no template, runs as a plain loop: " + why);
    }
    if (options_.blocked_activations) layouts_ = PlanBlockedActivations(graph_, layers_);
    ChooseKernels();
    PlanSteps();
    PlanMemory();
    fs::create_directories(options_.out_dir);
    const fs::path dir(options_.out_dir);
    if (cuda()) {
      WriteCudaFiles(dir);
      report_.steps = static_cast<int64_t>(steps_.size());
      return report_;
    }
    WriteText(dir / "model.cc", ModelSource());
    WriteText(dir / "kernels.cc", kernel_sources_);
    WriteText(dir / "glimpse_model_ops.h", compile::RuntimeOpsHeader());
    WriteText(
        dir / (report_.name + ".h"),
        compile::CHeaderText(report_.name, graph_.source.empty() ? graph_.name : graph_.source,
                             Signatures(graph_.inputs), Signatures(graph_.outputs)));
    WriteText(dir / "harness.cc", compile::HarnessText(report_.name));
    WriteText(dir / "weights.cc", compile::WeightsSourceText(report_.name));
    WriteText(dir / "CMakeLists.txt", compile::CMakeListsText(report_.name, KernelFlags()));
    WriteWeights(dir / "weights.bin");
    WriteText(dir / "glimpse-compile.json", Manifest().dump(2) + "\n");
    report_.steps = static_cast<int64_t>(steps_.size());
    return report_;
  }

 private:
  bool cuda() const { return options_.target == "cuda"; }

  // The operator's task on the target: the CPU space of this machine, or the GPU space.
  Task MakeTask(const Operator& op, const std::string& device) const {
    return cuda() ? MakeGpuTask(op, device) : MakeCpuTask(op);
  }

  void Warn(const std::string& text) {
    report_.warnings.push_back(text);
    if (options_.log) *options_.log << "glimpse: warning: " << text << "\n";
  }

  // ---- Kernels

  void ChooseKernels() {
    const std::string device = RecordsDevice();
    std::map<std::string, int> by_op;
    for (const GraphLayer& layer : layers_) {
      const std::string text = OperatorToString(layer.layer.op);
      auto found = by_op.find(text);
      if (found != by_op.end()) {
        kernel_of_layer_.push_back(found->second);
        report_.kernels[found->second].layers += 1;
        report_.kernels[found->second].layer_names.push_back(layer.layer.name);
        continue;
      }
      const int index = static_cast<int>(report_.kernels.size());
      by_op[text] = index;
      kernel_of_layer_.push_back(index);
      const Task task = MakeTask(layer.layer.op, device);
      CompiledKernel kernel;
      kernel.op_text = text;
      kernel.workload_key = task.WorkloadKey();
      kernel.symbol = fmt::format("{}_k{}", report_.name, index);
      kernel.layers = 1;
      kernel.layer_names = {layer.layer.name};
      std::vector<TuningRecord> best;
      if (options_.database && !device.empty()) {
        best = options_.database->Best(kernel.workload_key, device, 1);
      }
      std::optional<TuningRecord> sibling;
      std::string sibling_op;
      if (best.empty() && options_.database && !device.empty())
        sibling = SiblingBest(layer.layer.op, task, device, &sibling_op);
      if (!best.empty() && best.front().status == MeasureStatus::kOk) {
        kernel.config = best.front().config;
        kernel.origin = "tuned";
        kernel.best_time_s = best.front().time_s;
      } else if (sibling) {
        kernel.config = sibling->config;
        kernel.origin = "sibling";
        kernel.best_time_s = sibling->time_s;
        Warn(
            fmt::format("{} (layer {}): no tuning record on {}; using the best configuration of "
                        "{} (the same shape with another epilogue, {:.4g} ms)",
                        text, layer.layer.name, device, sibling_op, sibling->time_s * 1e3));
      } else {
        kernel.config = cuda() ? DefaultCudaConfig(layer.layer.op, cuda_arch_)
                               : DefaultCpuConfig(layer.layer.op);
        kernel.origin = "default";
        Warn(
            fmt::format("{} (layer {}): no tuning record on {}{}; using the default configuration "
                        "(tune it: glimpse tune --target {} --op '{}')",
                        text, layer.layer.name, device.empty() ? "the GPU" : device,
                        !options_.database ? " (no database given)"
                        : device.empty()   ? " (no GPU named; --device)"
                                           : "",
                        cuda() ? "cuda" : "cpu", text));
      }
      if (cuda()) {
        AddCudaKernel(task, kernel, text);
        report_.kernels.push_back(std::move(kernel));
        continue;
      }
      const std::string source =
          GenerateCpuKernel(task, task.space.ConfigFromJson(kernel.config), kernel.symbol);
      kernel_sources_ += fmt::format(
          "// {}: {} ({}{})\n", kernel.symbol, text, kernel.origin,
          kernel.origin == "tuned" ? fmt::format(", {:.4g} ms measured", kernel.best_time_s * 1e3)
                                   : "");
      kernel_sources_ += source + "\n";
      has_prepare_.push_back(source.find(kernel.symbol + "_prepared_size") != std::string::npos);
      report_.kernels.push_back(std::move(kernel));
    }
    for (size_t i = 0; i < layers_.size(); ++i) {
      const CompiledKernel& kernel = report_.kernels[kernel_of_layer_[i]];
      if (kernel.origin == "tuned") {
        report_.estimated_kernels_s += kernel.best_time_s;
      } else {
        report_.estimate_complete = false;  // a sibling's time is another program's
      }
    }
  }

  // Whose records count: the CPU's (or the named device's); on the CUDA target the GPU named,
  // or none.
  std::string RecordsDevice() const {
    if (cuda()) return options_.device;
    return options_.device.empty() ? CpuDeviceName() : options_.device;
  }

  // The CUDA target's kernel of `kernel.config` (a default's with a warning when a record's does
  // not launch on the architecture), in its own file with the host's launchers.
  void AddCudaKernel(const Task& task, CompiledKernel& kernel, const std::string& text) {
    CudaKernel generated;
    std::string refused;
    try {
      generated = GenerateCudaKernel(task, task.space.ConfigFromJson(kernel.config), kernel.symbol);
      const GpuCheck check = CheckLaunch(generated, cuda_limits_);
      if (!check.ok()) refused = check.reason;
    } catch (const Error& e) {
      refused = e.what();
    }
    if (!refused.empty()) {
      if (kernel.origin == "default") throw Error("compile: " + text + ": " + refused);
      Warn(fmt::format("{}: the {} configuration does not build for {} ({}); using the default",
                       text, kernel.origin, cuda_arch_, refused));
      const Operator op = OperatorFromJson(task.description);
      kernel.config = DefaultCudaConfig(op, cuda_arch_);
      kernel.origin = "default";
      kernel.best_time_s = 0.0;
      generated = GenerateCudaKernel(task, task.space.ConfigFromJson(kernel.config), kernel.symbol);
    }
    const std::string file = fmt::format("kernel_{}.cu", cuda_kernels_.size());
    std::string code = options_.cuda_host_emulation
                           ? HostEmulationKernelText(task, kernel, generated)
                           : CudaKernelText(text, kernel, generated);
    cuda_files_.emplace_back(file, std::move(code));
    has_prepare_.push_back(generated.has_prepare);
    cuda_kernels_.push_back(std::move(generated));
  }

  // kernel_<k>.cu: the generated kernel, and the launchers model.cu calls with the template's
  // launch configuration.
  std::string CudaKernelText(const std::string& text, const CompiledKernel& kernel,
                             const CudaKernel& generated) const {
    auto dims = [](const std::array<int64_t, 3>& d) {
      return fmt::format("dim3({}, {}, {})", d[0], d[1], d[2]);
    };
    std::string code = fmt::format(
        "// {}: {} ({}{}), generated by glimpse compile for {}.\n#include <cuda_runtime.h>\n\n{}\n"
        "// The host's launchers, which model.cu calls: the template's launch configuration.\n"
        "extern \"C\" void {}_launch(const float* const* in, float* prepared, float* out, "
        "cudaStream_t stream) {{\n  (void)prepared;\n  {}<<<{}, {}, 0, stream>>>({});\n}}\n",
        kernel.symbol, text, kernel.origin,
        kernel.origin == "tuned" ? fmt::format(", {:.4g} ms measured", kernel.best_time_s * 1e3)
                                 : "",
        cuda_arch_, generated.code, kernel.symbol, kernel.symbol, dims(generated.launch.grid),
        dims(generated.launch.block),
        KernelArguments(generated, generated.has_prepare ? "prepared, out" : "out"));
    if (generated.has_prepare) {
      code += fmt::format(
          "extern \"C\" void {0}_launch_prepare(const float* const* in, float* prepared, "
          "cudaStream_t stream) {{\n  {0}_prepare<<<{1}, {2}, 0, stream>>>({3});\n}}\n",
          kernel.symbol, dims(generated.prepare_launch.grid), dims(generated.prepare_launch.block),
          KernelArguments(generated, "prepared"));
    }
    return code;
  }

  // "in[0], …, in[n-1], <rest>": a launcher's arguments, the operator's inputs first.
  static std::string KernelArguments(const CudaKernel& generated, const std::string& rest) {
    std::vector<std::string> out;
    for (int i = 0; i < generated.num_inputs; ++i) out.push_back(fmt::format("in[{}]", i));
    if (!rest.empty()) out.push_back(rest);
    return fmt::format("{}", fmt::join(out, ", "));
  }

  // CompileModelOptions::cuda_host_emulation's kernel file: the GPU nest as C++ (its prepared
  // buffer read after the inputs, glimpse/cpu.h's ABI) behind the launchers model.cu calls.
  std::string HostEmulationKernelText(const Task& task, const CompiledKernel& kernel,
                                      const CudaKernel& generated) const {
    const Operator op = OperatorFromJson(task.description);
    const std::string sim = kernel.symbol + "_sim";
    std::string code = fmt::format(
        "// {}: the host emulation of its GPU nest (tests only).\n#include "
        "<cuda_runtime.h>\n\n{}\n",
        kernel.symbol,
        EmitCpp(MakeGpuNest(op, task.space, task.space.ConfigFromJson(kernel.config)), sim));
    code += fmt::format(
        "extern \"C\" void {}_launch(const float* const* in, float* prepared, float* out, "
        "cudaStream_t) {{\n  (void)prepared;\n  const float* all[] = {{{}}};\n  {}(all, "
        "out);\n}}\n",
        kernel.symbol, KernelArguments(generated, generated.has_prepare ? "prepared" : ""), sim);
    if (generated.has_prepare) {
      code += fmt::format(
          "extern \"C\" void {0}_launch_prepare(const float* const* in, float* prepared, "
          "cudaStream_t) {{\n  {1}_prepare(in, prepared);\n}}\n",
          kernel.symbol, sim);
    }
    return code;
  }

  // The best ok record of the same shape with another activation or residual epilogue (the
  // epilogue changes the task, not the space's knobs), when its configuration is valid here;
  // the siblings nearest the operator (fewest epilogue fields changed) first.
  std::optional<TuningRecord> SiblingBest(const Operator& op, const Task& task,
                                          const std::string& device,
                                          std::string* sibling_op) const {
    std::vector<std::pair<int, Operator>> siblings;
    for (int activation = 0; activation < 3; ++activation) {  // none, ReLU, ReLU6
      for (bool residual : {false, true}) {
        Operator sibling = op;
        int changed = 0;
        std::visit(
            [&](auto& shape) {
              changed += (shape.residual != residual) + (shape.relu != (activation == 1)) +
                         (shape.relu6 != (activation == 2));
              shape.residual = residual;
              shape.relu = activation == 1;
              shape.relu6 = activation == 2;
            },
            sibling);
        if (changed > 0) siblings.emplace_back(changed, std::move(sibling));
      }
    }
    std::stable_sort(siblings.begin(), siblings.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [changed, sibling] : siblings) {
      const Task other = MakeTask(sibling, device);
      const std::vector<TuningRecord> best =
          options_.database->Best(other.WorkloadKey(), device, 1);
      if (best.empty() || best.front().status != MeasureStatus::kOk) continue;
      try {
        if (!task.space.IsValid(task.space.ConfigFromJson(best.front().config))) continue;
      } catch (const Error&) {
        continue;
      }
      *sibling_op = OperatorToString(sibling);
      return best.front();
    }
    return std::nullopt;
  }

  // ---- Steps and memory

  void PlanSteps() {
    std::map<int, int> layer_of_op;
    std::set<int> fused;
    for (size_t i = 0; i < layers_.size(); ++i) {
      layer_of_op[layers_[i].op] = static_cast<int>(i);
      fused.insert(layers_[i].fused.begin(), layers_[i].fused.end());
    }
    for (size_t i = 0; i < graph_.ops.size(); ++i) {
      if (fused.count(static_cast<int>(i))) continue;
      const GraphOp& op = graph_.ops[i];
      Step step;
      step.op = static_cast<int>(i);
      auto layer = layer_of_op.find(static_cast<int>(i));
      if (layer != layer_of_op.end()) {
        step.layer = layer->second;
        step.reads = KernelInputs(layer->second);
        step.writes = layers_[layer->second].output;
        if (op.kind == GraphOpKind::kBatchMatmul) {
          step.scratch_floats = graph_.tensors[op.inputs[1]].Elements();
        }
      } else {
        step.reads = op.inputs;
        step.writes = op.output;
      }
      if (options_.blocked_activations) {
        for (int& t : step.reads) {
          if (graph_.tensors[t].constant) continue;
          const int64_t want = layouts_.ReadBlock(step.op, t);
          if (want != layouts_.tensor_block[t]) t = Reordered(t, want);
        }
      }
      steps_.push_back(std::move(step));
    }
  }

  // The tensor `t` in layout `block`: a reorder step the first time it is asked for.
  int Reordered(int t, int64_t block) {
    auto found = reordered_index_.find({t, block});
    if (found != reordered_index_.end()) return found->second;
    const int id = TensorCount();
    reordered_.push_back({t, layouts_.tensor_block[t], block});
    reordered_index_[{t, block}] = id;
    Step step;
    step.reads = {t};
    step.writes = id;
    steps_.push_back(std::move(step));
    report_.reorders += 1;
    report_.reorder_floats += graph_.tensors[t].Elements();
    return id;
  }

  // Graph tensors, then the reordered copies.
  int TensorCount() const { return static_cast<int>(graph_.tensors.size() + reordered_.size()); }
  const GraphTensor& Tensor(int t) const {
    const int graph_count = static_cast<int>(graph_.tensors.size());
    return graph_.tensors[t < graph_count ? t : reordered_[t - graph_count].source];
  }
  const ReorderedTensor& ReorderOf(int t) const {
    return reordered_.at(t - static_cast<int>(graph_.tensors.size()));
  }

  // The tensors a layer's kernel reads, in its operator's input order (glimpse/ops.h).
  std::vector<int> KernelInputs(int layer_index) const {
    const GraphLayer& layer = layers_[layer_index];
    const GraphOp& op = graph_.ops[layer.op];
    std::vector<int> inputs = op.inputs;
    if (op.kind == GraphOpKind::kDense && op.inputs.size() == 2) {
      // A fused Add of a constant vector is the bias.
      for (int fused : layer.fused) {
        const GraphOp& add = graph_.ops[fused];
        if (add.kind != GraphOpKind::kAdd) continue;
        for (int input : add.inputs) {
          if (graph_.tensors[input].constant) inputs.push_back(input);
        }
      }
    }
    if (layer.residual >= 0) inputs.push_back(layer.residual);
    return inputs;
  }

  void PlanMemory() {
    const int count = TensorCount();
    std::vector<int> last_read(count, -1);
    for (size_t s = 0; s < steps_.size(); ++s) {
      for (int t : steps_[s].reads) last_read[t] = static_cast<int>(s);
    }
    for (size_t i = 0; i < graph_.inputs.size(); ++i)
      where_[graph_.inputs[i]] = fmt::format("inputs[{}]", i);
    for (size_t i = 0; i < graph_.outputs.size(); ++i) {
      where_[graph_.outputs[i]] = fmt::format("outputs[{}]", i);
    }
    WorkspacePlan plan;
    std::map<int, int64_t> offset;
    for (size_t s = 0; s < steps_.size(); ++s) {
      Step& step = steps_[s];
      for (int t : step.reads) {
        if (Tensor(t).constant) Weight(t);
      }
      const int out = step.writes;
      if (!where_.count(out)) {
        offset[out] = plan.Allocate(Tensor(out).Elements());
        where_[out] = fmt::format("ws + {}", offset[out]);
      }
      int64_t scratch = -1;
      if (step.scratch_floats > 0) {
        scratch = plan.Allocate(step.scratch_floats);
        scratch_[static_cast<int>(s)] = fmt::format("ws + {}", scratch);
      }
      if (scratch >= 0) plan.Free(scratch, step.scratch_floats);
      std::set<int> done;
      for (int t : step.reads) {
        if (last_read[t] == static_cast<int>(s) && offset.count(t) && done.insert(t).second) {
          plan.Free(offset[t], Tensor(t).Elements());
        }
      }
      if (last_read[out] < 0 && offset.count(out)) plan.Free(offset[out], Tensor(out).Elements());
    }
    for (int output : graph_.outputs) {
      bool written = false;
      for (const Step& step : steps_) written = written || step.writes == output;
      if (!written) {
        throw Error(
            fmt::format("compile: output '{}' is not computed by any op (an input or a "
                        "constant as an output is not supported)",
                        graph_.tensors[output].name));
      }
    }
    report_.workspace_bytes = plan.size() * static_cast<int64_t>(sizeof(float));
  }

  // The weight blob's offset of constant tensor `t` (appended on first use).
  int64_t Weight(int t) {
    auto it = weight_offset_.find(t);
    if (it != weight_offset_.end()) return it->second;
    const int64_t offset = static_cast<int64_t>(weights_.size());
    const auto& data = graph_.tensors[t].data;
    weights_.insert(weights_.end(), data.begin(), data.end());
    weights_.resize(static_cast<size_t>(AlignUp(static_cast<int64_t>(weights_.size()))), 0.0f);
    weight_offset_[t] = offset;
    where_[t] = fmt::format("W + {}", offset);
    report_.weight_bytes = static_cast<int64_t>(weights_.size() * sizeof(float));
    return offset;
  }

  void WriteWeights(const fs::path& path) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(weights_.data()),
              static_cast<std::streamsize>(weights_.size() * sizeof(float)));
    if (!out) throw Error("compile: cannot write " + path.string());
  }

  // ---- model.cc

  const std::string& At(int t) const { return where_.at(t); }

  std::string Float(float v) const {
    if (std::isinf(v)) {
      return v > 0 ? "std::numeric_limits<float>::infinity()"
                   : "-std::numeric_limits<float>::infinity()";
    }
    return fmt::format("{:.9e}f", v);  // always a valid float literal
  }

  std::string KernelCall(size_t s) const {
    const Step& step = steps_[s];
    const CompiledKernel& kernel = report_.kernels[kernel_of_layer_[step.layer]];
    const GraphOp& op = graph_.ops[step.op];
    std::string prelude;
    std::vector<std::string> inputs;
    for (int t : step.reads) inputs.push_back(At(t));
    if (op.kind == GraphOpKind::kBatchMatmul) {
      // The kernel takes B as [batch, N, K]; ONNX's MatMul has it [batch, K, N].
      const auto& b = graph_.tensors[op.inputs[1]].shape;
      int64_t batch = 1;
      for (size_t d = 0; d + 2 < b.size(); ++d) batch *= b[d];
      prelude = fmt::format("glimpse_rt::TransposeLast2({}, {}, {}, {}, {}); ", inputs[1],
                            scratch_.at(static_cast<int>(s)), batch, b[b.size() - 2], b.back());
      inputs[1] = scratch_.at(static_cast<int>(s));
    }
    if (cuda()) {
      const auto prepared = prepared_offset_.find(step.layer);
      return fmt::format(
          "{{ {}const float* in[] = {{{}}}; {}_launch(in, {}, {}, stream); }}", prelude,
          fmt::join(inputs, ", "), kernel.symbol,
          prepared == prepared_offset_.end() ? "nullptr" : fmt::format("P + {}", prepared->second),
          At(step.writes));
    }
    if (has_prepare_[kernel_of_layer_[step.layer]]) {
      inputs.push_back(fmt::format("g_prepared[{}]", step.layer));
    }
    return fmt::format("{{ {}const float* in[] = {{{}}}; {}(in, {}); }}", prelude,
                       fmt::join(inputs, ", "), kernel.symbol, At(step.writes));
  }

  // A reorder step: NCHW ↔ NCHW[b]c, or one block to another.
  std::string ReorderCall(const Step& step) const {
    const ReorderedTensor& r = ReorderOf(step.writes);
    const auto& shape = graph_.tensors[r.source].shape;
    return fmt::format("glimpse_rt::Reorder({}, {}, {}, {}, {}, {}, {});", At(step.reads[0]),
                       At(step.writes), shape[0], shape[1], shape[2] * shape[3], r.from_block,
                       r.to_block);
  }

  std::string OpCall(const Step& step) const {
    const GraphOp& op = graph_.ops[step.op];
    const auto& y = graph_.tensors[op.output];
    const auto& x = graph_.tensors[op.inputs[0]];
    const std::string out = At(op.output);
    // The step's inputs (a reordered copy where the op reads another layout than the tensor's)
    // and, for the ops that work on either layout, the channel block they read: the pools walk
    // each channel's plane `lanes` floats apart.
    const std::vector<int>& in = step.reads;
    const int64_t lanes = std::max<int64_t>(1, layouts_.ReadBlock(step.op, op.inputs[0]));
    switch (op.kind) {
      case GraphOpKind::kRelu:
        return fmt::format("glimpse_rt::Relu({}, {}, {});", At(in[0]), out, y.Elements());
      case GraphOpKind::kClip:
        return fmt::format("glimpse_rt::Clip({}, {}, {}, {}, {});", At(in[0]), out, y.Elements(),
                           Float(op.clip_min), Float(op.clip_max));
      case GraphOpKind::kFlatten:
      case GraphOpKind::kReshape:
        return fmt::format("glimpse_rt::Copy({}, {}, {});", At(in[0]), out, y.Elements());
      case GraphOpKind::kGlobalAveragePool:
        return fmt::format("glimpse_rt::GlobalAveragePool({}, {}, {}, {}, {});", At(in[0]), out,
                           x.shape[0] * x.shape[1] / lanes, x.shape[2] * x.shape[3], lanes);
      case GraphOpKind::kMaxPool:
      case GraphOpKind::kAveragePool:
        return fmt::format(
            "glimpse_rt::Pool({}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, "
            "{});",
            At(in[0]), out, op.kind == GraphOpKind::kMaxPool, x.shape[0] * x.shape[1] / lanes,
            x.shape[2], x.shape[3], y.shape[2], y.shape[3], op.kernel[0], op.kernel[1],
            op.strides[0], op.strides[1], op.pads[0], op.pads[1], op.pads[2], op.pads[3],
            op.count_include_pad, lanes);
      case GraphOpKind::kAdd: {
        const auto& a = graph_.tensors[op.inputs[0]];
        const auto& b = graph_.tensors[op.inputs[1]];
        if (a.shape == b.shape) {
          return fmt::format("glimpse_rt::AddSame({}, {}, {}, {});", At(in[0]), At(in[1]), out,
                             y.Elements());
        }
        auto strides = [&](const std::vector<int64_t>& s) {
          std::vector<int64_t> out_strides(y.shape.size(), 0);
          int64_t stride = 1;
          for (int d = static_cast<int>(s.size()) - 1; d >= 0; --d) {
            const size_t at = d + (y.shape.size() - s.size());
            out_strides[at] = s[d] == 1 ? 0 : stride;
            stride *= s[d];
          }
          return out_strides;
        };
        return fmt::format(
            "{{ static const int64_t d[] = {{{}}}, as[] = {{{}}}, bs[] = {{{}}}; "
            "glimpse_rt::Add({}, {}, {}, {}, d, as, bs); }}",
            fmt::join(y.shape, ", "), fmt::join(strides(a.shape), ", "),
            fmt::join(strides(b.shape), ", "), At(in[0]), At(in[1]), out, y.shape.size());
      }
      case GraphOpKind::kConcat: {
        int64_t outer = 1;
        for (int64_t d = 0; d < op.axis; ++d) outer *= y.shape[d];
        std::vector<std::string> xs;
        std::vector<int64_t> blocks;
        for (int input : in) {
          xs.push_back(At(input));
          blocks.push_back(Tensor(input).Elements() / outer);
        }
        return fmt::format(
            "{{ const float* xs[] = {{{}}}; static const int64_t b[] = {{{}}}; "
            "glimpse_rt::Concat(xs, b, {}, {}, {}); }}",
            fmt::join(xs, ", "), fmt::join(blocks, ", "), xs.size(), outer, out);
      }
      case GraphOpKind::kSoftmax: {
        int64_t outer = 1, inner = 1;
        for (int64_t d = 0; d < op.axis; ++d) outer *= y.shape[d];
        for (size_t d = op.axis + 1; d < y.shape.size(); ++d) inner *= y.shape[d];
        return fmt::format("glimpse_rt::Softmax({}, {}, {}, {}, {});", At(in[0]), out, outer,
                           y.shape[op.axis], inner);
      }
      case GraphOpKind::kConv: {
        const auto& w = graph_.tensors[op.inputs[1]].shape;
        return fmt::format(
            "glimpse_rt::ConvDirect({}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, "
            "{}, {}, {}, {}, {});",
            At(in[0]), At(in[1]), op.inputs.size() == 3 ? At(in[2]) : "nullptr", out, x.shape[0],
            x.shape[1], x.shape[2], x.shape[3], w[0], w[2], w[3], y.shape[2], y.shape[3], op.group,
            op.strides[0], op.strides[1], op.dilations[0], op.dilations[1], op.pads[0], op.pads[1]);
      }
      case GraphOpKind::kDense:
      case GraphOpKind::kBatchMatmul:
        break;  // always layers
    }
    throw Error(
        fmt::format("compile: op '{}' ({}) has no plain loop", op.name, GraphOpKindName(op.kind)));
  }

  std::string ModelSource() const {
    const std::string& name = report_.name;
    std::string text = fmt::format(
        "// model.cc — the model {0}: its steps in graph order over one workspace.\n"
        "// Generated by glimpse compile from {1}.\n"
        "#include <chrono>\n#include <cstdint>\n#include <cstdlib>\n#include <limits>\n"
        "#include <mutex>\n\n"
        "#include \"{0}.h\"\n#include \"glimpse_model_ops.h\"\n\n"
        "extern \"C\" {{\nextern const float {0}_weights[];\n",
        name, graph_.source.empty() ? graph_.name : graph_.source);
    for (size_t k = 0; k < report_.kernels.size(); ++k) {
      const std::string& symbol = report_.kernels[k].symbol;
      text += fmt::format("void {}(const float* const* inputs, float* output);\n", symbol);
      if (has_prepare_[k]) {
        text += fmt::format(
            "int64_t {0}_prepared_size();\nvoid {0}_prepare(const float* const* inputs, float* "
            "prepared);\n",
            symbol);
      }
    }
    text += "}\n\nnamespace {\n\n";
    text += fmt::format("constexpr size_t kWorkspaceBytes = {};\n", report_.workspace_bytes);
    text += InputOutputSizesText();
    text += fmt::format("float* g_prepared[{}] = {{}};\nstd::once_flag g_prepare_once;\n\n",
                        std::max<size_t>(1, layers_.size()));
    text += "// Packs the weights of the kernels that want them, once.\nvoid Prepare() {\n";
    text += fmt::format("  const float* W = {}_weights;\n  (void)W;\n", name);
    for (const Step& step : steps_) {
      if (step.layer < 0 || !has_prepare_[kernel_of_layer_[step.layer]]) continue;
      const std::string& symbol = report_.kernels[kernel_of_layer_[step.layer]].symbol;
      std::vector<std::string> inputs;
      for (int t : step.reads) inputs.push_back(Tensor(t).constant ? At(t) : "nullptr");
      text += fmt::format(
          "  {{ const float* in[] = {{{0}}}; const size_t bytes = (size_t({1}_prepared_size()) * "
          "sizeof(float) + 63) / 64 * 64;\n    g_prepared[{2}] = "
          "static_cast<float*>(std::aligned_alloc("
          "64, bytes > 0 ? bytes : 64)); {1}_prepare(in, g_prepared[{2}]); }}\n",
          fmt::join(inputs, ", "), symbol, step.layer);
    }
    text += "}\n\n";
    text += StepTablesText();
    text +=
        "// Adds a step's wall time to seconds[step] when profiling (seconds non-null).\n"
        "class StepTimer {\n public:\n"
        "  StepTimer(double* seconds, int step) : seconds_(seconds), step_(step) {\n"
        "    if (seconds_) start_ = std::chrono::steady_clock::now();\n  }\n"
        "  ~StepTimer() {\n    if (seconds_) {\n      seconds_[step_] += "
        "std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();\n"
        "    }\n  }\n\n private:\n  double* seconds_;\n  int step_;\n"
        "  std::chrono::steady_clock::time_point start_;\n};\n\n";
    text += fmt::format(
        "int RunSteps(const float* const* inputs, float* const* outputs, void* workspace,\n"
        "             double* step_seconds) {{\n"
        "  if (!inputs || !outputs || (kWorkspaceBytes > 0 && !workspace) ||\n"
        "      reinterpret_cast<uintptr_t>(workspace) % 64 != 0) {{\n    return 1;\n  }}\n"
        "  std::call_once(g_prepare_once, Prepare);\n"
        "  float* ws = static_cast<float*>(workspace);\n  (void)ws;\n"
        "  const float* W = {0}_weights;\n  (void)W;\n",
        name);
    for (size_t s = 0; s < steps_.size(); ++s) {
      std::string comment = StepLabel(s);
      std::replace_if(
          comment.begin(), comment.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
      text += fmt::format("  // {}\n  {{ StepTimer timer(step_seconds, {}); {} }}\n", comment, s,
                          StepCall(s));
    }
    text += "  return 0;\n}\n\n}  // namespace\n\n";
    text += AccessorFunctionsText();
    text += fmt::format(
        "extern \"C\" int {0}_run(const float* const* inputs, float* const* outputs, void* "
        "workspace) {{\n  return RunSteps(inputs, outputs, workspace, nullptr);\n}}\n\n"
        "extern \"C\" int {0}_run_profiled(const float* const* inputs, float* const* outputs, "
        "void* workspace, double* step_seconds) {{\n"
        "  return step_seconds ? RunSteps(inputs, outputs, workspace, step_seconds) : 1;\n}}\n",
        name);
    return text;
  }

  // ---- The CUDA target's files

  void WriteCudaFiles(const fs::path& dir) {
    // The workspace: the weights, then each layer's prepared weights, then the intermediates.
    int64_t prepared_floats = 0;
    for (const Step& step : steps_) {
      if (step.layer < 0 || !has_prepare_[kernel_of_layer_[step.layer]]) continue;
      prepared_offset_[step.layer] = prepared_floats;
      prepared_floats += AlignUp(cuda_kernels_[kernel_of_layer_[step.layer]].prepared_floats);
    }
    const int64_t weight_floats = static_cast<int64_t>(weights_.size());
    intermediate_bytes_ = report_.workspace_bytes;
    report_.workspace_bytes += (weight_floats + prepared_floats) * int64_t{sizeof(float)};
    std::vector<std::string> kernel_files;
    for (const auto& [file, code] : cuda_files_) {
      WriteText(dir / file, code);
      kernel_files.push_back(file);
    }
    WriteText(dir / "model.cu", CudaModelSource(weight_floats, prepared_floats));
    WriteText(dir / "glimpse_model_ops.cuh", compile::CudaRuntimeOpsHeader());
    WriteText(dir / (report_.name + ".h"),
              compile::CudaCHeaderText(
                  report_.name, graph_.source.empty() ? graph_.name : graph_.source, cuda_arch_,
                  Signatures(graph_.inputs), Signatures(graph_.outputs)));
    WriteText(dir / "harness.cc", compile::CudaHarnessText(report_.name));
    WriteText(dir / "weights.cc", compile::WeightsSourceText(report_.name));
    WriteText(dir / "CMakeLists.txt",
              compile::CudaCMakeListsText(report_.name, cuda_arch_, kernel_files));
    WriteWeights(dir / "weights.bin");
    WriteText(dir / "glimpse-compile.json", Manifest().dump(2) + "\n");
  }

  std::string CudaModelSource(int64_t weight_floats, int64_t prepared_floats) const {
    const std::string& name = report_.name;
    std::string text = fmt::format(
        "// model.cu — the model {0} for NVIDIA GPUs ({1}): its steps in graph order, launched on\n"
        "// one stream over one device workspace (the weights, the prepared weights, the\n"
        "// intermediate tensors). Generated by glimpse compile from {2}.\n"
        "#include <cuda_runtime.h>\n\n#include <cstdint>\n#include <limits>\n\n"
        "#include \"{0}.h\"\n#include \"glimpse_model_ops.cuh\"\n\n"
        "extern \"C\" {{\nextern const float {0}_weights[];\n",
        name, cuda_arch_, graph_.source.empty() ? graph_.name : graph_.source);
    for (size_t k = 0; k < report_.kernels.size(); ++k) {
      const std::string& symbol = report_.kernels[k].symbol;
      text += fmt::format(
          "void {}_launch(const float* const* in, float* prepared, float* out, cudaStream_t "
          "stream);\n",
          symbol);
      if (has_prepare_[k]) {
        text += fmt::format(
            "void {}_launch_prepare(const float* const* in, float* prepared, cudaStream_t "
            "stream);\n",
            symbol);
      }
    }
    text += "}\n\nnamespace {\n\n";
    text += fmt::format(
        "constexpr size_t kWeightFloats = {}, kPreparedFloats = {};\n"
        "constexpr size_t kWorkspaceBytes = {};  // the weights, prepared weights, intermediates\n",
        weight_floats, prepared_floats, report_.workspace_bytes);
    text += InputOutputSizesText() + "\n";
    text += StepTablesText();
    text +=
        "bool BadWorkspace(const void* workspace) {\n"
        "  return (kWorkspaceBytes > 0 && !workspace) ||\n"
        "         reinterpret_cast<uintptr_t>(workspace) % 64 != 0;\n}\n\n";
    text +=
        "// The kernels that transform their weights once do so here.\n"
        "void PrepareWeights(const float* W, float* P, cudaStream_t stream) {\n"
        "  (void)W;\n  (void)P;\n  (void)stream;\n";
    for (const Step& step : steps_) {
      if (step.layer < 0 || !has_prepare_[kernel_of_layer_[step.layer]]) continue;
      const std::string& symbol = report_.kernels[kernel_of_layer_[step.layer]].symbol;
      std::vector<std::string> inputs;
      for (int t : step.reads) inputs.push_back(Tensor(t).constant ? At(t) : "nullptr");
      text += fmt::format(
          "  {{ const float* in[] = {{{}}}; {}_launch_prepare(in, P + {}, stream); }}\n",
          fmt::join(inputs, ", "), symbol, prepared_offset_.at(step.layer));
    }
    text += "}\n\n}  // namespace\n\n";
    text += AccessorFunctionsText() + "\n";
    text += fmt::format(
        "extern \"C\" int {0}_init(void* workspace, void* stream_handle) {{\n"
        "  if (BadWorkspace(workspace)) return cudaErrorInvalidValue;\n"
        "  cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);\n"
        "  float* W = static_cast<float*>(workspace);\n"
        "  cudaError_t status = cudaMemcpyAsync(W, {0}_weights, kWeightFloats * sizeof(float),\n"
        "                                       cudaMemcpyHostToDevice, stream);\n"
        "  if (status != cudaSuccess) return status;\n"
        "  glimpse_rt::Stream() = stream;\n"
        "  PrepareWeights(W, W + kWeightFloats, stream);\n"
        "  return cudaGetLastError();\n}}\n\n"
        "extern \"C\" int {0}_run(const float* const* inputs, float* const* outputs, void* "
        "workspace, void* stream_handle) {{\n"
        "  if (!inputs || !outputs || BadWorkspace(workspace)) return cudaErrorInvalidValue;\n"
        "  cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);\n"
        "  glimpse_rt::Stream() = stream;\n"
        "  const float* W = static_cast<const float*>(workspace);\n"
        "  float* P = static_cast<float*>(workspace) + kWeightFloats;\n"
        "  float* ws = P + kPreparedFloats;\n"
        "  (void)W;\n  (void)P;\n  (void)ws;\n",
        name);
    for (size_t s = 0; s < steps_.size(); ++s) {
      std::string comment = StepLabel(s);
      std::replace_if(
          comment.begin(), comment.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
      text += fmt::format("  // {}\n  {}\n", comment, StepCall(s));
    }
    text += "  return cudaGetLastError();\n}\n";
    return text;
  }

  // ---- What model.cc and model.cu share

  // kInputs, kOutputs and the floats of each input and output.
  std::string InputOutputSizesText() const {
    auto sizes = [&](const std::vector<int>& tensors) {
      std::vector<int64_t> out;
      for (int t : tensors) out.push_back(graph_.tensors[t].Elements());
      return out;
    };
    return fmt::format(
        "constexpr int kInputs = {}, kOutputs = {};\nconstexpr size_t kInputSizes[] = {{{}}};\n"
        "constexpr size_t kOutputSizes[] = {{{}}};\n",
        graph_.inputs.size(), graph_.outputs.size(), fmt::join(sizes(graph_.inputs), ", "),
        fmt::join(sizes(graph_.outputs), ", "));
  }

  // kSteps and each step's name and kind, for the profile and the API.
  std::string StepTablesText() const {
    std::vector<std::string> names, kinds;
    for (size_t s = 0; s < steps_.size(); ++s) {
      names.push_back(compile::CStringLiteral(StepLabel(s)));
      kinds.push_back(compile::CStringLiteral(StepKind(s)));
    }
    return fmt::format(
        "// The steps, for the profile.\nconstexpr int kSteps = {};\n"
        "const char* const kStepNames[] = {{\n    {}}};\n"
        "const char* const kStepKinds[] = {{{}}};\n\n",
        steps_.size(), fmt::join(names, ",\n    "), fmt::join(kinds, ", "));
  }

  // The C API's sizes and steps (<name>.h), over the constants above and kWorkspaceBytes.
  std::string AccessorFunctionsText() const {
    return fmt::format(
        "extern \"C\" size_t {0}_workspace_size(void) {{ return kWorkspaceBytes; }}\n"
        "extern \"C\" int {0}_num_inputs(void) {{ return kInputs; }}\n"
        "extern \"C\" int {0}_num_outputs(void) {{ return kOutputs; }}\n"
        "extern \"C\" size_t {0}_input_size(int i) {{ return i >= 0 && i < kInputs ? "
        "kInputSizes[i] : 0; }}\n"
        "extern \"C\" size_t {0}_output_size(int i) {{ return i >= 0 && i < kOutputs ? "
        "kOutputSizes[i] : 0; }}\n"
        "extern \"C\" int {0}_num_steps(void) {{ return kSteps; }}\n"
        "extern \"C\" const char* {0}_step_name(int i) {{ return i >= 0 && i < kSteps ? "
        "kStepNames[i] : \"\"; }}\n"
        "extern \"C\" const char* {0}_step_kind(int i) {{ return i >= 0 && i < kSteps ? "
        "kStepKinds[i] : \"\"; }}\n\n",
        report_.name);
  }

  // What step `s` computes, as its comment in model.cc and its name in the profile.
  std::string StepLabel(size_t s) const {
    const Step& step = steps_[s];
    if (step.op < 0) {
      const ReorderedTensor& r = ReorderOf(step.writes);
      return fmt::format("{}: channel block {} -> {}", graph_.tensors[r.source].name, r.from_block,
                         r.to_block);
    }
    const GraphOp& op = graph_.ops[step.op];
    if (step.layer >= 0) {
      const CompiledKernel& kernel = report_.kernels[kernel_of_layer_[step.layer]];
      return fmt::format("{}: {} ({})", op.name, kernel.op_text, kernel.origin);
    }
    return fmt::format("{}: {} {}", op.name, GraphOpKindName(op.kind),
                       ShapeText(graph_.tensors[op.output].shape));
  }

  // "kernel" (a tuned operator's kernel), "op" (a plain loop of the runtime) or "reorder".
  const char* StepKind(size_t s) const {
    const Step& step = steps_[s];
    return step.op < 0 ? "reorder" : step.layer >= 0 ? "kernel" : "op";
  }

  std::string StepCall(size_t s) const {
    const Step& step = steps_[s];
    if (step.op < 0) return ReorderCall(step);
    return step.layer >= 0 ? KernelCall(s) : OpCall(step);
  }

  std::vector<compile::TensorSignature> Signatures(const std::vector<int>& tensors) const {
    std::vector<compile::TensorSignature> out;
    for (int t : tensors) out.push_back({graph_.tensors[t].name, graph_.tensors[t].shape});
    return out;
  }

  // The tuner's flags, less what CMake's targets say themselves (shared, PIC, OpenMP).
  static std::vector<std::string> KernelFlags() {
    std::vector<std::string> flags;
    for (const std::string& flag : DefaultCpuCompilerFlags()) {
      if (flag == "-shared" || flag == "-fPIC" || flag == "-fopenmp" ||
          flag.rfind("-std=", 0) == 0) {
        continue;
      }
      flags.push_back(flag);
    }
    return flags;
  }

  Json Manifest() const {
    Json kernels = Json::array();
    for (const CompiledKernel& k : report_.kernels) {
      kernels.push_back({{"symbol", k.symbol},
                         {"op", k.op_text},
                         {"workload_key", k.workload_key},
                         {"config", k.config},
                         {"origin", k.origin},
                         {"best_time_s", k.best_time_s},
                         {"layers", k.layer_names}});
    }
    auto tensors = [&](const std::vector<int>& list) {
      Json out = Json::array();
      for (int t : list) {
        out.push_back({{"name", graph_.tensors[t].name}, {"shape", graph_.tensors[t].shape}});
      }
      return out;
    };
    return {{"format", "glimpse-compile"},
            {"version", 1},
            {"name", report_.name},
            {"source", options_.source},
            {"graph", graph_.source},
            {"target", options_.target},
            {"device", RecordsDevice()},
            {"arch", cuda() ? Json(cuda_arch_) : Json(nullptr)},
            {"template_version", cuda() ? Json(nullptr) : Json(kCpuTemplateVersion)},
            {"kernel_flags", cuda() ? Json::array() : Json(KernelFlags())},
            {"inputs", tensors(graph_.inputs)},
            {"outputs", tensors(graph_.outputs)},
            {"kernels", kernels},
            {"steps", steps_.size()},
            {"blocked_activations", options_.blocked_activations},
            {"reorders", report_.reorders},
            {"reorder_floats", report_.reorder_floats},
            {"weight_bytes", report_.weight_bytes},
            {"workspace_bytes", report_.workspace_bytes},
            {"intermediate_bytes", cuda() ? intermediate_bytes_ : report_.workspace_bytes},
            {"estimated_kernels_s", report_.estimated_kernels_s},
            {"estimate_complete", report_.estimate_complete},
            {"warnings", report_.warnings}};
  }

  const ModelGraph& graph_;
  const CompileModelOptions& options_;
  CompileModelReport report_;
  std::vector<GraphLayer> layers_;
  std::vector<int> kernel_of_layer_;
  std::vector<bool> has_prepare_;  // per kernel
  std::string kernel_sources_;
  std::vector<Step> steps_;
  ActivationLayoutPlan layouts_;  // with blocked activations
  std::vector<ReorderedTensor> reordered_;
  std::map<std::pair<int, int64_t>, int> reordered_index_;  // (tensor, block) → its copy
  std::map<int, std::string> where_;                        // tensor → pointer expression
  std::map<int, std::string> scratch_;                      // step → its scratch pointer
  std::map<int, int64_t> weight_offset_;
  std::vector<float> weights_;
  // The CUDA target: the architecture and its limits, each kernel as generated and its file
  // (name, text), each prepared layer's offset in the prepared weights, the intermediates' bytes.
  std::string cuda_arch_;
  GpuLimits cuda_limits_;
  std::vector<CudaKernel> cuda_kernels_;
  std::vector<std::pair<std::string, std::string>> cuda_files_;
  std::map<int, int64_t> prepared_offset_;
  int64_t intermediate_bytes_ = 0;
};

}  // namespace

std::string LibraryIdentifier(const std::string& name) {
  std::string out;
  for (char c : name) {
    out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  }
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "m_" + out;
  return out;
}

Json DefaultCpuConfig(const Operator& op, int candidates, uint64_t seed) {
  // The library runs here: this machine's space, whose register tiles fit its registers.
  const ConfigSpace space = MakeCpuSpace(op, HostRegisterTileFloats());
  // The library runs on every core unless OMP_NUM_THREADS says otherwise.
  const std::vector<Config> seeds = CpuTemplateSeeds(
      op, space, HostVectorRegisters(), static_cast<int>(std::thread::hardware_concurrency()));
  if (!seeds.empty()) return space.ConfigToJson(seeds.front());
  Rng rng(seed);
  std::optional<MachineProfile> profile;
  try {
    profile = LoadMachineProfile(DefaultMachineProfilePath());
  } catch (const Error&) {
    // No profile: the first valid configuration sampled.
  }
  std::optional<Config> best;
  double best_time = 0.0;
  for (int i = 0; i < candidates; ++i) {
    std::optional<Config> config = space.SampleValid(rng);
    if (!config) break;
    if (!profile) {
      best = config;
      break;
    }
    try {
      const double time = EstimateRoofline(MakeCpuNest(op, space, *config), *profile).time_s;
      if (!best || time < best_time) {
        best = config;
        best_time = time;
      }
    } catch (const Error&) {
      continue;  // a configuration that does not instantiate
    }
  }
  if (!best) throw Error("compile: no valid configuration of " + OperatorToString(op));
  return space.ConfigToJson(*best);
}

CompileModelReport CompileModel(const ModelGraph& graph, const CompileModelOptions& options) {
  return Compiler(graph, options).Run();
}

}  // namespace glimpse
