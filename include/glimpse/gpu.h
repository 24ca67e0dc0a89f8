// glimpse/gpu.h — GPU schedule templates and the CUDA emitter: operator workloads (the CpuOp
// shapes of glimpse/cpu.h, which describe operators, not devices) scheduled onto thread blocks
// and threads, lowered from the same loop-nest representation as the CPU kernels to CUDA C++.
// Nothing here needs the CUDA toolkit or a GPU: building (NVRTC) and running (driver API) live in
// glimpse/cuda.h.
//
// Kernel ABI. A generated kernel is
//     extern "C" __global__ void <symbol>(const float* __restrict__ in0, …, [prepared,] out)
// one pointer per operator input, in the order of glimpse/cpu.h (dense: A, B, bias when bias=1;
// conv2d: input, weight, bias; …), then — when the nest has a prepare body — the prepared
// buffer, then the output. It is launched with CudaKernel::launch and writes the whole output. A
// nest with a prepare body also gets
//     extern "C" __global__ void <symbol>_prepare(const float* __restrict__ in0, …, prepared)
// launched once with CudaKernel::prepare_launch before the kernel; it reads only the constant
// inputs (CpuOpInputIsConstant) — the others are passed as null — and writes the prepared buffer
// (CudaKernel::prepared_floats floats), as a deployment transforms weights once at load time.
// Every pointer is 16-byte aligned (cuMemAlloc gives 256 bytes): kernels use float4/float2
// accesses where an index is provably aligned.
//
// Units: sizes in bytes unless a name says otherwise.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "glimpse/cpu.h"
#include "glimpse/loop_nest.h"
#include "glimpse/space.h"
#include "glimpse/task.h"

namespace glimpse {

// ---- GPU nests

// The structural rules of a GPU nest (see the note on GPU nests in glimpse/loop_nest.h); throws
// Error naming the first broken rule:
// - each top-level node of `body` is a chain of block-bound loops (perfect: each one's body is the
//   next), then a chain of thread-bound loops, then anything else; no kParallel loop anywhere;
//   every path binds the same axes with the same extents (one grid, one block shape);
// - a chain of kCooperative loops contains only kCopy statements into kShared tensors, whose
//   indices depend on no thread-bound loop variable; kCooperative loops appear inside the
//   thread-bound loops only;
// - a kShared tensor's scope_loop is the innermost block-bound loop, a kLocal tensor's is a
//   thread-bound loop or a loop inside one; kShared/kLocal are for kTemp tensors only;
// - `prepare`, when present, obeys the same rules with its own grid and block.
void ValidateGpuNest(const LoopNest& nest);

struct CudaLaunch {
  std::array<int64_t, 3> grid = {1, 1, 1};   // blocks along x, y, z
  std::array<int64_t, 3> block = {1, 1, 1};  // threads per block along x, y, z
  int64_t ThreadsPerBlock() const { return block[0] * block[1] * block[2]; }
  int64_t Blocks() const { return grid[0] * grid[1] * grid[2]; }
};

// A kernel ready for NVRTC, and what a runner needs to launch it.
struct CudaKernel {
  std::string code;    // CUDA C++, self-contained (no #include)
  std::string symbol;  // the __global__ function's name (extern "C", so unmangled)
  CudaLaunch launch;
  int64_t static_shared_bytes = 0;  // Σ kShared tensors, as declared (before any padding)
  int num_inputs = 0;               // operator inputs (the kernel's pointers before the output)
  bool has_prepare = false;         // <symbol>_prepare exists
  CudaLaunch prepare_launch;
  int64_t prepared_floats = 0;
};

// CUDA C++ of a GPU nest (ValidateGpuNest must pass): block/thread-bound loops become
// blockIdx/threadIdx indices, cooperative copies are shared among the block's threads between
// two __syncthreads(), kShared tensors become __shared__ arrays, kLocal ones per-thread arrays,
// unrolled loops `#pragma unroll`, vectorised loops float2/float4 accesses where contiguous and
// aligned (else unrolled), zero_outside loads guarded. Throws Error for a nest that breaks the
// rules.
CudaKernel EmitCuda(const LoopNest& nest, const std::string& symbol);

// ---- Templates (knobs documented in docs/gpu-tuning.md)

// The GPU schedule space of an operator: conv2d (template knob `algorithm`: direct, with
// AutoTVM's conv2d_nchw CUDA knobs, or winograd for 3×3 stride-1 layers), depthwise_conv2d,
// dense and batch_matmul. Throws Error for an operator with no GPU template.
ConfigSpace MakeGpuSpace(const CpuOp& op);
// The scheduled GPU nest of a configuration of MakeGpuSpace(op); throws Error when the
// configuration does not instantiate (→ instantiation status).
LoopNest MakeGpuNest(const CpuOp& op, const ConfigSpace& space, const Config& config);
// A Task for an NVIDIA GPU: name CpuOpToString(op), device `device` (the GPU's name as its
// driver reports it), the space above, description CpuOpToJson(op) plus {"target": "cuda"}.
Task MakeGpuTask(const CpuOp& op, const std::string& device);
// EmitCuda(MakeGpuNest(CpuOpFromJson(task.description), task.space, config), symbol).
CudaKernel GenerateCudaKernel(const Task& task, const Config& config, const std::string& symbol);

}  // namespace glimpse
