// The performance model's file: a save/load round trip predicts the same, and a file of another
// format, version or program-graph feature version is refused with the file and the remake
// command. No libtorch: the weights are random numbers set here.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "glimpse/error.h"
#include "glimpse/json_file.h"
#include "glimpse/perf_model.h"
#include "glimpse/perf_predictor.h"
#include "glimpse/perf_training.h"
#include "glimpse/program_time_model.h"
#include "perf/perf_network.h"
#include "random_perf_model.h"
#include "synthetic_perf_corpus.h"

namespace glimpse {
namespace {

std::vector<ProgramGraph> SomeGraphs() {
  std::vector<ProgramGraph> graphs;
  Rng rng(3);
  for (const std::string& text : testing_perf::SyntheticOperators()) {
    const Operator op = ParseOperator(text);
    const ConfigSpace space = MakeCpuSpace(op);
    graphs.push_back(BuildCpuProgramGraph(op, space, *space.SampleValid(rng)));
  }
  return graphs;
}

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("glimpse_perf_model_file_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

TEST(PerfModelFileTest, RoundTripPredictsTheSame) {
  const std::vector<ProgramGraph> graphs = SomeGraphs();
  std::vector<const ProgramGraph*> batch;
  for (const ProgramGraph& g : graphs) batch.push_back(&g);
  for (PerfModelArchitecture architecture :
       {PerfModelArchitecture::kGraphSage, PerfModelArchitecture::kLstm}) {
    PerfModel model = testing_perf::RandomPerfModel(architecture, 11);
    model.set_made_by("test");
    const std::string path =
        TempPath(PerfModelArchitectureName(architecture) + std::string(".json"));
    model.Save(path);
    const PerfModel loaded = PerfModel::Load(path);
    std::filesystem::remove(path);
    EXPECT_EQ(loaded.shape().architecture, architecture);
    EXPECT_EQ(loaded.made_by(), "test");
    const std::vector<double> before = model.PredictLogTimes(batch);
    const std::vector<double> after = loaded.PredictLogTimes(batch);
    ASSERT_EQ(before.size(), graphs.size());
    EXPECT_EQ(before, after);
    // Predictions differ between graphs (the weights are not inert) and are in ln seconds.
    EXPECT_NE(before[0], before[3]);
    EXPECT_NEAR(std::exp(before[1]), model.PredictSeconds(batch)[1], 1e-12);
    EXPECT_EQ(model.PredictLogTime(graphs[2]), before[2]);
  }
}

void ExpectRefused(const Json& json, const std::string& name, const std::string& what) {
  const std::string path = TempPath(name);
  WriteJsonFileAtomically(path, json, "test model");
  try {
    PerfModel::Load(path);
    FAIL() << "loaded " << name;
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find(what), std::string::npos) << message;
    EXPECT_NE(message.find("glimpse train perf-model"), std::string::npos) << message;
  }
  std::filesystem::remove(path);
}

TEST(PerfModelFileTest, RefusesOtherVersionsNamingTheFileAndTheRemakeCommand) {
  const Json good = testing_perf::RandomPerfModel(PerfModelArchitecture::kGraphSage, 2).ToJson();
  Json features = good;
  features["program_graph_feature_version"] = kProgramGraphFeatureVersion + 1;
  ExpectRefused(
      features, "features.json",
      "program-graph features version " + std::to_string(kProgramGraphFeatureVersion + 1));
  Json version = good;
  version["version"] = kPerfModelVersion + 1;
  ExpectRefused(version, "version.json",
                "performance model version " + std::to_string(kPerfModelVersion + 1));
  Json format = good;
  format["format"] = "glimpse-prior-generator";
  ExpectRefused(format, "format.json", "expected 'glimpse-perf-model'");
}

// A network of ln time stays a version-1 file without a target; one relative to the roofline is
// version 2 with its target and profile, and round-trips as such.
TEST(PerfModelFileTest, ARelativeNetworkIsAVersion2FileWithItsProfile) {
  PerfModel model = testing_perf::RandomPerfModel(PerfModelArchitecture::kGraphSage, 5);
  const Json plain = model.ToJson();
  EXPECT_EQ(plain["version"], kPerfModelLogTimeVersion);
  EXPECT_FALSE(plain.contains("target"));
  EXPECT_FALSE(model.RelativeToRoofline());
  EXPECT_EQ(model.target(), "log-time");

  const Json profile = {{"name", "test machine"}, {"peak_gflops", 100.0}};
  model.SetRelativeToRoofline(profile);
  const Json relative = model.ToJson();
  EXPECT_EQ(relative["version"], kPerfModelVersion);
  EXPECT_EQ(relative["target"], "log-efficiency");
  EXPECT_EQ(relative["roofline_profile"], profile);
  const std::string path = TempPath("relative.json");
  model.Save(path);
  const PerfModel loaded = PerfModel::Load(path);
  std::filesystem::remove(path);
  EXPECT_TRUE(loaded.RelativeToRoofline());
  EXPECT_EQ(loaded.roofline_profile(), profile);
  const std::vector<ProgramGraph> graphs = SomeGraphs();
  EXPECT_EQ(loaded.PredictLogTime(graphs[0]), model.PredictLogTime(graphs[0]));
  EXPECT_THROW(model.SetRelativeToRoofline(Json("profile.json")), Error);

  // A relative network has no meaning without the estimate: a program-time model of it needs
  // the offset (LoadProgramTimeModel gives it).
  try {
    AsProgramTimeModel(std::make_shared<const PerfModel>(loaded));
    FAIL() << "a relative network without its offset";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("LoadProgramTimeModel"), std::string::npos) << e.what();
  }
  const auto shifted = AsProgramTimeModel(std::make_shared<const PerfModel>(loaded),
                                          [](const LoopNest&) { return 2.0; });
  const Operator op = ParseOperator(testing_perf::SyntheticOperators().front());
  const ConfigSpace space = MakeCpuSpace(op);
  Rng rng(3);
  const LoopNest nest = MakeCpuNest(op, space, *space.SampleValid(rng));
  EXPECT_NEAR(shifted->PredictLogTimes({&nest})[0],
              loaded.PredictLogTime(BuildProgramGraph(nest)) + 2.0, 1e-12);

  // Version and target go together.
  Json no_target = relative;
  no_target.erase("target");
  ExpectRefused(no_target, "no_target.json", "needs \"target\": \"log-efficiency\"");
  Json no_profile = relative;
  no_profile.erase("roofline_profile");
  ExpectRefused(no_profile, "no_profile.json", "a \"roofline_profile\" object");
  Json old_with_target = relative;
  old_with_target["version"] = kPerfModelLogTimeVersion;
  ExpectRefused(old_with_target, "old_with_target.json",
                "a version-1 file with a target ('log-efficiency')");
}

TEST(PerfModelFileTest, RefusesAMisSizedLayer) {
  Json json = testing_perf::RandomPerfModel(PerfModelArchitecture::kGraphSage, 2).ToJson();
  json["layers"]["hop1.combine"]["bias"].erase(0);
  const std::string path = TempPath("sized.json");
  WriteJsonFileAtomically(path, json, "test model");
  try {
    PerfModel::Load(path);
    FAIL() << "loaded a mis-sized layer";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("hop1.combine"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
  EXPECT_THROW(ParsePerfModelArchitecture("gcn"), Error);
}

// `file:PATH` in the evaluation predicts what the model file does for each record's program.
// A file may declare any shape; one far beyond what training makes is refused before the weights
// are allocated (a fuzzed file with hops 10^9 once asked for terabytes).
TEST(PerfModelFileTest, RefusesAnAbsurdShapeBeforeAllocating) {
  const Json good = testing_perf::RandomPerfModel(PerfModelArchitecture::kGraphSage, 2).ToJson();
  for (const auto& [field, value] :
       std::vector<std::pair<std::string, int>>{{"hidden", kPerfModelMaxWidth + 1},
                                                {"hops", 1000000000},
                                                {"readout_hidden", 1 << 30},
                                                {"hidden", 0},
                                                {"hops", -1}}) {
    Json json = good;
    json["hyperparameters"][field] = value;
    const std::string path = TempPath("shape.json");
    WriteJsonFileAtomically(path, json, "test model");
    try {
      PerfModel::Load(path);
      FAIL() << "loaded " << field << " " << value;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(path + ": hyperparameters"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("expected 1–4096, 0–16 and 0–4096"), std::string::npos)
          << e.what();
    }
    std::filesystem::remove(path);
  }
}

TEST(PerfModelFileTest, FilePredictorPredictsTheModelsTimes) {
  const std::string path = TempPath("file_predictor.json");
  const PerfModel model = testing_perf::RandomPerfModel(PerfModelArchitecture::kGraphSage, 4);
  model.Save(path);
  const PerfCorpus corpus = testing_perf::SyntheticCorpus(3, 9);
  std::vector<const PerfCorpusRecord*> records;
  for (const PerfCorpusRecord& record : corpus.records) records.push_back(&record);

  PerfPredictorOptions options;
  auto predictor = MakePerfPredictor("file:" + path, options);
  EXPECT_EQ(predictor->Name(), "file:" + path);
  predictor->Fit(records);  // nothing to learn: the file is the model
  const std::vector<double> predicted = predictor->PredictSeconds(records);
  ASSERT_EQ(predicted.size(), records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    const Operator op = ParseOperator(records[i]->op);
    const ConfigSpace space = MakeCpuSpace(op);
    const ProgramGraph graph =
        BuildCpuProgramGraph(op, space, space.ConfigFromJson(records[i]->config));
    EXPECT_NEAR(std::log(predicted[i]), model.PredictLogTime(graph), 1e-9) << records[i]->op;
  }
  EXPECT_EQ(predictor->Describe()["architecture"], "graphsage");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace glimpse
