// glimpse/cuda.h — building and running generated CUDA kernels (glimpse/gpu.h) on NVIDIA GPUs:
// NVRTC compilation to CUBIN with the compiler's resource usage, the device limits of each
// compute capability, the static validity check (before and after compiling), the GpuBuilder and
// the compile-only validity checker; the driver-API runner below the Runner marker.
//
// Nothing in the build half needs a GPU: NVRTC compiles for any supported architecture on a
// machine without a driver. A build of glimpse without the CUDA toolkit keeps these declarations;
// CompileCuda then fails every kernel with "NVRTC not available in this build" (compile-device)
// and NvrtcAvailable() is false (docs/gpu-build.md).
//
// Units: sizes in bytes, times in seconds, unless a name says otherwise.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "glimpse/gpu.h"
#include "glimpse/hardware.h"
#include "glimpse/measure.h"
#include "glimpse/target.h"
#include "glimpse/task.h"
#include "glimpse/validity.h"

namespace glimpse {

// ---- NVRTC

// What ptxas reports for one __global__ function (`ptxas -v`).
struct CudaResourceUsage {
  int registers = 0;           // 32-bit registers per thread
  int64_t shared_bytes = 0;    // static shared memory per block (`__shared__` arrays)
  int64_t local_bytes = 0;     // stack frame per thread (local arrays and spills)
  int64_t spill_stores = 0;    // bytes of register spill stores per thread
  int64_t spill_loads = 0;     // bytes of register spill loads per thread
  int64_t constant_bytes = 0;  // cmem[0] (kernel parameters), when ptxas reports it
};

struct CudaCompileOptions {
  // NVRTC options added after glimpse's own (--gpu-architecture, --std=c++17,
  // --ptxas-options=-v); e.g. "-lineinfo", "--maxrregcount=128". Fast math stays off: the runner
  // compares results with a float32 reference.
  std::vector<std::string> extra_options;
  // Wall-clock limit of one compilation. NVRTC runs in a forked child process, which is killed
  // when the limit passes (a pathological unroll cannot hang the tuner). ≤ 0: no limit.
  double timeout_s = 60.0;
  // false: compile in this process (no timeout; for tools that must not fork).
  bool isolate = true;
  size_t max_error_chars = 2000;  // the log in a failed result is truncated to this length
};

struct CudaCompileResult {
  bool ok = false;
  bool timed_out = false;  // killed after CudaCompileOptions::timeout_s (then ok is false)
  std::string log;         // NVRTC's log (ptxas' -v report included); truncated when !ok
  std::string cubin;       // the CUBIN image (an ELF file) for the requested architecture
  // Per __global__ function (its symbol; extern "C" names are unmangled): from ptxas' report,
  // completed from the CUBIN's ELF attributes where the report lacks a function.
  std::map<std::string, CudaResourceUsage> resources;
  double compile_time_s = 0.0;
};

// True when this build links NVRTC.
bool NvrtcAvailable();
// "13.0", or "" without NVRTC.
std::string NvrtcVersion();
// The real architectures NVRTC compiles CUBIN for ("sm_75", …, "sm_120"); empty without NVRTC.
// CUDA 13's NVRTC has dropped sm_70 (Volta): GpuLimitsForArch still knows it, CompileCuda refuses.
std::vector<std::string> NvrtcSupportedArchs();

// Compiles `code` for `arch` ("sm_90"). A compile error is a result with ok = false and the log,
// never an exception; Error only for an `arch` that is not "sm_<digits>".
CudaCompileResult CompileCuda(const std::string& code, const std::string& arch,
                              const CudaCompileOptions& options = {});

// The per-function resource report in an NVRTC/ptxas -v log ("Compiling entry function 'k' …",
// "N bytes stack frame, N bytes spill stores, N bytes spill loads", "Used N registers, … N bytes
// smem, N bytes cmem[0]"). Functions absent from the log are absent from the map.
std::map<std::string, CudaResourceUsage> ParsePtxasReport(const std::string& log);

// The same figures read from a CUBIN (ELF64) without ptxas' report: registers and frame size from
// the `.nv.info` attributes (EIATTR_REGCOUNT, EIATTR_FRAME_SIZE) keyed by the function's symbol,
// static shared memory from the size of `.nv.shared.<function>` minus `reserved_shared_bytes`
// (the per-block system reserve the section includes on sm_80 and later; GpuLimits). Spills are
// not recorded in a CUBIN: they stay 0. Throws Error for an image that is not an ELF64 CUBIN.
std::map<std::string, CudaResourceUsage> ReadCubinResources(const std::string& cubin,
                                                            int64_t reserved_shared_bytes = 0);

// ---- Device limits

// What one device (or compute capability) allows a kernel; a plain struct so that a runner can
// fill it from a live device query (cuDeviceGetAttribute) as well.
struct GpuLimits {
  std::string arch = "sm_90";  // the NVRTC architecture
  int cc_major = 9, cc_minor = 0;
  int warp_size = 32;
  int64_t max_threads_per_block = 1024;
  std::array<int64_t, 3> max_block_dims = {1024, 1024, 64};
  std::array<int64_t, 3> max_grid_dims = {2147483647, 65535, 65535};
  int64_t max_static_shared_per_block = 48 * 1024;  // without the dynamic opt-in
  int64_t max_optin_shared_per_block = 227 * 1024;  // dynamic shared after cuFuncSetAttribute
  int64_t shared_per_sm = 228 * 1024;
  int64_t reserved_shared_per_block = 1024;  // system use (sm_80 and later), not the kernel's
  int64_t registers_per_sm = 65536;
  int64_t registers_per_block = 65536;
  int max_registers_per_thread = 255;
  int register_allocation_unit = 256;  // registers, allocated per warp in units of this many
  int64_t max_threads_per_sm = 2048;
  int64_t max_blocks_per_sm = 32;
  int sm_count = 0;  // 0: unknown (a compute capability alone does not say)
  // The device's memory and L2, which a measured run's allocations are checked against
  // (GpuMeasurementDeviceBytes); 0: unknown — a build for an architecture checks nothing.
  int64_t memory_bytes = 0;
  int64_t l2_bytes = 0;
};

// What measuring `op` on a GPU holds in the device's memory besides a configuration's prepared
// workspace: the operator's tensors and the buffer written between timed runs to evict them from
// L2 (GpuRunnerOptions::flush_bytes: 0 means 2 × `l2_bytes`, negative none). The reference the
// output is checked against lives on the host (GpuMeasurementHostBytes).
MeasurementBytes GpuMeasurementDeviceBytes(const Operator& op, int64_t l2_bytes,
                                           int64_t flush_bytes = 0);
// What the GPU worker holds in host memory for `op`: the inputs it fills and copies to the
// device, the output it copies back and the exact reference it checks that output against.
MeasurementBytes GpuMeasurementHostBytes(const Operator& op);

// The architectures GpuLimitsForArch knows: sm_70, sm_75, sm_80, sm_86, sm_89, sm_90, sm_100,
// sm_120.
std::vector<std::string> KnownGpuArchs();
// Limits of a compute capability from the CUDA C++ Programming Guide's table of technical
// specifications per compute capability. Throws Error naming the known architectures.
GpuLimits GpuLimitsForArch(const std::string& arch);
// "sm_<major><minor>" of a compute capability (8, 6 → "sm_86").
std::string ArchForComputeCapability(int major, int minor);

// ---- Static validity

// The verdict of a check: kOk, kInstantiation (before compiling: the launch cannot exist on the
// device) or kCompileDevice (after compiling: the compiled kernel needs more than the device has).
struct GpuCheck {
  MeasureStatus status = MeasureStatus::kOk;
  std::string reason;  // why it is refused, naming the figure and the limit; empty when kOk
  std::string note;    // not an error: "spills 16 bytes stores, 8 bytes loads per thread"
  bool ok() const { return status == MeasureStatus::kOk; }
};

// Registers a block of `threads` threads takes with `registers_per_thread` each: per warp,
// registers_per_thread × warp_size rounded up to the allocation unit, times the block's warps.
int64_t RegistersPerBlock(int registers_per_thread, int64_t threads, const GpuLimits& limits);

// Before compiling: threads per block, each block and grid dimension (≥ 1 and ≤ the limit) and
// the kernel's declared static shared memory against `limits`, for the kernel and, when
// has_prepare, its prepare kernel. A refusal is kInstantiation with the reason ("block of 2048
// threads exceeds the device's 1024 per block").
GpuCheck CheckLaunch(const CudaKernel& kernel, const GpuLimits& limits);

// After compiling, for one function launched with `launch`: registers per thread ≤ the maximum,
// RegistersPerBlock ≤ registers per block, static shared memory from ptxas ≤ the static limit.
// A refusal is kCompileDevice with the reason; spills go to the note.
GpuCheck CheckResources(const std::string& symbol, const CudaResourceUsage& usage,
                        const CudaLaunch& launch, const GpuLimits& limits);

// ---- Builder

// The artifact GpuBuilder writes for each kernel it builds, `<work_dir>/<unit>.json`, beside
// `<work_dir>/<unit>.cubin` (BuildResult::artifact is the JSON's path). Fields:
//   "cubin"           string   absolute path of the CUBIN
//   "symbol"          string   the kernel's __global__ function
//   "grid", "block"   [x,y,z]  its launch
//   "num_inputs"      int      operator inputs (kernel ABI of glimpse/gpu.h)
//   "has_prepare"     bool     <symbol>_prepare exists in the same CUBIN
//   "prepare_grid", "prepare_block"  [x,y,z]  its launch (meaningful when has_prepare)
//   "prepared_floats" int      floats of the prepared buffer
//   "arch"            string   "sm_90"
//   "registers", "shared_bytes", "local_bytes", "spill_stores", "spill_loads"  int
//                              the kernel's resource usage (CudaResourceUsage)
//   "prepare_registers", "prepare_shared_bytes"  int  the prepare kernel's (when has_prepare)
//   "compile_time_s"  number
struct GpuBuilderOptions {
  // The target architecture; empty: DefaultCudaArch().
  std::string arch;
  std::string work_dir;           // empty: a fresh directory under the system temp dir
  int parallel_invocations = 0;   // NVRTC child processes at once; 0: the number of online CPUs
  double timeout_s = 60.0;        // per kernel; then build-timeout
  size_t max_error_chars = 2000;  // NVRTC logs in results are truncated to this length
  std::vector<std::string> extra_options;  // passed to NVRTC (CudaCompileOptions)
  // Limits the kernels are checked against; empty: GpuLimitsForArch(arch). A runner that queried
  // the live device passes its limits here.
  std::optional<GpuLimits> limits;
};

// The architecture builds target when none is named: what the hook below returns, else "sm_90".
std::string DefaultCudaArch();
// A function that names the live device's architecture (the runner's device query), or nullopt
// when there is none. nullptr (the default) clears the hook.
using CudaArchProbe = std::optional<std::string> (*)();
void SetCudaArchProbe(CudaArchProbe probe);

// Builds CUDA kernels: generate (GenerateCudaKernel) → CheckLaunch → compile (NVRTC, in parallel
// child processes) → CheckResources for the kernel and its prepare kernel → write the artifact.
// Statuses: instantiation (the template or CheckLaunch refused), compile-device (NVRTC error, or
// CheckResources refused; the reason or log in `error`), build-timeout.
class GpuBuilder : public Builder {
 public:
  explicit GpuBuilder(GpuBuilderOptions options = {});
  std::vector<BuildResult> Build(const std::vector<MeasureInput>& inputs) override;
  // What Build does after running the templates: a refusal passes through as its status and
  // error; kernels are checked and compiled.
  std::vector<BuildResult> BuildGenerated(const std::vector<Generated<CudaKernel>>& kernels);
  // Checks and compiles given kernels.
  std::vector<BuildResult> BuildKernels(const std::vector<CudaKernel>& kernels);
  // parallel_invocations: one NVRTC child per job.
  size_t WaveSize() const override { return static_cast<size_t>(options_.parallel_invocations); }
  const std::string& work_dir() const { return options_.work_dir; }
  const std::string& arch() const { return options_.arch; }
  const GpuLimits& limits() const { return *options_.limits; }

 private:
  GpuBuilderOptions options_;
  int64_t next_unit_ = 0;
};

// ---- Validity

// Rieber et al.'s cheap validity check for the CUDA templates: a configuration is valid when its
// kernel is generated, passes CheckLaunch, compiles and passes CheckResources (no run); its cost
// is the build time. A configuration that breaks a restriction is invalid (instantiation) at no
// cost; one out of the space's ranges is an Error. `task` (from MakeGpuTask) outlives the checker.
class CompileCudaValidityChecker : public ValidityChecker {
 public:
  explicit CompileCudaValidityChecker(const Task& task, GpuBuilderOptions options = {});
  std::vector<ValidityResult> Check(const std::vector<Config>& configs) override;

 private:
  const Task& task_;
  GpuBuilder builder_;
};

// ---- Runner
//
// Kernels run through the CUDA driver API, which glimpse loads at run time (dlopen of
// libcuda.so.1, or $GLIMPSE_CUDA_DRIVER): no binary links libcuda, so every binary starts on a
// machine without a driver and reports "no CUDA device: <why>" there — why being that the driver
// library cannot be loaded, that cuInit failed (with the driver's error name), or that the driver
// counts zero devices.

// What the driver reports about one device (cuDeviceGetAttribute); 0 where it does not say.
struct CudaDeviceInfo {
  int ordinal = 0;
  std::string name;  // "NVIDIA H100 80GB HBM3"
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int64_t sm_clock_khz = 0;      // peak SM clock
  int64_t memory_clock_khz = 0;  // peak memory clock
  int memory_bus_bits = 0;
  int64_t memory_bytes = 0;
  int64_t l2_bytes = 0;
  int64_t shared_per_block = 0;        // static limit (48 KiB)
  int64_t shared_per_block_optin = 0;  // with the dynamic opt-in
  int64_t shared_per_sm = 0;
  int64_t registers_per_block = 0;  // 32-bit registers
  int64_t registers_per_sm = 0;
  int64_t max_threads_per_block = 0;
  int64_t max_threads_per_sm = 0;
  int64_t max_blocks_per_sm = 0;
  std::array<int64_t, 3> max_block_dims = {0, 0, 0};
  std::array<int64_t, 3> max_grid_dims = {0, 0, 0};
  int warp_size = 0;
  int driver_version = 0;  // 13000 for a CUDA 13.0 driver

  std::string Arch() const { return ArchForComputeCapability(cc_major, cc_minor); }  // "sm_90"
  Json ToJson() const;
};

// Empty when a CUDA device can be used in this process, else "no CUDA device: <why>". Loads the
// driver (and so runs cuInit) in the calling process.
std::string CudaUnavailableReason();
// Queries device `ordinal` in this process. Throws Error "no CUDA device: <why>" without one, or
// naming the ordinal and the device count when it is out of range.
CudaDeviceInfo QueryCudaDevice(int ordinal = 0);
// The device's limits for CheckLaunch / CheckResources: GpuLimitsForArch of its compute
// capability (allocation granularity, per-thread register cap, reserved shared memory) overridden
// by every figure the device reports; an architecture GpuLimitsForArch does not know starts from
// the sm_90 defaults.
GpuLimits ToGpuLimits(const CudaDeviceInfo& info);
// The hardware description (glimpse/hardware.h) of a queried device, for the Blueprint of the
// Glimpse tuner: the GPU table's entry for its name with every figure the driver reports put in
// its place (SMs, memory, L2, shared memory, registers, thread limits; the peak FP32/FP16 rates
// rescaled to the reported SMs), so that a MIG slice or a partly disabled board is described as it
// is. A GPU the table lacks is described by the driver's figures (clock, memory clock and bus →
// bandwidth, …) completed from the table's GPUs of the same compute capability (FP32 lanes per
// SM, L1, base/boost clock ratio, FP16/FP32 rate); Error when the table has none of them. Each
// replaced figure's source names the driver. `notes` (optional) gets a line for each of these
// departures from the table worth telling a user.
GpuSpec GpuSpecOfDevice(const CudaDeviceInfo& info, const GpuTable& table,
                        std::vector<std::string>* notes = nullptr);
// The architecture of device 0, or nullopt when there is no device; suits SetCudaArchProbe.
std::optional<std::string> LocalCudaArch();

struct GpuRunnerOptions {
  // The worker executable; empty: $GLIMPSE_GPU_WORKER, else the one built with this library.
  std::string worker_path;
  int device = 0;            // CUDA device ordinal
  int warmup = 1;            // untimed runs after the checked run
  int min_repeats = 3;       // timed runs at least …
  double min_time_s = 0.05;  // … and at least this much summed kernel time …
  int max_repeats = 200;     // … but never more runs than this
  // Bytes memset on the device between timed runs to evict the operator's data from L2 (not
  // timed: CUDA events bracket the kernel alone); 0: 2 × the device's L2, negative: no flush.
  int64_t flush_bytes = 0;
  // Per candidate (load + check + warm-up + timed runs); then run-timeout and a fresh worker.
  // The first candidate of an operator also pays for the worker's CPU reference (double
  // precision loops; about a second per 0.25 GFLOP) and, for a fresh worker, CUDA's start.
  double timeout_s = 20.0;
  double rtol = 1e-3;      // the tolerance of docs/cpu-tuning.md "Correctness check"
  uint64_t data_seed = 1;  // inputs are uniform in [-1, 1] from this seed (as CpuRunner's)
};

// Runs GpuBuilder's artifacts in a worker process (glimpse_gpu_worker), one candidate at a time:
// inputs uniform in [-1, 1], the prepare kernel once (untimed) when there is one, one checked run
// against the reference (glimpse/reference.h; wrong-answer when it differs), warm-up, then
// timed runs with CUDA events, the L2 flushed between them, until min_repeats and min_time_s (at
// most max_repeats); time_s is the median, samples_s every run.
// Failures: a CUDA error in the kernel (illegal address, misaligned access, …) is runtime-device
// with the driver's error name; since the context is then unusable the worker exits and the next
// candidate starts a fresh one. A candidate that outlives timeout_s is run-timeout; its worker is
// killed and replaced. Without a CUDA device the runner constructs normally and every candidate
// is runtime-device with the error "no CUDA device: <why>" (the worker reports it once; no worker
// is started again by this runner). Construction throws Error only for bad options.
class GpuRunner : public Runner {
 public:
  explicit GpuRunner(GpuRunnerOptions options = {});
  ~GpuRunner() override;
  GpuRunner(const GpuRunner&) = delete;
  GpuRunner& operator=(const GpuRunner&) = delete;

  std::vector<MeasureResult> Run(const std::vector<MeasureInput>& inputs,
                                 const std::vector<BuildResult>& builds) override;
  // The GPU's event timings are not the host's: the next wave may compile meanwhile (the CUDA
  // target leaves one CPU free of compilers for the worker's launches).
  bool TimesBesideBuilds() const override { return true; }
  // Worker processes started so far.
  int workers_started() const;
  // After the first worker answered: the device's name, or "" when there is none (then
  // no_device_reason() says why, "no CUDA device: …").
  const std::string& device_name() const;
  const std::string& no_device_reason() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ---- Target

struct CudaTargetOptions {
  std::string arch;         // what kernels are compiled for ("sm_90"); required
  bool build_only = false;  // compile and check against the limits, never run
  int device = 0;           // CUDA device ordinal (measured runs)
  int build_jobs = 0;       // NVRTC children at once; 0: one per CPU (measured runs: one CPU fewer,
                            // left to the worker that launches the kernels being timed)
  double build_timeout_s = 60;  // per compilation
};

// An NVIDIA GPU as a tuning target (glimpse/target.h): MakeGpuTask, GpuBuilder (checked against
// the live device's own limits when the kernels are for its architecture, else the
// architecture's), GpuRunner — or BuildOnlyRunner for a build-only run —,
// CompileCudaValidityChecker; the device described by GpuSpecOfDevice. `device` is the queried
// device, nullopt without one (then only a build-only run can go on: Error otherwise).
class CudaTarget : public Target {
 public:
  CudaTarget(CudaTargetOptions options, std::optional<CudaDeviceInfo> device);
  std::string Name() const override { return "cuda"; }
  std::string Device() const override;
  std::string Arch() const override { return options_.arch; }
  bool Measures() const override { return !options_.build_only; }
  Task MakeTask(const Operator& op) const override;
  std::unique_ptr<Builder> MakeBuilder(const std::string& work_dir) const override;
  std::unique_ptr<Runner> MakeRunner(const Task& task, double timeout_s) const override;
  std::shared_ptr<ValidityChecker> MakeValidityChecker(const Task& task,
                                                       const std::string& work_dir) const override;
  std::shared_ptr<const GpuSpec> DescribeDevice(std::vector<std::string>& notes) const override;

 private:
  GpuBuilderOptions BuildOptions(const std::string& work_dir) const;
  CudaTargetOptions options_;
  std::optional<CudaDeviceInfo> device_;
};

}  // namespace glimpse
