// glimpse/gpu.h — GPU schedule templates and the CUDA emitter: operator workloads (glimpse/ops.h)
// scheduled onto thread blocks and threads, lowered from the same loop-nest representation as the
// CPU kernels to CUDA C++. Nothing here needs the CUDA toolkit or a GPU: building (NVRTC) and
// running (driver API) live in glimpse/cuda.h.
//
// Kernel ABI. A generated kernel is
//     extern "C" __global__ void <symbol>(const float* __restrict__ in0, …, [prepared,] out)
// one pointer per operator input, in the order of glimpse/ops.h (dense: A, B, bias when bias=1;
// conv2d: input, weight, bias; …), then — when the nest has a prepare body — the prepared
// buffer, then the output. It is launched with CudaKernel::launch and writes the whole output. A
// nest with a prepare body also gets
//     extern "C" __global__ void <symbol>_prepare(const float* __restrict__ in0, …, prepared)
// launched once with CudaKernel::prepare_launch before the kernel; it reads only the constant
// inputs (OperatorInputIsConstant) — the others are passed as null — and writes the prepared buffer
// (CudaKernel::prepared_floats floats), as a deployment transforms weights once at load time.
// Every pointer is 16-byte aligned (cuMemAlloc gives 256 bytes): kernels use float4/float2
// accesses where an index is provably aligned.
//
// Units: sizes in bytes unless a name says otherwise.
#pragma once

#include <cstdint>
#include <string>

#include "glimpse/codegen.h"
#include "glimpse/loop_nest.h"
#include "glimpse/ops.h"
#include "glimpse/space.h"
#include "glimpse/task.h"

namespace glimpse {

// ---- Templates (knobs documented in docs/gpu-tuning.md)

// The GPU schedule space of an operator: conv2d (template knob `algorithm`: direct, with
// AutoTVM's conv2d_nchw CUDA knobs, or winograd for 3×3 stride-1 layers), depthwise_conv2d,
// dense and batch_matmul. Throws Error for an operator with no GPU template.
ConfigSpace MakeGpuSpace(const Operator& op);
// The scheduled GPU nest of a configuration of MakeGpuSpace(op); throws Error when the
// configuration does not instantiate (→ instantiation status).
LoopNest MakeGpuNest(const Operator& op, const ConfigSpace& space, const Config& config);
// A Task for an NVIDIA GPU: name OperatorToString(op), device `device` (the GPU's name as its
// driver reports it), the space above, description OperatorToJson(op) plus {"target": "cuda"}.
Task MakeGpuTask(const Operator& op, const std::string& device);
// EmitCuda(MakeGpuNest(OperatorFromJson(task.description), task.space, config), symbol).
CudaKernel GenerateCudaKernel(const Task& task, const Config& config, const std::string& symbol);

}  // namespace glimpse
