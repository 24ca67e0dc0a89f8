// Template seeds (glimpse/cpu_seeds.h): the register blocking of a direct convolution chosen from
// the machine's vector registers, as configurations of the conv2d template's space; the ways of
// streaming depthwise and matrix-vector layers that measured fastest.
#include <algorithm>
#include <string>

#include "cpu/template_util.h"
#include "glimpse/cpu_seeds.h"
#include "glimpse/error.h"
#include "glimpse/json.h"

namespace glimpse {

VectorRegisters HostVectorRegisters() {
#if defined(__x86_64__) || defined(__i386__)
  if (__builtin_cpu_supports("avx512f")) return {16, 32};
  if (__builtin_cpu_supports("avx")) return {8, 16};
  return {4, 16};
#else
  return {4, 32};
#endif
}

namespace {

bool HasKnob(const ConfigSpace& space, const std::string& name) {
  return std::any_of(space.knobs().begin(), space.knobs().end(),
                     [&](const Knob& knob) { return knob.name() == name; });
}

bool KnobHasValue(const ConfigSpace& space, const std::string& name, const std::string& value) {
  if (!HasKnob(space, name)) return false;
  const Knob& knob = space.knobs()[space.KnobIndex(name)];
  for (size_t i = 0; i < knob.size(); ++i) {
    const auto* text = std::get_if<std::string>(&knob.ValueAt(i));
    if (text != nullptr && *text == value) return true;
  }
  return false;
}

// The largest divisor of `n` that is at most `limit` (1 when limit < 1).
int64_t LargestDivisorAtMost(int64_t n, int64_t limit) {
  for (int64_t d = std::min(n, limit); d > 1; --d) {
    if (n % d == 0) return d;
  }
  return 1;
}

// Adds `json` to `seeds` when the space offers it, it is valid and not there yet. A seed copies
// the zero padding where the space has the knob, unless it says otherwise: guarded loads defeat
// the vectorisation (up to 20× slower on depthwise rows), and the copy is one pass over the input.
void AddSeed(const ConfigSpace& space, Json json, std::vector<Config>& seeds) {
  if (!HasKnob(space, "padding")) {
    json.erase("padding");
  } else if (!json.contains("padding")) {
    json["padding"] = "copy";
  }
  try {
    Config config = space.ConfigFromJson(json);
    if (space.IsValid(config) && std::find(seeds.begin(), seeds.end(), config) == seeds.end()) {
      seeds.push_back(std::move(config));
    }
  } catch (const Error&) {
    // A value the space does not offer (a space made for another machine's registers): no
    // seed from this blocking.
  }
}

std::vector<Config> Conv2dSeeds(const Conv2dShape& shape, const ConfigSpace& space,
                                const VectorRegisters& registers, int threads) {
  const int64_t lanes = registers.lanes;
  // The output-channel blocks: two vectors (fewer columns, each broadcast feeds two FMAs), then
  // one (twice the columns).
  std::vector<int64_t> k_blocks;
  for (int64_t vectors : {2, 1}) {
    if (shape.k % (vectors * lanes) == 0) k_blocks.push_back(vectors * lanes);
  }
  // K no multiple of a vector (MobileNet-v2's K = 24 on 16 lanes): the largest divisor of K that
  // is a multiple of half a vector and at most two vectors, then half a vector.
  if (k_blocks.empty() && lanes % 2 == 0) {
    const int64_t half = lanes / 2;
    for (int64_t block = 2 * lanes; block >= half; block -= half) {
      if (shape.k % block == 0) {
        k_blocks.push_back(block);
        break;
      }
    }
    if (!k_blocks.empty() && k_blocks[0] != half && shape.k % half == 0) k_blocks.push_back(half);
  }
  // Blocked activations fix the blocks (the space allows no other).
  if (shape.out_block != 0) k_blocks = {shape.out_block};
  // The input-channel blocks: two vectors' worth, then one; C itself when it is no multiple of a
  // vector (the first layer's 3 channels).
  std::vector<int64_t> c_blocks;
  for (int64_t vectors : {2, 1}) {
    if (shape.c % (vectors * lanes) == 0) c_blocks.push_back(vectors * lanes);
  }
  if (c_blocks.empty()) c_blocks.push_back(shape.c);
  if (shape.in_block != 0) c_blocks = {shape.in_block};

  const std::string layout =
      KnobHasValue(space, "layout", "NCHWc_strided") ? "NCHWc_strided" : "NCHWc";
  const int64_t out_h = shape.OutH(), out_w = shape.OutW();
  std::vector<Config> seeds;
  // A strided 1×1 convolution on plain activations: the plane layout (no transposition; 0.63–0.66×
  // the NCHWc_strided kernel's time on ResNet-18's 56×56 downsample, bench/results/cpu_models_64/
  // blocked/plane_probe), as measured fastest there: 8 output channels × one vector of 16
  // positions, then 16 channels (fewer where the registers do not hold them). The tile's positions:
  // the largest product of a divisor of OH and one of OW up to one plane vector (the template
  // rounds it up to that).
  if (KnobHasValue(space, "layout", "NCHW_plane")) {
    const int64_t vector = cpu::kPlaneVector;
    int64_t best_oh = 1, best_ow = 1;
    for (int64_t oh1 = 1; oh1 <= out_h; ++oh1) {
      if (out_h % oh1 != 0) continue;
      const int64_t ow2 = LargestDivisorAtMost(out_w, vector / oh1);
      if (oh1 * ow2 <= vector && oh1 * ow2 > best_oh * best_ow) best_oh = oh1, best_ow = ow2;
    }
    // A row of one plane vector takes vector / lanes registers; every register but a broadcast's
    // can hold accumulators (AVX2: 7 rows of two registers — the largest divisor of K up to that).
    const int64_t per_row = (vector + lanes - 1) / lanes;
    const int64_t most_rows = std::max<int64_t>((registers.count - 1) / per_row, 1);
    std::vector<int64_t> row_choices;
    for (int64_t rows : {int64_t{8}, int64_t{16}}) {
      if (rows <= most_rows && shape.k % rows == 0) row_choices.push_back(rows);
    }
    if (row_choices.empty()) row_choices.push_back(LargestDivisorAtMost(shape.k, most_rows));
    for (int64_t rows : row_choices) {
      Json json = {{"layout", "NCHW_plane"},
                   {"tile_k", {shape.k / rows, 1, rows}},
                   {"tile_oh", {out_h / best_oh, best_oh}},
                   {"tile_ow", {out_w / best_ow, 1, best_ow}},
                   {"tile_c", {1, shape.c}},
                   {"order", {0, 1, 2, 3, 4}},
                   {"parallel", "k_oh"},
                   {"vectorize", 1},
                   {"unroll", 1}};
      AddSeed(space, std::move(json), seeds);
    }
  }
  // Fewer input channels than a vector (the 3-channel first layers), blocked: the plain input read
  // in place, one channel a block (a packed copy cost MobileNet-v2's first layer a fifth of its
  // time), two vectors of output channels × 7 columns in registers — half the registers: 14
  // columns spilled — and the kernel row's taps unrolled around them (c0, r, s). On Zen 4 it ran
  // VGG-16's first layer at 95 % of the FMA peak and ResNet's 7×7 one at 98 %; MobileNet-v2's
  // stride-2 one at 79 %, where the flushed input and output alone take 70 % of its time
  // (bench/results/cpu_models_64.md, "The first layers read their input in place"). With 16
  // registers (AVX2), one vector of channels.
  if (shape.c < lanes && shape.in_block == 0 && layout == "NCHWc") {
    const int64_t k_block = shape.out_block != 0 ? shape.out_block : lanes;
    const int64_t k_vectors = registers.count >= 32 && shape.k % (2 * k_block) == 0 ? 2 : 1;
    const int64_t columns =
        LargestDivisorAtMost(out_w, std::max<int64_t>((registers.count / 2 - 1) / k_vectors, 1));
    if (shape.k % k_block == 0) {
      Json json = {{"layout", "NCHWc"},
                   {"tile_k", {shape.k / (k_vectors * k_block), k_vectors, k_block}},
                   {"tile_oh", {out_h, 1}},
                   {"tile_ow", {out_w / columns, 1, columns}},
                   {"tile_c", {shape.c, 1}},
                   {"order", {0, 2, 3, 1, 4}},  // c0, r, s, c1; k1 last: in the register tile
                   {"parallel", "oh"},
                   {"vectorize", 1},
                   {"unroll", 1},
                   {"padding", "guard"}};
      AddSeed(space, std::move(json), seeds);
    }
    // Strided, the input is read once and each output pixel has little work (MobileNet-v2's 32
    // channels): one output block × 8 columns — the 8 accumulators that keep two FMA pipes of
    // latency 4 busy, each FMA broadcasting its input element from memory — with every block of a
    // column tile in turn, so that the tile prefetches the next row (template_conv2d.cc). On Zen 4
    // it ran MobileNet-v2's first layer at 91–92 % of the FMA peak against 78 % for the two-block
    // seed; on ResNet's 7×7 one it is 0–2 % slower than that seed, which stays first
    // (bench/results/cpu_models_64.md, "The first layers prefetch").
    // With a plain output there is no next-row output to share out and the unpacking store
    // writes every block's channel rows: the blocks as outer tiles (k0) instead, each tile one
    // block (on Zen 4, ResNet's 7×7 layer with a plain output 1.1× faster). Where the reduction
    // is as short as a 3×3 layer's (C·R·S ≤ 32; a 5×5's 75 and a 7×7's 147 measured 1.1–1.2×
    // slower) the store outweighs the FMAs, and blocks of 8 channels × 7 columns, the column
    // taps outside the row taps, parallel over blocks and rows, ran fastest: 1.1–1.25× the
    // outer-block seed on 3×3 stride-2 first layers of 16, 32 and 64 channels (224 and 112
    // input), 1.05× the fastest configuration tuning had found on MobileNet-v2's
    // (bench/results/perf_tuning.md, "A seed for the plain-output stem").
    const bool plain_output = shape.out_block == 0;
    const bool short_reduction = shape.c * shape.r * shape.s <= 32;
    const bool eight_by_seven = plain_output && short_reduction && shape.k % 8 == 0;
    if (shape.stride > 1 && (eight_by_seven || shape.k % k_block == 0)) {
      const int64_t block = eight_by_seven ? 8 : k_block;
      const int64_t blocks = shape.k / block;
      const int64_t per_column = (block + lanes - 1) / lanes;
      const int64_t columns =
          LargestDivisorAtMost(out_w, eight_by_seven ? 7 : std::max<int64_t>(8 / per_column, 1));
      Json json = {{"layout", "NCHWc"},
                   {"tile_k", plain_output ? Json{blocks, 1, block} : Json{1, blocks, block}},
                   {"tile_oh", {out_h, 1}},
                   {"tile_ow", {out_w / columns, 1, columns}},
                   {"tile_c", {shape.c, 1}},
                   // c0, s, k1, r, c1 for the 8 × 7 tile; else c0, r, s, k1, c1. k1 is outside
                   // the register tile either way.
                   {"order", eight_by_seven ? Json{0, 3, 4, 2, 1} : Json{0, 2, 3, 4, 1}},
                   {"parallel", eight_by_seven ? "k_oh" : "oh"},
                   {"vectorize", 1},
                   {"unroll", 1},
                   {"padding", "guard"}};
      AddSeed(space, std::move(json), seeds);
    }
  }
  // Fewer input channels than a vector, stride 1 (VGG's 3-channel first layer): the reduction is
  // so short (C·R·S = 27 taps) that the blocked kernel's unpacking store, 32 channel planes a
  // tile, costs more than its FMAs (25 GFLOP/s on VGG-16's first layer on Zen 4). The plain
  // layout writes rows instead: a vector of output columns × a few output channels in registers,
  // one input row load and one weight broadcast a tap (140–165 GFLOP/s there; bench/results/
  // cpu_models_64.md, "Seeds for the 3-channel first layer"). Wider tiles (two vectors of
  // columns, or 16 channels) measured slower. A strided layer would load its columns strided.
  if (shape.c < lanes && shape.stride == 1 && shape.dilation == 1 && out_w % lanes == 0) {
    for (int64_t k_block : {int64_t{8}, int64_t{4}}) {
      if (shape.k % k_block != 0) continue;
      const bool over_channels = shape.k / k_block >= threads;
      Json json = {{"layout", "NCHW"},
                   {"tile_k", {shape.k / k_block, 1, k_block}},
                   {"tile_oh", {out_h, 1}},
                   {"tile_ow", {out_w / lanes, 1, lanes}},
                   {"tile_c", {1, shape.c}},
                   {"order", {0, 1, 2, 3, 4}},  // c0, c1, r, s, k1; then k2 (unrolled), ow2
                   {"parallel", over_channels ? "k" : "oh"},
                   {"vectorize", 1},
                   {"unroll", 1}};
      AddSeed(space, std::move(json), seeds);
    }
  }
  for (int64_t k_block : k_blocks) {
    // Every register but the broadcast's holds accumulators: k_block / lanes per column (a
    // partial vector takes a whole register).
    const int64_t per_column = (k_block + lanes - 1) / lanes;
    int64_t most_columns = (registers.count - 1) / per_column;
    // Except a block of one vector or less of a 1×1 stride-1 layer on AVX-512: there half the
    // registers hold accumulators (28 columns → 14 on 28- to 112-wide outputs). Timed on the zoo's
    // 1×1 layers on Zen 4, the seeds' best got faster on 11 of the 17 plain layers this changes
    // (1.01–1.19× the speed), slower on 1 (0.89×, a 16-channel reduction 112 wide), the same on
    // 5; with activations blocked by 16, faster on 13 of 14 (1.04–1.44×), slower on the same one
    // (0.95×) (bench/results/perf_tuning.md, "Fewer columns for the one-vector block of plain
    // 1×1 layers"). On AVX2 (16 registers) the tile is unmeasured and stays as it was.
    if (per_column == 1 && registers.count >= 32 && shape.r == 1 && shape.s == 1 &&
        shape.stride == 1) {
      most_columns /= 2;
    }
    const int64_t columns = LargestDivisorAtMost(out_w, most_columns);
    const int64_t k_outer = shape.k / k_block;
    const bool over_channels = k_outer >= threads;
    // Blocks that do not share out evenly among the threads (MobileNet-v2's 9 blocks of 144
    // channels on 2) are split into bands of rows as well, parallel over both: the fewest bands
    // that make the tiles a multiple of the threads, else a band a row. On Zen 4 that ran 1.08×,
    // 1.29× and 1.13× the speed of parallel over blocks alone on three such layers (bench/results/
    // perf_tuning.md, "Parallel over blocks and rows where the blocks do not share out").
    int64_t row_bands = 1;
    if (over_channels && k_outer % threads != 0) {
      row_bands = out_h;
      for (int64_t bands = 2; bands < out_h; ++bands) {
        if (out_h % bands == 0 && (k_outer * bands) % threads == 0) {
          row_bands = bands;
          break;
        }
      }
    }
    const char* parallel = !over_channels ? "oh" : row_bands > 1 ? "k_oh" : "k";
    for (int64_t c_block : c_blocks) {
      Json json = {{"layout", layout},
                   {"tile_k", {k_outer, 1, k_block}},
                   {"tile_oh", over_channels ? Json{row_bands, out_h / row_bands} : Json{out_h, 1}},
                   {"tile_ow", {1, out_w / columns, columns}},
                   {"tile_c", {shape.c / c_block, c_block}},
                   {"order", {0, 2, 3, 1, 4}},  // c0, r, s, c1; k1 (of extent 1) in the tile
                   {"parallel", parallel},
                   {"vectorize", 1},
                   {"unroll", 1}};
      AddSeed(space, std::move(json), seeds);
    }
  }
  return seeds;
}

// A depthwise convolution does 2·R·S FLOP per output element and reads each input element R·S
// times from cache: it is bound by how the activation streams, not by the FMAs. Measured on
// MobileNet-v2's ten depthwise layers (bench/results/cpu_models_64.md, "Depthwise seeds"), the
// fastest way on most layers is the plainest: one channel at a time, the output row as the vector,
// every tap innermost so that the row's accumulators stay in registers across the R·S FMAs, and
// the padding folded into a copy (guarded loads defeat the vectorisation of rows that are no
// multiple of the vector, up to 20× slower). The seeds, best first:
//  - rows, two channels interleaved (two independent FMA chains when a row is one vector);
//  - a band of rows per tile (about 8 KiB of accumulators: the whole plane of the small layers);
//  - rows, one channel;
//  - channels as the vector (oneDNN's way, on its nhwc activation): the input packed into blocks
//    of one vector of channels (the padding folded into that copy), a strip of output columns in
//    registers, every tap one weight vector and one FMA per column — the fastest on some
//    mid-sized layers.
std::vector<Config> DepthwiseSeeds(const DepthwiseConv2dShape& shape, const ConfigSpace& space,
                                   const VectorRegisters& registers, int threads) {
  const int64_t out_h = shape.OutH(), out_w = shape.OutW();
  std::vector<Config> seeds;
  auto add_rows = [&](int64_t channels, int64_t band) {
    Json json = {{"tile_c", {shape.c / channels, 1, channels}},
                 {"tile_oh", {out_h / band, band}},
                 {"tile_ow", {1, 1, out_w}},
                 {"order", {0, 1, 2, 3, 4}},  // c1, oh1, ow1, r, s; then the channels, the row
                 {"parallel", shape.c / channels >= threads ? "c" : "c_oh"},
                 {"vector_axis", "ow"},
                 // Not unrolled, even with two channels: on Zen 4 the two-channel seed ran
                 // 0.90× the unrolled one's time by the geometric mean over MobileNet-v2's ten
                 // depthwise layers (faster on 8; bench/results/perf_tuning.md, "The depthwise
                 // rows seed not unrolled").
                 {"unroll", 0}};
    AddSeed(space, std::move(json), seeds);
  };
  if (shape.c % 2 == 0) add_rows(2, 1);
  add_rows(1, LargestDivisorAtMost(out_h, std::max<int64_t>(2048 / out_w, 1)));
  add_rows(1, 1);

  int64_t c_block = registers.lanes;
  while (c_block > 1 && shape.c % c_block != 0) c_block /= 2;
  if (shape.out_block != 0) c_block = shape.out_block;  // the activations' block (the only one)
  if (c_block * 2 >= registers.lanes ||
      shape.out_block != 0) {  // at least half a vector of channels per block
    // Registers: the strip's accumulators, the weight vector and the input vector.
    const int64_t columns = LargestDivisorAtMost(out_w, registers.count - 2);
    Json json = {{"tile_c", {shape.c / c_block, 1, c_block}},
                 {"tile_oh", {out_h, 1}},
                 {"tile_ow", {out_w / columns, 1, columns}},
                 {"order", {0, 1, 2, 3, 4}},  // c1, oh1, ow1, r, s; then columns, channels
                 {"parallel", shape.c / c_block >= threads ? "c_oh" : "oh"},
                 {"vector_axis", "c"},
                 {"unroll", 1}};
    AddSeed(space, std::move(json), seeds);
  }
  return seeds;
}

// A dense layer at M = 1 (a classifier at batch 1) reads each weight once: it is bound by the
// stream of B from memory, and the kernel that keeps up with it walks each row of B once with a
// vectorised reduction over the whole of K into one output, rows shared out between the threads.
// Multi-row tiles (tile_n_2 > 1) measured 3–4× slower: their reductions land in memory.
std::vector<Config> DenseSeeds(const DenseShape& shape, const ConfigSpace& space) {
  std::vector<Config> seeds;
  if (shape.m != 1) return seeds;
  Json json = {{"tile_m", {1, 1, 1}},
               {"tile_n", {shape.n, 1, 1}},
               {"tile_k", {1, shape.k}},
               {"inner_axis", "k"},
               {"order", {0, 1, 3, 2, 4}},  // k0, m1, m2, n1, n2; then k1, the reduction
               {"parallel", "n"},
               {"vectorize", 1},
               {"unroll", 1},
               {"pack_b", 0}};
  AddSeed(space, std::move(json), seeds);
  return seeds;
}

}  // namespace

std::vector<Config> CpuTemplateSeeds(const Operator& op, const ConfigSpace& space,
                                     const VectorRegisters& registers, int threads) {
  if (registers.lanes < 1 || registers.count < 2) {
    throw Error("template seeds: " + std::to_string(registers.count) + " vector registers of " +
                std::to_string(registers.lanes) + " lanes; accepted: at least 2 of at least 1");
  }
  threads = std::max(threads, 1);
  if (const auto* conv = std::get_if<Conv2dShape>(&op)) {
    return Conv2dSeeds(*conv, space, registers, threads);
  }
  if (const auto* depthwise = std::get_if<DepthwiseConv2dShape>(&op)) {
    return DepthwiseSeeds(*depthwise, space, registers, threads);
  }
  if (const auto* dense = std::get_if<DenseShape>(&op)) return DenseSeeds(*dense, space);
  return {};
}

}  // namespace glimpse
