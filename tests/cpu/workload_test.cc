// Operator workloads (parser, JSON) and the templates' spaces and nests, without compiling.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "glimpse/cpu.h"
#include "glimpse/error.h"
#include "glimpse/random.h"

namespace glimpse {
namespace {

std::string ErrorOf(const std::string& text) {
  try {
    ParseOperator(text);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(Operator, ParsesDenseAndConv2d) {
  auto dense = std::get<DenseShape>(ParseOperator("dense:M=1,N=1000,K=512,bias=1,relu=0"));
  EXPECT_EQ(dense.m, 1);
  EXPECT_EQ(dense.n, 1000);
  EXPECT_EQ(dense.k, 512);
  EXPECT_TRUE(dense.bias);
  EXPECT_FALSE(dense.relu);
  auto conv =
      std::get<Conv2dShape>(ParseOperator("conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1"));
  EXPECT_EQ(conv.OutH(), 56);
  EXPECT_EQ(conv.OutW(), 56);
  EXPECT_EQ(conv.dilation, 1);
  auto strided = std::get<Conv2dShape>(
      ParseOperator("conv2d:N=1,C=3,H=224,W=224,K=64,R=7,S=7,stride=2,pad=3"));
  EXPECT_EQ(strided.OutH(), 112);
  EXPECT_DOUBLE_EQ(OperatorFlops(dense), 2.0 * 1000 * 512);
  Operator depthwise =
      ParseOperator("depthwise_conv2d:N=1,C=32,H=112,W=112,R=3,S=3,stride=2,pad=1");
  EXPECT_EQ(OperatorOutputShape(depthwise), (std::vector<int64_t>{1, 32, 56, 56}));
  EXPECT_EQ(OperatorInputShapes(depthwise)[1], (std::vector<int64_t>{32, 3, 3}));
  EXPECT_DOUBLE_EQ(OperatorFlops(depthwise), 2.0 * 32 * 56 * 56 * 9);
  Operator batched = ParseOperator("batch_matmul:B=4,M=8,N=16,K=32,bias=1");
  EXPECT_EQ(OperatorOutputShape(batched), (std::vector<int64_t>{4, 8, 16}));
  EXPECT_EQ(OperatorInputShapes(batched).size(), 3u);
  EXPECT_DOUBLE_EQ(OperatorFlops(batched), 2.0 * 4 * 8 * 16 * 32);
}

TEST(Operator, RoundTripsThroughTextAndJson) {
  for (const char* text : {"dense:M=4,N=8,K=16,bias=1,relu=1",
                           "conv2d:N=1,C=8,H=9,W=9,K=4,R=3,S=3,stride=2,pad=1,dilation=1,bias=0,"
                           "relu=1",
                           "depthwise_conv2d:N=1,C=32,H=112,W=112,R=3,S=3,stride=2,pad=1,"
                           "dilation=1,bias=1,relu=1",
                           "batch_matmul:B=12,M=128,N=64,K=64,bias=0,relu=0"}) {
    Operator op = ParseOperator(text);
    EXPECT_EQ(OperatorToString(op), text);
    EXPECT_EQ(OperatorToString(OperatorFromJson(OperatorToJson(op))), text);
  }
}

// in_block / out_block: parsed, checked against the channels, written only when set, and the
// activations' stored shapes follow them.
TEST(Operator, ChannelBlocksAreCheckedAndWrittenOnlyWhenSet) {
  const char* text =
      "conv2d:N=1,C=8,H=9,W=9,K=16,R=3,S=3,stride=1,pad=1,dilation=1,bias=1,relu=0,residual=1,"
      "in_block=4,out_block=8";
  const Operator op = ParseOperator(text);
  EXPECT_EQ(OperatorToString(op), text);
  EXPECT_EQ(OperatorToString(OperatorFromJson(OperatorToJson(op))), text);
  EXPECT_TRUE(OperatorHasBlockedLayout(op));
  EXPECT_EQ(OperatorInputShapes(op)[0], (std::vector<int64_t>{1, 2, 9, 9, 4}));
  EXPECT_EQ(OperatorInputShapes(op)[1], (std::vector<int64_t>{16, 8, 3, 3}));    // weights plain
  EXPECT_EQ(OperatorInputShapes(op)[3], (std::vector<int64_t>{1, 2, 9, 9, 8}));  // residual
  EXPECT_EQ(OperatorOutputShape(op), (std::vector<int64_t>{1, 2, 9, 9, 8}));
  const Operator plain = OperatorInPlainLayout(op);
  EXPECT_FALSE(OperatorHasBlockedLayout(plain));
  EXPECT_EQ(OperatorOutputShape(plain), (std::vector<int64_t>{1, 16, 9, 9}));
  EXPECT_EQ(OperatorFlops(plain), OperatorFlops(op));
  EXPECT_EQ(OperatorToString(ParseOperator("conv2d:N=1,C=8,H=9,W=9,K=16,R=1,S=1,in_block=0")),
            "conv2d:N=1,C=8,H=9,W=9,K=16,R=1,S=1,stride=1,pad=0,dilation=1,bias=0,relu=0");
  auto error_of = [](const std::string& text) {
    try {
      ParseOperator(text);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("conv2d:N=1,C=8,H=9,W=9,K=16,R=1,S=1,in_block=3").find("divisor of C = 8"),
            std::string::npos);
  EXPECT_NE(error_of("conv2d:N=1,C=8,H=9,W=9,K=12,R=1,S=1,out_block=8").find("divisor of K = 12"),
            std::string::npos);
  EXPECT_NE(error_of("depthwise_conv2d:N=1,C=8,H=9,W=9,R=3,S=3,in_block=8,out_block=4")
                .find("'in_block' (8) and 'out_block' (4) differ"),
            std::string::npos);
  EXPECT_NE(error_of("dense:M=1,N=8,K=8,in_block=8").find("unknown field 'in_block'"),
            std::string::npos);
  EXPECT_NE(error_of("conv2d:N=1,C=8,H=9,W=9,K=16,R=1,S=1,out_block=-8").find("'out_block'"),
            std::string::npos);
}

// NCHW[b]c: channel c of pixel p at ((n·C/b + c/b)·H·W + p)·b + c % b, and back.
TEST(Operator, BlockChannelsPlacesEachChannelInItsBlockLane) {
  const std::vector<int64_t> shape{2, 6, 1, 2};  // N=2, C=6, a plane of 2
  std::vector<float> plain(24);
  for (size_t i = 0; i < plain.size(); ++i) plain[i] = static_cast<float>(i);
  const std::vector<float> blocked = BlockChannels(plain, shape, 3);
  // Batch 0, block 0: pixel 0 holds channels 0,1,2 (plain 0, 2, 4), pixel 1 (plain 1, 3, 5).
  EXPECT_EQ(std::vector<float>(blocked.begin(), blocked.begin() + 6),
            (std::vector<float>{0, 2, 4, 1, 3, 5}));
  // Batch 1, block 1, pixel 1: channels 3,4,5 of batch 1 are plain 12 + 7, 9, 11.
  EXPECT_EQ(std::vector<float>(blocked.end() - 3, blocked.end()), (std::vector<float>{19, 21, 23}));
  EXPECT_EQ(UnblockChannels(blocked, shape, 3), plain);
  EXPECT_EQ(BlockChannels(plain, shape, 0), plain);
  EXPECT_THROW(BlockChannels(plain, shape, 4), Error);
  EXPECT_THROW(BlockChannels(std::vector<float>(23), shape, 3), Error);
}

TEST(Operator, ResidualAndRelu6AreWrittenOnlyWhenSet) {
  const char* text =
      "conv2d:N=1,C=8,H=9,W=9,K=4,R=3,S=3,stride=1,pad=1,dilation=1,bias=1,relu=0,residual=1,"
      "relu6=1";
  const Operator op = ParseOperator(text);
  const auto& conv = std::get<Conv2dShape>(op);
  EXPECT_TRUE(conv.residual);
  EXPECT_TRUE(conv.relu6);
  EXPECT_EQ(OperatorToString(op), text);
  EXPECT_EQ(OperatorToString(OperatorFromJson(OperatorToJson(op))), text);
  // Without them, the canonical form (the workload's name in every database) is unchanged.
  const Operator plain = ParseOperator("dense:M=4,N=8,K=16,residual=0,relu6=0");
  EXPECT_EQ(OperatorToString(plain), "dense:M=4,N=8,K=16,bias=0,relu=0");
  EXPECT_FALSE(OperatorToJson(plain).contains("residual"));
  // The residual has the output's shape, comes after the bias (or takes its place) and is an
  // activation.
  EXPECT_EQ(OperatorInputShapes(op).size(), 4u);
  EXPECT_EQ(OperatorInputShapes(op)[3], OperatorOutputShape(op));
  EXPECT_EQ(OperatorResidualInput(op), 3);
  EXPECT_FALSE(OperatorInputIsConstant(op, 3));
  EXPECT_TRUE(OperatorInputIsConstant(op, 2));
  const Operator no_bias = ParseOperator("batch_matmul:B=2,M=3,N=4,K=5,residual=1");
  EXPECT_EQ(OperatorResidualInput(no_bias), 2);
  EXPECT_EQ(OperatorBiasInput(no_bias), -1);
  EXPECT_FALSE(OperatorInputIsConstant(no_bias, 2));
  EXPECT_FALSE(OperatorInputIsConstant(no_bias, 1));  // batch_matmul's B
  const Operator dense = ParseOperator("dense:M=2,N=3,K=4,residual=1");
  EXPECT_TRUE(OperatorInputIsConstant(dense, 1));
  EXPECT_FALSE(OperatorInputIsConstant(dense, 2));
}

TEST(Operator, ErrorsNameTheFieldAndTheAcceptedOnes) {
  EXPECT_NE(ErrorOf("dense:M=1,N=2,K=3,X=4").find("unknown field 'X'; accepted: M, N, K, bias"),
            std::string::npos);
  EXPECT_NE(ErrorOf("dense:M=1,N=2").find("missing field 'K'"), std::string::npos);
  EXPECT_NE(ErrorOf("dense:M=1,N=two,K=3").find("field 'N' has value 'two'"), std::string::npos);
  EXPECT_NE(ErrorOf("dense:M=0,N=2,K=3").find("field 'M' is 0"), std::string::npos);
  EXPECT_NE(ErrorOf("dense:M=1,N=2,K=3,relu=2").find("0 or 1"), std::string::npos);
  EXPECT_NE(
      ErrorOf("matmul:M=1")
          .find("unknown operator 'matmul'; known: batch_matmul, conv2d, depthwise_conv2d, dense"),
      std::string::npos);
  EXPECT_NE(ErrorOf("depthwise_conv2d:N=1,C=8,H=8,W=8,R=3,S=3,K=8").find("unknown field 'K'"),
            std::string::npos);
  EXPECT_NE(ErrorOf("batch_matmul:M=1,N=2,K=3").find("missing field 'B'"), std::string::npos);
  EXPECT_NE(ErrorOf("dense").find("no ':'"), std::string::npos);
  EXPECT_NE(ErrorOf("conv2d:N=1,C=1,H=2,W=2,K=1,R=5,S=5").find("'R'/'S'"), std::string::npos);
  EXPECT_NE(ErrorOf("dense:M=1,M=2,N=1,K=1").find("given twice"), std::string::npos);
  EXPECT_NE(ErrorOf("dense:M=1,N=2,K=3,relu=1,relu6=1").find("'relu' and 'relu6' are both 1"),
            std::string::npos);
  EXPECT_NE(ErrorOf("dense:M=1,N=2,K=3,residual=2").find("field 'residual' is 2"),
            std::string::npos);
}

TEST(CpuTemplates, SpacesOfRealLayersAreLarge) {
  for (const char* text :
       {"dense:M=1,N=1000,K=512", "dense:M=128,N=512,K=512",
        "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1",
        "conv2d:N=1,C=512,H=7,W=7,K=512,R=3,S=3,stride=1,pad=1",
        "batch_matmul:B=12,M=128,N=128,K=64", "batch_matmul:B=8,M=1,N=512,K=512"}) {
    double size = MakeCpuSpace(ParseOperator(text)).RawSizeLog10();
    EXPECT_GE(size, 4.0) << text;
    EXPECT_LE(size, 9.0) << text;
  }
  // MobileNet-v2's depthwise layers: 10^4 to 10^8.
  for (const char* text : {"depthwise_conv2d:N=1,C=32,H=112,W=112,R=3,S=3,stride=1,pad=1",
                           "depthwise_conv2d:N=1,C=144,H=56,W=56,R=3,S=3,stride=1,pad=1",
                           "depthwise_conv2d:N=1,C=144,H=56,W=56,R=3,S=3,stride=2,pad=1",
                           "depthwise_conv2d:N=1,C=576,H=14,W=14,R=3,S=3,stride=1,pad=1",
                           "depthwise_conv2d:N=1,C=960,H=7,W=7,R=3,S=3,stride=1,pad=1"}) {
    double size = MakeCpuSpace(ParseOperator(text)).RawSizeLog10();
    EXPECT_GE(size, 4.0) << text;
    EXPECT_LE(size, 8.0) << text;
  }
}

TEST(CpuTemplates, EverySampledConfigurationGivesAValidNest) {
  Rng rng(5);
  for (const char* text : {"dense:M=6,N=12,K=10,bias=1,relu=1",
                           "conv2d:N=2,C=4,H=7,W=9,K=6,R=3,S=3,stride=2,pad=1,bias=1",
                           "conv2d:N=1,C=3,H=8,W=8,K=4,R=2,S=3,stride=1,pad=0,dilation=2",
                           "depthwise_conv2d:N=2,C=6,H=7,W=9,R=3,S=3,stride=2,pad=1,bias=1",
                           "depthwise_conv2d:N=1,C=4,H=8,W=8,R=2,S=3,pad=0,dilation=2",
                           "batch_matmul:B=3,M=6,N=12,K=10,bias=1,relu=1"}) {
    Task task = MakeCpuTask(ParseOperator(text));
    EXPECT_EQ(task.description["target"], "cpu");
    for (int i = 0; i < 200; ++i) {
      auto config = task.space.SampleValid(rng);
      ASSERT_TRUE(config.has_value());
      LoopNest nest = MakeCpuNest(ParseOperator(text), task.space, *config);
      EXPECT_NO_THROW(nest.Validate()) << text << " " << task.space.ConfigToString(*config);
      EXPECT_FALSE(GenerateCpuKernel(task, *config, "k").empty());
    }
  }
}

TEST(CpuTemplates, KnobsShapeTheNest) {
  Operator op = ParseOperator("dense:M=8,N=16,K=32");
  Task task = MakeCpuTask(op);
  Config config = task.space.ConfigFromJson({{"tile_m", {2, 2, 2}},
                                             {"tile_n", {2, 2, 4}},
                                             {"tile_k", {4, 8}},
                                             {"inner_axis", "k"},
                                             {"order", {0, 1, 2, 3, 4}},
                                             {"parallel", "mn"},
                                             {"vectorize", 1},
                                             {"unroll", 1},
                                             {"pack_b", 1}});
  LoopNest nest = MakeCpuNest(op, task.space, config);
  // inner_axis k: k1 innermost, the others in the listed order (k0 m1 n1 m2 n2).
  std::vector<std::string> names = nest.LoopNames();
  auto at = [&](const std::string& n) { return std::find(names.begin(), names.end(), n); };
  EXPECT_LT(at("k0"), at("m1"));
  EXPECT_LT(at("m1"), at("n1"));
  EXPECT_LT(at("n2"), at("k1"));
  EXPECT_EQ(nest.FindLoop("k1").kind, LoopKind::kVectorized);
  EXPECT_EQ(nest.FindLoop("n2").kind, LoopKind::kUnrolled);
  EXPECT_EQ(nest.FindLoop("m0").kind, LoopKind::kParallel);
  EXPECT_EQ(nest.FindLoop("n0").kind, LoopKind::kParallel);
  EXPECT_TRUE(nest.HasLoop("pj"));  // the packing stage
  std::string code = EmitCpp(nest, "k");
  EXPECT_NE(code.find("collapse(2)"), std::string::npos);
  EXPECT_NE(code.find("reduction(+ : sum_)"), std::string::npos);
  EXPECT_FALSE(nest.HasPrepare());  // dense packs B inside the kernel
}

TEST(CpuTemplates, BlockedConv2dKeepsARegisterTileAndPreparesTheWeight) {
  Operator op = ParseOperator("conv2d:N=1,C=32,H=14,W=14,K=64,R=3,S=3,stride=1,pad=1,bias=1");
  Task task = MakeCpuTask(op);
  Json knobs = {{"layout", "NCHWc"},    {"tile_k", {2, 2, 16}}, {"tile_oh", {7, 2}},
                {"tile_ow", {1, 2, 7}}, {"tile_c", {4, 8}},     {"order", {0, 2, 3, 1, 4}},
                {"parallel", "k_oh"},   {"vectorize", 1},       {"unroll", 1},
                {"padding", "copy"}};
  LoopNest nest = MakeCpuNest(op, task.space, task.space.ConfigFromJson(knobs));
  // The register tile: k1 (last in the order) and ow2 unrolled around the vector of 16 channels.
  EXPECT_EQ(nest.FindLoop("k1").kind, LoopKind::kUnrolled);
  EXPECT_EQ(nest.FindLoop("ow2").kind, LoopKind::kUnrolled);
  EXPECT_EQ(nest.FindLoop("k2").kind, LoopKind::kVectorized);
  EXPECT_EQ(nest.FindLoop("k2").extent, 16);
  EXPECT_EQ(nest.FindLoop("s").kind, LoopKind::kUnrolled);
  const TensorDecl& acc = nest.tensors[nest.TensorIndex("acc")];
  EXPECT_EQ(acc.shape, (std::vector<int64_t>{2, 7, 16}));
  EXPECT_EQ(acc.scope_loop, "ow1");
  // Reduction loops in the order's relative order (c0 r s c1), k1 and the tile innermost.
  std::vector<std::string> names = nest.LoopNames();
  auto at = [&](const std::string& n) { return std::find(names.begin(), names.end(), n); };
  EXPECT_LT(at("c0"), at("r"));
  EXPECT_LT(at("r"), at("s"));
  EXPECT_LT(at("s"), at("c1"));
  EXPECT_LT(at("c1"), at("k1"));
  // The weight is packed once by the prepare step into OIHW8i16o; the activation in the kernel.
  ASSERT_TRUE(nest.HasPrepare());
  const TensorDecl& packed = nest.tensors[nest.TensorIndex("Wp")];
  EXPECT_EQ(packed.role, TensorRole::kPrepared);
  EXPECT_EQ(packed.shape, (std::vector<int64_t>{4, 4, 3, 3, 8, 16}));
  EXPECT_EQ(nest.PreparedFloats(), 64 * 32 * 9);
  EXPECT_EQ(nest.tensors[nest.TensorIndex("Ip")].shape, (std::vector<int64_t>{1, 4, 16, 16, 8}));
  std::string code = EmitCpp(nest, "k");
  EXPECT_NE(code.find("extern \"C\" void k_prepare(const float* const* inputs, float* prepared)"),
            std::string::npos);
  EXPECT_NE(code.find("k_prepared_size() { return 18432; }"), std::string::npos);
  EXPECT_NE(code.find("const float* __restrict Wp = inputs[3] + 0;"), std::string::npos) << code;

  // k1 elsewhere in the order: an outer loop of the tile, no longer in the register tile.
  knobs["order"] = {4, 0, 1, 2, 3};
  LoopNest outer = MakeCpuNest(op, task.space, task.space.ConfigFromJson(knobs));
  EXPECT_TRUE(outer.HasLoop("k1o"));
  EXPECT_FALSE(outer.HasLoop("k1"));
  EXPECT_EQ(outer.tensors[outer.TensorIndex("acc")].shape, (std::vector<int64_t>{1, 7, 16}));
  // A register tile beyond the limit is not in the space.
  knobs["tile_k"] = {1, 1, 64};
  knobs["tile_ow"] = {1, 1, 14};
  EXPECT_FALSE(task.space.IsValid(task.space.ConfigFromJson(knobs)));
  knobs["layout"] = "NCHW";
  EXPECT_TRUE(task.space.IsValid(task.space.ConfigFromJson(knobs)));
}

TEST(CpuTemplates, RegisterTileCapFollowsTheMachine) {
  const Operator op =
      ParseOperator("conv2d:N=1,C=128,H=28,W=28,K=128,R=3,S=3,stride=1,pad=1,bias=1");
  const ConfigSpace portable = MakeCpuSpace(op);
  const ConfigSpace avx2 = MakeCpuSpace(op, kAvx2RegisterTileFloats);
  // The portable space's restriction is the text every earlier space had (its workload keys).
  EXPECT_NE(portable.restrictions().back().find("tile_ow_2 * tile_k_2 <= 512"), std::string::npos)
      << portable.restrictions().back();
  EXPECT_NE(portable.Fingerprint(), avx2.Fingerprint());
  EXPECT_EQ(MakeCpuTask(op).space.Fingerprint(),
            MakeCpuSpace(op, HostRegisterTileFloats()).Fingerprint());
  // Only conv2d has a register tile: the other templates' spaces do not depend on the cap.
  const Operator dense = ParseOperator("dense:M=1,N=1000,K=512,bias=1");
  EXPECT_EQ(MakeCpuSpace(dense).Fingerprint(),
            MakeCpuSpace(dense, kAvx2RegisterTileFloats).Fingerprint());

  Json knobs = {{"layout", "NCHWc"},    {"tile_k", {8, 1, 16}}, {"tile_oh", {14, 2}},
                {"tile_ow", {4, 1, 7}}, {"tile_c", {16, 8}},    {"order", {0, 2, 3, 1, 4}},
                {"parallel", "k_oh"},   {"vectorize", 1},       {"unroll", 1},
                {"padding", "copy"}};
  // 7 columns × 16 channels: 14 ymm accumulators and the broadcast fit in 16 AVX2 registers.
  EXPECT_TRUE(avx2.IsValid(avx2.ConfigFromJson(knobs)));
  // 7 × 32: 28 ymm accumulators spill on AVX2; 14 zmm fit with AVX-512.
  knobs["tile_k"] = {4, 1, 32};
  EXPECT_FALSE(avx2.IsValid(avx2.ConfigFromJson(knobs)));
  EXPECT_TRUE(portable.IsValid(portable.ConfigFromJson(knobs)));
  // A record of such a tile from another machine still instantiates in this machine's space.
  EXPECT_NO_THROW(MakeCpuNest(op, avx2, avx2.ConfigFromJson(knobs)).Validate());
  // k1 last in the order multiplies the tile (2 × 7 × 16 spills on AVX2); elsewhere it does not.
  knobs["tile_k"] = {4, 2, 16};
  knobs["order"] = {4, 0, 2, 3, 1};
  EXPECT_TRUE(avx2.IsValid(avx2.ConfigFromJson(knobs)));
  knobs["order"] = {0, 2, 3, 1, 4};
  EXPECT_FALSE(avx2.IsValid(avx2.ConfigFromJson(knobs)));
  // The plain layout has no register tile.
  knobs["layout"] = "NCHW";
  EXPECT_TRUE(avx2.IsValid(avx2.ConfigFromJson(knobs)));

  // Every blocked configuration an AVX2 search can draw fits; the portable space draws larger ones.
  Rng rng(3);
  auto largest_tile = [&](const ConfigSpace& space) {
    int64_t largest = 0;
    for (int i = 0; i < 400; ++i) {
      const Json c = space.ConfigToJson(*space.SampleValid(rng));
      if (c["layout"] == "NCHW") continue;
      const bool k1_in_tile = c["order"][4] == 4;
      const int64_t tile = c["tile_ow"][2].get<int64_t>() * c["tile_k"][2].get<int64_t>() *
                           (k1_in_tile ? c["tile_k"][1].get<int64_t>() : 1);
      largest = std::max(largest, tile);
    }
    return largest;
  };
  EXPECT_LE(largest_tile(avx2), kAvx2RegisterTileFloats);
  EXPECT_GT(largest_tile(portable), kAvx2RegisterTileFloats);

  for (int64_t bad : {0, 513}) {
    try {
      MakeCpuSpace(op, bad);
      ADD_FAILURE() << bad;
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find("accepted: 1 to 512"), std::string::npos)
          << error.what();
    }
    // Refused for every operator, also one whose space has no register tile.
    try {
      MakeCpuSpace(dense, bad);
      ADD_FAILURE() << "dense " << bad;
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find("accepted: 1 to 512"), std::string::npos)
          << error.what();
    }
  }
}

TEST(CpuTemplates, DepthwiseVectorAxisPicksTheLayout) {
  Operator op = ParseOperator("depthwise_conv2d:N=1,C=32,H=14,W=14,R=3,S=3,stride=2,pad=1");
  Task task = MakeCpuTask(op);
  Json knobs = {{"tile_c", {2, 2, 8}},  {"tile_oh", {7, 1}},
                {"tile_ow", {1, 1, 7}}, {"order", {0, 1, 2, 3, 4}},
                {"parallel", "c"},      {"vector_axis", "c"},
                {"unroll", 1},          {"padding", "copy"}};
  LoopNest blocked = MakeCpuNest(op, task.space, task.space.ConfigFromJson(knobs));
  EXPECT_EQ(blocked.FindLoop("c2").kind, LoopKind::kVectorized);
  EXPECT_EQ(blocked.FindLoop("ow2").kind, LoopKind::kUnrolled);
  EXPECT_EQ(blocked.FindLoop("c0").kind, LoopKind::kParallel);
  EXPECT_TRUE(blocked.HasPrepare());
  EXPECT_EQ(blocked.tensors[blocked.TensorIndex("Ip")].shape,
            (std::vector<int64_t>{1, 4, 16, 16, 8}));
  knobs["vector_axis"] = "ow";
  knobs["unroll"] = 0;
  LoopNest plain = MakeCpuNest(op, task.space, task.space.ConfigFromJson(knobs));
  EXPECT_EQ(plain.FindLoop("ow2").kind, LoopKind::kVectorized);
  EXPECT_EQ(plain.FindLoop("c2").kind, LoopKind::kSerial);
  EXPECT_FALSE(plain.HasPrepare());
  EXPECT_TRUE(plain.HasLoop("pc"));  // the zero-padded copy
}

TEST(CpuTemplates, BatchMatmulParallelisesTheBatch) {
  Operator op = ParseOperator("batch_matmul:B=4,M=8,N=16,K=32");
  Task task = MakeCpuTask(op);
  Json knobs = {{"tile_m", {2, 2, 2}},
                {"tile_n", {2, 2, 4}},
                {"tile_k", {4, 8}},
                {"inner_axis", "n"},
                {"order", {0, 1, 2, 3, 4}},
                {"parallel", "bm"},
                {"vectorize", 1},
                {"unroll", 0},
                {"pack_b", 1}};
  LoopNest nest = MakeCpuNest(op, task.space, task.space.ConfigFromJson(knobs));
  EXPECT_EQ(nest.LoopNames().front(), "pb");  // packing per batch first
  EXPECT_EQ(nest.FindLoop("b").kind, LoopKind::kParallel);
  EXPECT_EQ(nest.FindLoop("m0").kind, LoopKind::kParallel);
  EXPECT_EQ(nest.FindLoop("n0").kind, LoopKind::kSerial);
  EXPECT_EQ(nest.tensors[nest.TensorIndex("Bp")].shape, (std::vector<int64_t>{4, 4, 32, 4}));
  EXPECT_FALSE(nest.HasPrepare());  // B is an activation
  std::string code = EmitCpp(nest, "k");
  EXPECT_NE(code.find("collapse(2)"), std::string::npos);
}

}  // namespace
}  // namespace glimpse
