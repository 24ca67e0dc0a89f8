// The evaluation's baselines: the roofline on a hand-built nest whose FLOPs and bytes per level
// are worked out on paper, its per-kind calibration, the machine profile file, and XGBoost
// learning a synthetic relation it can only see through the program's loop features.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "glimpse/cpu.h"
#include "glimpse/error.h"
#include "glimpse/perf_eval.h"
#include "glimpse/perf_predictor.h"
#include "glimpse/program_graph.h"
#include "glimpse/random.h"

namespace glimpse {
namespace {

using E = AffineExpr;

// C[i][j] += A[i][k] · B[k][j] with loops i (m, of `i_kind`), k (8), j (n, of `j_kind`):
// A[m][8], B[8][n], C[m][n].
LoopNest Matmul(int64_t m, int64_t n, LoopKind i_kind, LoopKind j_kind) {
  LoopNest nest;
  nest.name = "matmul";
  const int a = nest.AddTensor({"A", {m, 8}, "MK", DType::kFloat32, TensorRole::kInput, 0});
  const int b = nest.AddTensor({"B", {8, n}, "KN", DType::kFloat32, TensorRole::kInput, 1});
  const int c = nest.AddTensor({"C", {m, n}, "MN", DType::kFloat32, TensorRole::kOutput});
  Stmt mac{StmtKind::kMultiplyAdd,
           {c, {E::Var("i"), E::Var("j")}},
           {a, {E::Var("i"), E::Var("k")}},
           {b, {E::Var("k"), E::Var("j")}}};
  nest.body.push_back(
      NestLoops({{"i", m, i_kind}, {"k", 8}, {"j", n, j_kind}}, {Node::MakeStmt(mac)}));
  nest.Validate();
  return nest;
}

// The 4 × 8 × 16 one, i serial: A[4][8], B[8][16], C[4][16].
LoopNest Matmul(LoopKind j_kind) { return Matmul(4, 16, LoopKind::kSerial, j_kind); }

// i parallel (m), j vectorised (n).
LoopNest ParallelMatmul(int64_t m, int64_t n) {
  return Matmul(m, n, LoopKind::kParallel, LoopKind::kVectorized);
}

// 100 GFLOP/s, one thread, 16 lanes, 256 bytes of registers; L1 of 1 KiB at 100 GB/s, DRAM at
// 10 GB/s.
MachineProfile SmallProfile() {
  MachineProfile p;
  p.name = "test";
  p.peak_gflops = 100.0;
  p.threads = 1;
  p.vector_lanes = 16;
  p.register_bytes = 256.0;
  p.levels = {{"L1", 1024.0, 100.0}, {"DRAM", 0.0, 10.0}};
  return p;
}

TEST(Roofline, HandBuiltMatmul) {
  const RooflineEstimate e = EstimateRoofline(Matmul(LoopKind::kVectorized), SmallProfile());
  // 2 · 4 · 8 · 16 flops at the full peak (16 lanes filled).
  EXPECT_DOUBLE_EQ(e.flops, 1024.0);
  EXPECT_NEAR(e.compute_s, 1024.0 / 100e9, 1e-20);
  // L1 feeds 256 B of registers. Working sets: all loops A 32 + B 128 + C 64 elements = 896 B;
  // k, j: 8 + 128 + 16 = 608 B; j alone: 1 + 16 + 16 = 132 B, which fits: fetched once per run of
  // i · k (32 runs): 4224 B.
  ASSERT_EQ(e.bytes.size(), 2u);
  EXPECT_DOUBLE_EQ(e.bytes[0], 4224.0);
  // DRAM feeds the 1 KiB L1: the whole 896 B fits, fetched once.
  EXPECT_DOUBLE_EQ(e.bytes[1], 896.0);
  const double memory_s = 4224.0 / 100e9 + 896.0 / 10e9;
  EXPECT_NEAR(e.time_s, memory_s, 1e-20);

  // Without the vectorised loop one lane of 16 works: compute 16 times slower, now the bound.
  const RooflineEstimate serial = EstimateRoofline(Matmul(LoopKind::kSerial), SmallProfile());
  EXPECT_NEAR(serial.compute_s, 16.0 * 1024.0 / 100e9, 1e-20);
  EXPECT_NEAR(serial.time_s, serial.compute_s, 1e-20);

  // Two threads and no parallel loop: half the peak and half the L1 bandwidth; DRAM is shared.
  MachineProfile two = SmallProfile();
  two.threads = 2;
  const RooflineEstimate one_of_two = EstimateRoofline(Matmul(LoopKind::kVectorized), two);
  EXPECT_NEAR(one_of_two.compute_s, 2.0 * 1024.0 / 100e9, 1e-20);
  EXPECT_NEAR(one_of_two.memory_s[0], 2.0 * 4224.0 / 100e9, 1e-20);
  EXPECT_NEAR(one_of_two.memory_s[1], 896.0 / 10e9, 1e-20);
}

TEST(Roofline, ThreadsAndLanesAreCountedInRounds) {
  MachineProfile two = SmallProfile();
  two.threads = 2;
  // 4 parallel iterations on 2 threads and 32 elements in 16 lanes: every round full.
  const RooflineEstimate full = EstimateRoofline(ParallelMatmul(4, 32), two);
  EXPECT_NEAR(full.compute_s, 2.0 * 4 * 8 * 32 / 100e9, 1e-20);
  // 3 iterations take two rounds of 2 threads (3/4 busy); 24 elements two vectors (3/4 filled):
  // the peak times 9/16.
  const RooflineEstimate ragged = EstimateRoofline(ParallelMatmul(3, 24), two);
  EXPECT_NEAR(ragged.compute_s, 2.0 * 3 * 8 * 24 / (100e9 * 0.75 * 0.75), 1e-20);
  // Fewer iterations than threads, and a vector loop shorter than the lanes.
  const RooflineEstimate small = EstimateRoofline(ParallelMatmul(1, 8), two);
  EXPECT_NEAR(small.compute_s, 2.0 * 1 * 8 * 8 / (100e9 * 0.5 * 0.5), 1e-20);
}

TEST(Roofline, ItsTermsAreXgbFeatures) {
  const LoopNest nest = Matmul(LoopKind::kVectorized);
  const MachineProfile profile = SmallProfile();
  const RooflineEstimate e = EstimateRoofline(nest, profile);
  const std::vector<float> row = XgbRooflineFeatures(nest, profile);
  // flops, compute, estimate, then bytes and time of L1 and DRAM, then the bound.
  ASSERT_EQ(static_cast<int>(row.size()), XgbRooflineFeatureWidth(profile));
  ASSERT_EQ(row.size(), 8u);
  EXPECT_FLOAT_EQ(row[0], LogCount(1024.0));
  EXPECT_FLOAT_EQ(row[1], LogCount(e.compute_s * 1e9));
  EXPECT_FLOAT_EQ(row[2], LogCount(e.time_s * 1e9));
  EXPECT_FLOAT_EQ(row[3], LogCount(4224.0));
  EXPECT_FLOAT_EQ(row[4], LogCount(e.memory_s[0] * 1e9));
  EXPECT_FLOAT_EQ(row[5], LogCount(896.0));
  EXPECT_FLOAT_EQ(row[6], LogCount(e.memory_s[1] * 1e9));
  // Memory-bound here (compute 10.24 ns against 131.84 ns of memory): negative.
  // (Each side plus a picosecond, which keeps a zero side finite.)
  EXPECT_NEAR(row[7], std::log2((e.compute_s + 1e-12) / (e.memory_s[0] + e.memory_s[1] + 1e-12)),
              1e-5);
  EXPECT_LT(row[7], 0.0f);
  // Serial, compute-bound: the bound turns positive.
  EXPECT_GT(XgbRooflineFeatures(Matmul(LoopKind::kSerial), profile)[7], 0.0f);

  XgbPerfOptions options;
  EXPECT_EQ(XgbPerfRowWidth(options), XgbPerfFeatureWidth());
  options.roofline = profile;
  EXPECT_EQ(XgbPerfRowWidth(options), XgbPerfFeatureWidth() + 8);
}

// Records of real CPU operators with sampled configurations; time_s from `truth`.
PerfCorpus SyntheticCorpus(const std::vector<std::string>& ops, size_t per_op,
                           const std::function<double(const LoopNest&)>& truth) {
  PerfCorpus corpus;
  for (const std::string& text : ops) {
    const Operator op = ParseOperator(text);
    const ConfigSpace space = MakeCpuSpace(op);
    Rng rng(11);
    for (size_t n = 0; n < per_op; ++n) {
      const std::optional<Config> sampled = space.SampleValid(rng);
      if (!sampled) break;
      const Config& config = *sampled;
      PerfCorpusRecord r;
      r.op = text;
      r.kind = OperatorName(op);
      r.target = "cpu";
      r.config = space.ConfigToJson(config);
      r.status = MeasureStatus::kOk;
      try {
        r.time_s = truth(MakeCpuNest(op, space, config));
      } catch (const Error&) {
        continue;  // a configuration the template refuses
      }
      r.samples_s = {r.time_s};
      corpus.records.push_back(r);
    }
  }
  return corpus;
}

std::vector<const PerfCorpusRecord*> All(const PerfCorpus& corpus) {
  std::vector<const PerfCorpusRecord*> out;
  for (const PerfCorpusRecord& r : corpus.records) out.push_back(&r);
  return out;
}

// The schedule's ratios on a hand-built tiled matmul: i0 parallel (3) { acc[2][24] = 0;
// k (8) { i1 unrolled (2) { j vectorised (24) { acc += A · B } } }; i1, j: C = acc + A-copy }, on
// 2 threads of 16 lanes with 256 bytes (64 floats) of registers, plus a packed copy of B.
TEST(XgbScheduleFeatures, RatiosOfAHandBuiltTiledMatmul) {
  LoopNest nest;
  nest.name = "tiled";
  const int a = nest.AddTensor({"A", {6, 8}, "MK", DType::kFloat32, TensorRole::kInput, 0});
  const int b = nest.AddTensor({"B", {8, 24}, "KN", DType::kFloat32, TensorRole::kInput, 1});
  const int c = nest.AddTensor({"C", {6, 24}, "MN", DType::kFloat32, TensorRole::kOutput});
  const int bp = nest.AddTensor({"Bp", {8, 24}, "KN", DType::kFloat32, TensorRole::kTemp});
  TensorDecl acc_decl{"acc", {2, 24}, "MN", DType::kFloat32, TensorRole::kTemp};
  acc_decl.scope_loop = "i0";
  const int acc = nest.AddTensor(acc_decl);
  const E row = E::Var("i0", 2) + E::Var("i1");
  Stmt pack{StmtKind::kCopy, {bp, {E::Var("pk"), E::Var("pj")}}, {b, {E::Var("pk"), E::Var("pj")}}};
  nest.body.push_back(NestLoops({{"pk", 8}, {"pj", 24}}, {Node::MakeStmt(pack)}));
  Stmt zero{StmtKind::kZero, {acc, {E::Var("zi"), E::Var("zj")}}};
  Stmt mac{StmtKind::kMultiplyAdd,
           {acc, {E::Var("i1"), E::Var("j")}},
           {a, {row, E::Var("k")}},
           {bp, {E::Var("k"), E::Var("j")}}};
  Stmt store{StmtKind::kCopy,
             {c, {E::Var("i0", 2) + E::Var("si"), E::Var("sj")}},
             {acc, {E::Var("si"), E::Var("sj")}}};
  std::vector<Node> tile;
  tile.push_back(NestLoops({{"zi", 2}, {"zj", 24}}, {Node::MakeStmt(zero)}));
  tile.push_back(
      NestLoops({{"k", 8}, {"i1", 2, LoopKind::kUnrolled}, {"j", 24, LoopKind::kVectorized}},
                {Node::MakeStmt(mac)}));
  tile.push_back(NestLoops({{"si", 2}, {"sj", 24}}, {Node::MakeStmt(store)}));
  nest.body.push_back(Node::MakeLoop({"i0", 3, LoopKind::kParallel}, std::move(tile)));
  nest.Validate();

  MachineProfile two = SmallProfile();
  two.threads = 2;
  const std::vector<float> row_features = XgbScheduleFeatures(nest, two);
  ASSERT_EQ(row_features.size(), static_cast<size_t>(kXgbScheduleFeatureWidth));
  EXPECT_FLOAT_EQ(row_features[0], LogCount(3.0));  // parallel iterations
  EXPECT_FLOAT_EQ(row_features[1], 0.75f);          // 3 on 2 threads: two rounds, 3/4 busy
  EXPECT_FLOAT_EQ(row_features[2], 0.75f);          // 24 elements in two vectors of 16
  EXPECT_FLOAT_EQ(row_features[3], LogCount(4.0));  // 2 unrolled × 2 vector rounds per k
  EXPECT_FLOAT_EQ(row_features[4], LogCount(8.0));  // k's trip count
  EXPECT_FLOAT_EQ(row_features[5], 48.0f / 64.0f);  // acc's 48 floats over 64 of registers
  // 3 · 8 · 2 · 24 = 1152 multiply-adds; 192 elements packed, 144 stored.
  EXPECT_FLOAT_EQ(row_features[6], LogCount(192.0 / 1152.0));
  EXPECT_FLOAT_EQ(row_features[7], LogCount(144.0 / 1152.0));
  EXPECT_FLOAT_EQ(row_features[8], LogCount(1152.0 / 3.0));
  // No multiply-add: all zero.
  LoopNest copy_only;
  copy_only.name = "copy";
  const int x = copy_only.AddTensor({"X", {4}, "I", DType::kFloat32, TensorRole::kInput, 0});
  const int y = copy_only.AddTensor({"Y", {4}, "I", DType::kFloat32, TensorRole::kOutput});
  copy_only.body.push_back(Node::MakeLoop(
      {"i", 4}, Node::MakeStmt(Stmt{StmtKind::kCopy, {y, {E::Var("i")}}, {x, {E::Var("i")}}})));
  for (float f : XgbScheduleFeatures(copy_only, two)) EXPECT_EQ(f, 0.0f);
}

TEST(Roofline, CalibrationIsOneScalePerKind) {
  const MachineProfile profile = SmallProfile();
  // Measured = 3 × the estimate for dense, so the fitted scale is 3 and predictions match.
  const PerfCorpus corpus = SyntheticCorpus(
      {"dense:M=16,N=64,K=32,bias=1"}, 20,
      [&](const LoopNest& nest) { return 3.0 * EstimateRoofline(nest, profile).time_s; });
  ASSERT_GE(corpus.records.size(), 10u);
  auto calibrated = MakeRooflinePredictor(profile, true);
  calibrated->Fit(All(corpus));
  const std::vector<double> p = calibrated->PredictSeconds(All(corpus));
  for (size_t i = 0; i < p.size(); ++i) EXPECT_NEAR(p[i] / corpus.records[i].time_s, 1.0, 1e-9);
  EXPECT_NEAR(calibrated->Describe()["scale_per_kind"]["dense"].get<double>(), 3.0, 1e-9);
  auto raw = MakeRooflinePredictor(profile, false);
  raw->Fit(All(corpus));
  EXPECT_NEAR(raw->PredictSeconds(All(corpus))[0] * 3.0, corpus.records[0].time_s, 1e-15);
}

TEST(MachineProfile, ShippedDefaultLoadsAndBadFieldsAreNamed) {
  const MachineProfile profile = LoadMachineProfile(DefaultMachineProfilePath());
  EXPECT_GT(profile.peak_gflops, 0.0);
  ASSERT_EQ(profile.levels.size(), 4u);
  EXPECT_EQ(profile.levels.back().name, "DRAM");
  Json bad = {{"format", "glimpse-machine-profile"}, {"version", 1}, {"peak_gflops", -1}};
  try {
    MachineProfileFromJson(bad, "p.json");
    FAIL();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("p.json: field 'peak_gflops'"), std::string::npos);
  }
}

TEST(XgbPerfPredictor, LearnsASyntheticRelationOnHeldOutRecords) {
  // The "time" is the number of loops times the tile's volume: a relation of the program that the
  // configuration's knobs give only indirectly.
  auto truth = [](const LoopNest& nest) {
    double loops = 0.0;
    std::function<void(const std::vector<Node>&)> walk = [&](const std::vector<Node>& body) {
      for (const Node& node : body) {
        if (node.is_loop) {
          loops += 1.0;
          walk(node.body);
        }
      }
    };
    walk(nest.body);
    double tile = 1.0;
    for (int64_t size : ProgramTileSizes(nest)) tile *= static_cast<double>(size);
    return 1e-6 * loops * std::sqrt(tile);
  };
  const PerfCorpus corpus =
      SyntheticCorpus({"dense:M=64,N=64,K=64,bias=1", "dense:M=32,N=128,K=64,bias=0"}, 150, truth);
  const PerfSplit split = SplitRandom(corpus, 0.25, 3);
  XgbPerfOptions options;
  options.rounds = 100;
  auto xgb = MakeXgbPerfPredictor(options);
  xgb->Fit(split.train);
  const std::vector<double> p = xgb->PredictSeconds(split.test);
  const WithinOperatorTau tau = KendallTauWithinOperator(split.test, p);
  EXPECT_EQ(tau.operators, 2);
  EXPECT_GT(tau.mean, 0.7);
  EXPECT_LT(MapeOfRecords(split.test, p, 0.0), 25.0);
  EXPECT_EQ(static_cast<int>(XgbPerfFeatures(RecordNest(corpus.records[0])).size()),
            XgbPerfFeatureWidth());
}

TEST(PerfPredictors, ByNameListsTheKnownOnes) {
  PerfPredictorOptions options;
  options.profile = SmallProfile();
  EXPECT_EQ(MakePerfPredictor("roofline-cal", options)->Name(), "roofline-cal");
  EXPECT_EQ(MakePerfPredictor("xgb", options)->Name(), "xgb");
  EXPECT_EQ(MakePerfPredictor("xgb-rank", options)->Name(), "xgb-rank");
  // The -roofline variants add the roofline's terms on the options' profile to the features.
  for (const std::string name : {"xgb-roofline", "xgb-rank-roofline"}) {
    const auto predictor = MakePerfPredictor(name, options);
    EXPECT_EQ(predictor->Name(), name);
    EXPECT_EQ(predictor->Describe().at("width"), XgbPerfFeatureWidth() + 8) << name;
    EXPECT_NE(predictor->Describe().at("features").get<std::string>().find("profile test"),
              std::string::npos);
  }
  // The -schedule variants add the schedule's ratios on the same profile.
  for (const std::string name : {"xgb-roofline-schedule", "xgb-rank-roofline-schedule",
                                 "xgb-efficiency-roofline-schedule"}) {
    const auto predictor = MakePerfPredictor(name, options);
    EXPECT_EQ(predictor->Name(), name);
    EXPECT_EQ(predictor->Describe().at("width"),
              XgbPerfFeatureWidth() + 8 + kXgbScheduleFeatureWidth)
        << name;
  }
  EXPECT_NE(MakePerfPredictor("xgb-rank-roofline", options)
                ->Describe()["objective"]
                .get<std::string>()
                .find("rank:pairwise"),
            std::string::npos);
  EXPECT_NE(MakePerfPredictor("xgb-efficiency-roofline-schedule", options)
                ->Describe()["objective"]
                .get<std::string>()
                .find("log(time_s / the roofline's estimate)"),
            std::string::npos);
  EXPECT_EQ(MakePerfPredictor("xgb", options)->Describe().at("width"), XgbPerfFeatureWidth());
  EXPECT_NE(MakePerfPredictor("xgb-rank", options)
                ->Describe()["objective"]
                .get<std::string>()
                .find("rank:pairwise"),
            std::string::npos);
  try {
    MakePerfPredictor("gnn", options);
    FAIL();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what())
                  .find("known: roofline, roofline-cal, xgb, xgb-rank, xgb-roofline, "
                        "xgb-rank-roofline, xgb-roofline-schedule, xgb-rank-roofline-schedule, "
                        "xgb-efficiency-roofline-schedule, graphsage, lstm, graphsage-efficiency, "
                        "lstm-efficiency, file:MODEL.json"),
              std::string::npos)
        << error.what();
  }
  // The learned models train with libtorch, which this library leaves to its caller.
  try {
    MakePerfPredictor("graphsage", options);
    FAIL();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("libtorch"), std::string::npos) << error.what();
  }
  bool asked = false;
  options.learned = [&](const std::string& architecture) {
    asked = architecture == "lstm";
    return MakePerfPredictor("roofline", options);
  };
  MakePerfPredictor("lstm", options);
  EXPECT_TRUE(asked);
  // The networks relative to the roofline reach the caller's factory under their own names.
  std::string named;
  options.learned = [&](const std::string& name) {
    named = name;
    return MakePerfPredictor("roofline", options);
  };
  MakePerfPredictor("graphsage-efficiency", options);
  EXPECT_EQ(named, "graphsage-efficiency");
  EXPECT_THROW(MakePerfPredictor("file:/nonexistent/model.json", options), Error);
}

}  // namespace
}  // namespace glimpse
