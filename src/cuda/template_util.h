// Shared pieces of the GPU operator templates (glimpse/gpu.h): the per-operator entry points
// gpu_templates.cc dispatches to, and the device limits and helpers the templates share.
//
// Each template's space carries restrictions for what a knob choice can be checked against
// before anything is built (threads per block, shared memory per block); MakeXxxGpuNest throws
// Error for a configuration that does not instantiate (the Builder's `instantiation` status).
// Configurations are read with ConfigView (glimpse/space.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "glimpse/gpu.h"
#include "glimpse/loop_nest.h"
#include "glimpse/op_compute.h"
#include "glimpse/space.h"

namespace glimpse::gpu {

// Limits every CUDA device since sm_30 has; the templates restrict their spaces to them (a device
// with less is caught when the kernel is compiled or launched).
constexpr int64_t kMaxThreadsPerBlock = 1024;
constexpr int64_t kMaxSharedBytesPerBlock = 48 * 1024;  // static __shared__ limit
constexpr int64_t kMaxGridY = 65535;                    // gridDim.y and gridDim.z
constexpr int64_t kMaxGridX = 2147483647;
// Floats of per-thread register accumulators a template allows (more spills to local memory).
constexpr int64_t kMaxLocalFloats = 256;

// Throws Error(`what` + ": " + details) when a launch shape breaks the limits above: threads per
// block > kMaxThreadsPerBlock, grid y/z > kMaxGridY, or `shared_bytes` > kMaxSharedBytesPerBlock.
void CheckLaunchLimits(const std::string& what, const CudaLaunch& launch, int64_t shared_bytes);

// The values of an AutoTVM-style `auto_unroll_max_step` knob, and how a template applies it: the
// innermost loops of `nest` under the loop named `root` are marked kUnrolled, innermost first,
// while the product of their extents stays ≤ `max_step` (0: nothing is unrolled). Loops already
// bound to GPU indices, cooperative or vectorised are left as they are.
std::vector<KnobValue> AutoUnrollValues();  // {0, 16, 64, 512, 1500}
void ApplyAutoUnroll(LoopNest& nest, const std::string& root, int64_t max_step);

// One axis of the AutoTVM GPU tiling: a split knob of four (block, vthread, thread, inner). Loops
// over it are named after the axis `a` ("f", "y", "x", "c"): v<a> (the thread's vthreads), t<a>
// (the thread index, bound once per block) and <a>i (the thread's inner elements), v<a> and <a>i
// with a prefix for the part of the nest they are in ("" computing, "z_" zeroing, "s_" storing, …).
struct TiledAxis {
  std::string name;           // "f", "y", "x", "c"
  std::vector<int64_t> tile;  // block, vthread, thread, inner
  // The position in the block's tile: (v<a>, t<a>, <a>i) in mixed radix.
  AffineExpr InBlock(const std::string& prefix) const;
  // The position in the thread's own tile: (v<a>, <a>i).
  AffineExpr InThread(const std::string& prefix) const;
  // The position in the whole axis: the block's (loop b<a>) tile, then the position in it.
  AffineExpr InOutput(const std::string& prefix) const;
  int64_t ThreadExtent() const { return tile[1] * tile[3]; }
  int64_t BlockExtent() const { return tile[1] * tile[2] * tile[3]; }
};
// The loops over a thread's own tile of `axes`: every vthread loop (unrolled), then every inner
// loop, of kind `inner`.
std::vector<Loop> ThreadTileLoops(const std::vector<TiledAxis>& axes, const std::string& prefix,
                                  LoopKind inner);
// The element of `tensor` (one dimension per axis, then `more`) at the thread's own tile position.
Access ThreadTileAccess(int tensor, const std::vector<TiledAxis>& axes, const std::string& prefix,
                        std::vector<AffineExpr> more = {});

// A thread's accumulator "acc" over its own tile of `axes` (ThreadExtent each), held in registers
// (MemoryScope::kLocal) under the thread loop `thread_loop`, and the loops over it: those with
// prefix "z_" zero it, "" compute into it, "s_" store it (TiledAxis's loop names).
struct ThreadAccumulator {
  ThreadAccumulator(LoopNest& nest, std::vector<TiledAxis> axes, const std::string& layout,
                    const std::string& thread_loop);
  Access At(const std::string& prefix) const { return ThreadTileAccess(tensor, axes, prefix); }
  std::vector<Loop> Loops(const std::string& prefix) const {
    return ThreadTileLoops(axes, prefix, LoopKind::kSerial);
  }
  Node Zero() const;  // acc = 0 over the "z_" loops
  // `stmt` (the output statement) over the "s_" loops.
  Node Store(Stmt stmt) const { return NestLoops(Loops("s_"), {Node::MakeStmt(std::move(stmt))}); }

  std::vector<TiledAxis> axes;
  int tensor = -1;
};

// The launch of the convolution templates, outermost first: blocks over the images and the
// blocks of `channels` (z), `rows` (y) and `columns` (x) — loops n, b<a> —, then the threads of
// each axis — t<a> (z, y, x).
std::vector<Loop> ConvolutionLaunchLoops(int64_t images, const TiledAxis& channels,
                                         const TiledAxis& rows, const TiledAxis& columns);
// The output element of the thread's tile position (loops with `prefix`) under those loops: the
// image n, the channel axis `channel_axis` ("k", depthwise "c"), oh and ow of the convolution's
// declared computation.
AxisBinding ConvolutionOutputElement(const std::string& channel_axis, const TiledAxis& channels,
                                     const TiledAxis& rows, const TiledAxis& columns,
                                     const std::string& prefix);

// ---- Templates (one file each)

// template_dense_gpu.cc
ConfigSpace MakeDenseGpuSpace(const DenseShape& shape);
LoopNest MakeDenseGpuNest(const DenseShape& shape, const ConfigView& config);
ConfigSpace MakeBatchMatmulGpuSpace(const BatchMatmulShape& shape);
LoopNest MakeBatchMatmulGpuNest(const BatchMatmulShape& shape, const ConfigView& config);

// template_conv2d_gpu.cc: the direct conv2d (AutoTVM conv2d_nchw CUDA knobs). The space has a
// categorical knob `algorithm` ("direct", and "winograd" when Conv2dWinogradApplies(shape));
// MakeConv2dGpuNest dispatches on it, to MakeWinogradGpuNest for "winograd". The winograd
// configurations need the knobs AddWinogradKnobs adds: the complete conv2d space is
// AddWinogradKnobs(MakeConv2dGpuSpace(shape), shape), which MakeGpuSpace returns.
ConfigSpace MakeConv2dGpuSpace(const Conv2dShape& shape);
LoopNest MakeConv2dGpuNest(const Conv2dShape& shape, const ConfigView& config);

// template_winograd_gpu.cc: winograd F(2×2, 3×3) for 3×3 stride-1 (dilation-1) layers; the
// weight transform is the nest's prepare body.
bool Conv2dWinogradApplies(const Conv2dShape& shape);
// Output tiles of 2×2 along the output's rows / columns: ceil(OH / 2), ceil(OW / 2).
int64_t WinogradTilesH(const Conv2dShape& shape);
int64_t WinogradTilesW(const Conv2dShape& shape);
// The conv2d space of MakeGpuSpace: `direct` (MakeConv2dGpuSpace(shape)) unchanged when winograd
// does not apply, else a copy with the winograd knobs (tile_th, tile_tw, cache_u, cache_input)
// and their limits, which bind `algorithm == 'winograd'` configurations only.
ConfigSpace AddWinogradKnobs(const ConfigSpace& direct, const Conv2dShape& shape);
// Throws Error for a shape winograd does not apply to and for a configuration of a space without
// the winograd knobs.
LoopNest MakeWinogradGpuNest(const Conv2dShape& shape, const ConfigView& config);

// template_depthwise_gpu.cc
ConfigSpace MakeDepthwiseGpuSpace(const DepthwiseConv2dShape& shape);
LoopNest MakeDepthwiseGpuNest(const DepthwiseConv2dShape& shape, const ConfigView& config);

}  // namespace glimpse::gpu
