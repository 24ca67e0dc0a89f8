// `glimpse train perf-model` end to end on a small synthetic corpus (tests/perf/
// synthetic_perf_corpus.h): it writes a model that loads and predicts, made_by remakes it, an
// excluded operator is left out of training, and an unknown architecture is refused; with
// --model xgb it writes XGBoost on loop features, the model the library trains on the same records.
#include <cmath>
#include <fstream>

#include "cli_fixture.h"
#include "glimpse/json_file.h"
#include "glimpse/perf_model.h"
#include "glimpse/perf_predictor.h"
#include "glimpse/xgb_perf_model.h"
#include "perf/synthetic_perf_corpus.h"

namespace glimpse::testing {
namespace {

class CliTrainPerfModelTest : public CliTest {
 protected:
  std::string Corpus() {
    const std::string path = Db("corpus.jsonl.gz");
    WritePerfCorpus(path, testing_perf::SyntheticCorpus(6, 1));
    return path;
  }
};

TEST_F(CliTrainPerfModelTest, TrainsAModelThatLoadsAndPredicts) {
  const std::string corpus = Corpus();
  const std::string out = Db("perf.json");
  const std::string excluded = testing_perf::SyntheticOperators().back();
  CommandResult result =
      RunGlimpse({"train", "perf-model", "--corpus", corpus, "--model", "lstm", "--epochs", "3",
                  "--hidden", "8", "--exclude-operator", excluded, "--seed", "2", "--out", out});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("epoch 3/3"), std::string::npos) << result.err;
  EXPECT_NE(result.out.find("wrote " + out), std::string::npos) << result.out;
  const PerfModel model = PerfModel::Load(out);
  EXPECT_EQ(model.shape().architecture, PerfModelArchitecture::kLstm);
  EXPECT_NE(model.made_by().find("--exclude-operator"), std::string::npos);
  // 4 of the 5 operators trained on (one held out for validation), 6 records each.
  EXPECT_EQ(model.training_info().at("train_examples").get<int>() +
                model.training_info().at("validation_examples").get<int>(),
            24);
  const Operator op = ParseOperator(excluded);
  const ConfigSpace space = MakeCpuSpace(op);
  Rng rng(1);
  const ProgramGraph graph = BuildCpuProgramGraph(op, space, *space.SampleValid(rng));
  EXPECT_TRUE(std::isfinite(model.PredictLogTime(graph)));
}

// `glimpse perf-model evaluate` trains graphsage on each split's training side and scores a
// trained file as it is, beside the baselines.
TEST_F(CliTrainPerfModelTest, EvaluateTrainsTheLearnedModelsAndReadsAFile) {
  const std::string corpus = Corpus();
  const std::string model = Db("perf.json");
  ASSERT_EQ(RunGlimpse({"train", "perf-model", "--corpus", corpus, "--epochs", "2", "--hidden", "8",
                        "--out", model})
                .exit_code,
            0);
  const std::string json = Db("eval.json");
  CommandResult result =
      RunGlimpse({"perf-model", "evaluate", "--corpus", corpus, "--split", "operators",
                  "--predictors", "roofline-cal,graphsage,file:" + model, "--epochs", "2",
                  "--hidden", "8", "--xgb-rounds", "5", "--json", json});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("training graphsage on"), std::string::npos) << result.err;
  std::ifstream in(json);
  const Json report = Json::parse(in);
  ASSERT_EQ(report["splits"].size(), 1u);
  const Json& scores = report["splits"][0]["scores"];
  ASSERT_EQ(scores.size(), 3u);
  EXPECT_EQ(scores[1]["predictor"], "graphsage");
  EXPECT_EQ(scores[1]["details"]["epochs_run"], 2);
  EXPECT_EQ(scores[2]["predictor"], "file:" + model);
  EXPECT_EQ(scores[2]["details"]["architecture"], "graphsage");
  for (const Json& score : scores) EXPECT_EQ(score["tau_operators"], 1);

  // The network relative to the roofline's estimate on the evaluation's --profile, and the
  // XGBoost sampling options, in one run.
  const std::string relative = Db("eval-relative.json");
  result = RunGlimpse({"perf-model", "evaluate", "--corpus", corpus, "--split", "operators",
                       "--predictors", "lstm-efficiency,xgb", "--epochs", "2", "--hidden", "8",
                       "--xgb-rounds", "5", "--xgb-colsample", "0.5", "--json", relative});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("training lstm-efficiency on"), std::string::npos) << result.err;
  std::ifstream relative_in(relative);
  const Json relative_report = Json::parse(relative_in);
  const Json& relative_scores = relative_report["splits"][0]["scores"];
  ASSERT_EQ(relative_scores.size(), 2u);
  EXPECT_EQ(relative_scores[0]["predictor"], "lstm-efficiency");
  EXPECT_EQ(relative_scores[0]["details"]["architecture"], "lstm-efficiency");
  EXPECT_EQ(relative_scores[0]["details"]["target"], "log-efficiency");
  EXPECT_EQ(relative_scores[1]["details"]["colsample_bytree"], 0.5);
}

// --target log-efficiency: the network learns ln(time / the roofline's estimate); the file keeps
// the profile as version 2, and what reads it for tuning (LoadProgramTimeModel) predicts the
// network's output plus the estimate's ln on that profile.
TEST_F(CliTrainPerfModelTest, TrainsANetworkRelativeToTheRoofline) {
  const std::string corpus = Corpus();
  const std::string profile = DefaultMachineProfilePath();
  const std::string out = Db("relative.json");
  CommandResult result =
      RunGlimpse({"train", "perf-model", "--corpus", corpus, "--epochs", "2", "--hidden", "8",
                  "--target", "log-efficiency", "--roofline-profile", profile, "--out", out});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::ifstream in(out);
  const Json json = Json::parse(in);
  EXPECT_EQ(json["version"], kPerfModelVersion);
  EXPECT_EQ(json["target"], "log-efficiency");
  EXPECT_EQ(json["roofline_profile"]["name"], LoadMachineProfile(profile).name);
  const PerfModel network = PerfModel::Load(out);
  ASSERT_TRUE(network.RelativeToRoofline());
  EXPECT_NE(network.made_by().find("--target log-efficiency --roofline-profile " + profile),
            std::string::npos)
      << network.made_by();

  const auto model = LoadProgramTimeModel(out);
  const Operator op = ParseOperator(testing_perf::SyntheticOperators().front());
  const ConfigSpace space = MakeCpuSpace(op);
  Rng rng(4);
  std::vector<LoopNest> nests;
  for (int i = 0; i < 5; ++i) nests.push_back(MakeCpuNest(op, space, *space.SampleValid(rng)));
  std::vector<const LoopNest*> batch;
  for (const LoopNest& nest : nests) batch.push_back(&nest);
  const std::vector<double> predicted = model->PredictLogTimes(batch);
  ASSERT_EQ(predicted.size(), nests.size());
  const MachineProfile machine = LoadMachineProfile(profile);
  for (size_t i = 0; i < nests.size(); ++i) {
    const double network_output = network.PredictLogTime(BuildProgramGraph(nests[i]));
    EXPECT_NEAR(predicted[i], network_output + LogRooflineEstimate(nests[i], machine), 1e-9) << i;
    // The estimate is no constant: the prediction is not the network's output shifted.
    EXPECT_NE(LogRooflineEstimate(nests[i], machine), 0.0);
  }
  // `perf-model evaluate` reads the file the same way.
  const std::string report_path = Db("eval-relative-file.json");
  result = RunGlimpse({"perf-model", "evaluate", "--corpus", corpus, "--split", "operators",
                       "--predictors", "file:" + out, "--json", report_path});
  ASSERT_EQ(result.exit_code, 0) << result.err;

  // The target needs the profile; the profile needs the target; xgb has its own flags.
  result = RunGlimpse(
      {"train", "perf-model", "--corpus", corpus, "--target", "log-efficiency", "--out", out});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find("--target log-efficiency learns times relative to the roofline's "
                            "estimate: give --roofline-profile too"),
            std::string::npos)
      << result.err;
  result = RunGlimpse(
      {"train", "perf-model", "--corpus", corpus, "--roofline-profile", profile, "--out", out});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find("--roofline-profile is what --target log-efficiency is relative to"),
            std::string::npos)
      << result.err;
  result = RunGlimpse({"train", "perf-model", "--corpus", corpus, "--model", "xgb", "--target",
                       "log-efficiency", "--out", out});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--target is a flag of --model graphsage and lstm; --model is 'xgb'"),
            std::string::npos)
      << result.err;
  result = RunGlimpse(
      {"train", "perf-model", "--corpus", corpus, "--target", "log-speed", "--out", out});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--target"), std::string::npos) << result.err;
}

TEST_F(CliTrainPerfModelTest, TrainsTheXgbTransferModel) {
  const std::string corpus = Corpus();
  const std::string out = Db("xgb.json");
  const std::string excluded = testing_perf::SyntheticOperators().back();
  CommandResult result =
      RunGlimpse({"train", "perf-model", "--corpus", corpus, "--model", "xgb", "--xgb-rounds", "20",
                  "--exclude-operator", excluded, "--seed", "2", "--out", out});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("trained xgb on 24 examples of 4 operators"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("wrote " + out), std::string::npos) << result.out;
  const std::shared_ptr<const ProgramTimeModel> loaded = LoadProgramTimeModel(out);
  EXPECT_EQ(loaded->Architecture(), "xgb-loop-features");
  EXPECT_NE(loaded->MadeBy().find("--model xgb --xgb-rounds 20"), std::string::npos)
      << loaded->MadeBy();
  EXPECT_NE(loaded->MadeBy().find("--exclude-operator"), std::string::npos);
  // XGBoost's default sampling is left off the remake command.
  EXPECT_EQ(loaded->MadeBy().find("--xgb-colsample"), std::string::npos) << loaded->MadeBy();
  const Json& info = loaded->TrainingInfo();
  EXPECT_EQ(info.at("examples"), 24);
  EXPECT_EQ(info.at("machine").at("cpu"), "synthetic");  // the corpus header's
  EXPECT_EQ(info.at("excluded_operators"), Json::array({excluded}));
  EXPECT_EQ(info.at("corpus").get<std::string>(), corpus);

  // The library trained on the same records with the same options predicts the same.
  const PerfCorpus all = LoadPerfCorpus(corpus);
  std::vector<const PerfCorpusRecord*> records;
  const std::string canonical = OperatorToString(ParseOperator(excluded));
  for (const PerfCorpusRecord& record : all.records) {
    if (record.op != canonical) records.push_back(&record);
  }
  ASSERT_EQ(records.size(), 24u);
  XgbPerfOptions options;
  options.rounds = 20;
  options.seed = 2;
  const XgbPerfModel in_memory = XgbPerfModel::Train(records, options);
  const Operator op = ParseOperator(excluded);
  const ConfigSpace space = MakeCpuSpace(op);
  Rng rng(4);
  std::vector<LoopNest> nests;
  for (int i = 0; i < 5; ++i) nests.push_back(MakeCpuNest(op, space, *space.SampleValid(rng)));
  std::vector<const LoopNest*> pointers;
  for (const LoopNest& nest : nests) pointers.push_back(&nest);
  const std::vector<double> expected = in_memory.PredictLogTimes(pointers);
  const std::vector<double> got = loaded->PredictLogTimes(pointers);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-6) << i;

  // `perf-model evaluate` reads the file as it is, like the network's.
  const std::string json = Db("eval.json");
  result = RunGlimpse({"perf-model", "evaluate", "--corpus", corpus, "--split", "operators",
                       "--predictors", "file:" + out, "--json", json});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::ifstream in(json);
  const Json report = Json::parse(in);
  EXPECT_EQ(report["splits"][0]["scores"][0]["details"]["architecture"], "xgb-loop-features");

  // --xgb-target rank writes a ranking model, which says so; another target is refused.
  const std::string ranked = Db("xgb-rank.json");
  result = RunGlimpse({"train", "perf-model", "--corpus", corpus, "--model", "xgb", "--xgb-rounds",
                       "20", "--xgb-target", "rank", "--out", ranked});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("of 5 operators in"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("ranked within each operator"), std::string::npos) << result.out;
  std::ifstream ranked_in(ranked);
  EXPECT_EQ(Json::parse(ranked_in)["options"]["target"], "rank");
  EXPECT_NE(LoadProgramTimeModel(ranked)->MadeBy().find("--xgb-target rank"), std::string::npos);
  result = RunGlimpse({"train", "perf-model", "--corpus", corpus, "--model", "xgb", "--xgb-target",
                       "quantile", "--out", ranked});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--xgb-target"), std::string::npos) << result.err;

  // --xgb-roofline-profile adds the roofline's terms on that profile; the file keeps the profile
  // and says how it was made, and a missing profile is named.
  const std::string profile = DefaultMachineProfilePath();
  const std::string roofline = Db("xgb-roofline.json");
  result = RunGlimpse({"train", "perf-model", "--corpus", corpus, "--model", "xgb", "--xgb-rounds",
                       "20", "--xgb-roofline-profile", profile, "--out", roofline});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::ifstream roofline_in(roofline);
  const Json roofline_json = Json::parse(roofline_in);
  EXPECT_EQ(roofline_json["options"]["roofline_profile"]["name"], LoadMachineProfile(profile).name);
  EXPECT_GT(roofline_json["feature_width"].get<int>(), XgbPerfFeatureWidth());
  EXPECT_NE(LoadProgramTimeModel(roofline)->MadeBy().find("--xgb-roofline-profile " + profile),
            std::string::npos);
  // --xgb-schedule adds the schedule's ratios on the same profile, and needs one.
  const std::string schedule = Db("xgb-schedule.json");
  result =
      RunGlimpse({"train", "perf-model", "--corpus", corpus, "--model", "xgb", "--xgb-rounds", "20",
                  "--xgb-roofline-profile", profile, "--xgb-schedule", "--out", schedule});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::ifstream schedule_in(schedule);
  const Json schedule_json = Json::parse(schedule_in);
  EXPECT_EQ(schedule_json["options"]["schedule_features"], true);
  EXPECT_EQ(schedule_json["feature_width"].get<int>(),
            roofline_json["feature_width"].get<int>() + kXgbScheduleFeatureWidth);
  EXPECT_NE(LoadProgramTimeModel(schedule)->MadeBy().find("--xgb-schedule"), std::string::npos);
  result = RunGlimpse({"train", "perf-model", "--corpus", corpus, "--model", "xgb",
                       "--xgb-schedule", "--out", schedule});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find("--xgb-schedule reads the threads, lanes and registers"),
            std::string::npos)
      << result.err;
  // --xgb-target log-efficiency learns times relative to the roofline's estimate, so it needs
  // the profile too.
  const std::string efficiency = Db("xgb-efficiency.json");
  result = RunGlimpse({"train", "perf-model", "--corpus", corpus, "--model", "xgb", "--xgb-rounds",
                       "20", "--xgb-roofline-profile", profile, "--xgb-schedule", "--xgb-target",
                       "log-efficiency", "--out", efficiency});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("train ln-time MSE"), std::string::npos) << result.out;
  std::ifstream efficiency_in(efficiency);
  EXPECT_EQ(Json::parse(efficiency_in)["options"]["target"], "log-efficiency");
  EXPECT_NE(LoadProgramTimeModel(efficiency)->MadeBy().find("--xgb-target log-efficiency"),
            std::string::npos);
  result = RunGlimpse({"train", "perf-model", "--corpus", corpus, "--model", "xgb", "--xgb-target",
                       "log-efficiency", "--out", efficiency});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find("--xgb-target log-efficiency learns times relative to the roofline"),
            std::string::npos)
      << result.err;
  result = RunGlimpse({"train", "perf-model", "--corpus", corpus, "--model", "xgb",
                       "--xgb-roofline-profile", Db("none.json"), "--out", roofline});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find(Db("none.json") + ": cannot open the machine profile"),
            std::string::npos)
      << result.err;
}

TEST_F(CliTrainPerfModelTest, RefusesTheOtherKindsFlags) {
  CommandResult result = RunGlimpse({"train", "perf-model", "--corpus", Corpus(), "--model", "xgb",
                                     "--epochs", "3", "--out", Db("xgb.json")});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--epochs is a flag of --model graphsage and lstm; --model is 'xgb'"),
            std::string::npos)
      << result.err;
  result = RunGlimpse(
      {"train", "perf-model", "--corpus", Corpus(), "--xgb-rounds", "3", "--out", Db("perf.json")});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--xgb-rounds is a flag of --model xgb; --model is 'graphsage'"),
            std::string::npos)
      << result.err;
}

TEST_F(CliTrainPerfModelTest, XgbSamplingOptionsReachTheFileAndItsRemakeCommand) {
  const std::string out = Db("xgb-sampled.json");
  CommandResult result =
      RunGlimpse({"train", "perf-model", "--corpus", Corpus(), "--model", "xgb", "--xgb-rounds",
                  "10", "--xgb-colsample", "0.5", "--xgb-subsample", "0.8",
                  "--xgb-min-child-weight", "4", "--out", out});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const Json json = ReadJsonFile(out, "test");
  EXPECT_EQ(json.at("options").at("colsample_bytree"), 0.5);
  EXPECT_EQ(json.at("options").at("subsample"), 0.8);
  EXPECT_EQ(json.at("options").at("min_child_weight"), 4.0);
  const std::string made_by = json.at("made_by").get<std::string>();
  EXPECT_NE(made_by.find("--xgb-subsample 0.8 --xgb-colsample 0.5 --xgb-min-child-weight 4"),
            std::string::npos)
      << made_by;
  // A share outside (0, 1] is refused by the flag, naming it.
  result = RunGlimpse({"train", "perf-model", "--corpus", Corpus(), "--model", "xgb",
                       "--xgb-colsample", "1.5", "--out", Db("bad.json")});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find("--xgb-colsample"), std::string::npos) << result.err;
}

TEST_F(CliTrainPerfModelTest, RefusesAnUnknownArchitecture) {
  CommandResult result = RunGlimpse(
      {"train", "perf-model", "--corpus", Corpus(), "--model", "gcn", "--out", Db("perf.json")});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find("unknown performance model 'gcn'; known: graphsage, lstm, xgb"),
            std::string::npos)
      << result.err;
}

}  // namespace
}  // namespace glimpse::testing
