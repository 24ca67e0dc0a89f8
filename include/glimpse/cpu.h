// glimpse/cpu.h — tuning generated kernels on this CPU: operator workloads, their schedule
// templates, the C++ emitter, the Builder (system compiler → shared objects) and the isolated
// Runner (a worker process that checks and times each candidate).
//
// Kernel ABI. Every generated kernel is one C function
//     extern "C" void <symbol>(const float* const* inputs, float* output);
// inputs are the operator's inputs in order (dense: A[M,K], B[N,K], bias[N] when bias=1; conv2d:
// input[N,C,H,W], weight[K,C,R,S], bias[K] when bias=1; depthwise_conv2d: input[N,C,H,W],
// weight[C,R,S], bias[C] when bias=1; batch_matmul: A[B,M,K], B[B,N,K], bias[N] when bias=1),
// output is written entirely. Tensors are float32, row-major, unpadded. Kernels may use OpenMP
// (they are compiled with -fopenmp).
//
// Optional prepare step. A kernel whose schedule re-lays-out a constant of the model (a weight
// packed into a blocked layout) also defines
//     extern "C" int64_t <symbol>_prepared_size();   // floats of the prepared buffer
//     extern "C" void <symbol>_prepare(const float* const* inputs, float* prepared);
// The caller allocates `prepared` (64-byte aligned), calls _prepare once — it reads only the
// constant inputs (CpuOpInputIsConstant); the others may be null — and then calls the kernel, as
// often as it likes, with one more input pointer: inputs[number of operator inputs] = prepared.
// A deployment does this once when it loads the model; CpuRunner's worker does it outside the
// timed region (the kernel's own packing of activations stays timed). Kernels without the two
// symbols take the operator's inputs only.
//
// Units: times in seconds, sizes in bytes unless a name says otherwise.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "glimpse/json.h"
#include "glimpse/loop_nest.h"
#include "glimpse/measure.h"
#include "glimpse/space.h"
#include "glimpse/task.h"
#include "glimpse/validity.h"

namespace glimpse {

// ---- Workloads

// C[M,N] = A[M,K] · B[N,K]ᵀ (+ bias[N]) (then ReLU).
struct DenseShape {
  int64_t m = 1, n = 1, k = 1;
  bool bias = false, relu = false;
};

// out[N,K,OH,OW] = Σ_{c,r,s} in[N,C,oh·stride + r·dilation − pad, ow·stride + s·dilation − pad]
//                  · weight[K,C,R,S] (+ bias[K]) (then ReLU); the input is zero outside its bounds.
struct Conv2dShape {
  int64_t n = 1, c = 1, h = 1, w = 1, k = 1, r = 1, s = 1;
  int64_t stride = 1, pad = 0, dilation = 1;
  bool bias = false, relu = false;
  int64_t OutH() const { return (h + 2 * pad - dilation * (r - 1) - 1) / stride + 1; }
  int64_t OutW() const { return (w + 2 * pad - dilation * (s - 1) - 1) / stride + 1; }
};

// Depthwise conv2d (channel multiplier 1): out[N,C,OH,OW] = Σ_{r,s} in[N,C,ih,iw] · weight[C,R,S]
// (+ bias[C]) (then ReLU), ih/iw as for Conv2dShape.
struct DepthwiseConv2dShape {
  int64_t n = 1, c = 1, h = 1, w = 1, r = 1, s = 1;
  int64_t stride = 1, pad = 0, dilation = 1;
  bool bias = false, relu = false;
  int64_t OutH() const { return (h + 2 * pad - dilation * (r - 1) - 1) / stride + 1; }
  int64_t OutW() const { return (w + 2 * pad - dilation * (s - 1) - 1) / stride + 1; }
};

// C[B,M,N] = A[B,M,K] · B[B,N,K]ᵀ per batch b (+ bias[N]) (then ReLU) — dense, batched.
struct BatchMatmulShape {
  int64_t b = 1, m = 1, n = 1, k = 1;
  bool bias = false, relu = false;
};

using CpuOp = std::variant<DenseShape, Conv2dShape, DepthwiseConv2dShape, BatchMatmulShape>;

// "dense:M=1,N=1000,K=512,bias=1,relu=0",
// "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1[,dilation=1,bias=0,relu=0]",
// "depthwise_conv2d:N=1,C=32,H=112,W=112,R=3,S=3,stride=1,pad=1[,dilation=1,bias=0,relu=0]" or
// "batch_matmul:B=12,M=128,N=128,K=64[,bias=0,relu=0]".
// Field names are case-sensitive as shown; omitted optional fields take the defaults above,
// the shape fields (M/N/K, N/C/H/W/K/R/S, N/C/H/W/R/S, B/M/N/K) are required. Throws Error naming the bad field and
// the accepted ones, or the unknown operator and the known ones.
CpuOp ParseCpuOp(const std::string& text);
std::string CpuOpToString(const CpuOp& op);   // the canonical form ParseCpuOp reads
std::string CpuOpName(const CpuOp& op);  // "dense", "conv2d", "depthwise_conv2d", "batch_matmul"
Json CpuOpToJson(const CpuOp& op);            // {"op": "dense", "M": 1, …}
CpuOp CpuOpFromJson(const Json& json);        // throws Error like ParseCpuOp
double CpuOpFlops(const CpuOp& op);           // 2 · multiply-adds (epilogue not counted)
std::vector<std::vector<int64_t>> CpuOpInputShapes(const CpuOp& op);
std::vector<int64_t> CpuOpOutputShape(const CpuOp& op);
int64_t CpuOpReductionLength(const CpuOp& op);  // K (dense, batch_matmul), C·R·S (conv2d), R·S

// ---- Kernel ABI helpers

// Whether input `index` (kernel order, above) is a constant of a model — dense's B and bias,
// conv2d's and depthwise_conv2d's weight and bias, batch_matmul's bias — which a prepare step may
// read. batch_matmul's A and B are both activations.
inline bool CpuOpInputIsConstant(const CpuOp& op, int index) {
  if (std::holds_alternative<BatchMatmulShape>(op)) return index == 2;
  return index == 1 || index == 2;
}

// ---- Templates

// The schedule space of an operator (knobs are documented in docs/cpu-tuning.md): dense,
// batch_matmul (dense's tiling plus the batch), conv2d (layout NCHW or the channel-blocked NCHWc,
// whose weight packing is a prepare step) and depthwise_conv2d (vectorised along the output
// columns or along a channel block).
ConfigSpace MakeCpuSpace(const CpuOp& op);
// The scheduled nest of a configuration of MakeCpuSpace(op). Throws Error when the configuration
// does not instantiate (the Builder turns that into an `instantiation` status).
LoopNest MakeCpuNest(const CpuOp& op, const ConfigSpace& space, const Config& config);
// A Task for this machine: name CpuOpToString(op), device CpuDeviceName(), the space above,
// description CpuOpToJson(op) plus {"target": "cpu"}.
Task MakeCpuTask(const CpuOp& op);
// The CPU's model name from /proc/cpuinfo ("AMD EPYC 9R14"), or "cpu" when unknown.
std::string CpuDeviceName();

// ---- Emitter

// C++ source of `nest` as one function `extern "C" void <symbol>(const float* const* inputs,
// float* output)`. Parallel loops become `#pragma omp parallel for` (two directly nested parallel
// loops: collapse(2)), vectorised loops `#pragma omp simd` (with a scalar reduction when the
// statement's destination does not depend on the loop), unrolled loops `#pragma GCC unroll`.
// Temporaries scoped to a loop are stack arrays, kernel-wide ones aligned heap buffers. A nest
// with prepared tensors (LoopNest::prepare) also gets <symbol>_prepared_size and
// <symbol>_prepare (kernel ABI, top of this file); the kernel reads them from the pointer after
// its inputs.
std::string EmitCpp(const LoopNest& nest, const std::string& symbol);
// EmitCpp(MakeCpuNest(CpuOpFromJson(task.description), task.space, config), symbol).
std::string GenerateCpuKernel(const Task& task, const Config& config, const std::string& symbol);

// ---- Builder

struct CpuBuilderOptions {
  std::string compiler = "c++";
  std::vector<std::string> flags = {"-O3", "-march=native", "-fPIC", "-shared", "-fopenmp",
                                    "-std=c++17", "-w"};
  std::string work_dir;              // empty: a fresh directory under the system temp dir
  int candidates_per_invocation = 4; // one compiler run builds this many kernels into one .so
  int parallel_invocations = 0;      // compiler runs at once; 0: the number of online CPUs
  double timeout_s = 60.0;           // per compiler run; the compiler is killed when exceeded
  size_t max_error_chars = 2000;     // compiler messages are truncated to this length
};

// A kernel to compile: its source defines `symbol`.
struct KernelSource {
  std::string code;
  std::string symbol;
};

// BuildResult::artifact is "<path to .so>:<symbol>". Statuses: instantiation (the template
// refused the configuration), compile-host (compiler error, message in `error`), build-timeout.
// A group of candidates that fails to compile together is compiled again one by one, so that one
// bad candidate does not fail its neighbours.
class CpuBuilder : public Builder {
 public:
  explicit CpuBuilder(CpuBuilderOptions options = {});
  std::vector<BuildResult> Build(const std::vector<MeasureInput>& inputs) override;
  // Compiles given sources (what Build does after generating them); an empty `code` yields an
  // instantiation result carrying `symbol` as its error text.
  std::vector<BuildResult> BuildSources(const std::vector<KernelSource>& sources);
  const std::string& work_dir() const { return options_.work_dir; }

 private:
  CpuBuilderOptions options_;
  int64_t next_unit_ = 0;
};

// ---- Runner

struct CpuRunnerOptions {
  // The worker executable; empty: $GLIMPSE_CPU_WORKER, else the one built with this library.
  std::string worker_path;
  int threads = 0;              // OpenMP threads and pinned CPUs; 0: every CPU this process may use
  int warmup = 1;               // untimed runs after the checked run
  int min_repeats = 3;          // timed runs at least …
  double min_time_s = 0.05;     // … and at least this much summed kernel time …
  int max_repeats = 200;        // … but never more runs than this
  // Bytes written between timed runs to evict the operator's data; 0: 2 × the last-level cache
  // (from sysfs; 64 MiB when unknown), negative: no flush.
  int64_t flush_bytes = 0;
  double timeout_s = 10.0;      // per candidate (check + warm-up + timed runs); then run-timeout
  double rtol = 1e-3;           // see docs/cpu-tuning.md "Correctness check"
  uint64_t data_seed = 1;       // inputs are uniform in [-1, 1] from this seed
};

// Runs each candidate in a worker process, one at a time. A crash is runtime-device, a timeout
// run-timeout; either way the worker is replaced and the batch goes on. A kernel whose output
// differs from the reference is wrong-answer and its time does not count.
class CpuRunner : public Runner {
 public:
  explicit CpuRunner(CpuRunnerOptions options = {});
  ~CpuRunner() override;
  CpuRunner(const CpuRunner&) = delete;
  CpuRunner& operator=(const CpuRunner&) = delete;

  std::vector<MeasureResult> Run(const std::vector<MeasureInput>& inputs,
                                 const std::vector<BuildResult>& builds) override;
  // Worker processes started so far (the first one included).
  int workers_started() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace glimpse

namespace glimpse {

// ---- Validity

// The cheap validity check of Rieber et al. for the CPU templates: a configuration is valid when
// its kernel is generated and compiles (no run); its cost is the compile time. A configuration
// that breaks a restriction is invalid (instantiation) at no cost; one out of the space's ranges
// is an Error. `task` (from MakeCpuTask) outlives the checker.
class CompileValidityChecker : public ValidityChecker {
 public:
  explicit CompileValidityChecker(const Task& task, CpuBuilderOptions options = {});
  std::vector<ValidityResult> Check(const std::vector<Config>& configs) override;

 private:
  const Task& task_;
  CpuBuilder builder_;
};

}  // namespace glimpse
