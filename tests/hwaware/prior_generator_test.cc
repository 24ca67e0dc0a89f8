// The prior generator H(Π, Θ): recovering a spec-dependent best value for an unseen GPU, the
// initial-samples enumeration, the sampler, the model file, and `glimpse train prior` end to end.
#include "glimpse/prior_generator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "glimpse/error.h"
#include "test_paths.h"

namespace glimpse {
namespace {

using testing::CommandRun;
using testing::MakeTempDir;
using testing::RepoDataPath;
using testing::RunGlimpseCommand;

// ---- Synthetic GPUs whose best tile follows their shared memory

// A GPU like the RTX 3090 with `smem_kb` KiB of shared memory per SM.
GpuSpec SmemGpu(int64_t smem_kb) {
  GpuSpec gpu = LookupGpu("RTX_3090");
  gpu.name = "synthetic-" + std::to_string(smem_kb);
  gpu.aliases.clear();
  gpu.shared_memory_per_sm_bytes = smem_kb * 1024;
  return gpu;
}

Blueprint SmemBlueprint(const std::vector<GpuSpec>& gpus) {
  BlueprintOptions options;
  options.criterion = ComponentCriterion::kFixed;
  options.components = 1;
  return Blueprint::Fit(gpus, options, {{"shared_memory_per_sm_bytes", true}});
}

ConfigSpace TileSpace() {
  ConfigSpace space;
  std::vector<KnobValue> tiles;
  for (int64_t t = 8; t <= 256; t *= 2) tiles.emplace_back(t);
  space.AddKnob(Knob::Ordered("tile", tiles));
  space.AddKnob(Knob::Ordered("unroll", {int64_t{1}, int64_t{2}, int64_t{4}, int64_t{8}}));
  space.AddKnob(Knob::Ordered("flag", {int64_t{0}, int64_t{1}}));
  return space;
}

// Fastest where tile = shared memory per SM in KiB / 4 and unroll = 2; flag does not matter.
std::shared_ptr<RecordedSpace> TileRecorded(const GpuSpec& gpu) {
  auto recorded = std::make_shared<RecordedSpace>();
  recorded->kernel_name = "tiled";
  recorded->device_name = gpu.name;
  recorded->source_path = "tiled/" + gpu.name + ".json";
  recorded->space = TileSpace();
  double best_tile = static_cast<double>(gpu.shared_memory_per_sm_bytes) / 1024.0 / 4.0;
  for (uint64_t i = 0; i < recorded->space.RawSize(); ++i) {
    Config c = recorded->space.FromDenseIndex(i);
    auto value = [&](size_t k) {
      return static_cast<double>(
          std::get<int64_t>(recorded->space.knobs()[k].ValueAt(c.indices[k])));
    };
    RecordedEntry entry;
    entry.status = MeasureStatus::kOk;
    entry.time_s = 1.0 + std::fabs(std::log2(value(0) / best_tile)) +
                   0.5 * std::fabs(std::log2(value(1) / 2.0));
    recorded->entries[i] = entry;
  }
  return recorded;
}

PriorTrainingOptions FastOptions() {
  PriorTrainingOptions options;
  options.top_fraction = 0.04;  // 2 of 48: the best tile and unroll, either flag
  options.epochs = 400;
  options.learning_rate = 0.01;
  return options;
}

struct Synthetic {
  std::vector<GpuSpec> train_gpus;
  GpuSpec unseen;
  Blueprint blueprint;
  std::vector<PriorTrainingExample> examples;
};

Synthetic MakeSynthetic() {
  Synthetic s;
  // Best tiles 8, 16, 64, 128, 256 in training; the unseen GPU's is 32.
  for (int64_t kb : {32, 64, 256, 512, 1024}) s.train_gpus.push_back(SmemGpu(kb));
  s.unseen = SmemGpu(128);
  s.blueprint = SmemBlueprint(s.train_gpus);
  std::vector<ValidityTrainingSpace> spaces;
  for (const GpuSpec& gpu : s.train_gpus) spaces.push_back({TileRecorded(gpu), gpu, "tiled"});
  s.examples = MakePriorExamples(spaces, s.blueprint, FastOptions().top_fraction);
  return s;
}

size_t ArgMax(const std::vector<double>& row) {
  return std::max_element(row.begin(), row.end()) - row.begin();
}

// Training runs on one torch thread (PriorGenerator::Train sets it), so these are deterministic.
class PriorGeneratorTest : public ::testing::Test {};

TEST_F(PriorGeneratorTest, TargetsAreTheTopConfigurationsPerKnob) {
  Synthetic s = MakeSynthetic();
  ASSERT_EQ(s.examples.size(), 5u);
  const PriorTrainingExample& e = s.examples[0];  // best tile 8, unroll 2
  EXPECT_EQ(e.top_count, 2);
  EXPECT_EQ(e.target[0], (std::vector<double>{1, 0, 0, 0, 0, 0}));
  EXPECT_EQ(e.target[1], (std::vector<double>{0, 1, 0, 0}));
  EXPECT_EQ(e.target[2], (std::vector<double>{0.5, 0.5}));
  EXPECT_THROW(TopConfigurationTargets(*TileRecorded(s.unseen), 0.0), Error);
}

TEST_F(PriorGeneratorTest, RecoversTheSpecDependenceForAnUnseenGpu) {
  Synthetic s = MakeSynthetic();
  PriorTrainingReport report;
  PriorGenerator model = PriorGenerator::Train(s.examples, FastOptions(), &report);
  EXPECT_LT(report.final_loss, report.initial_loss * 0.5);
  PriorTask task{"tiled", {}};
  // Every training GPU gets its own best tile back...
  for (size_t g = 0; g < s.train_gpus.size(); ++g) {
    PriorDistribution d = model.Distribution(TileSpace(), task, s.train_gpus[g], s.blueprint);
    EXPECT_EQ(ArgMax(d[0]), ArgMax(s.examples[g].target[0])) << s.train_gpus[g].name;
  }
  // ...and the unseen one (128 KiB per SM → tile 32, index 2) its own, from its Θ alone.
  PriorDistribution d = model.Distribution(TileSpace(), task, s.unseen, s.blueprint);
  EXPECT_EQ(ArgMax(d[0]), 2u);
  EXPECT_EQ(ArgMax(d[1]), 1u);
  EXPECT_NEAR(d[2][0], 0.5, 0.15);
  std::vector<Config> first = model.InitialConfigs(TileSpace(), task, s.unseen, s.blueprint, 3);
  ASSERT_EQ(first.size(), 3u);
  EXPECT_EQ(first[0].indices[0], 2u);
  EXPECT_EQ(first[0].indices[1], 1u);
  // A Blueprint vector of the wrong size is refused.
  EXPECT_THROW(model.Distribution(TileSpace(), task, std::vector<double>{0.0, 1.0}), Error);
}

TEST_F(PriorGeneratorTest, TrainingIsDeterministic) {
  Synthetic s = MakeSynthetic();
  PriorTrainingOptions options = FastOptions();
  options.epochs = 50;
  PriorGenerator a = PriorGenerator::Train(s.examples, options);
  PriorGenerator b = PriorGenerator::Train(s.examples, options);
  PriorTask task{"tiled", {}};
  EXPECT_EQ(a.Distribution(TileSpace(), task, s.unseen, s.blueprint),
            b.Distribution(TileSpace(), task, s.unseen, s.blueprint));
}

// ---- Initial samples: products of probabilities, restrictions respected

TEST(PriorEnumerationTest, OrdersByProductOfProbabilitiesAndSkipsRestricted) {
  ConfigSpace space;
  space.AddKnob(Knob::Ordered("a", {int64_t{1}, int64_t{2}, int64_t{3}}));
  space.AddKnob(Knob::Ordered("b", {int64_t{1}, int64_t{2}}));
  space.AddKnob(Knob::Ordered("c", {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{4}}));
  space.AddRestriction("a * b != 6");
  PriorDistribution d = {{0.2, 0.5, 0.3}, {0.35, 0.65}, {0.1, 0.4, 0.3, 0.2}};
  // Brute force: every valid configuration by decreasing product.
  std::vector<std::pair<double, Config>> all;
  for (uint64_t i = 0; i < space.RawSize(); ++i) {
    Config c = space.FromDenseIndex(i);
    if (space.IsValid(c)) all.emplace_back(std::exp(LogProbability(d, c)), c);
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const auto& x, const auto& y) { return x.first > y.first; });
  std::vector<Config> got = EnumerateByProbability(space, d, all.size() + 5);
  ASSERT_EQ(got.size(), all.size());  // every valid one, once
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(std::exp(LogProbability(d, got[i])), all[i].first, 1e-12) << i;
    EXPECT_TRUE(space.IsValid(got[i]));
  }
  // The most likely of all (a=2, b=2, c=2) has a·b = 4 and comes first; (a=3, b=2) never does.
  EXPECT_EQ(got[0].indices, (std::vector<uint32_t>{1, 1, 1}));
  for (const Config& c : got) EXPECT_FALSE(c.indices[0] == 2 && c.indices[1] == 1);
  // An accept predicate is a further restriction.
  auto no_c2 = [](const Config& c) { return c.indices[2] != 1; };
  std::vector<Config> some = EnumerateByProbability(space, d, 3, no_c2);
  ASSERT_EQ(some.size(), 3u);
  for (const Config& c : some) EXPECT_NE(c.indices[2], 1u);
  EXPECT_EQ(some[0].indices, (std::vector<uint32_t>{1, 1, 2}));
}

TEST(PriorEnumerationTest, SamplerFollowsTheDistributionWithinRestrictions) {
  ConfigSpace space;
  space.AddKnob(Knob::Ordered("a", {int64_t{1}, int64_t{2}, int64_t{3}}));
  space.AddKnob(Knob::Ordered("b", {int64_t{1}, int64_t{2}}));
  space.AddRestriction("a != 3 or b != 2");
  PriorSampler sampler(space, {{0.6, 0.3, 0.1}, {0.5, 0.5}});
  Rng rng(7);
  std::map<std::vector<uint32_t>, int> counts;
  const int draws = 20000;
  for (int i = 0; i < draws; ++i) {
    std::optional<Config> c = sampler.Sample(rng);
    ASSERT_TRUE(c.has_value());
    ASSERT_TRUE(space.IsValid(*c));
    ++counts[c->indices];
  }
  // Conditional on validity (mass 0.95): P(a=1, b=1) = 0.3 / 0.95.
  double a1_b1 = counts[std::vector<uint32_t>{0, 0}] / double(draws);
  double a3_b1 = counts[std::vector<uint32_t>{2, 0}] / double(draws);
  EXPECT_NEAR(a1_b1, 0.3 / 0.95, 0.015);
  EXPECT_NEAR(a3_b1, 0.05 / 0.95, 0.01);
  EXPECT_EQ(counts.count({2, 1}), 0u);
  EXPECT_THROW(PriorSampler(space, {{1.0, 0.0, 0.0}}), Error);
}

TEST(PriorEvaluationTest, ExpectedBestOfRandomIsExact) {
  // Pairs of {0, 0.5, 1}: best 0.5, 1, 1.
  EXPECT_NEAR(ExpectedBestOfRandom({0.0, 0.5, 1.0}, 2), 2.5 / 3.0, 1e-12);
  EXPECT_NEAR(ExpectedBestOfRandom({0.2, 0.4}, 1), 0.3, 1e-12);
  EXPECT_DOUBLE_EQ(ExpectedBestOfRandom({0.2, 0.4}, 5), 0.4);
}

// ---- The model file

TEST_F(PriorGeneratorTest, ModelFileRoundTripsAndRefusesOtherVersions) {
  Synthetic s = MakeSynthetic();
  PriorTrainingOptions options = FastOptions();
  options.epochs = 30;
  PriorGenerator model = PriorGenerator::Train(s.examples, options);
  model.set_made_by("glimpse train prior --spaces synthetic --out model.json");
  std::string dir = MakeTempDir("prior_model");
  std::string path = dir + "/prior.json";
  model.Save(path);
  PriorGenerator loaded = PriorGenerator::Load(path);
  EXPECT_EQ(loaded.made_by(), model.made_by());
  EXPECT_EQ(loaded.blueprint_components(), 1);
  EXPECT_EQ(loaded.options().epochs, 30);
  ASSERT_EQ(loaded.training().size(), 5u);
  EXPECT_EQ(loaded.training()[0].gpu, s.train_gpus[0].name);
  PriorTask task{"tiled", {}};
  PriorDistribution a = model.Distribution(TileSpace(), task, s.unseen, s.blueprint);
  PriorDistribution b = loaded.Distribution(TileSpace(), task, s.unseen, s.blueprint);
  for (size_t k = 0; k < a.size(); ++k) {
    for (size_t v = 0; v < a[k].size(); ++v) EXPECT_DOUBLE_EQ(a[k][v], b[k][v]);
  }

  Json json = model.ToJson();
  EXPECT_EQ(json.at("format"), "glimpse-prior");
  const std::string other = std::to_string(kPriorGeneratorVersion + 1);
  json["version"] = kPriorGeneratorVersion + 1;
  try {
    PriorGenerator::FromJson(json, "old.json");
    FAIL() << "a version-" << other << " file was accepted";
  } catch (const Error& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("old.json"), std::string::npos) << message;
    EXPECT_NE(message.find("version " + other), std::string::npos) << message;
    EXPECT_NE(message.find("reads version " + std::to_string(kPriorGeneratorVersion)),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("glimpse train prior"), std::string::npos) << message;
  }
  json = model.ToJson();
  json["format"] = "glimpse-validity-ensemble";
  EXPECT_THROW(PriorGenerator::FromJson(json, "other.json"), Error);
  json = model.ToJson();
  json["features"]["version"] = 0;
  EXPECT_THROW(PriorGenerator::FromJson(json, "features.json"), Error);
  // Weights of another shape: refused with the layer named.
  json = model.ToJson();
  json["network"]["hidden"] = json["network"]["hidden"].get<int>() + 1;
  try {
    PriorGenerator::FromJson(json, "shape.json");
    FAIL() << "weights of another shape were accepted";
  } catch (const Error& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("shape.json, weights, generator1"), std::string::npos) << message;
    EXPECT_NE(message.find("do not fit"), std::string::npos) << message;
  }
  json = model.ToJson();
  json["weights"]["bias2"]["bias"] = Json::array();
  EXPECT_THROW(PriorGenerator::FromJson(json, "short.json"), Error);
}

// The shipped model (data/models/prior.json) loads with this build and ranks the bundled RTX 3090
// pnpoly space (one of its training spaces) better than random sampling does.
TEST(ShippedPriorTest, LoadsAndBeatsRandomOnABundledSpace) {
  PriorGenerator model = PriorGenerator::Load(RepoDataPath("models/prior.json"));
  EXPECT_EQ(model.blueprint_components(), Blueprint::Default().components());
  RecordedSpace recorded = LoadRecordedSpace(RepoDataPath("recorded/pnpoly/RTX_3090.json.gz"));
  auto recorded_only = [&](const Config& c) {
    return recorded.entries.count(recorded.space.ToDenseIndex(c)) > 0;
  };
  std::vector<Config> first =
      model.InitialConfigs(recorded.space, PriorTaskOf(recorded, "pnpoly"), LookupGpu("RTX_3090"),
                           Blueprint::Default(), 10, recorded_only);
  ASSERT_EQ(first.size(), 10u);
  FirstSamplesQuality q = ScoreFirstSamples(recorded, first, {10});
  EXPECT_GT(q.prior[0], q.random[0]);
}

// ---- The command line

TEST(TrainPriorCommandTest, TrainsOnTheBundledSpaces) {
  std::string dir = MakeTempDir("train_prior");
  std::string model = dir + "/prior.json";
  CommandRun run = RunGlimpseCommand(
      "train prior --spaces " + RepoDataPath("recorded") + " --epochs 40 --out " + model, dir);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("best of 10"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("convolution_milo"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("pnpoly"), std::string::npos) << run.out;
  PriorGenerator loaded = PriorGenerator::Load(model);
  EXPECT_EQ(loaded.training().size(), 2u);
  EXPECT_NE(loaded.made_by().find("glimpse train prior --spaces"), std::string::npos);

  // Leaving out the only GPU of a kernel leaves the other; leaving out both is an error.
  run = RunGlimpseCommand("train prior --spaces " + RepoDataPath("recorded") +
                              " --exclude-device A100 --exclude-device RTX_3090 --epochs 5 --out " +
                              model,
                          dir);
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("no recorded spaces"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace glimpse
