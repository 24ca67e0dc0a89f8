// glimpse/cpu_seeds.h — template seeds: the configurations a CPU template's author would try
// first on this machine, derived from its vector registers rather than searched for.
//
//   std::vector<Config> seeds = CpuTemplateSeeds(op, task.space, HostVectorRegisters(), threads);
//   (measured before the strategy proposes anything: TuneTasksOptions::template_seeds)
//
// A direct convolution runs at the machine's limit when its innermost loop is an outer product of
// one broadcast input element and a block of output channels held in vector registers, with as
// many accumulators as the registers hold and the input-channel block innermost, so that the
// weights of one tap stream in order (how oneDNN's jit convolutions block their registers). The
// conv2d template can express that kernel, but it is a small corner of a space of 10^7–10^9
// configurations, and a 64-measurement search rarely lands in it (bench/results/
// cpu_resnet18_zen3.md, "Template seeds"). The depthwise template's seeds are ways of streaming the
// activation, and dense at M = 1 gets the matrix-vector kernel that keeps up with the weights'
// stream, both chosen by measurement. Other templates have no seeds yet.
#pragma once

#include <cstdint>
#include <vector>

#include "glimpse/ops.h"
#include "glimpse/space.h"

namespace glimpse {

// The vector registers the kernels compiled here use: floats per register and how many there are.
struct VectorRegisters {
  int64_t lanes = 16;
  int64_t count = 32;
};

// AVX-512: 16 lanes × 32 registers; AVX2 (or AVX) without AVX-512: 8 × 16; SSE-only x86: 4 × 16;
// another architecture: 4 × 32 (NEON). Follows the ISA `-march=native` compiles for, as
// HostRegisterTileFloats does.
VectorRegisters HostVectorRegisters();

// The template seeds of `op` in `space` (MakeCpuSpace(op, …): configurations that are not valid
// there are left out), best first, for kernels running on `threads` threads:
//   conv2d — with fewer input channels than a vector at stride 1 (VGG's first layer), first the
//     plain layout NCHW: a vector of output columns (tile_ow_2 = lanes) × 8, then 4, output
//     channels (tile_k_2, unrolled) a register tile, all the taps outside it, the padding copied,
//     parallel over output-channel blocks when there are at least `threads`, else over rows. Then
//     the blocked layout (NCHWc, or NCHWc_strided where the space offers it) with the
//     output-channel block (tile_k_2) of two vectors, then one (when neither divides K: the
//     largest divisor of K that is a multiple of half a vector and at most two vectors, then
//     half a vector), and the input-channel block (tile_c_1) of two vectors, then one (C itself
//     when C is not a multiple of a vector: the 3-channel first layer); in each, as many output
//     columns (tile_ow_2, a divisor of OW) as the accumulators fit in the registers less one for
//     the broadcast (half that for a block of one vector or less of a 1×1 stride-1 layer with
//     32 registers); the reduction ordered c0, r, s, c1 with nothing of k1 outside the tile;
//     taps unrolled, the block vectorised, zero padding copied; parallel over output-channel blocks
//     when there are at least `threads` of them (and bands of rows too when the blocks are no
//     multiple of `threads`), else over output rows.
//   depthwise_conv2d — the output row as the vector (vector_axis ow, no packing), the taps
//     innermost, the padding copied: two channels interleaved (where C is even) one row a tile,
//     then one channel with a band of rows of about 8 KiB of accumulators a tile, then one
//     channel one row a tile; parallel over channels (and rows when fewer channel tiles than
//     threads). Then channels as the vector (vector_axis c: the input packed into blocks of one
//     vector of channels, or the largest power of two dividing C down to half a vector; the
//     padding copied into that packing) with a strip of output columns (tile_ow_2, a divisor of
//     OW) as wide as the registers less two hold; parallel over channel blocks and rows.
//   dense at M = 1 — each output a tile: one row of B reduced over the whole of K by a
//     vectorised loop (inner_axis k, tile_k = [1, K], tile_n = [N, 1, 1]), B not packed,
//     parallel over the rows.
//   other operators (dense at M > 1, batch_matmul) — none.
std::vector<Config> CpuTemplateSeeds(const Operator& op, const ConfigSpace& space,
                                     const VectorRegisters& registers, int threads);

}  // namespace glimpse
