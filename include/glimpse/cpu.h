// glimpse/cpu.h — the CPU backend: tuning generated kernels on this CPU. The operators'
// (glimpse/ops.h) schedule templates, kernel generation through the C++ emitter
// (glimpse/codegen.h), the Builder (system compiler → shared objects) and the isolated Runner (a
// worker process that checks and times each candidate).
//
// Kernel ABI. Every generated kernel is one C function
//     extern "C" void <symbol>(const float* const* inputs, float* output);
// inputs are the operator's inputs in the order of glimpse/ops.h (dense: A[M,K], B[N,K], bias[N]
// when bias=1; conv2d: input[N,C,H,W], weight[K,C,R,S], bias[K] when bias=1; …), output is
// written entirely. Tensors are float32, row-major, unpadded. Kernels may use OpenMP (they are
// compiled with -fopenmp).
//
// Optional prepare step. A kernel whose schedule re-lays-out a constant of the model (a weight
// packed into a blocked layout) also defines
//     extern "C" int64_t <symbol>_prepared_size();   // floats of the prepared buffer
//     extern "C" void <symbol>_prepare(const float* const* inputs, float* prepared);
// The caller allocates `prepared` (64-byte aligned), calls _prepare once — it reads only the
// constant inputs (OperatorInputIsConstant); the others may be null — and then calls the kernel,
// as often as it likes, with one more input pointer: inputs[number of operator inputs] = prepared.
// A deployment does this once when it loads the model; CpuRunner's worker does it outside the
// timed region (the kernel's own packing of activations stays timed). Kernels without the two
// symbols take the operator's inputs only.
//
// Units: times in seconds, sizes in bytes unless a name says otherwise.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "glimpse/codegen.h"
#include "glimpse/loop_nest.h"
#include "glimpse/measure.h"
#include "glimpse/ops.h"
#include "glimpse/space.h"
#include "glimpse/target.h"
#include "glimpse/task.h"
#include "glimpse/validity.h"

namespace glimpse {

// ---- Templates

// The version of the programs the CPU templates generate. Bump it whenever a template makes a
// different nest for the same operator and configuration (a knob change already changes the
// space's fingerprint, hence the workload key): the performance corpus records it with every
// measurement, so that a model is not trained on timings of programs glimpse no longer makes.
// 2: the NCHWc conv2d's column-tile peel and padding-row skip, a plain input read in place with
// one channel a block, the kernel row unrolled around its taps, ReLU/ReLU6 on the float's bits
// (the shipped corpora are of version 1: docs/perf-corpus.md).
// 3: a plain input read in place (a first layer) at a stride by one-block tiles prefetches the
// next row's input and output lines and reads through a pointer per kernel row.
// 4: a blocked input read in place at a stride by one-row, one-block tiles that k1o passes over:
// the row's tiles share the next row's input prefetches out among them, and prefetch their output.
constexpr int kCpuTemplateVersion = 4;

// Floats an NCHWc register tile may hold. 32 AVX-512 registers × 16 lanes: the portable cap, and
// this machine's with AVX-512 (or when its vector registers are not known).
constexpr int64_t kPortableRegisterTileFloats = 512;
// 16 AVX2 registers × 8 lanes, less the one that holds the broadcast input element: a 7 × 16 or
// 14 × 8 tile fits, a 7 × 32 one (28 registers) does not.
constexpr int64_t kAvx2RegisterTileFloats = 120;
// kPortableRegisterTileFloats on an x86 CPU with AVX-512 or on another architecture,
// kAvx2RegisterTileFloats on an x86 CPU without AVX-512 (the ISA `-march=native` compiles for).
int64_t HostRegisterTileFloats();

// The schedule space of an operator (knobs are documented in docs/cpu-tuning.md): dense,
// batch_matmul (dense's tiling plus the batch), conv2d (layout NCHW or the channel-blocked NCHWc,
// whose weight packing is a prepare step) and depthwise_conv2d (vectorised along the output
// columns or along a channel block).
//
// `register_tile_floats` (1..512, else Error) caps the conv2d NCHWc register tile (output columns
// × channel block, in floats): a tile larger than the vector registers spills and is slow to
// compile, though on weight-heavy layers it can still be the fastest (bench/results/
// cpu_resnet18_zen3.md). The default, kPortableRegisterTileFloats, is the space every record and
// corpus of an AVX-512 machine was made in and what code without a machine (the performance model
// on another machine's records) uses; MakeCpuTask uses HostRegisterTileFloats().
ConfigSpace MakeCpuSpace(const Operator& op,
                         int64_t register_tile_floats = kPortableRegisterTileFloats);
// The scheduled nest of a configuration of MakeCpuSpace(op). Throws Error when the configuration
// does not instantiate (the Builder turns that into an `instantiation` status).
LoopNest MakeCpuNest(const Operator& op, const ConfigSpace& space, const Config& config);
// A Task for this machine: name OperatorToString(op), device CpuDeviceName(), the space above
// with this machine's register tile (MakeCpuSpace(op, HostRegisterTileFloats())),
// description OperatorToJson(op) plus {"target": "cpu"}.
Task MakeCpuTask(const Operator& op);
// This machine's CPU as records, corpora and model files name it: CpuNameFromCpuinfo of
// /proc/cpuinfo (glimpse/cpu_identity.h) — "AMD EPYC 9R14", or for a virtual machine's generic
// name "AMD EPYC (family 25, model 1)" — or "cpu" when unknown.
std::string CpuDeviceName();
// The device the CPU target's records are kept under: CpuDeviceName(), and with the
// warm-activations protocol (CpuRunnerOptions::warm_activations) that name with
// kWarmActivationsSuffix, so that records of the two protocols never compete for a task's best.
std::string CpuRecordsDevice(bool warm_activations);
inline constexpr const char* kWarmActivationsSuffix = " [activations warm]";

// ---- Generating a kernel

// EmitCpp(MakeCpuNest(OperatorFromJson(task.description), task.space, config), symbol).
std::string GenerateCpuKernel(const Task& task, const Config& config, const std::string& symbol);
// GenerateCpuKernel for measuring here: Error (the builder's `instantiation` status) when the
// configuration's workspace (its packed weights and heap scratch) would not fit in `available`
// bytes beside what the runner holds to measure it (≤ 0: unknown, not checked).
std::string GenerateCpuKernelToMeasure(const Task& task, const Config& config,
                                       const std::string& symbol, double available);

// ---- Builder

// -O3 -march=native -fPIC -shared -fopenmp -std=c++17 -w, and on an x86 host with AVX-512
// -mprefer-vector-width=512: GCC's tuning for Intel server cores otherwise vectorises in 256-bit
// halves, which halves the FMA throughput of a core with two 512-bit FMA ports and spills a
// register tile that was sized for 32 16-lane registers.
std::vector<std::string> DefaultCpuCompilerFlags();

struct CpuBuilderOptions {
  std::string compiler = "c++";
  std::vector<std::string> flags = DefaultCpuCompilerFlags();
  std::string work_dir;               // empty: a fresh directory under the system temp dir
  int candidates_per_invocation = 4;  // one compiler run builds this many kernels into one .so
  int parallel_invocations = 0;       // compiler runs at once; 0: the number of online CPUs
  double timeout_s = 60.0;            // per compiler run; the compiler is killed when exceeded
  size_t max_error_chars = 2000;      // compiler messages are truncated to this length
  // Compiler processes run only on these CPUs (so that a runner timing on the others is not
  // disturbed); empty: anywhere. With cpus given, parallel_invocations 0 means one per listed CPU.
  std::vector<int> cpus;
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
  // What Build does after running the templates: a refusal passes through as its status and
  // error; sources are compiled.
  std::vector<BuildResult> BuildGenerated(const std::vector<Generated<KernelSource>>& kernels);
  // Compiles given sources.
  std::vector<BuildResult> BuildSources(const std::vector<KernelSource>& sources);
  // candidates_per_invocation × parallel_invocations: one round of compiler runs.
  size_t WaveSize() const override;
  const std::string& work_dir() const { return options_.work_dir; }

 private:
  CpuBuilderOptions options_;
  int64_t next_unit_ = 0;
  // This machine's memory, read once: the bound on a configuration's workspace.
  int64_t usable_memory_ = 0;
};

// ---- Runner

struct CpuRunnerOptions {
  // The worker executable; empty: $GLIMPSE_CPU_WORKER, else the one built with this library.
  std::string worker_path;
  int threads = 0;  // OpenMP threads and pinned CPUs; 0: every CPU this process may use
  // The CPUs to measure on (threads is then their count); empty: the first `threads` CPUs this
  // process may use.
  std::vector<int> cpus;
  // Set when the builder is kept off `cpus` (CpuBuilderOptions::cpus): the next wave may then be
  // built while this runner times (Runner::TimesBesideBuilds).
  bool builds_elsewhere = false;
  int warmup = 1;            // untimed runs after the checked run
  int min_repeats = 3;       // timed runs at least …
  double min_time_s = 0.05;  // … and at least this much summed kernel time …
  int max_repeats = 200;     // … but never more runs than this
  // Bytes swept between timed runs to evict the operator's data (glimpse/cache_flush.h: every
  // thread of the kernel's team, one load and store per line); 0: DefaultCacheFlushBytes() (2 ×
  // the last-level cache from sysfs, 64 MiB when unknown, at most 128 MiB), negative: no flush.
  int64_t flush_bytes = 0;
  // After each flush, read the activation inputs back into the caches (the worker request's
  // warm_activations): a kernel timed as it runs inside a model, whose earlier layers have just
  // written its input, instead of with all its data in memory.
  bool warm_activations = false;
  double timeout_s = 10.0;  // per candidate (check + warm-up + timed runs); then run-timeout
  double rtol = 1e-3;       // see docs/cpu-tuning.md "Correctness check"
  uint64_t data_seed = 1;   // inputs are uniform in [-1, 1] from this seed
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
  bool TimesBesideBuilds() const override;
  // Worker processes started so far (the first one included).
  int workers_started() const;
  // The CPUs it measures on.
  const std::vector<int>& cpus() const;

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

// ---- Target

struct CpuTargetOptions {
  int threads = 0;              // the runner's OpenMP threads; 0: every CPU this process may use
  int build_jobs = 0;           // compiler processes at once; 0: one per CPU
  double build_timeout_s = 60;  // per compiler run
  // Build the next wave of a batch while measuring the current one. The CPUs are split so that
  // the compiler never shares a CPU with a timed kernel: the runner measures on the last `threads`
  // CPUs (0: all but a quarter, at least one left to the compiler), the compiler runs on the rest.
  // Needs two CPUs.
  bool overlap_builds = false;
  // Measure with the activation inputs warm (CpuRunnerOptions::warm_activations); the tasks' device
  // is then CpuRecordsDevice(true), so their records stay apart from the flushed protocol's.
  bool warm_activations = false;
};

// How a CpuTarget with overlap_builds shares `allowed` CPUs: the last `measure_threads` (0: all but
// a quarter, at least one left) measure, the others build. Error when that leaves either side none.
struct CpuSplit {
  std::vector<int> build;
  std::vector<int> measure;
};
CpuSplit SplitCpus(const std::vector<int>& allowed, int measure_threads);

// This CPU as a tuning target (glimpse/target.h): MakeCpuTask, CpuBuilder, CpuRunner,
// CompileValidityChecker.
class CpuTarget : public Target {
 public:
  explicit CpuTarget(CpuTargetOptions options = {});
  std::string Name() const override { return "cpu"; }
  std::string Device() const override;
  Task MakeTask(const Operator& op) const override;
  std::unique_ptr<Builder> MakeBuilder(const std::string& work_dir) const override;
  std::unique_ptr<Runner> MakeRunner(const Task& task, double timeout_s) const override;
  std::shared_ptr<ValidityChecker> MakeValidityChecker(const Task& task,
                                                       const std::string& work_dir) const override;

 private:
  CpuBuilderOptions BuildOptions(const std::string& work_dir) const;
  CpuTargetOptions options_;
  CpuSplit split_;  // empty unless options_.overlap_builds
};

}  // namespace glimpse
