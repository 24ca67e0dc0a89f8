// Shared pieces of the CPU operator templates: the per-operator entry points templates.cc
// dispatches to. Configurations are read with ConfigView (glimpse/space.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "glimpse/cpu.h"
#include "glimpse/op_compute.h"
#include "glimpse/space.h"

namespace glimpse::cpu {

using glimpse::ConfigView;
using glimpse::Product;

// The conv2d layout NCHW_plane's positions per register tile are tile_oh_1 · tile_ow_2 rounded up
// to whole vectors of this many floats (one AVX-512 register, two AVX2 ones), whatever the
// machine, so that a configuration builds the same program everywhere; its template seeds aim at
// one such vector.
constexpr int64_t kPlaneVector = 16;

// The template dense and batch_matmul (glimpse/op_compute.h, MatmulDims) share. `parallel`: the
// values of the parallel knob, each naming the loops it parallelises by letter (b, m, n) or "none".
ConfigSpace MakeMatmulSpace(const MatmulDims& dims, const std::vector<std::string>& parallel);
LoopNest MakeMatmulNest(const MatmulDims& dims, const ConfigView& config);

// Appends to `nest` a zero-padded copy P[n][c][h+2·pad][w+2·pad] of the NCHW convolution input
// (parallel over channels) and returns it: the "padding = copy" choice of the convolution
// templates.
OperandCopy AddPaddedInputCopy(LoopNest& nest, const OperatorCompute& compute, int64_t pad);

// Adds the accumulator "acc" of `shape` (layout `layout`), private to one iteration of the loop
// `scope_loop`, and returns its tensor index: where a template sums a tile of the output.
int AddAccumulator(LoopNest& nest, std::vector<int64_t> shape, std::string layout,
                   std::string scope_loop);

// Marks `r`, a convolution's kernel-row loop, with the rows that reach the input for the output
// rows [first_oh, first_oh + rows): r ≥ pad − stride·(first_oh + rows − 1) and
// r < height + pad − stride·first_oh (Loop::useful_begin); the others read only padding, which
// the generated code then skips. Without padding nothing is marked, nor with a dilation (whose
// bounds would need a division).
void MarkUsefulKernelRows(Loop& r, const AffineExpr& first_oh, int64_t rows, int64_t stride,
                          int64_t pad, int64_t dilation, int64_t height);

ConfigSpace MakeDenseSpace(const DenseShape& shape);
LoopNest MakeDenseNest(const DenseShape& shape, const ConfigView& config);
ConfigSpace MakeBatchMatmulSpace(const BatchMatmulShape& shape);
LoopNest MakeBatchMatmulNest(const BatchMatmulShape& shape, const ConfigView& config);
// `register_tile_floats` caps the NCHWc register tile (MakeCpuSpace checks its range).
ConfigSpace MakeConv2dSpace(const Conv2dShape& shape, int64_t register_tile_floats);
LoopNest MakeConv2dNest(const Conv2dShape& shape, const ConfigView& config);
ConfigSpace MakeDepthwiseSpace(const DepthwiseConv2dShape& shape);
LoopNest MakeDepthwiseNest(const DepthwiseConv2dShape& shape, const ConfigView& config);

}  // namespace glimpse::cpu
