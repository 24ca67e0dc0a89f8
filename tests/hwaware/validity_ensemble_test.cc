// The validity ensemble: training on synthetic GPUs whose invalid configurations follow their
// specification, generalisation to an unseen GPU, the τ vote, the model file, and
// `glimpse train validity` end to end.
#include "glimpse/validity_ensemble.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "glimpse/error.h"
#include "test_paths.h"

namespace glimpse {
namespace {

using testing::CommandRun;
using testing::MakeTempDir;
using testing::RepoDataPath;
using testing::RunGlimpseCommand;

// ---- Synthetic GPUs and spaces

// A GPU like the RTX 3090 but with its own thread and shared-memory limits.
GpuSpec SyntheticGpu(const std::string& name, int64_t max_threads, int64_t shared_bytes) {
  GpuSpec gpu = LookupGpu("RTX_3090");
  gpu.name = name;
  gpu.aliases.clear();
  gpu.max_threads_per_block = max_threads;
  gpu.shared_memory_per_block_bytes = shared_bytes;
  return gpu;
}

// A Blueprint of the two fields that decide validity here.
Blueprint TwoFieldBlueprint(const std::vector<GpuSpec>& gpus) {
  BlueprintOptions options;
  options.criterion = ComponentCriterion::kFixed;
  options.components = 2;
  return Blueprint::Fit(
      gpus, options, {{"max_threads_per_block", false}, {"shared_memory_per_block_bytes", false}});
}

ConfigSpace ThreadsSmemSpace(bool with_unroll) {
  ConfigSpace space;
  space.AddKnob(Knob::Ordered("threads", {int64_t{32}, int64_t{64}, int64_t{128}, int64_t{256},
                                          int64_t{512}, int64_t{1024}, int64_t{2048}}));
  std::vector<KnobValue> smem;
  for (int64_t kb = 8; kb <= 192; kb += 8) smem.emplace_back(std::in_place_type<int64_t>, kb);
  space.AddKnob(Knob::Ordered("smem_kb", smem));
  if (with_unroll) space.AddKnob(Knob::Ordered("unroll", {int64_t{0}, int64_t{1}}));
  return space;
}

// Every configuration recorded: invalid (compile-device) when it asks for more threads or shared
// memory than the GPU allows; otherwise ok, faster with more threads and more shared memory.
std::shared_ptr<RecordedSpace> SyntheticRecorded(const GpuSpec& gpu, bool with_unroll) {
  auto recorded = std::make_shared<RecordedSpace>();
  recorded->kernel_name = "synthetic";
  recorded->device_name = gpu.name;
  recorded->source_path = "synthetic/" + gpu.name + ".json";
  recorded->space = ThreadsSmemSpace(with_unroll);
  for (uint64_t i = 0; i < recorded->space.RawSize(); ++i) {
    Config c = recorded->space.FromDenseIndex(i);
    double threads =
        static_cast<double>(std::get<int64_t>(recorded->space.knobs()[0].ValueAt(c.indices[0])));
    double kb =
        static_cast<double>(std::get<int64_t>(recorded->space.knobs()[1].ValueAt(c.indices[1])));
    RecordedEntry entry;
    bool valid = threads <= gpu.max_threads_per_block &&
                 kb * 1024 <= static_cast<double>(gpu.shared_memory_per_block_bytes);
    entry.status = valid ? MeasureStatus::kOk : MeasureStatus::kCompileDevice;
    entry.time_s = valid ? 1.0 / (threads * kb) : 0.0;
    recorded->entries[i] = entry;
  }
  return recorded;
}

struct Synthetic {
  std::vector<GpuSpec> train_gpus;
  GpuSpec unseen;
  std::vector<std::shared_ptr<RecordedSpace>> recorded;
  std::vector<ValidityTrainingSpace> spaces;
};

Synthetic MakeSynthetic(bool with_unroll) {
  Synthetic s;
  // Limits that vary independently, so that the Blueprint separates the two.
  s.train_gpus = {SyntheticGpu("gpu-a", 256, 48 * 1024), SyntheticGpu("gpu-b", 512, 160 * 1024),
                  SyntheticGpu("gpu-c", 1024, 64 * 1024), SyntheticGpu("gpu-d", 1024, 128 * 1024),
                  SyntheticGpu("gpu-e", 512, 96 * 1024)};
  s.unseen = SyntheticGpu("gpu-unseen", 1024, 100 * 1024);
  for (const GpuSpec& gpu : s.train_gpus) {
    s.recorded.push_back(SyntheticRecorded(gpu, with_unroll));
    s.spaces.push_back({s.recorded.back(), gpu, "synthetic"});
  }
  return s;
}

ValidityEnsembleOptions SmallRidge() {
  ValidityEnsembleOptions options;
  options.ridge_lambda = 0.01;  // five exact GPUs: little shrinkage needed
  return options;
}

TEST(ValidityEnsembleTest, RejectsTheInvalidConfigurationsOfAnUnseenGpu) {
  Synthetic s = MakeSynthetic(false);
  std::vector<GpuSpec> all = s.train_gpus;
  all.push_back(s.unseen);
  Blueprint blueprint = TwoFieldBlueprint(all);
  ValidityEnsembleModel model = ValidityEnsembleModel::Train(s.spaces, blueprint, SmallRidge());
  ASSERT_EQ(model.kernels().size(), 1u);
  const KernelValidityModel& kernel = model.kernels()[0];
  ASSERT_EQ(kernel.predictors.size(), 2u);
  for (const KnobPredictor& p : kernel.predictors) {
    EXPECT_EQ(p.direction, ThresholdDirection::kInvalidAbove) << p.feature;
    EXPECT_EQ(p.scale, FeatureScale::kLog2) << p.feature;
    // Each knob sees only its own cause of failure: the other knob's failures blur it.
    EXPECT_GT(p.mean_balanced_accuracy, 0.65) << p.feature;
  }
  // gpu-a allows 256 threads and 48 KiB: its own thresholds lie between the last valid value and
  // the first invalid one (log2 units).
  EXPECT_GT(kernel.predictors[0].training[0].threshold, std::log2(256.0));
  EXPECT_LT(kernel.predictors[0].training[0].threshold, std::log2(512.0));
  EXPECT_GT(kernel.predictors[1].training[0].threshold, std::log2(48.0));
  EXPECT_LT(kernel.predictors[1].training[0].threshold, std::log2(56.0));

  std::shared_ptr<RecordedSpace> unseen = SyntheticRecorded(s.unseen, false);
  ValidityEnsemble ensemble = model.ForSpace("synthetic", unseen->space, s.unseen, blueprint);
  EXPECT_EQ(ensemble.voters(), 2);
  ValidityEvaluation e = EvaluateEnsemble(ensemble, *unseen);
  ASSERT_GT(e.failures, 0);
  EXPECT_GE(e.FailureRecall(), 0.9) << e.failures_rejected << " of " << e.failures;
  EXPECT_LE(e.FalseRejectionRate(), 0.1) << e.valid_rejected << " of " << e.valid;
  EXPECT_FALSE(e.best_rejected);

  // The unseen GPU's thresholds lie between its limits and the next values (log2 units).
  for (const auto& [feature, threshold] : ensemble.Thresholds()) {
    if (feature == "threads") {
      EXPECT_GT(threshold, std::log2(1024.0)) << threshold;
      EXPECT_LT(threshold, std::log2(2048.0)) << threshold;
    } else {
      EXPECT_GT(threshold, std::log2(96.0) - 0.05) << threshold;
      EXPECT_LT(threshold, std::log2(112.0) + 0.05) << threshold;
    }
  }

  // A GPU with lower limits gets lower thresholds: the generator follows the Blueprint.
  GpuSpec small = SyntheticGpu("gpu-small", 256, 48 * 1024);
  ValidityEnsemble strict = model.ForSpace("synthetic", unseen->space, small, blueprint);
  ValidityEvaluation on_unseen = EvaluateEnsemble(strict, *unseen);
  EXPECT_GT(on_unseen.valid_rejected, e.valid_rejected);
}

TEST(ValidityEnsembleTest, UninformativeKnobAlwaysVotesValidAndDilutesTheVoteUnlessItAbstains) {
  Synthetic s = MakeSynthetic(true);
  Blueprint blueprint = TwoFieldBlueprint(s.train_gpus);
  ValidityEnsembleModel model = ValidityEnsembleModel::Train(s.spaces, blueprint, SmallRidge());
  const KernelValidityModel& kernel = model.kernels()[0];
  ASSERT_EQ(kernel.predictors.size(), 3u);
  const KnobPredictor& unroll = kernel.predictors[2];
  EXPECT_EQ(unroll.feature, "unroll");
  EXPECT_FALSE(unroll.informative());
  EXPECT_NE(unroll.note.find("separates no failures"), std::string::npos) << unroll.note;

  const RecordedSpace& recorded = *s.recorded[0];  // gpu-a: 256 threads, 48 KiB
  Config too_many_threads =
      recorded.space.ConfigFromJson({{"threads", 1024}, {"smem_kb", 16}, {"unroll", 1}});
  Config both_too_large =
      recorded.space.ConfigFromJson({{"threads", 1024}, {"smem_kb", 96}, {"unroll", 0}});
  // Three voters at τ = 1/3: one invalid vote is not "more than a third".
  ValidityEnsemble faithful =
      model.ForSpace("synthetic", recorded.space, s.train_gpus[0], blueprint);
  EXPECT_EQ(faithful.voters(), 3);
  EXPECT_EQ(faithful.InvalidVotes(too_many_threads), 1);
  EXPECT_TRUE(faithful.IsValid(too_many_threads));
  EXPECT_FALSE(faithful.IsValid(both_too_large));

  ValidityEnsembleOptions abstain = SmallRidge();
  abstain.abstain_uninformative = true;
  ValidityEnsemble bound(kernel, recorded.space, blueprint.Embed(s.train_gpus[0]), abstain);
  EXPECT_EQ(bound.voters(), 2);
  EXPECT_FALSE(bound.IsValid(too_many_threads));
}

// Three hand-made predictors with fixed thresholds (no Blueprint dependence).
KernelValidityModel ThreeKnobModel() {
  KernelValidityModel model;
  model.name = "three";
  model.knobs = {"a", "b", "c"};
  for (const std::string name : {"a", "b", "c"}) {
    KnobPredictor p;
    p.feature = name;
    p.knobs = {name};
    p.scale = FeatureScale::kLog2;
    p.direction = ThresholdDirection::kInvalidAbove;
    p.weights = {0.0};
    p.bias = 1.5;  // invalid above 2 (log2 2 = 1 < 1.5 < 2 = log2 4)
    model.predictors.push_back(p);
  }
  return model;
}

ConfigSpace ThreeKnobSpace() {
  ConfigSpace space;
  for (const std::string name : {"a", "b", "c"}) {
    space.AddKnob(Knob::Ordered(name, {int64_t{1}, int64_t{2}, int64_t{4}, int64_t{8}}));
  }
  return space;
}

TEST(ValidityEnsembleTest, TauCountsVotesAtTheBoundary) {
  KernelValidityModel model = ThreeKnobModel();
  ConfigSpace space = ThreeKnobSpace();
  Config none{{0, 1, 1}}, one{{3, 1, 0}}, two{{2, 3, 1}}, three{{2, 2, 3}};
  ValidityEnsembleOptions options;  // τ = 1/3
  ValidityEnsemble third(model, space, {0.0}, options);
  EXPECT_EQ(third.InvalidVotes(none), 0);
  EXPECT_EQ(third.InvalidVotes(one), 1);
  EXPECT_EQ(third.InvalidVotes(two), 2);
  EXPECT_EQ(third.InvalidVotes(three), 3);
  EXPECT_TRUE(third.IsValid(none));
  EXPECT_TRUE(third.IsValid(one));  // 1 of 3 is not more than 1/3
  EXPECT_FALSE(third.IsValid(two));
  EXPECT_FALSE(third.IsValid(three));
  EXPECT_EQ(third.Filter({none, one, two, three}), (std::vector<Config>{none, one}));

  options.tau = 0.333;  // as typed on a command line: the same as 1/3
  EXPECT_TRUE(ValidityEnsemble(model, space, {0.0}, options).IsValid(one));
  options.tau = 0.0;  // any invalid vote rejects
  EXPECT_EQ(ValidityEnsemble(model, space, {0.0}, options).Filter({none, one, two}),
            std::vector<Config>{none});
  options.tau = 2.0 / 3.0;  // 2 of 3 is not more than 2/3
  ValidityEnsemble two_thirds(model, space, {0.0}, options);
  EXPECT_TRUE(two_thirds.IsValid(two));
  EXPECT_FALSE(two_thirds.IsValid(three));

  // The threshold moves with the Blueprint: w = 1 on the only component.
  for (KnobPredictor& p : model.predictors) p.weights = {1.0};
  ValidityEnsemble shifted(model, space, {1.0}, ValidityEnsembleOptions{});  // threshold 2.5
  EXPECT_EQ(shifted.InvalidVotes(three), 1);  // only c = 8 (log2 3 > 2.5)
  EXPECT_EQ(shifted.InvalidVotes(Config{{3, 3, 0}}), 2);
}

TEST(ValidityEnsembleTest, ModelFileRoundTrip) {
  Synthetic s = MakeSynthetic(true);
  Blueprint blueprint = TwoFieldBlueprint(s.train_gpus);
  ValidityEnsembleOptions options = SmallRidge();
  options.derived_features = true;
  ValidityEnsembleModel model = ValidityEnsembleModel::Train(s.spaces, blueprint, options);
  model.set_made_by("test");
  std::string path = MakeTempDir("glimpse-hwaware") + "/model.json";
  model.Save(path);
  ValidityEnsembleModel loaded = ValidityEnsembleModel::Load(path);
  EXPECT_EQ(loaded.ToJson(), model.ToJson());
  EXPECT_EQ(loaded.made_by(), "test");
  EXPECT_TRUE(loaded.options().derived_features);
  EXPECT_EQ(loaded.blueprint_components(), 2);

  std::shared_ptr<RecordedSpace> unseen = SyntheticRecorded(s.unseen, true);
  ValidityEnsemble a = model.ForSpace("synthetic", unseen->space, s.unseen, blueprint);
  ValidityEnsemble b = loaded.ForSpace("synthetic", unseen->space, s.unseen, blueprint);
  for (uint64_t i = 0; i < unseen->space.RawSize(); ++i) {
    Config c = unseen->space.FromDenseIndex(i);
    ASSERT_EQ(a.InvalidVotes(c), b.InvalidVotes(c));
  }
}

TEST(ValidityEnsembleTest, RefusesAnotherVersionOrFormatAndUnknownSpaces) {
  Synthetic s = MakeSynthetic(false);
  Blueprint blueprint = TwoFieldBlueprint(s.train_gpus);
  ValidityEnsembleModel model = ValidityEnsembleModel::Train(s.spaces, blueprint, SmallRidge());
  Json json = model.ToJson();
  json["version"] = 2;
  try {
    ValidityEnsembleModel::FromJson(json, "old.json");
    FAIL() << "version 2 was accepted";
  } catch (const Error& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("old.json"), std::string::npos) << message;
    EXPECT_NE(message.find("version 2"), std::string::npos) << message;
    EXPECT_NE(message.find("version 1"), std::string::npos) << message;
    EXPECT_NE(message.find("glimpse train validity"), std::string::npos) << message;
  }
  json["version"] = 1;
  json["format"] = "glimpse-blueprint";
  EXPECT_THROW(ValidityEnsembleModel::FromJson(json, "x.json"), Error);

  ConfigSpace other = ThreeKnobSpace();
  try {
    model.ForSpace("synthetic", other, std::vector<double>{0.0, 0.0});
    FAIL() << "a space of other knobs was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("synthetic (threads, smem_kb)"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(model.ForSpace("synthetic", s.recorded[0]->space, std::vector<double>{0.0}), Error);
}

TEST(ValidityEnsembleTest, TwoSpacesOfOneGpuAreRefused) {
  Synthetic s = MakeSynthetic(false);
  s.spaces.push_back(s.spaces[0]);
  EXPECT_THROW(ValidityEnsembleModel::Train(s.spaces, TwoFieldBlueprint(s.train_gpus)), Error);
}

// ---- The command line

// A Kernel Tuner cache of a kernel whose shared memory (smem_kb KiB) may not exceed the real
// GPU's per-block limit.
void WriteSyntheticCache(const std::string& path, const std::string& alias) {
  const GpuSpec& gpu = LookupGpu(alias);
  Json file = {{"device_name", gpu.name},
               {"kernel_name", "smem_kernel"},
               {"problem_size", 1024},
               {"tune_params_keys", {"block_size_x", "smem_kb"}},
               {"objective", "time"}};
  std::vector<int64_t> blocks = {32, 64, 128, 256}, smem;
  for (int64_t kb = 16; kb <= 192; kb += 16) smem.push_back(kb);
  file["tune_params"] = {{"block_size_x", blocks}, {"smem_kb", smem}};
  Json cache = Json::object();
  for (int64_t bx : blocks) {
    for (int64_t kb : smem) {
      Json entry = {
          {"block_size_x", bx}, {"smem_kb", kb}, {"compile_time", 1.0}, {"benchmark_time", 2.0}};
      if (kb * 1024 > gpu.shared_memory_per_block_bytes) {
        entry["time"] = "CompilationFailedConfig";
      } else {
        double t = 100.0 / static_cast<double>(bx * kb);
        entry["time"] = t;
        entry["times"] = {t, t};
      }
      cache[std::to_string(bx) + "," + std::to_string(kb)] = entry;
    }
  }
  file["cache"] = cache;
  std::ofstream(path) << file.dump();
}

TEST(TrainValidityCommandTest, TrainsOnARecordedSpaceOfTheRepository) {
  std::string dir = MakeTempDir("glimpse-train");
  std::string model_path = dir + "/pnpoly.json";
  CommandRun run = RunGlimpseCommand("train validity --spaces " +
                                         RepoDataPath("recorded/pnpoly/RTX_3090.json.gz") +
                                         " --out " + model_path,
                                     dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("pnpoly (1 GPUs)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("NVIDIA GeForce RTX 3090"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("wrote " + model_path), std::string::npos) << run.out;
  ValidityEnsembleModel model = ValidityEnsembleModel::Load(model_path);
  ASSERT_EQ(model.kernels().size(), 1u);
  EXPECT_EQ(model.kernels()[0].name, "pnpoly");
  EXPECT_EQ(model.kernels()[0].kernel, "cn_pnpoly");
  EXPECT_NE(model.made_by().find("glimpse train validity --spaces"), std::string::npos);
  EXPECT_NEAR(model.options().tau, 1.0 / 3.0, 1e-9);
  // The 318 recorded runtime failures of pnpoly on the RTX 3090 are partly threshold-shaped.
  RecordedSpace recorded = LoadRecordedSpace(RepoDataPath("recorded/pnpoly/RTX_3090.json.gz"));
  ValidityEnsemble ensemble =
      model.ForSpace("pnpoly", recorded.space, LookupGpu("RTX_3090"), Blueprint::Default());
  ValidityEvaluation e = EvaluateEnsemble(ensemble, recorded);
  EXPECT_EQ(e.failures, 318);
  EXPECT_GT(e.failures_rejected, 0);
  EXPECT_LT(e.FalseRejectionRate(), 0.5);
}

TEST(TrainValidityCommandTest, SeveralGpusWithAnExcludedOneAndErrors) {
  std::string dir = MakeTempDir("glimpse-train");
  std::filesystem::create_directories(dir + "/spaces/smem");
  for (const std::string alias : {"RTX_2080_Ti", "RTX_3090", "A100", "RTX_Titan"}) {
    WriteSyntheticCache(dir + "/spaces/smem/" + alias + ".json", alias);
  }
  std::ofstream(dir + "/spaces/smem/notes.json") << "{\"not\": \"a space\"}";
  std::string model_path = dir + "/model.json";
  CommandRun run = RunGlimpseCommand("train validity --spaces " + dir +
                                         "/spaces --exclude-device A100 --tau 0.25"
                                         " --out " +
                                         model_path,
                                     dir);
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
  EXPECT_NE(run.out.find("A100.json: NVIDIA A100-PCIE-40GB is excluded"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("notes.json: not a recorded space"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("smem (3 GPUs)"), std::string::npos) << run.out;
  for (const std::string name :
       {"NVIDIA GeForce RTX 2080 Ti", "NVIDIA GeForce RTX 3090", "NVIDIA TITAN RTX"}) {
    EXPECT_NE(run.out.find(name), std::string::npos) << name << "\n" << run.out;
  }
  ValidityEnsembleModel model = ValidityEnsembleModel::Load(model_path);
  ASSERT_EQ(model.kernels().size(), 1u);
  const KernelValidityModel& kernel = model.kernels()[0];
  EXPECT_EQ(kernel.training.size(), 3u);
  EXPECT_NEAR(model.options().tau, 0.25, 1e-12);
  ASSERT_EQ(kernel.predictors.size(), 2u);
  EXPECT_FALSE(kernel.predictors[0].informative());  // block_size_x decides nothing
  EXPECT_EQ(kernel.predictors[1].direction, ThresholdDirection::kInvalidAbove);
  // On its training GPUs the smem threshold rejects exactly the failures.
  RecordedSpace rtx3090 = LoadRecordedSpace(dir + "/spaces/smem/RTX_3090.json");
  ValidityEvaluation e = EvaluateEnsemble(
      model.ForSpace("smem", rtx3090.space, LookupGpu("RTX_3090"), Blueprint::Default()), rtx3090);
  EXPECT_GT(e.failures, 0);
  EXPECT_EQ(e.failures_rejected, e.failures);
  EXPECT_EQ(e.valid_rejected, 0);

  CommandRun bad_tau = RunGlimpseCommand(
      "train validity --spaces " + dir + "/spaces --tau 1.5 --out " + dir + "/x.json", dir);
  EXPECT_EQ(bad_tau.exit_code, 2);
  EXPECT_NE(bad_tau.err.find("tau 1.5 is out of range"), std::string::npos) << bad_tau.err;
  CommandRun bad_device =
      RunGlimpseCommand("train validity --spaces " + dir +
                            "/spaces --exclude-device NoSuchGpu --out " + dir + "/x.json",
                        dir);
  EXPECT_EQ(bad_device.exit_code, 2);
  EXPECT_NE(bad_device.err.find("NoSuchGpu"), std::string::npos) << bad_device.err;
}

}  // namespace
}  // namespace glimpse
