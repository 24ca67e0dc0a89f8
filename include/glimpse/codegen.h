// glimpse/codegen.h — lowering a scheduled loop nest (glimpse/loop_nest.h) to source code: C++
// for the CPU backend, CUDA C++ for the CUDA backend. Both emitters print the same affine index
// expressions, bounds guards and loop structure (src/codegen/nest_printer.h); what differs is how
// loops bind to hardware. Nothing here compiles or runs code.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "glimpse/loop_nest.h"

namespace glimpse {

// ---- C++ (the CPU backend; kernel ABI in glimpse/cpu.h)

// C++ source of `nest` as one function `extern "C" void <symbol>(const float* const* inputs,
// float* output)`. Parallel loops become `#pragma omp parallel for` (two directly nested parallel
// loops: collapse(2)), vectorised loops `#pragma omp simd` (with a scalar reduction when the
// statement's destination does not depend on the loop), unrolled loops `#pragma GCC unroll`.
// Temporaries scoped to a loop are stack arrays, kernel-wide ones aligned heap buffers. A nest
// with prepared tensors (LoopNest::prepare) also gets <symbol>_prepared_size and
// <symbol>_prepare (kernel ABI in glimpse/cpu.h); the kernel reads them from the pointer after
// its inputs.
std::string EmitCpp(const LoopNest& nest, const std::string& symbol);

// ---- CUDA C++ (the CUDA backend; kernel ABI in glimpse/gpu.h)

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

}  // namespace glimpse
