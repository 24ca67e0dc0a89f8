// Template seeds (glimpse/cpu_seeds.h): the register blocking derived from the vector registers,
// valid in the space, and kernels that compute the right answer.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cpu_fixtures.h"
#include "glimpse/cpu.h"
#include "glimpse/cpu_seeds.h"
#include "glimpse/error.h"

namespace glimpse {
namespace {

constexpr VectorRegisters kAvx2{8, 16};
constexpr VectorRegisters kAvx512{16, 32};

std::vector<Json> SeedsOf(const std::string& op, const VectorRegisters& registers, int threads,
                          int64_t register_tile_floats) {
  const Operator parsed = ParseOperator(op);
  const ConfigSpace space = MakeCpuSpace(parsed, register_tile_floats);
  std::vector<Json> out;
  for (const Config& config : CpuTemplateSeeds(parsed, space, registers, threads)) {
    EXPECT_TRUE(space.IsValid(config)) << space.ConfigToString(config);
    out.push_back(space.ConfigToJson(config));
  }
  return out;
}

TEST(TemplateSeedsTest, Avx2BlocksOutputChannelsByTwoVectorsThenOneAndFillsFifteenRegisters) {
  const std::vector<Json> seeds = SeedsOf("conv2d:N=1,C=128,H=28,W=28,K=128,R=3,S=3,pad=1,bias=1",
                                          kAvx2, 2, kAvx2RegisterTileFloats);
  ASSERT_EQ(seeds.size(), 4u);
  // Output-channel block 16 (two ymm): 15 / 2 = 7 columns, and 28 = 4 × 7; then block 8: 14.
  const std::vector<std::vector<int64_t>> k_tiles = {
      {8, 1, 16}, {8, 1, 16}, {16, 1, 8}, {16, 1, 8}};
  const std::vector<std::vector<int64_t>> ow_tiles = {{1, 4, 7}, {1, 4, 7}, {1, 2, 14}, {1, 2, 14}};
  const std::vector<std::vector<int64_t>> c_tiles = {{8, 16}, {16, 8}, {8, 16}, {16, 8}};
  for (size_t i = 0; i < seeds.size(); ++i) {
    SCOPED_TRACE(seeds[i].dump());
    EXPECT_EQ(seeds[i]["layout"], "NCHWc");
    EXPECT_EQ(seeds[i]["tile_k"].get<std::vector<int64_t>>(), k_tiles[i]);
    EXPECT_EQ(seeds[i]["tile_ow"].get<std::vector<int64_t>>(), ow_tiles[i]);
    EXPECT_EQ(seeds[i]["tile_c"].get<std::vector<int64_t>>(), c_tiles[i]);
    EXPECT_EQ(seeds[i]["tile_oh"].get<std::vector<int64_t>>(), (std::vector<int64_t>{1, 28}));
    EXPECT_EQ(seeds[i]["order"].get<std::vector<int64_t>>(), (std::vector<int64_t>{0, 2, 3, 1, 4}));
    EXPECT_EQ(seeds[i]["parallel"], "k");
    EXPECT_EQ(seeds[i]["vectorize"], 1);
    EXPECT_EQ(seeds[i]["unroll"], 1);
    EXPECT_EQ(seeds[i]["padding"], "copy");
  }
}

TEST(TemplateSeedsTest, Avx512UsesSixteenLanesAndThirtyOneAccumulators) {
  const std::vector<Json> seeds = SeedsOf("conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,pad=1", kAvx512,
                                          4, kPortableRegisterTileFloats);
  ASSERT_EQ(seeds.size(), 4u);
  // Block 32 (two zmm): 31 / 2 = 15 → the largest divisor of 56 at most 15 is 14; block 16: 28.
  EXPECT_EQ(seeds[0]["tile_k"].get<std::vector<int64_t>>(), (std::vector<int64_t>{2, 1, 32}));
  EXPECT_EQ(seeds[0]["tile_ow"].get<std::vector<int64_t>>(), (std::vector<int64_t>{1, 4, 14}));
  EXPECT_EQ(seeds[0]["tile_c"].get<std::vector<int64_t>>(), (std::vector<int64_t>{2, 32}));
  EXPECT_EQ(seeds[1]["tile_c"].get<std::vector<int64_t>>(), (std::vector<int64_t>{4, 16}));
  EXPECT_EQ(seeds[2]["tile_k"].get<std::vector<int64_t>>(), (std::vector<int64_t>{4, 1, 16}));
  EXPECT_EQ(seeds[2]["tile_ow"].get<std::vector<int64_t>>(), (std::vector<int64_t>{1, 2, 28}));
  // Two blocks of 32 channels on 4 threads: parallel over output rows instead.
  EXPECT_EQ(seeds[0]["parallel"], "oh");
  EXPECT_EQ(seeds[0]["tile_oh"].get<std::vector<int64_t>>(), (std::vector<int64_t>{56, 1}));
  EXPECT_EQ(seeds[2]["parallel"], "k");
}

TEST(TemplateSeedsTest, PlainPointwiseColumnsAndParallelSplit) {
  // A plain 1×1 stride-1 layer: the 16-channel block holds 14 columns (half of 31 registers),
  // the 32-channel block its 14 as before.
  const std::vector<Json> plain = SeedsOf("conv2d:N=1,C=64,H=56,W=56,K=256,R=1,S=1,bias=1", kAvx512,
                                          2, kPortableRegisterTileFloats);
  ASSERT_EQ(plain.size(), 4u);
  EXPECT_EQ(plain[0]["tile_k"].get<std::vector<int64_t>>(), (std::vector<int64_t>{8, 1, 32}));
  EXPECT_EQ(plain[0]["tile_ow"].get<std::vector<int64_t>>(), (std::vector<int64_t>{1, 4, 14}));
  EXPECT_EQ(plain[2]["tile_k"].get<std::vector<int64_t>>(), (std::vector<int64_t>{16, 1, 16}));
  EXPECT_EQ(plain[2]["tile_ow"].get<std::vector<int64_t>>(), (std::vector<int64_t>{1, 4, 14}));
  // 14 wide: 14 columns either way.
  const std::vector<Json> narrow = SeedsOf("conv2d:N=1,C=64,H=14,W=14,K=384,R=1,S=1,bias=1",
                                           kAvx512, 2, kPortableRegisterTileFloats);
  ASSERT_EQ(narrow.size(), 4u);
  EXPECT_EQ(narrow[2]["tile_ow"].get<std::vector<int64_t>>(), (std::vector<int64_t>{1, 1, 14}));
  // Blocked activations too (the block is 16 channels, one vector): 14 columns.
  const std::vector<Json> blocked =
      SeedsOf("conv2d:N=1,C=64,H=56,W=56,K=256,R=1,S=1,bias=1,in_block=16,out_block=16", kAvx512, 2,
              kPortableRegisterTileFloats);
  ASSERT_FALSE(blocked.empty());
  EXPECT_EQ(blocked[0]["tile_k"].get<std::vector<int64_t>>(), (std::vector<int64_t>{16, 1, 16}));
  EXPECT_EQ(blocked[0]["tile_ow"].get<std::vector<int64_t>>(), (std::vector<int64_t>{1, 4, 14}));
  // A 3×3 layer keeps filling the registers: 28 columns.
  const std::vector<Json> three = SeedsOf("conv2d:N=1,C=64,H=56,W=56,K=256,R=3,S=3,pad=1", kAvx512,
                                          2, kPortableRegisterTileFloats);
  ASSERT_EQ(three.size(), 4u);
  EXPECT_EQ(three[2]["tile_ow"].get<std::vector<int64_t>>(), (std::vector<int64_t>{1, 2, 28}));
  // MobileNet-v2's 24 → 144: 9 blocks of 16 do not share out among 2 threads, so 2 bands of
  // rows as well; 160 channels in 5 blocks of 32 over 7 rows (prime): a band a row. 64 → 256's 8
  // and 16 blocks do share out: parallel over blocks alone.
  const std::vector<Json> nine = SeedsOf("conv2d:N=1,C=24,H=56,W=56,K=144,R=1,S=1,bias=1", kAvx512,
                                         2, kPortableRegisterTileFloats);
  ASSERT_EQ(nine.size(), 1u);
  EXPECT_EQ(nine[0]["tile_k"].get<std::vector<int64_t>>(), (std::vector<int64_t>{9, 1, 16}));
  EXPECT_EQ(nine[0]["tile_oh"].get<std::vector<int64_t>>(), (std::vector<int64_t>{2, 28}));
  EXPECT_EQ(nine[0]["parallel"], "k_oh");
  const std::vector<Json> five = SeedsOf("conv2d:N=1,C=960,H=7,W=7,K=160,R=1,S=1,bias=1", kAvx512,
                                         2, kPortableRegisterTileFloats);
  ASSERT_FALSE(five.empty());
  EXPECT_EQ(five[0]["tile_k"].get<std::vector<int64_t>>(), (std::vector<int64_t>{5, 1, 32}));
  EXPECT_EQ(five[0]["tile_oh"].get<std::vector<int64_t>>(), (std::vector<int64_t>{7, 1}));
  EXPECT_EQ(five[0]["parallel"], "k_oh");
  for (const Json& seed : plain) {
    EXPECT_EQ(seed["parallel"], "k");
    EXPECT_EQ(seed["tile_oh"].get<std::vector<int64_t>>(), (std::vector<int64_t>{1, 56}));
  }
  // AVX2 (16 registers) unchanged: the 8-channel block fills 15 registers, 14 columns.
  const std::vector<Json> avx2 =
      SeedsOf("conv2d:N=1,C=64,H=56,W=56,K=256,R=1,S=1,bias=1", kAvx2, 2, kAvx2RegisterTileFloats);
  ASSERT_EQ(avx2.size(), 4u);
  EXPECT_EQ(avx2[2]["tile_k"].get<std::vector<int64_t>>(), (std::vector<int64_t>{32, 1, 8}));
  EXPECT_EQ(avx2[2]["tile_ow"].get<std::vector<int64_t>>(), (std::vector<int64_t>{1, 4, 14}));
}

TEST(TemplateSeedsTest, FirstLayerAndStridedPointwiseAndOddShapes) {
  // Three input channels: first the input read in place (blocks of one channel), on AVX2's 16
  // registers one vector of channels × 7 columns, the padding guarded; then one input block of
  // all three, two output blocks.
  const std::vector<Json> stem =
      SeedsOf("conv2d:N=1,C=3,H=224,W=224,K=64,R=7,S=7,stride=2,pad=3,bias=1,relu=1", kAvx2, 2,
              kAvx2RegisterTileFloats);
  ASSERT_EQ(stem.size(), 4u);
  EXPECT_EQ(stem[0]["layout"], "NCHWc");  // stride 2: no plain-layout seed
  EXPECT_EQ(stem[0]["tile_c"].get<std::vector<int64_t>>(), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(stem[0]["tile_k"].get<std::vector<int64_t>>(), (std::vector<int64_t>{8, 1, 8}));
  EXPECT_EQ(stem[0]["tile_ow"].get<std::vector<int64_t>>(), (std::vector<int64_t>{16, 1, 7}));
  EXPECT_EQ(stem[0]["padding"], "guard");
  // Strided: then one output block × 8 columns; the output plain, each block its own outer tile
  // (k0; a blocked output passes every block of a column tile in turn, below).
  EXPECT_EQ(stem[1]["tile_c"].get<std::vector<int64_t>>(), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(stem[1]["tile_k"].get<std::vector<int64_t>>(), (std::vector<int64_t>{8, 1, 8}));
  EXPECT_EQ(stem[1]["tile_ow"].get<std::vector<int64_t>>(), (std::vector<int64_t>{14, 1, 8}));
  EXPECT_EQ(stem[1]["order"].get<std::vector<int64_t>>(), (std::vector<int64_t>{0, 2, 3, 4, 1}));
  EXPECT_EQ(stem[2]["tile_c"].get<std::vector<int64_t>>(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(stem[2]["padding"], "copy");
  EXPECT_EQ(stem[3]["tile_ow"].get<std::vector<int64_t>>(), (std::vector<int64_t>{1, 8, 14}));
  // On AVX-512 with blocked outputs (MobileNet-v2's first layer): 16 channels a block, 8 columns.
  const std::vector<Json> mobile =
      SeedsOf("conv2d:N=1,C=3,H=224,W=224,K=32,R=3,S=3,stride=2,pad=1,bias=1,relu6=1,out_block=16",
              kAvx512, 2, kPortableRegisterTileFloats);
  ASSERT_GE(mobile.size(), 2u);
  EXPECT_EQ(mobile[0]["tile_k"].get<std::vector<int64_t>>(), (std::vector<int64_t>{1, 2, 16}));
  EXPECT_EQ(mobile[0]["tile_ow"].get<std::vector<int64_t>>(), (std::vector<int64_t>{16, 1, 7}));
  EXPECT_EQ(mobile[1]["tile_k"].get<std::vector<int64_t>>(), (std::vector<int64_t>{1, 2, 16}));
  EXPECT_EQ(mobile[1]["tile_ow"].get<std::vector<int64_t>>(), (std::vector<int64_t>{14, 1, 8}));
  EXPECT_EQ(mobile[1]["order"].get<std::vector<int64_t>>(), (std::vector<int64_t>{0, 2, 3, 4, 1}));
  // The same layer with a plain output: its reduction is short (27 taps), so blocks of 8
  // channels × 7 columns, the column taps outside the row taps, over blocks and rows.
  const std::vector<Json> mobile_plain =
      SeedsOf("conv2d:N=1,C=3,H=224,W=224,K=32,R=3,S=3,stride=2,pad=1,bias=1", kAvx512, 2,
              kPortableRegisterTileFloats);
  ASSERT_GE(mobile_plain.size(), 2u);
  EXPECT_EQ(mobile_plain[0]["tile_k"].get<std::vector<int64_t>>(),
            (std::vector<int64_t>{1, 2, 16}));
  EXPECT_EQ(mobile_plain[1]["tile_k"].get<std::vector<int64_t>>(), (std::vector<int64_t>{4, 1, 8}));
  EXPECT_EQ(mobile_plain[1]["tile_ow"].get<std::vector<int64_t>>(),
            (std::vector<int64_t>{16, 1, 7}));
  EXPECT_EQ(mobile_plain[1]["order"].get<std::vector<int64_t>>(),
            (std::vector<int64_t>{0, 3, 4, 2, 1}));
  EXPECT_EQ(mobile_plain[1]["parallel"], "k_oh");
  // A 5×5 reduction (75 taps) keeps 16-channel blocks × 8 columns, each block an outer tile.
  const std::vector<Json> five =
      SeedsOf("conv2d:N=1,C=3,H=224,W=224,K=32,R=5,S=5,stride=2,pad=2,bias=1", kAvx512, 2,
              kPortableRegisterTileFloats);
  ASSERT_GE(five.size(), 2u);
  EXPECT_EQ(five[1]["tile_k"].get<std::vector<int64_t>>(), (std::vector<int64_t>{2, 1, 16}));
  EXPECT_EQ(five[1]["tile_ow"].get<std::vector<int64_t>>(), (std::vector<int64_t>{14, 1, 8}));
  // The 1×1 stride-2 downsample: the strided packing, and no padding knob to set.
  const std::vector<Json> down =
      SeedsOf("conv2d:N=1,C=64,H=56,W=56,K=128,R=1,S=1,stride=2,bias=1,relu=1,residual=1", kAvx2, 2,
              kAvx2RegisterTileFloats);
  ASSERT_EQ(down.size(), 5u);
  // First the plane: 4 output channels × 16 positions (4 × 4 of the 28 × 28 plane) — on AVX2 two
  // registers a row, so 7 rows at most and K's largest divisor up to 7.
  EXPECT_EQ(down[0]["layout"], "NCHW_plane");
  EXPECT_EQ(down[0]["tile_k"].get<std::vector<int64_t>>(), (std::vector<int64_t>{32, 1, 4}));
  EXPECT_EQ(down[0]["tile_oh"].get<std::vector<int64_t>>(), (std::vector<int64_t>{7, 4}));
  EXPECT_EQ(down[0]["tile_ow"].get<std::vector<int64_t>>(), (std::vector<int64_t>{7, 1, 4}));
  EXPECT_FALSE(down[0].contains("padding"));
  EXPECT_EQ(down[1]["layout"], "NCHWc_strided");
  EXPECT_FALSE(down[1].contains("padding"));
  // On AVX-512 one register a row: 8 and then 16 output channels.
  const std::vector<Json> down512 =
      SeedsOf("conv2d:N=1,C=64,H=56,W=56,K=128,R=1,S=1,stride=2,bias=1,relu=1,residual=1", kAvx512,
              2, kPortableRegisterTileFloats);
  ASSERT_EQ(down512.size(), 6u);  // two plane seeds, then NCHWc_strided's four
  EXPECT_EQ(down512[0]["layout"], "NCHW_plane");
  EXPECT_EQ(down512[0]["tile_k"].get<std::vector<int64_t>>(), (std::vector<int64_t>{16, 1, 8}));
  EXPECT_EQ(down512[1]["tile_k"].get<std::vector<int64_t>>(), (std::vector<int64_t>{8, 1, 16}));
  EXPECT_EQ(down512[1]["layout"], "NCHW_plane");
  EXPECT_EQ(down512[2]["layout"], "NCHWc_strided");
  // Blocked activations: no plane (it needs NCHW in and out).
  for (const Json& seed :
       SeedsOf("conv2d:N=1,C=64,H=56,W=56,K=128,R=1,S=1,stride=2,bias=1,in_block=16,out_block=16",
               kAvx512, 2, kPortableRegisterTileFloats)) {
    EXPECT_NE(seed["layout"], "NCHW_plane");
  }
  // 20 output channels, no multiple of 8 lanes: blocks of half a vector (4), 15 columns' worth
  // of registers (8 columns, the whole row); 22, no multiple of half a vector either: no seed.
  const std::vector<Json> twenty =
      SeedsOf("conv2d:N=1,C=16,H=8,W=8,K=20,R=3,S=3,pad=1", kAvx2, 2, kAvx2RegisterTileFloats);
  ASSERT_EQ(twenty.size(), 2u);
  EXPECT_EQ(twenty[0]["tile_k"].get<std::vector<int64_t>>(), (std::vector<int64_t>{5, 1, 4}));
  EXPECT_EQ(twenty[0]["tile_ow"].get<std::vector<int64_t>>(), (std::vector<int64_t>{1, 1, 8}));
  EXPECT_TRUE(
      SeedsOf("conv2d:N=1,C=16,H=8,W=8,K=22,R=3,S=3,pad=1", kAvx2, 2, kAvx2RegisterTileFloats)
          .empty());
  // MobileNet-v2's K = 24 on AVX-512: one and a half vectors (two registers a column: 15 → 14
  // columns), then half a vector (one register a column; a plain 1×1 layer: half of 31 → 14
  // columns, not 28).
  const std::vector<Json> k24 = SeedsOf("conv2d:N=1,C=96,H=56,W=56,K=24,R=1,S=1,bias=1", kAvx512, 2,
                                        kPortableRegisterTileFloats);
  ASSERT_EQ(k24.size(), 4u);
  EXPECT_EQ(k24[0]["tile_k"].get<std::vector<int64_t>>(), (std::vector<int64_t>{1, 1, 24}));
  EXPECT_EQ(k24[0]["tile_ow"].get<std::vector<int64_t>>(), (std::vector<int64_t>{1, 4, 14}));
  EXPECT_EQ(k24[2]["tile_k"].get<std::vector<int64_t>>(), (std::vector<int64_t>{3, 1, 8}));
  EXPECT_EQ(k24[2]["tile_ow"].get<std::vector<int64_t>>(), (std::vector<int64_t>{1, 4, 14}));
  // Seven output columns (prime): all seven in the tile when they fit, else one.
  const std::vector<Json> deep =
      SeedsOf("conv2d:N=1,C=512,H=7,W=7,K=512,R=3,S=3,pad=1", kAvx2, 2, kAvx2RegisterTileFloats);
  ASSERT_EQ(deep.size(), 4u);
  EXPECT_EQ(deep[0]["tile_ow"].get<std::vector<int64_t>>(), (std::vector<int64_t>{1, 1, 7}));
  // Dense at M > 1 and batch_matmul have no seeds.
  EXPECT_TRUE(SeedsOf("dense:M=4,N=1000,K=512", kAvx2, 2, kAvx2RegisterTileFloats).empty());
  EXPECT_TRUE(SeedsOf("batch_matmul:B=2,M=8,N=8,K=8", kAvx2, 2, kAvx2RegisterTileFloats).empty());
}

TEST(TemplateSeedsTest, DenseAtBatchOneReducesEachRowOfTheWeightsWhole) {
  for (const VectorRegisters& registers : {kAvx2, kAvx512}) {
    const std::vector<Json> seeds =
        SeedsOf("dense:M=1,N=1000,K=2048,bias=1", registers, 2, kPortableRegisterTileFloats);
    ASSERT_EQ(seeds.size(), 1u);
    const Json& seed = seeds[0];
    EXPECT_EQ(seed["tile_m"].get<std::vector<int64_t>>(), (std::vector<int64_t>{1, 1, 1}));
    EXPECT_EQ(seed["tile_n"].get<std::vector<int64_t>>(), (std::vector<int64_t>{1000, 1, 1}));
    EXPECT_EQ(seed["tile_k"].get<std::vector<int64_t>>(), (std::vector<int64_t>{1, 2048}));
    EXPECT_EQ(seed["inner_axis"], "k");
    EXPECT_EQ(seed["order"].get<std::vector<int64_t>>(), (std::vector<int64_t>{0, 1, 3, 2, 4}));
    EXPECT_EQ(seed["parallel"], "n");
    EXPECT_EQ(seed["vectorize"], 1);
    EXPECT_EQ(seed["pack_b"], 0);
  }
}

TEST(TemplateSeedsTest, DepthwiseRowsWithTheTapsInnermostThenChannelsAsTheVector) {
  const std::vector<Json> seeds = SeedsOf("depthwise_conv2d:N=1,C=32,H=16,W=16,R=3,S=3,pad=1",
                                          kAvx2, 2, kAvx2RegisterTileFloats);
  ASSERT_EQ(seeds.size(), 4u);
  // Rows: the output row as the vector, the taps innermost, the padding copied; two channels
  // interleaved and one row a tile, then one channel with all 16 rows (16 × 16 floats ≤ 2048) a
  // tile, then one channel and one row.
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(seeds[i].dump());
    EXPECT_EQ(seeds[i]["vector_axis"], "ow");
    EXPECT_EQ(seeds[i]["tile_ow"].get<std::vector<int64_t>>(), (std::vector<int64_t>{1, 1, 16}));
    EXPECT_EQ(seeds[i]["order"].get<std::vector<int64_t>>(), (std::vector<int64_t>{0, 1, 2, 3, 4}));
    EXPECT_EQ(seeds[i]["padding"], "copy");
    EXPECT_EQ(seeds[i]["parallel"], "c");
  }
  EXPECT_EQ(seeds[0]["tile_c"].get<std::vector<int64_t>>(), (std::vector<int64_t>{16, 1, 2}));
  EXPECT_EQ(seeds[0]["tile_oh"].get<std::vector<int64_t>>(), (std::vector<int64_t>{16, 1}));
  EXPECT_EQ(seeds[0]["unroll"], 0);  // not unrolled: measured faster
  EXPECT_EQ(seeds[1]["tile_c"].get<std::vector<int64_t>>(), (std::vector<int64_t>{32, 1, 1}));
  EXPECT_EQ(seeds[1]["tile_oh"].get<std::vector<int64_t>>(), (std::vector<int64_t>{1, 16}));
  EXPECT_EQ(seeds[1]["unroll"], 0);
  EXPECT_EQ(seeds[2]["tile_c"].get<std::vector<int64_t>>(), (std::vector<int64_t>{32, 1, 1}));
  EXPECT_EQ(seeds[2]["tile_oh"].get<std::vector<int64_t>>(), (std::vector<int64_t>{16, 1}));
  // Channels as the vector: blocks of 8 channels, a strip of 8 columns (the largest divisor of 16
  // at most 16 − 2).
  SCOPED_TRACE(seeds[3].dump());
  EXPECT_EQ(seeds[3]["vector_axis"], "c");
  EXPECT_EQ(seeds[3]["tile_c"].get<std::vector<int64_t>>(), (std::vector<int64_t>{4, 1, 8}));
  EXPECT_EQ(seeds[3]["tile_oh"].get<std::vector<int64_t>>(), (std::vector<int64_t>{16, 1}));
  EXPECT_EQ(seeds[3]["tile_ow"].get<std::vector<int64_t>>(), (std::vector<int64_t>{2, 1, 8}));
  EXPECT_EQ(seeds[3]["padding"], "copy");
  EXPECT_EQ(seeds[3]["parallel"], "c_oh");

  // AVX-512, MobileNet-v2's 112 × 112 stride-2 layer (56 × 56 out): a band of 28 rows (28 × 56
  // floats ≤ 2048); a strip of 28 columns (at most 30) of 16-channel blocks.
  const std::vector<Json> strided =
      SeedsOf("depthwise_conv2d:N=1,C=96,H=112,W=112,R=3,S=3,stride=2,pad=1,bias=1,relu6=1",
              kAvx512, 2, kPortableRegisterTileFloats);
  ASSERT_EQ(strided.size(), 4u);
  EXPECT_EQ(strided[1]["tile_oh"].get<std::vector<int64_t>>(), (std::vector<int64_t>{2, 28}));
  EXPECT_EQ(strided[3]["tile_c"].get<std::vector<int64_t>>(), (std::vector<int64_t>{6, 1, 16}));
  EXPECT_EQ(strided[3]["tile_ow"].get<std::vector<int64_t>>(), (std::vector<int64_t>{2, 1, 28}));

  // Fewer channels than threads: rows parallel over channels and rows.
  const std::vector<Json> few =
      SeedsOf("depthwise_conv2d:N=1,C=2,H=8,W=8,R=3,S=3,pad=1", kAvx2, 4, kAvx2RegisterTileFloats);
  ASSERT_FALSE(few.empty());
  EXPECT_EQ(few[0]["parallel"], "c_oh");

  // 24 channels on AVX-512: blocks of 8 (half a vector). 21 channels, no padding: no pair of
  // channels, no channel block, no padding knob — the two one-channel row seeds (8 × 8 rows a
  // band, then one).
  const std::vector<Json> narrow = SeedsOf("depthwise_conv2d:N=1,C=24,H=8,W=8,R=3,S=3,pad=1",
                                           kAvx512, 2, kPortableRegisterTileFloats);
  ASSERT_EQ(narrow.size(), 4u);
  EXPECT_EQ(narrow[3]["tile_c"].get<std::vector<int64_t>>(), (std::vector<int64_t>{3, 1, 8}));
  const std::vector<Json> odd =
      SeedsOf("depthwise_conv2d:N=1,C=21,H=8,W=8,R=3,S=3", kAvx512, 2, kPortableRegisterTileFloats);
  ASSERT_EQ(odd.size(), 2u);
  for (const Json& seed : odd) {
    EXPECT_EQ(seed["vector_axis"], "ow");
    EXPECT_EQ(seed["tile_c"].get<std::vector<int64_t>>(), (std::vector<int64_t>{21, 1, 1}));
    EXPECT_FALSE(seed.contains("padding"));
  }
  EXPECT_EQ(odd[0]["tile_oh"].get<std::vector<int64_t>>(), (std::vector<int64_t>{1, 6}));
  EXPECT_EQ(odd[1]["tile_oh"].get<std::vector<int64_t>>(), (std::vector<int64_t>{6, 1}));
}

TEST(TemplateSeedsTest, ThreeChannelStrideOneLayerFirstWritesRowsInThePlainLayout) {
  // VGG-16's first layer on AVX-512, 2 threads: first the blocked kernel reading the input in
  // place, two vectors of channels × 7 columns in registers (half of the 32); then a vector of 16
  // columns × 8, then 4, channels in the plain layout; then the blocked seeds that pack the input
  // (one input block of all three channels).
  const std::string vgg_stem = "conv2d:N=1,C=3,H=224,W=224,K=64,R=3,S=3,pad=1,bias=1,relu=1";
  const std::vector<Json> all = SeedsOf(vgg_stem, kAvx512, 2, kPortableRegisterTileFloats);
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all[0]["layout"], "NCHWc");
  EXPECT_EQ(all[0]["tile_c"].get<std::vector<int64_t>>(), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(all[0]["tile_k"].get<std::vector<int64_t>>(), (std::vector<int64_t>{2, 2, 16}));
  EXPECT_EQ(all[0]["tile_ow"].get<std::vector<int64_t>>(), (std::vector<int64_t>{32, 1, 7}));
  EXPECT_EQ(all[0]["order"].get<std::vector<int64_t>>(), (std::vector<int64_t>{0, 2, 3, 1, 4}));
  EXPECT_EQ(all[0]["padding"], "guard");
  const std::vector<Json> seeds(all.begin() + 1, all.end());
  const std::vector<std::vector<int64_t>> k_tiles = {{8, 1, 8}, {16, 1, 4}};
  for (size_t i = 0; i < 2; ++i) {
    SCOPED_TRACE(seeds[i].dump());
    EXPECT_EQ(seeds[i]["layout"], "NCHW");
    EXPECT_EQ(seeds[i]["tile_k"].get<std::vector<int64_t>>(), k_tiles[i]);
    EXPECT_EQ(seeds[i]["tile_ow"].get<std::vector<int64_t>>(), (std::vector<int64_t>{14, 1, 16}));
    EXPECT_EQ(seeds[i]["tile_oh"].get<std::vector<int64_t>>(), (std::vector<int64_t>{224, 1}));
    EXPECT_EQ(seeds[i]["tile_c"].get<std::vector<int64_t>>(), (std::vector<int64_t>{1, 3}));
    EXPECT_EQ(seeds[i]["order"].get<std::vector<int64_t>>(), (std::vector<int64_t>{0, 1, 2, 3, 4}));
    EXPECT_EQ(seeds[i]["parallel"], "k");
    EXPECT_EQ(seeds[i]["unroll"], 1);
    EXPECT_EQ(seeds[i]["padding"], "copy");
  }
  EXPECT_EQ(seeds[2]["layout"], "NCHWc");
  EXPECT_EQ(seeds[3]["layout"], "NCHWc");
  // AVX2 on 16 threads: vectors of 8 columns; 8 blocks of 8 channels are fewer than the threads,
  // so the rows are shared out instead.
  const std::vector<Json> avx2_all = SeedsOf(vgg_stem, kAvx2, 16, kAvx2RegisterTileFloats);
  ASSERT_GE(avx2_all.size(), 3u);
  EXPECT_EQ(avx2_all[0]["tile_c"].get<std::vector<int64_t>>(), (std::vector<int64_t>{3, 1}));
  const std::vector<Json> avx2(avx2_all.begin() + 1, avx2_all.end());
  EXPECT_EQ(avx2[0]["layout"], "NCHW");
  EXPECT_EQ(avx2[0]["tile_ow"].get<std::vector<int64_t>>(), (std::vector<int64_t>{28, 1, 8}));
  EXPECT_EQ(avx2[0]["parallel"], "oh");
  EXPECT_EQ(avx2[1]["tile_k"].get<std::vector<int64_t>>(), (std::vector<int64_t>{16, 1, 4}));
  EXPECT_EQ(avx2[1]["parallel"], "k");
  // Output rows no multiple of a vector (20 columns): no plain-layout seed.
  const std::vector<Json> narrow = SeedsOf("conv2d:N=1,C=3,H=20,W=20,K=16,R=3,S=3,pad=1", kAvx512,
                                           2, kPortableRegisterTileFloats);
  ASSERT_FALSE(narrow.empty());
  for (const Json& seed : narrow) EXPECT_EQ(seed["layout"], "NCHWc") << seed.dump();
}

TEST(TemplateSeedsTest, ASeedTheSpaceDoesNotOfferIsLeftOutAndBadRegistersAreRefused) {
  // AVX-512's 14 × 32 tile (448 floats) in a space capped at AVX2's 120: left out; the 28 × 16
  // one too; nothing remains.
  EXPECT_TRUE(
      SeedsOf("conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,pad=1", kAvx512, 2, kAvx2RegisterTileFloats)
          .empty());
  const Operator op = ParseOperator("conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,pad=1");
  try {
    CpuTemplateSeeds(op, MakeCpuSpace(op), VectorRegisters{8, 1}, 2);
    FAIL() << "one register accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("1 vector registers of 8 lanes"), std::string::npos)
        << error.what();
  }
}

TEST(TemplateSeedsTest, HostRegistersMatchTheHostRegisterTile) {
  const VectorRegisters host = HostVectorRegisters();
  const int64_t tile = HostRegisterTileFloats();
  if (tile == kAvx2RegisterTileFloats) {
    EXPECT_EQ(host.lanes * (host.count - 1), tile);
  } else {
    EXPECT_EQ(tile, kPortableRegisterTileFloats);
    EXPECT_GE(host.count, 16);
  }
}

// Every seed of this machine's space compiles and matches the reference (a 3×3 layer with padding,
// a strided 1×1 one, 3-channel first layers strided (5×5 and 3×3: 15 output columns) and not,
// batch 2; depthwise ones strided and
// not; activations blocked by 16).
TEST(TemplateSeedsTest, SeedKernelsMatchTheReference) {
  const std::string dir = testing::MakeTempDir("glimpse-template-seeds");
  for (const std::string op :
       {"conv2d:N=1,C=16,H=14,W=14,K=32,R=3,S=3,pad=1,bias=1,relu=1",
        "conv2d:N=2,C=16,H=8,W=8,K=16,R=1,S=1,stride=2,bias=1,residual=1",
        "conv2d:N=1,C=3,H=20,W=20,K=16,R=5,S=5,stride=2,pad=2,bias=1",
        "conv2d:N=1,C=3,H=30,W=30,K=24,R=3,S=3,stride=2,pad=1,bias=1",
        "conv2d:N=1,C=3,H=6,W=32,K=16,R=3,S=3,pad=1,bias=1,relu=1",
        "depthwise_conv2d:N=1,C=32,H=15,W=15,R=3,S=3,stride=2,pad=1,bias=1,"
        "relu6=1",
        "depthwise_conv2d:N=2,C=16,H=10,W=10,R=3,S=3,pad=1,residual=1",
        "dense:M=1,N=37,K=300,bias=1,relu=1", "dense:M=1,N=16,K=64,residual=1,relu6=1",
        // Blocks that do not share out among 2 threads: parallel over blocks and bands of rows.
        "conv2d:N=1,C=16,H=6,W=28,K=48,R=1,S=1,bias=1", "conv2d:N=1,C=32,H=7,W=7,K=80,R=1,S=1",
        // Activations blocked by 16 (in and out, out only, strided).
        "conv2d:N=1,C=32,H=8,W=8,K=32,R=3,S=3,pad=1,bias=1,relu=1,in_block=16,out_block=16",
        "conv2d:N=1,C=3,H=12,W=12,K=16,R=3,S=3,stride=2,pad=1,bias=1,out_block=16",
        "conv2d:N=1,C=3,H=14,W=14,K=32,R=3,S=3,stride=2,pad=1,bias=1,relu6=1,out_block=16",
        "conv2d:N=1,C=32,H=8,W=8,K=16,R=1,S=1,stride=2,residual=1,in_block=16,out_block=16",
        "depthwise_conv2d:N=1,C=32,H=9,W=9,R=3,S=3,stride=2,pad=1,bias=1,relu6=1,in_block=16,"
        "out_block=16"}) {
    Task task = MakeCpuTask(ParseOperator(op));
    const std::vector<Config> seeds =
        CpuTemplateSeeds(ParseOperator(op), task.space, HostVectorRegisters(), 2);
    ASSERT_FALSE(seeds.empty()) << op;
    std::vector<MeasureInput> inputs;
    for (const Config& seed : seeds) inputs.push_back({&task, seed});
    CpuBuilder builder(testing::FastBuild(dir));
    CpuRunner runner(testing::FastRun());
    const std::vector<BuildResult> builds = builder.Build(inputs);
    const std::vector<MeasureResult> results = runner.Run(inputs, builds);
    for (size_t i = 0; i < inputs.size(); ++i) {
      const std::string what = op + " " + task.space.ConfigToString(seeds[i]);
      EXPECT_EQ(builds[i].status, MeasureStatus::kOk) << what << "\n" << builds[i].error;
      EXPECT_EQ(results[i].status, MeasureStatus::kOk) << what << "\n" << results[i].error;
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace glimpse
