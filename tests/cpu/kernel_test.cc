// Generated kernels of every template, compiled and checked against the reference in the worker,
// and the worker's handling of the optional prepare step.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "cpu_fixtures.h"
#include "glimpse/cache_flush.h"
#include "glimpse/codegen.h"
#include "glimpse/cpu.h"
#include "glimpse/error.h"
#include "glimpse/random.h"
#include "glimpse/reference.h"

namespace glimpse {
namespace {

// A valid configuration of `space` whose knobs named in `fixed` take the given values (rejection
// sampling; the fixed values must leave valid configurations).
Config SampleWith(const ConfigSpace& space, Rng& rng, const std::map<std::string, Json>& fixed) {
  for (int attempt = 0; attempt < 100000; ++attempt) {
    Config config = *space.SampleValid(rng);
    Json json = space.ConfigToJson(config);
    bool match = true;
    for (const auto& [knob, value] : fixed) match = match && json.at(knob) == value;
    if (match) return config;
  }
  ADD_FAILURE() << "no configuration with the fixed knobs";
  return *space.SampleValid(rng);
}

class KernelTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeTempDir("glimpse-cpu-test"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Builds and runs `count` random configurations of `op` (with the knobs in `fixed` held, plus
  // the configurations in `extra`); all must be ok.
  void ExpectAllOk(const std::string& op, int count, uint64_t seed,
                   const std::vector<Json>& extra = {},
                   const std::map<std::string, Json>& fixed = {}) {
    Task task = MakeCpuTask(ParseOperator(op));
    Rng rng(seed);
    std::vector<MeasureInput> inputs;
    for (const Json& config : extra) inputs.push_back({&task, task.space.ConfigFromJson(config)});
    for (int i = 0; i < count; ++i) inputs.push_back({&task, SampleWith(task.space, rng, fixed)});
    CpuBuilder builder(testing::FastBuild(dir_));
    CpuRunner runner(testing::FastRun());
    std::vector<BuildResult> builds = builder.Build(inputs);
    std::vector<MeasureResult> results = runner.Run(inputs, builds);
    ASSERT_EQ(results.size(), inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::string config = op + " " + task.space.ConfigToString(inputs[i].config);
      EXPECT_EQ(builds[i].status, MeasureStatus::kOk) << config << "\n" << builds[i].error;
      EXPECT_EQ(results[i].status, MeasureStatus::kOk) << config << "\n" << results[i].error;
      if (!results[i].ok()) continue;
      EXPECT_GE(results[i].samples_s.size(), 3u);
      EXPECT_GT(results[i].time_s, 0.0);
      EXPECT_GE(results[i].cost_s, results[i].compile_time_s);
    }
    EXPECT_EQ(runner.workers_started(), 1);
  }

  // Runs hand-written kernel sources for `op` and returns their results.
  std::vector<MeasureResult> RunSources(const std::string& op,
                                        const std::vector<KernelSource>& sources) {
    Task task = MakeCpuTask(ParseOperator(op));
    std::vector<MeasureInput> inputs(sources.size(), MeasureInput{&task, Config{}});
    CpuBuilder builder(testing::FastBuild(dir_));
    CpuRunner runner(testing::FastRun());
    return runner.Run(inputs, builder.BuildSources(sources));
  }

  std::string dir_;
};

TEST_F(KernelTest, DenseConfigurationsMatchTheReference) {
  ExpectAllOk("dense:M=6,N=20,K=24,bias=1,relu=1", 5, 11,
              {{{"tile_m", {1, 3, 2}},
                {"tile_n", {1, 5, 4}},
                {"tile_k", {3, 8}},
                {"inner_axis", "k"},
                {"order", {4, 3, 2, 1, 0}},
                {"parallel", "mn"},
                {"vectorize", 1},
                {"unroll", 1},
                {"pack_b", 1}}});
}

TEST_F(KernelTest, BatchMatmulConfigurationsMatchTheReference) {
  ExpectAllOk("batch_matmul:B=3,M=5,N=12,K=18,bias=1,relu=1", 10, 21,
              {{{"tile_m", {1, 5, 1}},
                {"tile_n", {1, 3, 4}},
                {"tile_k", {2, 9}},
                {"inner_axis", "n"},
                {"order", {0, 1, 2, 3, 4}},
                {"parallel", "bm"},
                {"vectorize", 1},
                {"unroll", 1},
                {"pack_b", 1}},
               {{"tile_m", {5, 1, 1}},
                {"tile_n", {2, 2, 3}},
                {"tile_k", {18, 1}},
                {"inner_axis", "k"},
                {"order", {4, 3, 2, 1, 0}},
                {"parallel", "b"},
                {"vectorize", 1},
                {"unroll", 0},
                {"pack_b", 0}}});
  ExpectAllOk("batch_matmul:B=2,M=1,N=7,K=9", 4, 22);
}

TEST_F(KernelTest, Conv2dConfigurationsMatchTheReference) {
  ExpectAllOk("conv2d:N=1,C=4,H=9,W=9,K=8,R=3,S=3,stride=2,pad=1,bias=1,relu=1", 4, 12,
              {{{"layout", "NCHW"},
                {"tile_k", {2, 2, 2}},
                {"tile_oh", {1, 5}},
                {"tile_ow", {1, 1, 5}},
                {"tile_c", {2, 2}},
                {"order", {4, 3, 2, 1, 0}},
                {"parallel", "k_oh"},
                {"vectorize", 1},
                {"unroll", 1},
                {"padding", "copy"}}},
              {{"layout", "NCHW"}});
  ExpectAllOk("conv2d:N=2,C=3,H=7,W=8,K=4,R=2,S=3,stride=1,pad=0,dilation=2", 3, 13, {},
              {{"layout", "NCHW"}});
}

TEST_F(KernelTest, BlockedConv2dConfigurationsMatchTheReference) {
  // Both places of k1 (register tile / outer loop), both paddings, stride 2, bias and ReLU.
  ExpectAllOk("conv2d:N=1,C=4,H=9,W=9,K=8,R=3,S=3,stride=2,pad=1,bias=1,relu=1", 10, 14,
              {{{"layout", "NCHWc"},
                {"tile_k", {1, 2, 4}},
                {"tile_oh", {5, 1}},
                {"tile_ow", {1, 1, 5}},
                {"tile_c", {2, 2}},
                {"order", {0, 1, 2, 3, 4}},
                {"parallel", "k_oh"},
                {"vectorize", 1},
                {"unroll", 1},
                {"padding", "copy"}},
               {{"layout", "NCHWc"},
                {"tile_k", {2, 1, 4}},
                {"tile_oh", {1, 5}},
                {"tile_ow", {5, 1, 1}},
                {"tile_c", {1, 4}},
                {"order", {4, 3, 2, 1, 0}},
                {"parallel", "oh"},
                {"vectorize", 1},
                {"unroll", 0},
                {"padding", "guard"}}},
              {{"layout", "NCHWc"}});
  // Odd sizes, batch 2, dilation, no padding.
  ExpectAllOk("conv2d:N=2,C=3,H=7,W=8,K=6,R=2,S=3,stride=1,pad=0,dilation=2,bias=1", 6, 15, {},
              {{"layout", "NCHWc"}});
  // Wider rows than the other cases (36 and 17 columns), two zero columns on each side.
  ExpectAllOk("conv2d:N=1,C=8,H=5,W=36,K=8,R=5,S=5,stride=1,pad=2,bias=1", 4, 18, {},
              {{"layout", "NCHWc"}, {"padding", "copy"}});
  ExpectAllOk("conv2d:N=1,C=4,H=4,W=17,K=4,R=3,S=3,stride=1,pad=1", 3, 19, {},
              {{"layout", "NCHWc"}, {"padding", "copy"}});
}

// NCHWc with guarded loads peels its first and last column tile (Loop::peel_edges): the edge
// tiles skip their padding taps, the tiles between run unguarded. Every column tiling gives the
// reference's result: two tiles (no middle), many narrow ones, a 7×7 stride-2 layer whose second
// tile still reaches the padding (its guard must stay), taps unrolled or not.
TEST_F(KernelTest, BlockedConv2dWithPeeledColumnTilesMatchesTheReference) {
  struct Case {
    std::string op;
    std::vector<std::vector<int64_t>> tile_ows;
  };
  const std::vector<Case> cases = {
      {"conv2d:N=1,C=8,H=14,W=14,K=16,R=3,S=3,stride=1,pad=1,bias=1,relu=1",
       {{2, 1, 7}, {7, 1, 2}, {14, 1, 1}, {7, 2, 1}}},
      {"conv2d:N=1,C=3,H=20,W=20,K=8,R=7,S=7,stride=2,pad=3,bias=1", {{10, 1, 1}, {5, 1, 2}}},
      {"conv2d:N=1,C=4,H=6,W=24,K=8,R=5,S=5,stride=1,pad=2", {{4, 1, 6}, {3, 2, 4}}}};
  Rng rng(23);
  for (const Case& c : cases) {
    const Task task = MakeCpuTask(ParseOperator(c.op));
    std::vector<Json> configs;
    for (const std::vector<int64_t>& tile_ow : c.tile_ows) {
      for (int unroll : {0, 1}) {
        bool found = false;
        for (int attempt = 0; attempt < 200 && !found; ++attempt) {
          Json json = task.space.ConfigToJson(
              SampleWith(task.space, rng, {{"layout", "NCHWc"}, {"padding", "guard"}}));
          json["tile_ow"] = tile_ow;
          json["unroll"] = unroll;
          try {
            const Config config = task.space.ConfigFromJson(json);
            const std::string code = GenerateCpuKernel(task, config, "peeled");
            EXPECT_NE(code.find("{  // ow0 = 0 of 0.." + std::to_string(tile_ow[0])),
                      std::string::npos)
                << c.op << " " << json.dump();
            configs.push_back(json);
            found = true;
          } catch (const Error&) {
            // the sampled tile_k / order do not fit this column tiling: sample again
          }
        }
        EXPECT_TRUE(found) << c.op << ": no configuration with tile_ow " << Json(tile_ow).dump();
      }
    }
    ExpectAllOk(c.op, 0, 24, configs);
  }
}

// The strided packing of 1×1 downsample layers: offered where it applies (batch 2, bias, ReLU,
// a residual), and it packs only the positions the taps read.
TEST_F(KernelTest, StridedPointwiseConv2dConfigurationsMatchTheReference) {
  ExpectAllOk("conv2d:N=2,C=8,H=12,W=10,K=8,R=1,S=1,stride=2,pad=0,bias=1,relu=1", 10, 16,
              {{{"layout", "NCHWc_strided"},
                {"tile_k", {1, 2, 4}},
                {"tile_oh", {2, 3}},
                {"tile_ow", {1, 1, 5}},
                {"tile_c", {2, 4}},
                {"order", {0, 1, 2, 3, 4}},
                {"parallel", "k_oh"},
                {"vectorize", 1},
                {"unroll", 1}}},
              {{"layout", "NCHWc_strided"}});
  ExpectAllOk("conv2d:N=1,C=6,H=9,W=9,K=4,R=1,S=1,stride=3,pad=0,residual=1,relu=1", 4, 17, {},
              {{"layout", "NCHWc_strided"}});

  const Operator op = ParseOperator("conv2d:N=1,C=8,H=12,W=10,K=8,R=1,S=1,stride=2,pad=0");
  const Task task = MakeCpuTask(op);
  Rng rng(3);
  const Config config = SampleWith(task.space, rng, {{"layout", "NCHWc_strided"}});
  const LoopNest nest = MakeCpuNest(op, task.space, config);
  bool packed = false;
  for (const TensorDecl& tensor : nest.tensors) {
    if (tensor.name != "Ip") continue;
    packed = true;
    // [N][C/c1][H/2][W/2][c1]: a quarter of the input.
    ASSERT_EQ(tensor.shape.size(), 5u);
    EXPECT_EQ(tensor.shape[2], 6);
    EXPECT_EQ(tensor.shape[3], 5);
  }
  EXPECT_TRUE(packed);
}

// The plane layout of strided 1×1 layers on plain activations: tiles that overhang the plane (the
// zeroed tail of Xs, the guarded store) or fit it exactly, several position tiles a thread (p1),
// rows not unrolled, positions not vectorised, batch 2, stride 3, a residual and ReLU.
TEST_F(KernelTest, PlanePointwiseConv2dConfigurationsMatchTheReference) {
  auto plane = [](Json tile_k, Json tile_oh, Json tile_ow, const char* parallel, int vectorize,
                  int unroll, Json tile_c = {2, 4}) {
    return Json{{"layout", "NCHW_plane"},
                {"tile_k", std::move(tile_k)},
                {"tile_oh", std::move(tile_oh)},
                {"tile_ow", std::move(tile_ow)},
                {"tile_c", std::move(tile_c)},
                {"order", {0, 1, 2, 3, 4}},
                {"parallel", parallel},
                {"vectorize", vectorize},
                {"unroll", unroll}};
  };
  // A 6×5 output: 30 positions, tiles of 16 (overhang 2), 32 (overhang 2) and five tiles of 16 a
  // thread (overhang 50).
  ExpectAllOk("conv2d:N=2,C=8,H=12,W=10,K=8,R=1,S=1,stride=2,pad=0,bias=1,relu=1", 6, 18,
              {plane({1, 1, 8}, {6, 1}, {5, 1, 1}, "k_oh", 1, 1),
               plane({1, 1, 8}, {1, 6}, {1, 1, 5}, "none", 1, 1),
               plane({2, 2, 2}, {2, 3}, {1, 5, 1}, "k", 1, 1),
               plane({4, 1, 2}, {3, 2}, {5, 1, 1}, "oh", 0, 0)},
              {{"layout", "NCHW_plane"}});
  // An 8×8 output in four tiles of 16, no overhang.
  ExpectAllOk("conv2d:N=1,C=16,H=16,W=16,K=16,R=1,S=1,stride=2,pad=0,bias=1", 0, 19,
              {plane({2, 1, 8}, {2, 4}, {2, 1, 4}, "k_oh", 1, 1, {4, 4})});
  ExpectAllOk("conv2d:N=1,C=6,H=9,W=9,K=4,R=1,S=1,stride=3,pad=0,residual=1,relu=1", 4, 20, {},
              {{"layout", "NCHW_plane"}});

  // Xs holds the positions the taps read, [N][C][tiles · 16]; the output is written as its plane.
  const Operator op = ParseOperator("conv2d:N=2,C=8,H=12,W=10,K=8,R=1,S=1,stride=2,pad=0");
  const Task task = MakeCpuTask(op);
  const LoopNest nest = MakeCpuNest(
      op, task.space, task.space.ConfigFromJson(plane({1, 1, 8}, {6, 1}, {5, 1, 1}, "k", 1, 1)));
  bool compacted = false;
  for (const TensorDecl& tensor : nest.tensors) {
    EXPECT_NE(tensor.name, "Ip");
    if (tensor.name == "Xs") {
      compacted = true;
      EXPECT_EQ(tensor.shape, (std::vector<int64_t>{2, 8, 32}));
    }
    if (tensor.role == TensorRole::kOutput) {
      EXPECT_EQ(tensor.shape, (std::vector<int64_t>{2, 8, 1, 30}));
    }
  }
  EXPECT_TRUE(compacted);
}

TEST(Conv2dSpaceTest, TheStridedLayoutIsOfferedOnlyWhereItAppliesAndOtherSpacesStayAsTheyWere) {
  auto layouts = [](const std::string& op) {
    const Json json = MakeCpuTask(ParseOperator(op)).space.ToJson();
    for (const Json& knob : json.at("knobs")) {
      if (knob.at("name") == "layout") return knob.at("values").dump();
    }
    return std::string("none");
  };
  const std::string plain = R"(["NCHW","NCHWc"])";
  const std::string strided = R"(["NCHW","NCHWc","NCHWc_strided","NCHW_plane"])";
  EXPECT_EQ(layouts("conv2d:N=1,C=64,H=56,W=56,K=128,R=1,S=1,stride=2,pad=0"), strided);
  // The plane needs plain activations: a blocked layer keeps the channel-blocked layouts.
  EXPECT_EQ(layouts("conv2d:N=1,C=64,H=56,W=56,K=128,R=1,S=1,stride=2,pad=0,in_block=16,"
                    "out_block=16"),
            R"(["NCHWc","NCHWc_strided"])");
  EXPECT_EQ(layouts("conv2d:N=1,C=64,H=56,W=56,K=128,R=1,S=1,stride=1,pad=0"), plain);
  EXPECT_EQ(layouts("conv2d:N=1,C=64,H=55,W=56,K=128,R=1,S=1,stride=2,pad=0"), plain);
  EXPECT_EQ(layouts("conv2d:N=1,C=64,H=56,W=56,K=128,R=3,S=3,stride=2,pad=1"), plain);
  EXPECT_EQ(layouts("conv2d:N=1,C=64,H=56,W=56,K=128,R=1,S=1,stride=2,pad=1"), plain);
  // The restriction text of a shape without it is what it always was (the space's fingerprint,
  // hence the workload keys of existing databases, depends on it).
  EXPECT_EQ(MakeCpuTask(ParseOperator("conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1"))
                .space.ToJson()
                .at("restrictions")
                .at(0),
            "layout == 'NCHWc' or tile_k_1 * tile_k_2 * tile_oh_1 * tile_ow_1 * tile_ow_2 <= 8192");
  // A space that does not offer it refuses it.
  const Operator op = ParseOperator("conv2d:N=1,C=8,H=8,W=8,K=8,R=3,S=3,stride=2,pad=1");
  const Task task = MakeCpuTask(op);
  Rng rng(1);
  Json config = task.space.ConfigToJson(*task.space.SampleValid(rng));
  config["layout"] = "NCHWc_strided";
  EXPECT_THROW(task.space.ConfigFromJson(config), Error);
  config["layout"] = "NCHW_plane";
  EXPECT_THROW(task.space.ConfigFromJson(config), Error);

  // The plane's register tile (k2 rows × positions rounded up to 16) is held to the space's cap.
  const ConfigSpace strided_space =
      MakeCpuSpace(ParseOperator("conv2d:N=1,C=64,H=56,W=56,K=128,R=1,S=1,stride=2,pad=0"), 256);
  Json within = {{"layout", "NCHW_plane"}, {"tile_k", {8, 1, 16}}, {"tile_oh", {7, 4}},
                 {"tile_ow", {7, 1, 4}},   {"tile_c", {1, 64}},    {"order", {0, 1, 2, 3, 4}},
                 {"parallel", "k_oh"},     {"vectorize", 1},       {"unroll", 1}};
  EXPECT_TRUE(strided_space.IsValid(strided_space.ConfigFromJson(within)));
  Json beyond = within;
  beyond["tile_oh"] = {14, 2};  // 2 · 4 = 8 positions → 16: still 16 × 16 = 256
  EXPECT_TRUE(strided_space.IsValid(strided_space.ConfigFromJson(beyond)));
  beyond["tile_ow"] = {4, 1, 7};  // 2 · 7 = 14 → 16
  EXPECT_TRUE(strided_space.IsValid(strided_space.ConfigFromJson(beyond)));
  beyond["tile_oh"] = {7, 4};  // 4 · 7 = 28 → 32: 16 × 32 = 512 > 256
  EXPECT_FALSE(strided_space.IsValid(strided_space.ConfigFromJson(beyond)));
}

// The multiply-adds a nest runs when its loops keep to their useful ranges (Loop::useful_begin),
// as the generated C++ does.
int64_t MultiplyAddsRun(const std::vector<Node>& nodes, std::map<std::string, int64_t>& at) {
  auto value = [&](const AffineExpr& e) {
    int64_t v = e.constant;
    for (const auto& [loop, c] : e.terms) v += c * at.at(loop);
    return v;
  };
  int64_t count = 0;
  for (const Node& node : nodes) {
    if (!node.is_loop) {
      count += node.stmt.kind == StmtKind::kMultiplyAdd ? 1 : 0;
      continue;
    }
    const Loop& loop = node.loop;
    const int64_t lo = loop.useful_begin ? std::max<int64_t>(0, value(*loop.useful_begin)) : 0;
    const int64_t hi =
        loop.useful_end ? std::min(loop.extent, value(*loop.useful_end)) : loop.extent;
    for (int64_t i = lo; i < hi; ++i) {
      at[loop.name] = i;
      count += MultiplyAddsRun(node.body, at);
    }
    at.erase(loop.name);
  }
  return count;
}

// Both conv2d layouts skip the kernel rows whose taps fall in the padding — per output row in
// NCHWc (its register tile is one row), per tile of rows in NCHW (its rows run inside r) — and
// run every other one (the kernels' results are checked against the reference below).
TEST_F(KernelTest, Conv2dSkipsTheKernelRowsInThePaddingAndNoOther) {
  // OH = 5; output row oh reaches input rows 2·oh + r − 2, r < 5: rows 0 and 4 have 3 taps inside.
  const std::string text = "conv2d:N=1,C=4,H=9,W=9,K=4,R=5,S=5,stride=2,pad=2,bias=1";
  const Operator op = ParseOperator(text);
  const int64_t k = 4, c = 4, s = 5, ow = 5, oh = 5, r = 5;
  auto rows_inside = [&](int64_t first, int64_t rows) {  // kernel rows useful to some row
    int64_t useful = 0;
    for (int64_t tap = 0; tap < r; ++tap) {
      bool inside = false;
      for (int64_t row = first; row < first + rows; ++row) {
        const int64_t ih = 2 * row + tap - 2;
        inside = inside || (ih >= 0 && ih < 9);
      }
      useful += inside ? 1 : 0;
    }
    return useful;
  };
  const ConfigSpace space = MakeCpuSpace(op);
  Rng rng(7);
  int blocked_skipping = 0;
  for (const char* layout : {"NCHW", "NCHWc"}) {
    for (int trial = 0; trial < 16; ++trial) {
      const Config config = SampleWith(space, rng, {{"layout", layout}});
      const Json json = space.ConfigToJson(config);
      const bool blocked = std::string(layout) == "NCHWc";
      // NCHWc skips rows only where r is the outermost reduction loop of more than one
      // iteration, with such a loop inside it (order: c0 c1 r s k1, k1 aside).
      bool outside = false, inside = false, past = false, channels_outside = false;
      const std::vector<int64_t> order = json.at("order").get<std::vector<int64_t>>();
      const int64_t extents[] = {json.at("tile_c")[0].get<int64_t>(),
                                 json.at("tile_c")[1].get<int64_t>(), r, s};
      for (int64_t position : order) {
        if (position == 2) past = true;
        if (position != 2 && position != 4 && extents[position] > 1) {
          (past ? inside : outside) = true;
          channels_outside = channels_outside || (!past && position < 2);
        }
      }
      // NCHW: where no channel loop of more than one iteration runs outside r.
      const bool skips = blocked ? !outside && inside : !channels_outside;
      const int64_t rows = blocked ? 1 : json.at("tile_oh")[1].get<int64_t>();
      int64_t expected = 0;
      for (int64_t first = 0; first < oh; first += rows) {
        expected += rows * (skips ? rows_inside(first, rows) : r);
      }
      std::map<std::string, int64_t> at;
      const int64_t run = MultiplyAddsRun(MakeCpuNest(op, space, config).body, at);
      EXPECT_EQ(run, expected * k * c * s * ow) << layout << " " << space.ConfigToString(config);
      if (blocked && skips) {
        EXPECT_EQ(expected, 21);  // of 25 rows × taps
        ++blocked_skipping;
      }
    }
  }
  EXPECT_GE(blocked_skipping, 2) << "too few sampled NCHWc configurations skip rows";
  // With a dilation every row runs (the bounds would need a division).
  const Operator dilated =
      ParseOperator("conv2d:N=1,C=4,H=9,W=9,K=4,R=3,S=3,stride=1,pad=2,dilation=2");
  const ConfigSpace dilated_space = MakeCpuSpace(dilated);
  std::map<std::string, int64_t> at;
  EXPECT_EQ(MultiplyAddsRun(MakeCpuNest(dilated, dilated_space,
                                        SampleWith(dilated_space, rng, {{"layout", "NCHWc"}}))
                                .body,
                            at),
            4 * 4 * 9 * 9 * 9);
  ExpectAllOk(text, 4, 71, {}, {{"layout", "NCHWc"}});
  ExpectAllOk(text, 4, 72, {}, {{"layout", "NCHW"}});
}

TEST_F(KernelTest, DepthwiseConfigurationsMatchTheReference) {
  const char* strided = "depthwise_conv2d:N=1,C=6,H=9,W=11,R=3,S=3,stride=2,pad=1,bias=1,relu=1";
  ExpectAllOk(strided, 8, 31,
              {{{"tile_c", {1, 3, 2}},
                {"tile_oh", {1, 5}},
                {"tile_ow", {2, 1, 3}},
                {"order", {4, 3, 2, 1, 0}},
                {"parallel", "c_oh"},
                {"vector_axis", "c"},
                {"unroll", 1},
                {"padding", "guard"}},
               {{"tile_c", {2, 1, 3}},
                {"tile_oh", {5, 1}},
                {"tile_ow", {1, 2, 3}},
                {"order", {0, 1, 2, 3, 4}},
                {"parallel", "c"},
                {"vector_axis", "ow"},
                {"unroll", 1},
                {"padding", "copy"}}},
              {{"vector_axis", "c"}});
  ExpectAllOk(strided, 6, 32, {}, {{"vector_axis", "ow"}});
  ExpectAllOk("depthwise_conv2d:N=2,C=4,H=8,W=7,R=3,S=2,stride=1,pad=2,dilation=2", 8, 33);
  // Channels as the vector on a wider row (24 columns) with two zero columns on each side.
  ExpectAllOk("depthwise_conv2d:N=1,C=8,H=5,W=24,R=5,S=5,stride=1,pad=2,bias=1", 4, 34, {},
              {{"vector_axis", "c"}, {"padding", "copy"}});
}

// The residual and ReLU6 epilogues in every template. The reductions are long enough (K = 400,
// C·R·S = 432 with inputs in [-1, 1]: a standard deviation near 7) that many outputs lie above 6
// and below 0, so a kernel that did not clamp, or did not add the residual, fails the reference.
TEST_F(KernelTest, ResidualAndRelu6EpiloguesMatchTheReference) {
  ExpectAllOk("dense:M=6,N=20,K=400,bias=1,residual=1,relu6=1", 4, 41);
  ExpectAllOk("dense:M=3,N=16,K=40,residual=1", 2, 42);
  ExpectAllOk("batch_matmul:B=2,M=5,N=12,K=400,residual=1,relu=1", 3, 43);
  const char* conv = "conv2d:N=1,C=48,H=7,W=7,K=8,R=3,S=3,stride=1,pad=1,bias=1,residual=1,relu6=1";
  ExpectAllOk(conv, 3, 44, {}, {{"layout", "NCHW"}});
  ExpectAllOk(conv, 3, 45, {}, {{"layout", "NCHWc"}});
  // Odd output sizes: the blocked template's guarded stores read the residual guarded.
  ExpectAllOk("conv2d:N=1,C=8,H=9,W=9,K=8,R=3,S=3,stride=2,pad=1,residual=1,relu=1", 4, 46, {},
              {{"layout", "NCHWc"}});
  ExpectAllOk("depthwise_conv2d:N=1,C=6,H=9,W=11,R=3,S=3,stride=2,pad=1,bias=1,residual=1,relu6=1",
              4, 47);
}

// The reference clamps a ReLU6 at both ends and adds the residual of each element.
TEST(ReferenceEpilogue, Relu6ClampsAndTheResidualIsAddedPerElement) {
  // dense M=1, N=3, K=2: out[n] = A·B[n] + bias[n] + res[n], then clamped to [0, 6].
  const Operator op = ParseOperator("dense:M=1,N=3,K=2,bias=1,residual=1,relu6=1");
  const std::vector<std::vector<float>> inputs = {
      {1.0f, 2.0f}, {4.0f, 4.0f, 0.5f, 0.5f, -1.0f, -1.0f}, {0.0f, 1.0f, 0.0f}, {0.5f, 2.0f, 0.5f}};
  const ReferenceResult r = ComputeReference(op, inputs);
  ASSERT_EQ(r.output.size(), 3u);
  EXPECT_DOUBLE_EQ(r.output[0], 6.0);  // 12 + 0 + 0.5, clamped
  EXPECT_DOUBLE_EQ(r.output[1], 4.5);  // 1.5 + 1 + 2
  EXPECT_DOUBLE_EQ(r.output[2], 0.0);  // -3 + 0 + 0.5, clamped
}

// A channel-blocked reference: a 1×1 convolution with identity weights passes its input through,
// so the output (blocked by 8) is the input (given blocked by 4) plus bias and residual.
TEST(ReferenceBlocked, ActivationsAreReadAndWrittenInTheirBlocks) {
  const Operator op =
      ParseOperator("conv2d:N=1,C=8,H=1,W=3,K=8,R=1,S=1,bias=1,residual=1,in_block=4,out_block=8");
  const std::vector<int64_t> plain_shape{1, 8, 1, 3};
  std::vector<float> x(24), residual(24), weight(64, 0.0f), bias(8);
  for (int i = 0; i < 24; ++i) x[i] = static_cast<float>(i), residual[i] = 100.0f * (i % 3);
  for (int k = 0; k < 8; ++k) weight[k * 8 + k] = 1.0f, bias[k] = 1000.0f * k;
  const ReferenceResult r = ComputeReference(op, {BlockChannels(x, plain_shape, 4), weight, bias,
                                                  BlockChannels(residual, plain_shape, 8)});
  std::vector<double> expected(24);
  for (int k = 0; k < 8; ++k) {
    for (int p = 0; p < 3; ++p) expected[k * 3 + p] = x[k * 3 + p] + bias[k] + residual[k * 3 + p];
  }
  EXPECT_EQ(r.output, BlockChannels(expected, plain_shape, 8));
}

// Activations stored blocked (in_block / out_block): both templates on blocked inputs and outputs,
// a plain input into a blocked output (a first layer), a blocked input into a plain output, with
// and without the padding copied, strided, with residuals.
TEST_F(KernelTest, BlockedActivationConfigurationsMatchTheReference) {
  ExpectAllOk("conv2d:N=1,C=8,H=9,W=9,K=8,R=3,S=3,pad=1,bias=1,relu=1,in_block=4,out_block=4", 6,
              41, {}, {{"padding", "copy"}});
  ExpectAllOk("conv2d:N=1,C=8,H=9,W=9,K=8,R=3,S=3,pad=1,bias=1,relu=1,in_block=4,out_block=4", 3,
              42, {}, {{"padding", "guard"}});
  ExpectAllOk("conv2d:N=2,C=8,H=8,W=6,K=8,R=1,S=1,stride=2,in_block=4,out_block=8,residual=1", 6,
              43);
  ExpectAllOk("conv2d:N=1,C=3,H=10,W=10,K=8,R=3,S=3,stride=2,pad=1,bias=1,out_block=4", 4, 44);
  ExpectAllOk("conv2d:N=1,C=8,H=7,W=7,K=6,R=3,S=3,pad=1,relu6=1,residual=1,in_block=8", 4, 45);
  ExpectAllOk(
      "depthwise_conv2d:N=1,C=8,H=9,W=9,R=3,S=3,stride=2,pad=1,bias=1,relu6=1,in_block=4,"
      "out_block=4",
      6, 46);
  ExpectAllOk("depthwise_conv2d:N=2,C=8,H=6,W=7,R=3,S=3,residual=1,in_block=8,out_block=8", 3, 47);
}

// Blocked activations leave the plain layout out of the conv2d space and fix the blocks; an input
// already in the kernel's blocks, with no padding to copy, is read where it is (no packing).
TEST(BlockedActivationSpaceTest, TheBlocksAreTheActivationsAndAnUnpaddedInputIsNotPacked) {
  const Operator op = ParseOperator("conv2d:N=1,C=16,H=8,W=8,K=32,R=1,S=1,in_block=8,out_block=16");
  const Task task = MakeCpuTask(op);
  const Json space = task.space.ToJson();
  for (const Json& knob : space.at("knobs")) {
    if (knob.at("name") == "layout") {
      EXPECT_EQ(knob.at("values").dump(), R"(["NCHWc"])");
    }
  }
  Rng rng(5);
  for (int i = 0; i < 20; ++i) {
    const Config config = *task.space.SampleValid(rng);
    const Json json = task.space.ConfigToJson(config);
    EXPECT_EQ(json.at("tile_c").at(1), 8);
    EXPECT_EQ(json.at("tile_k").at(2), 16);
    const LoopNest nest = MakeCpuNest(op, task.space, config);
    for (const TensorDecl& tensor : nest.tensors) EXPECT_NE(tensor.name, "Ip");
  }
  const Operator depthwise =
      ParseOperator("depthwise_conv2d:N=1,C=32,H=8,W=8,R=3,S=3,pad=1,in_block=16,out_block=16");
  const Task depthwise_task = MakeCpuTask(depthwise);
  for (int i = 0; i < 20; ++i) {
    const Json json = depthwise_task.space.ConfigToJson(*depthwise_task.space.SampleValid(rng));
    EXPECT_EQ(json.at("vector_axis"), "c");
    EXPECT_EQ(json.at("tile_c").at(2), 16);
  }
}

// A plain (NCHW) input is in blocks of one channel: with tile_c_1 = 1 the NCHWc kernel reads it
// where it is (guarded padding), with a larger block or the padding copied it packs it first, and
// either way the kernel matches the reference.
TEST_F(KernelTest, PlainInputInBlocksOfOneChannelIsReadInPlace) {
  const std::string op = "conv2d:N=1,C=3,H=13,W=13,K=32,R=3,S=3,stride=2,pad=1,bias=1,relu6=1";
  const Task task = MakeCpuTask(ParseOperator(op));
  auto config = [&](int64_t c_block, const std::string& padding) {
    return task.space.ConfigFromJson({{"layout", "NCHWc"},
                                      {"tile_k", {1, 2, 16}},
                                      {"tile_oh", {7, 1}},
                                      {"tile_ow", {1, 1, 7}},
                                      {"tile_c", {3 / c_block, c_block}},
                                      {"order", {0, 2, 3, 1, 4}},
                                      {"parallel", "oh"},
                                      {"vectorize", 1},
                                      {"unroll", 1},
                                      {"padding", padding}});
  };
  auto packs = [&](const Config& c) {
    const LoopNest nest = MakeCpuNest(ParseOperator(op), task.space, c);
    return std::any_of(nest.tensors.begin(), nest.tensors.end(),
                       [](const TensorDecl& t) { return t.name == "Ip"; });
  };
  EXPECT_FALSE(packs(config(1, "guard")));
  EXPECT_TRUE(packs(config(3, "guard")));
  EXPECT_TRUE(packs(config(1, "copy")));
  // The kernel row is unrolled where only taps are inside it (c1 = 1), not around a channel block.
  auto row_kind = [&](const Config& c) {
    return MakeCpuNest(ParseOperator(op), task.space, c).FindLoop("r").kind;
  };
  EXPECT_EQ(row_kind(config(1, "guard")), LoopKind::kUnrolled);
  EXPECT_EQ(row_kind(config(3, "guard")), LoopKind::kSerial);
  ExpectAllOk(
      op, 0, 1,
      {task.space.ConfigToJson(config(1, "guard")), task.space.ConfigToJson(config(3, "guard"))});
}

// A plain input read in place (a first layer) by a register tile of one output block prefetches,
// at each tile, the input rows the next output row adds and, on a blocked output, the output lines
// it writes; it reads its input through a pointer per kernel row. Two-block tiles and packed
// inputs do neither. All compute the reference.
TEST_F(KernelTest, PlainInputReadInPlacePrefetchesTheNextRow) {
  const std::string plain_out =
      "conv2d:N=1,C=3,H=13,W=13,K=32,R=3,S=3,stride=2,pad=1,bias=1,relu6=1";
  const std::string blocked_out = plain_out + ",out_block=16";
  auto json = [](int64_t c_block, std::vector<int64_t> order, std::vector<int64_t> tile_k) {
    return Json{{"layout", "NCHWc"},
                {"tile_k", tile_k},
                {"tile_oh", {7, 1}},
                {"tile_ow", {1, 1, 7}},
                {"tile_c", {3 / c_block, c_block}},
                {"order", order},
                {"parallel", "oh"},
                {"vectorize", 1},
                {"unroll", 1},
                {"padding", "guard"}};
  };
  struct Counts {
    int reads = 0, writes = 0, pointer_loops = 0;
  };
  auto count = [&](const std::string& op, const Json& config) {
    const Task task = MakeCpuTask(ParseOperator(op));
    const LoopNest nest =
        MakeCpuNest(ParseOperator(op), task.space, task.space.ConfigFromJson(config));
    Counts counts;
    // `runs`: how often a statement runs per register tile (the loops inside ow1).
    std::function<void(const std::vector<Node>&, int64_t, bool)> visit =
        [&](const std::vector<Node>& body, int64_t runs, bool in_tile) {
          for (const Node& node : body) {
            if (node.is_loop) {
              counts.pointer_loops += node.loop.load_pointers ? 1 : 0;
              visit(node.body, in_tile ? runs * node.loop.extent : runs,
                    in_tile || node.loop.name == "ow1");
            } else if (node.stmt.kind == StmtKind::kPrefetch) {
              (node.stmt.prefetch_write ? counts.writes : counts.reads) += static_cast<int>(runs);
            }
          }
        };
    visit(nest.body, 1, false);
    return counts;
  };
  const std::vector<int64_t> k1_in_tile = {0, 2, 3, 1, 4}, k1_outside = {0, 2, 3, 4, 1};
  // One block, the channel blocks outside the tile: 3 channels × 2 new rows (stride 2) × the
  // lines of 7 columns' 15 input columns ((15 − 1) / 16 + 2 = 2: one more for a line the start may
  // straddle); the block's 7 output lines.
  const Counts one_block = count(blocked_out, json(1, k1_outside, {1, 2, 16}));
  EXPECT_EQ(one_block.reads, 3 * 2 * 2);
  EXPECT_EQ(one_block.writes, 7);
  EXPECT_EQ(one_block.pointer_loops, 1);
  // One block in the tile (k1 of one iteration): the same.
  const Counts k1_of_one = count(blocked_out, json(1, k1_in_tile, {2, 1, 16}));
  EXPECT_EQ(k1_of_one.reads, 3 * 2 * 2);
  EXPECT_EQ(k1_of_one.writes, 7);
  EXPECT_EQ(k1_of_one.pointer_loops, 1);
  // A plain output's lines are one channel's row each: no output prefetch.
  const Counts plain = count(plain_out, json(1, k1_outside, {1, 2, 16}));
  EXPECT_EQ(plain.reads, 3 * 2 * 2);
  EXPECT_EQ(plain.writes, 0);
  // Two blocks in the tile, or a packed input: none of it.
  const Counts two_blocks = count(blocked_out, json(1, k1_in_tile, {1, 2, 16}));
  EXPECT_EQ(two_blocks.reads + two_blocks.writes + two_blocks.pointer_loops, 0);
  const Counts packed = count(blocked_out, json(3, k1_outside, {1, 2, 16}));
  EXPECT_EQ(packed.reads + packed.writes + packed.pointer_loops, 0);
  ExpectAllOk(blocked_out, 0, 1,
              {json(1, k1_outside, {1, 2, 16}), json(1, k1_in_tile, {2, 1, 16}),
               json(1, {2, 3, 0, 1, 4}, {2, 1, 16}), json(1, k1_in_tile, {1, 2, 16})});
  ExpectAllOk(plain_out, 0, 1,
              {json(1, k1_outside, {1, 2, 16}), json(1, {2, 0, 3, 4, 1}, {2, 1, 16})});
}

// The prefetch statements that run in `body` (each times the extents of the loops around it
// there): {reads, writes}.
std::pair<int, int> PrefetchesIn(const std::vector<Node>& body) {
  std::pair<int, int> counts;
  std::function<void(const std::vector<Node>&, int64_t)> visit = [&](const std::vector<Node>& nodes,
                                                                     int64_t runs) {
    for (const Node& node : nodes) {
      if (node.is_loop) {
        visit(node.body, runs * node.loop.extent);
      } else if (node.stmt.kind == StmtKind::kPrefetch) {
        (node.stmt.prefetch_write ? counts.second : counts.first) += static_cast<int>(runs);
      }
    }
  };
  visit(body, 1);
  return counts;
}

// A blocked input read in place at a stride, by one-row tiles of one block that k1o passes over:
// the row's tiles share the next row's input columns out among them, each column once.
TEST_F(KernelTest, BlockedInputAtAStrideSharesTheNextRowOutAmongTheRowsTiles) {
  // 27 × 27 input positions against 64 × 3 × 3 weights per input channel: more input than
  // weight bytes. At 13 × 13 (`heavy`), fewer.
  const std::string op =
      "conv2d:N=1,C=32,H=27,W=27,K=64,R=3,S=3,stride=2,pad=1,bias=1,relu=1,in_block=16,"
      "out_block=16";
  const std::string heavy =
      "conv2d:N=1,C=32,H=13,W=13,K=64,R=3,S=3,stride=2,pad=1,bias=1,relu=1,in_block=16,"
      "out_block=16";
  auto json = [](std::vector<int64_t> order, std::vector<int64_t> tile_k,
                 std::vector<int64_t> tile_oh) {
    return Json{{"layout", "NCHWc"},    {"tile_k", tile_k},  {"tile_oh", tile_oh},
                {"tile_ow", {2, 1, 7}}, {"tile_c", {2, 16}}, {"order", order},
                {"parallel", "oh"},     {"vectorize", 1},    {"unroll", 1},
                {"padding", "guard"}};
  };
  const std::vector<int64_t> k1_outside = {0, 2, 3, 4, 1}, k1_in_tile = {0, 2, 3, 1, 4};
  auto nest_of = [&](const Json& config, const std::string& of = "") {
    const std::string text = of.empty() ? op : of;
    const Task task = MakeCpuTask(ParseOperator(text));
    return MakeCpuNest(ParseOperator(text), task.space, task.space.ConfigFromJson(config));
  };
  // Four tiles per row (k1o over 4 blocks), 7 columns at stride 2 reading 15 input columns: tile
  // k1o takes columns [4·k1o, 4·k1o + 4) of the next row's 2 new input rows in both channel blocks.
  const LoopNest spread = nest_of(json(k1_outside, {1, 4, 16}, {14, 1}));
  const Loop& columns = spread.FindLoop("fl");
  EXPECT_EQ(columns.extent, 15);
  ASSERT_TRUE(columns.useful_begin && columns.useful_end);
  EXPECT_EQ(columns.useful_begin->CoefficientOf("k1o"), 4);
  EXPECT_EQ(columns.useful_begin->constant, 0);
  EXPECT_EQ(columns.useful_end->CoefficientOf("k1o"), 4);
  EXPECT_EQ(columns.useful_end->constant, 4);
  // Over the row's four tiles, with the range clamped to the loop as the emitter does, every
  // column is prefetched exactly once.
  std::vector<int> times_prefetched(columns.extent, 0);
  for (int64_t k1o = 0; k1o < 4; ++k1o) {
    const int64_t begin =
        columns.useful_begin->constant + columns.useful_begin->CoefficientOf("k1o") * k1o;
    const int64_t end =
        columns.useful_end->constant + columns.useful_end->CoefficientOf("k1o") * k1o;
    for (int64_t column = std::max<int64_t>(begin, 0);
         column < std::min<int64_t>(end, columns.extent); ++column) {
      ++times_prefetched[column];
    }
  }
  EXPECT_EQ(times_prefetched, std::vector<int>(columns.extent, 1));
  const auto [reads, writes] = PrefetchesIn(spread.FindLoopNode("fl").body);
  EXPECT_EQ(reads, 2 * 2);  // per column: 2 channel blocks × 2 new rows
  // I[n][c / 16][h][w][c % 16]: block fc, rows 2·(oh + 1) − 1 + 1 + fr (the last two of the next
  // row's three), column 7·2·ow0 − 1 + fl, lane 0.
  const Node& prefetch = spread.FindLoopNode("fr");
  ASSERT_TRUE(prefetch.body.size() == 1 && !prefetch.body[0].is_loop);
  const Access& element = prefetch.body[0].stmt.a;
  ASSERT_EQ(element.index.size(), 5u);
  EXPECT_EQ(element.index[1].CoefficientOf("fc"), 1);
  EXPECT_EQ(element.index[2].CoefficientOf("oh0"), 2);
  EXPECT_EQ(element.index[2].CoefficientOf("fr"), 1);
  EXPECT_EQ(element.index[2].constant, 2);
  EXPECT_EQ(element.index[3].CoefficientOf("fl"), 1);
  EXPECT_EQ(element.index[3].CoefficientOf("ow0"), 14);
  EXPECT_EQ(element.index[3].constant, -1);
  EXPECT_EQ(element.index[4].terms.size(), 0u);
  EXPECT_TRUE(element.zero_outside);
  EXPECT_EQ(writes, 0);
  EXPECT_FALSE(spread.FindLoop("ow1").load_pointers);
  // The tile's own block's 7 output lines of the next row, in every tile.
  EXPECT_EQ(PrefetchesIn(spread.FindLoopNode("ow1").body).second, 7);
  // A tile of several rows, a tile of k1 (no k1o loop), or one block per row (k1o of one): none.
  for (const Json& config :
       {json(k1_outside, {1, 4, 16}, {2, 7}), json(k1_in_tile, {4, 1, 16}, {14, 1}),
        json(k1_outside, {4, 1, 16}, {14, 1})}) {
    const auto [r, w] = PrefetchesIn(nest_of(config).body);
    EXPECT_EQ(r + w, 0) << config.dump();
  }
  // Weights that outweigh the input: none either.
  Json heavy_config = json(k1_outside, {1, 4, 16}, {7, 1});
  heavy_config["tile_ow"] = {1, 1, 7};
  const auto [heavy_reads, heavy_writes] = PrefetchesIn(nest_of(heavy_config, heavy).body);
  EXPECT_EQ(heavy_reads + heavy_writes, 0);
  // Built, run and checked against the reference, with its prefetches past the last row and left
  // of the first column.
  ExpectAllOk(op, 0, 1,
              {json(k1_outside, {1, 4, 16}, {14, 1}), json({2, 3, 0, 4, 1}, {2, 2, 16}, {14, 1}),
               json(k1_outside, {1, 4, 16}, {2, 7})});
  // A strided 1×1 read in place falls under the rule too (one new input row per output row).
  const std::string pointwise =
      "conv2d:N=1,C=32,H=28,W=28,K=64,R=1,S=1,stride=2,pad=0,bias=1,in_block=16,out_block=16";
  Json pointwise_config = json(k1_outside, {1, 4, 16}, {14, 1});
  pointwise_config.erase("padding");
  const LoopNest pointwise_nest = nest_of(pointwise_config, pointwise);
  // Per tile, before the useful range: 13 input columns × 2 blocks × 1 new row; 7 output lines.
  EXPECT_EQ(PrefetchesIn(pointwise_nest.FindLoopNode("ow1").body), std::make_pair(13 * 2, 7));
  EXPECT_EQ(pointwise_nest.FindLoop("fl").useful_end->constant, 4);  // ⌈13 / 4⌉ columns a tile
  ExpectAllOk(pointwise, 0, 1, {pointwise_config});
}

// The point of the NCHWc layout: its reduction's inner loop is a register tile of packed FMAs
// (ow2 × k1 × k2/lanes accumulators, nothing stored), as read from the compiler's assembly.
TEST_F(KernelTest, BlockedConv2dInnerLoopIsARegisterTileOfPackedFmas) {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    GTEST_SKIP() << "the host has no AVX2 / FMA";
  }
  Task task = MakeCpuTask(ParseOperator("conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1"));
  // 14 accumulators: a 7 × 32 tile in 16-lane vectors (AVX-512, 32 registers) or a 14 × 8 tile
  // in 8-lane ones (AVX2, 16 registers).
  const int64_t lanes = __builtin_cpu_supports("avx512f") ? 16 : 8;
  Json config = {{"layout", "NCHWc"},    {"tile_k", {2, 1, 32}}, {"tile_oh", {56, 1}},
                 {"tile_ow", {4, 2, 7}}, {"tile_c", {4, 16}},    {"order", {0, 2, 3, 1, 4}},
                 {"parallel", "k_oh"},   {"vectorize", 1},       {"unroll", 0},
                 {"padding", "copy"}};
  if (lanes == 8) {
    config["tile_k"] = {8, 1, 8};
    config["tile_ow"] = {2, 2, 14};
  }
  std::string code = GenerateCpuKernel(task, task.space.ConfigFromJson(config), "tile");
  CpuBuilderOptions options = testing::FastBuild(dir_);
  // The builder's own flags, writing the assembly instead of a shared object.
  options.flags = DefaultCpuCompilerFlags();
  std::replace(options.flags.begin(), options.flags.end(), std::string("-shared"),
               std::string("-S"));
  std::vector<BuildResult> built = CpuBuilder(options).BuildSources({{code, "tile"}});
  ASSERT_EQ(built[0].status, MeasureStatus::kOk) << built[0].error;
  std::ifstream in(built[0].artifact.substr(0, built[0].artifact.rfind(':')));  // the assembly
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  // The basic block of the first packed FMA: from the label before it to the jump after it.
  size_t first = 0;
  while (first < lines.size() && lines[first].find("vfmadd") == std::string::npos) ++first;
  ASSERT_LT(first, lines.size()) << "no FMA in the kernel";
  size_t begin = first, end = first;
  while (begin > 0 && lines[begin - 1].find(':') == std::string::npos) --begin;
  while (end < lines.size() && lines[end].find("\tj") == std::string::npos) ++end;
  int fmas = 0, stores = 0;
  // With AVX-512 the builder asks for 512-bit vectors (GCC's tuning for Intel server cores would
  // otherwise use 8-lane ymm halves, and 28 of them do not fit beside the operands: a spill).
  const std::string vector_register = lanes == 16 ? "%zmm" : "%ymm";
  for (size_t i = begin; i < end; ++i) {
    const std::string& line = lines[i];
    if (line.find("vfmadd") != std::string::npos && line.find("ps\t") != std::string::npos &&
        line.find(vector_register) != std::string::npos) {
      ++fmas;
    }
    // A store: "vmov… %reg, mem".
    size_t comma = line.find(',');
    if (line.find("\tvmov") != std::string::npos && comma != std::string::npos &&
        line.find('(', comma) != std::string::npos) {
      ++stores;
    }
  }
  EXPECT_EQ(fmas, 14) << "inner loop:\n"
                      << [&] {
                           std::string block;
                           for (size_t i = begin; i < end; ++i) block += lines[i] + "\n";
                           return block;
                         }();
  EXPECT_EQ(stores, 0);
}

// A prepare step sees only the constant inputs: reading the activation crashes it, and a kernel
// that defines only half of the prepare interface is refused.
// The emitted ReLU and ReLU6 clamp the float's bits as integers: compiled with the builder's own
// flags (vectorised), they agree with max(v, 0) and min(max(v, 0), 6) on every kind of float —
// negative zero, subnormals, the clamp's edges, infinities — and a positive NaN stays NaN through
// ReLU.
TEST_F(KernelTest, EmittedReluAndRelu6ClampEveryKindOfFloat) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {-3.5f,    -0.0f, 0.0f,  1e-40f, -1e-40f, 2.5f, 5.99999f, 6.0f,
                                6.00001f, 7.0f,  1e30f, -1e30f, inf,     -inf, 0.5f,     nan};
  auto nest_of = [&](bool relu6) {
    LoopNest nest;
    nest.name = relu6 ? "relu6" : "relu";
    const int64_t n = static_cast<int64_t>(x.size());
    int in = nest.AddTensor({"X", {n}, "I", DType::kFloat32, TensorRole::kInput, 0});
    int out = nest.AddTensor({"Y", {n}, "I", DType::kFloat32, TensorRole::kOutput});
    Stmt copy{StmtKind::kCopy, {out, {AffineExpr::Var("i")}}, {in, {AffineExpr::Var("i")}}};
    (relu6 ? copy.relu6 : copy.relu) = true;
    nest.body.push_back(Node::MakeLoop({"i", n, LoopKind::kVectorized}, {Node::MakeStmt(copy)}));
    return nest;
  };
  CpuBuilder builder(testing::FastBuild(dir_));
  std::vector<BuildResult> built = builder.BuildSources(
      {{EmitCpp(nest_of(false), "relu"), "relu"}, {EmitCpp(nest_of(true), "relu6"), "relu6"}});
  for (size_t k = 0; k < built.size(); ++k) {
    ASSERT_EQ(built[k].status, MeasureStatus::kOk) << built[k].error;
    const std::string artifact = built[k].artifact;
    const std::string path = artifact.substr(0, artifact.rfind(':'));
    void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(library, nullptr) << dlerror();
    using Kernel = void (*)(const float* const*, float*);
    auto kernel = reinterpret_cast<Kernel>(dlsym(library, k == 0 ? "relu" : "relu6"));
    ASSERT_NE(kernel, nullptr);
    std::vector<float> y(x.size(), -1.0f);
    const float* inputs[1] = {x.data()};
    kernel(inputs, y.data());
    for (size_t i = 0; i + 1 < x.size(); ++i) {
      const float relu = x[i] > 0.0f ? x[i] : 0.0f;
      const float want = k == 0 ? relu : std::min(relu, 6.0f);
      EXPECT_EQ(y[i], want) << "x = " << x[i] << (k == 0 ? " (ReLU)" : " (ReLU6)");
      EXPECT_FALSE(std::signbit(y[i])) << "x = " << x[i];
    }
    if (k == 0) {
      EXPECT_TRUE(std::isnan(y.back()));
    } else {
      EXPECT_EQ(y.back(), 6.0f);
    }
    dlclose(library);
  }
}

TEST_F(KernelTest, PrepareStepSeesOnlyConstantInputs) {
  // dense M=1, N=4, K=4 without bias: inputs A, B; the prepared buffer arrives as inputs[2].
  auto source = [](const std::string& symbol, bool size, const std::string& prepare_body) {
    std::string code = "#include <cstdint>\n";
    if (size) code += "extern \"C\" int64_t " + symbol + "_prepared_size() { return 16; }\n";
    code += "extern \"C\" void " + symbol + "_prepare(const float* const* in, float* p) { " +
            prepare_body + " }\n";
    code += "extern \"C\" void " + symbol +
            "(const float* const* in, float* out) {"
            " for (int n = 0; n < 4; ++n) { float s = 0; for (int k = 0; k < 4; ++k)"
            " s += in[0][k] * in[2][n * 4 + k]; out[n] = s; } }\n";
    return KernelSource{code, symbol};
  };
  const std::string copy_weight = "for (int i = 0; i < 16; ++i) p[i] = in[1][i];";
  const std::string read_activation = "for (int i = 0; i < 16; ++i) p[i] = in[1][i] + in[0][0];";
  std::vector<MeasureResult> results =
      RunSources("dense:M=1,N=4,K=4", {source("packs_weight", true, copy_weight),
                                       source("reads_activation", true, read_activation),
                                       source("half_interface", false, copy_weight)});
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].status, MeasureStatus::kOk) << results[0].error;
  EXPECT_EQ(results[1].status, MeasureStatus::kRuntimeDevice) << results[1].error;
  EXPECT_NE(results[1].error.find("signal"), std::string::npos) << results[1].error;
  EXPECT_EQ(results[2].status, MeasureStatus::kRuntimeDevice);
  EXPECT_NE(results[2].error.find("only one of _prepare and _prepared_size"), std::string::npos)
      << results[2].error;
}

}  // namespace
}  // namespace glimpse

namespace glimpse {
namespace {

// A configuration whose packed weights and padded copies do not fit beside the measurement is an
// instantiation failure naming its workspace, before anything is compiled; with room it is the
// same kernel as GenerateCpuKernel's.
TEST(CpuWorkspaceTest, AWorkspaceThatDoesNotFitIsRefusedBeforeBuilding) {
  const Operator op = ParseOperator("conv2d:N=1,C=64,H=28,W=28,K=64,R=3,S=3,pad=1");
  const Task task = MakeCpuTask(op);
  const double measurement = OperatorMeasurementBytes(op, DefaultCacheFlushBytes()).Total();
  Rng rng(5);
  for (int attempt = 0; attempt < 200; ++attempt) {
    const Config config = *task.space.SampleValid(rng);
    const LoopNest nest = MakeCpuNest(op, task.space, config);
    const double workspace = 4.0 * (nest.PreparedFloats() + nest.HeapTempFloats());
    if (workspace == 0) continue;
    EXPECT_EQ(GenerateCpuKernelToMeasure(task, config, "k", measurement + workspace),
              GenerateCpuKernel(task, config, "k"));
    EXPECT_EQ(GenerateCpuKernelToMeasure(task, config, "k", 0),
              GenerateCpuKernel(task, config, "k"));
    try {
      GenerateCpuKernelToMeasure(task, config, "k", measurement + workspace - 64);
      FAIL() << "a workspace of " << workspace << " bytes fit in " << workspace - 64;
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find("the configuration's workspace takes"),
                std::string::npos)
          << error.what();
    }
    return;
  }
  FAIL() << "no sampled configuration packs or pads anything";
}

}  // namespace
}  // namespace glimpse
