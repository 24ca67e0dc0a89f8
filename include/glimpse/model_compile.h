// glimpse/model_compile.h — a model graph (glimpse/model_graph.h) compiled into a self-contained
// C++ library for this CPU (`glimpse compile`, docs/compile.md): every tunable layer as the
// generated kernel of its task's best configuration in the tuning database (a task without
// records gets the best of its sibling with the other ReLU epilogue, or else the roofline's
// default configuration, with a warning), the other ops as plain loops, the weights
// embedded, one C entry point, and a CMake project that builds lib<name>.a and lib<name>.so and a
// harness that runs and times the model (<name>_run).
//
//   CompileModelOptions options;
//   options.out_dir = "resnet18-lib";
//   options.database = &database;
//   CompileModelReport report = CompileModel(graph, options);
//
// The artifact (nothing of glimpse at run time; OpenMP and a C++17 compiler to build it):
//   <name>.h             the C API: <name>_run(inputs, outputs, workspace),
//   <name>_workspace_size(),
//                        input/output counts and sizes
//   model.cc             the model: its steps in graph order over a planned workspace
//   kernels.cc           the generated kernels, one per distinct operator
//   glimpse_model_ops.h  the untuned ops' loops
//   weights.bin          every constant the steps read, float32, 64-byte aligned, embedded into
//   weights.cc           the library at build time (.incbin)
//   harness.cc           <name>_run: reads or makes inputs, writes outputs, times the model
//   CMakeLists.txt
//   glimpse-compile.json what was compiled: the model's source, each layer's operator, workload,
//                        configuration and where it came from, the plan's sizes
//
// The CUDA target (target = "cuda"; docs/compile.md, "The CUDA target") follows the same design:
// the same layers, steps and workspace plan, each layer's kernel generated from the GPU template
// (glimpse/gpu.h) with the database's best record of the GPU named by `device`, the other ops as
// plain CUDA kernels, and the weights and prepared weights copied into the device workspace by
// <name>_init. Its files: <name>.h (device pointers and a stream), model.cu, kernel_<k>.cu (one
// per distinct operator, with a host launcher), glimpse_model_ops.cuh, weights.bin/weights.cc,
// harness.cc (timed with CUDA events) and a CMake project for `cuda_arch`. It builds with nvcc on
// a machine without a GPU; running it needs one.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "glimpse/database.h"
#include "glimpse/json.h"
#include "glimpse/model_graph.h"

namespace glimpse {

struct CompileModelOptions {
  std::string out_dir;                 // created; files in it are overwritten
  std::string name;                    // the library's C identifier; empty: from graph.name
  const Database* database = nullptr;  // best configurations; null: defaults for every task
  std::string device;                  // whose records count; empty: CpuDeviceName()
  std::ostream* log = nullptr;         // warnings (a task without records) as they happen
  // Where the model came from, for the manifest (`glimpse run` rebuilds the reference from it):
  // {"model": "resnet18" or "x.onnx", "input_shapes": {...}}.
  Json source = Json::object();
  // Keep activations channel-blocked between the convolutions (glimpse/activation_layouts.h):
  // their layers become the blocked operators (in_block / out_block, other workload keys than the
  // NCHW ones), and the run reorders a tensor where a reader wants the other layout.
  bool blocked_activations = false;
  // "cpu" (this machine) or "cuda" (an NVIDIA GPU: `device` names the GPU whose records count —
  // empty: none, every kernel a default — and `cuda_arch` the architecture to build for; empty:
  // DefaultCudaArch()). The CUDA target keeps activations NCHW (blocked_activations refused).
  std::string target = "cpu";
  std::string cuda_arch;
  // The CUDA target for a host emulation, for tests on a machine without a GPU: each
  // kernel_<k>.cu holds the C++ of its GPU nest (EmitCpp: the GPU loops serial) behind the same
  // launchers, so that the artifact builds with a C++ compiler, a stand-in cuda_runtime.h and
  // GLIMPSE_RT_HOST_EMULATION, and runs on the CPU. Everything but the CUDA emitter is what a
  // real build runs.
  bool cuda_host_emulation = false;
};

// One distinct operator of the compiled model and the configuration its kernel was made from.
struct CompiledKernel {
  std::string op_text;
  std::string workload_key;
  std::string symbol;
  Json config;  // by knob name
  // "tuned" (the database's best), "sibling" (the best of the same shape with the other ReLU
  // epilogue, with a warning) or "default" (the roofline's pick, with a warning)
  std::string origin;
  double best_time_s = 0.0;  // the record's time (a sibling's: its own); 0 for a default
  int64_t layers = 0;        // layers computing it
  std::vector<std::string> layer_names;
};

struct CompileModelReport {
  std::string dir;
  std::string name;
  std::vector<CompiledKernel> kernels;
  std::vector<std::string> warnings;  // defaults used, untunable nodes run as plain loops
  int64_t steps = 0;                  // kernel calls, plain ops and reorders per run
  // With blocked activations: the reorders between layouts per run and the floats they copy.
  int64_t reorders = 0;
  int64_t reorder_floats = 0;
  int64_t weight_bytes = 0;
  int64_t workspace_bytes = 0;
  // Σ over layers of the kernel's recorded best time (tuned kernels only), and whether every
  // layer had one: the estimate a tuning run reports, to set beside the measured latency.
  double estimated_kernels_s = 0.0;
  bool estimate_complete = true;
};

// Writes the artifact. Throws Error for an invalid graph or an unwritable directory.
CompileModelReport CompileModel(const ModelGraph& graph, const CompileModelOptions& options);

// `name` as a C identifier: letters, digits and '_' kept, others '_', a leading digit prefixed.
std::string LibraryIdentifier(const std::string& name);

// The default configuration of an operator's CPU space when the database has no record: the first
// template seed where the template has any (glimpse/cpu_seeds.h: conv2d), else among `candidates`
// valid configurations sampled with `seed`, the one the roofline of the machine profile
// (glimpse/perf_predictor.h) estimates fastest.
Json DefaultCpuConfig(const Operator& op, int candidates = 256, uint64_t seed = 0);

// The default configuration of an operator's GPU space (glimpse/gpu.h) for architecture `arch`
// when the database has no record: among `candidates` valid configurations sampled with `seed`,
// those whose launch fits the architecture's limits (CheckLaunch), ranked by a rule of thumb —
// 64 to 256 threads a block first, then the launch whose threads come nearest to twice what the
// GPU holds at once (SMs × threads per SM; 132 SMs, an H100's, where the limits do not say) —
// and, where NVRTC is in the build, the first of them whose compiled kernel fits its registers
// and shared memory (CheckResources). A guess, not a measurement. Throws Error when none fits.
Json DefaultCudaConfig(const Operator& op, const std::string& arch, int candidates = 256,
                       uint64_t seed = 0);

}  // namespace glimpse
