// XGBoost on loop features fitted on a corpus and saved (glimpse/xgb_perf_model.h): the file
// loads back and predicts the same, another feature version is refused with the remake command,
// the cost model made of it ranks an operator it never saw, and `glimpse tune --cost-model`
// takes the file. The corpus is the synthetic one (tests/perf/synthetic_perf_corpus.h): real CPU
// nests whose "times" are a known formula of their program.
#include "glimpse/xgb_perf_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "glimpse/cpu.h"
#include "glimpse/error.h"
#include "glimpse/json_file.h"
#include "glimpse/learned_cost_model.h"
#include "glimpse/perf_eval.h"
#include "glimpse/perf_model.h"
#include "glimpse/perf_predictor.h"
#include "synthetic_perf_corpus.h"
#include "test_errors.h"
#include "test_paths.h"

namespace glimpse {
namespace {

// Held out of training: the cost model ranks its configurations from the other operators'.
const std::string kHeldOut = "dense:M=32,N=32,K=64,bias=1,relu=1";
constexpr const char* kRemake =
    "remake it with 'glimpse train perf-model --model xgb --corpus <corpus> --out <file>'";

XgbPerfOptions SmallOptions() {
  XgbPerfOptions options;
  options.rounds = 60;
  options.seed = 5;
  return options;
}

// The synthetic corpus without kHeldOut (kept alive: records are pointers into it).
const PerfCorpus& TrainingCorpus() {
  static const PerfCorpus corpus = [] {
    PerfCorpus c = testing_perf::SyntheticCorpus(40, 1);
    std::erase_if(c.records, [](const PerfCorpusRecord& r) {
      return r.op == OperatorToString(ParseOperator(kHeldOut));
    });
    return c;
  }();
  return corpus;
}

std::vector<const PerfCorpusRecord*> Records() {
  std::vector<const PerfCorpusRecord*> records;
  for (const PerfCorpusRecord& record : TrainingCorpus().records) records.push_back(&record);
  return records;
}

// Made once and never destroyed: XGBoost's booster must not be freed by a static destructor,
// which runs after the main thread's thread-locals (XGBoost's per-booster prediction buffers) are
// gone.
const XgbPerfModel& TrainedModel() {
  static const XgbPerfModel* model = [] {
    auto* m = new XgbPerfModel(XgbPerfModel::Train(Records(), SmallOptions()));
    m->training_info()["machine"] = TrainingCorpus().header.at("machine");
    return m;
  }();
  return *model;
}

// Nests of sampled configurations of every synthetic operator (the held-out one included).
struct SomeNests {
  std::vector<LoopNest> nests;
  std::vector<const LoopNest*> pointers;
  SomeNests() {
    Rng rng(11);
    for (const std::string& text : testing_perf::SyntheticOperators()) {
      const Operator op = ParseOperator(text);
      const ConfigSpace space = MakeCpuSpace(op);
      for (int i = 0; i < 4; ++i) nests.push_back(MakeCpuNest(op, space, *space.SampleValid(rng)));
    }
    for (const LoopNest& nest : nests) pointers.push_back(&nest);
  }
};

// 200 configurations of kHeldOut with their synthetic log times.
struct HeldOutSample {
  std::vector<LoopNest> nests;
  std::vector<const LoopNest*> pointers;
  std::vector<double> truth;
  HeldOutSample() {
    const Operator op = ParseOperator(kHeldOut);
    const ConfigSpace space = MakeCpuSpace(op);
    Rng rng(21);
    for (int i = 0; i < 200; ++i) {
      const Config config = *space.SampleValid(rng);
      nests.push_back(MakeCpuNest(op, space, config));
      truth.push_back(testing_perf::SyntheticLogTime(BuildCpuProgramGraph(op, space, config)));
    }
    for (const LoopNest& nest : nests) pointers.push_back(&nest);
  }
};

using testing::ErrorMessageOf;

TEST(XgbPerfModelTest, TheSavedFileLoadsBackAndPredictsTheSame) {
  const XgbPerfModel& model = TrainedModel();
  EXPECT_EQ(model.Architecture(), "xgb-loop-features");
  EXPECT_EQ(model.TrainingInfo().at("examples"), 4 * 40);
  EXPECT_EQ(model.TrainingInfo().at("operators"), 4);
  const std::string path = testing::MakeTempDir("glimpse_xgb_perf_model") + "/xgb.json";
  model.Save(path);

  const Json json = ReadJsonFile(path, "test");
  EXPECT_EQ(json.at("format"), "glimpse-perf-model");
  EXPECT_EQ(json.at("architecture"), "xgb-loop-features");
  EXPECT_EQ(json.at("program_graph_feature_version"), kProgramGraphFeatureVersion);
  EXPECT_EQ(json.at("feature_width"), XgbPerfFeatureWidth());
  EXPECT_EQ(json.at("options").at("rounds"), 60);
  EXPECT_EQ(json.at("training").at("machine").at("cpu"), "synthetic");
  EXPECT_TRUE(json.at("booster").is_object());  // XGBoost's own JSON model, embedded

  const SomeNests some;
  const std::vector<double> trained = model.PredictLogTimes(some.pointers);
  const XgbPerfModel loaded = XgbPerfModel::Load(path);
  const std::shared_ptr<const ProgramTimeModel> dispatched = LoadProgramTimeModel(path);
  EXPECT_EQ(dispatched->Architecture(), "xgb-loop-features");
  const std::vector<double> a = loaded.PredictLogTimes(some.pointers);
  const std::vector<double> b = dispatched->PredictLogTimes(some.pointers);
  ASSERT_EQ(a.size(), trained.size());
  ASSERT_EQ(b.size(), trained.size());
  for (size_t i = 0; i < trained.size(); ++i) {
    EXPECT_NEAR(a[i], trained[i], 1e-6) << i;
    EXPECT_NEAR(b[i], trained[i], 1e-6) << i;
  }
  EXPECT_EQ(loaded.options().rounds, 60);
  EXPECT_EQ(loaded.options().seed, 5u);
  EXPECT_EQ(PerfModelTrainingMachine(loaded)["cpu"], "synthetic");

  // The same records and options give the same model.
  const XgbPerfModel again = XgbPerfModel::Train(Records(), SmallOptions());
  EXPECT_EQ(again.PredictLogTimes(some.pointers), trained);
}

TEST(XgbPerfModelTest, RooflineFeaturesKeepTheirProfileInTheFile) {
  XgbPerfOptions options = SmallOptions();
  options.roofline = LoadMachineProfile(DefaultMachineProfilePath());
  const XgbPerfModel model = XgbPerfModel::Train(Records(), options);
  const Json json = model.ToJson();
  EXPECT_EQ(json.at("feature_width"), XgbPerfRowWidth(options));
  EXPECT_GT(XgbPerfRowWidth(options), XgbPerfFeatureWidth());
  EXPECT_EQ(json.at("options").at("roofline_profile").at("peak_gflops"),
            options.roofline->peak_gflops);

  const SomeNests some;
  const XgbPerfModel loaded = XgbPerfModel::FromJson(json, "m.json");
  ASSERT_TRUE(loaded.options().roofline.has_value());
  EXPECT_EQ(loaded.options().roofline->levels.size(), options.roofline->levels.size());
  EXPECT_EQ(loaded.PredictLogTimes(some.pointers), model.PredictLogTimes(some.pointers));
  // Not the loop-features model: the extra columns are used.
  EXPECT_NE(model.PredictLogTimes(some.pointers), TrainedModel().PredictLogTimes(some.pointers));

  // A file whose width does not match its profile's (one level fewer) is refused.
  Json fewer = json;
  fewer["options"]["roofline_profile"]["levels"].erase(0);
  const std::string message = ErrorMessageOf([&] { XgbPerfModel::FromJson(fewer, "m.json"); });
  EXPECT_NE(message.find("m.json: " + std::to_string(XgbPerfRowWidth(options)) +
                         " features per program; this glimpse computes " +
                         std::to_string(XgbPerfRowWidth(options) - 2)),
            std::string::npos)
      << message;
  // A bad profile is named.
  Json bad = json;
  bad["options"]["roofline_profile"]["peak_gflops"] = -1;
  EXPECT_NE(ErrorMessageOf([&] {
              XgbPerfModel::FromJson(bad, "m.json");
            }).find("m.json: options.roofline_profile: field 'peak_gflops'"),
            std::string::npos);
}

TEST(XgbPerfModelTest, ScheduleFeaturesAreKeptInTheFileAndNeedAProfile) {
  XgbPerfOptions options = SmallOptions();
  options.roofline = LoadMachineProfile(DefaultMachineProfilePath());
  options.schedule = true;
  const XgbPerfModel model = XgbPerfModel::Train(Records(), options);
  const Json json = model.ToJson();
  EXPECT_EQ(json.at("feature_width"), XgbPerfRowWidth(options));
  EXPECT_EQ(json.at("options").at("schedule_features"), true);
  const SomeNests some;
  const XgbPerfModel loaded = XgbPerfModel::FromJson(json, "m.json");
  EXPECT_TRUE(loaded.options().schedule);
  EXPECT_EQ(loaded.PredictLogTimes(some.pointers), model.PredictLogTimes(some.pointers));
  // Without the profile the ratios have no machine: refused.
  Json no_profile = json;
  no_profile["options"].erase("roofline_profile");
  EXPECT_NE(ErrorMessageOf([&] {
              XgbPerfModel::FromJson(no_profile, "m.json");
            }).find("schedule_features without a roofline_profile"),
            std::string::npos);
  XgbPerfOptions bare = SmallOptions();
  bare.schedule = true;
  EXPECT_THROW(MakeXgbPerfPredictor(bare), Error);
}

TEST(XgbPerfModelTest, ColumnSamplingIsKeptInTheFileAndChangesTheTrees) {
  XgbPerfOptions options = SmallOptions();
  options.colsample_bytree = 0.5;
  const XgbPerfModel model = XgbPerfModel::Train(Records(), options);
  const Json json = model.ToJson();
  EXPECT_EQ(json.at("options").at("colsample_bytree"), 0.5);
  const SomeNests some;
  const XgbPerfModel loaded = XgbPerfModel::FromJson(json, "m.json");
  EXPECT_EQ(loaded.options().colsample_bytree, 0.5);
  EXPECT_EQ(loaded.PredictLogTimes(some.pointers), model.PredictLogTimes(some.pointers));
  // Trees that see half the columns are other trees than the default's.
  EXPECT_NE(model.PredictLogTimes(some.pointers), TrainedModel().PredictLogTimes(some.pointers));
  // A file from before the option read every column.
  Json older = TrainedModel().ToJson();
  older["options"].erase("colsample_bytree");
  EXPECT_EQ(XgbPerfModel::FromJson(older, "m.json").options().colsample_bytree, 1.0);
  // Shares outside (0, 1] are refused, naming the value.
  XgbPerfOptions bad = SmallOptions();
  bad.colsample_bytree = 0.0;
  const std::string message = ErrorMessageOf([&] { XgbPerfModel::Train(Records(), bad); });
  EXPECT_NE(message.find("colsample 0 must lie in (0, 1]"), std::string::npos) << message;
  bad = SmallOptions();
  bad.subsample = 1.5;
  EXPECT_THROW(XgbPerfModel::Train(Records(), bad), Error);
}

TEST(XgbPerfModelTest, AnotherFeatureVersionIsRefusedWithTheRemakeCommand) {
  const Json good = TrainedModel().ToJson();
  Json json = good;
  json["program_graph_feature_version"] = kProgramGraphFeatureVersion + 1;
  std::string message = ErrorMessageOf([&] { XgbPerfModel::FromJson(json, "m.json"); });
  EXPECT_NE(message.find("m.json: program-graph features version " +
                         std::to_string(kProgramGraphFeatureVersion + 1)),
            std::string::npos)
      << message;
  EXPECT_NE(message.find(kRemake), std::string::npos) << message;

  // Through the loader `glimpse tune --cost-model` uses too.
  const std::string path = testing::MakeTempDir("glimpse_xgb_perf_model") + "/old.json";
  WriteJsonFileAtomically(path, json, "test");
  message = ErrorMessageOf([&] { LoadProgramTimeModel(path); });
  EXPECT_NE(message.find(kRemake), std::string::npos) << message;

  json = good;
  json["feature_width"] = XgbPerfFeatureWidth() + 57;
  message = ErrorMessageOf([&] { XgbPerfModel::FromJson(json, "m.json"); });
  EXPECT_NE(message.find("m.json: " + std::to_string(XgbPerfFeatureWidth() + 57) +
                         " features per program"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find(kRemake), std::string::npos) << message;

  json = good;
  json["version"] = kXgbPerfModelVersion + 1;
  message = ErrorMessageOf([&] { XgbPerfModel::FromJson(json, "m.json"); });
  EXPECT_NE(message.find("xgb-loop-features model version"), std::string::npos) << message;

  // The network's loader names what the file is instead of misreading it.
  message = ErrorMessageOf([&] { PerfModel::FromJson(good, "m.json"); });
  EXPECT_NE(message.find("m.json: an XGBoost model on loop features"), std::string::npos)
      << message;
}

TEST(XgbPerfModelTest, AsACostModelItRanksAnOperatorItNeverSaw) {
  const auto model = std::make_shared<const XgbPerfModel>(TrainedModel());
  const Operator op = ParseOperator(kHeldOut);
  const ConfigSpace space = MakeCpuSpace(op);
  LearnedCostModel cost(model, op, space);
  EXPECT_NE(cost.FeatureVersion().find("glimpse-perf-model/xgb-loop-features"), std::string::npos)
      << cost.FeatureVersion();

  Rng rng(21);
  std::vector<Config> configs;
  for (int i = 0; i < 200; ++i) configs.push_back(*space.SampleValid(rng));
  const std::vector<double> scores = cost.Predict(configs);
  ASSERT_EQ(scores.size(), configs.size());
  // The scores are −ln(predicted seconds) of each configuration's program.
  for (size_t i = 0; i < 3; ++i) {
    const LoopNest nest = MakeCpuNest(op, space, configs[i]);
    EXPECT_DOUBLE_EQ(scores[i], -model->PredictLogTimes({&nest})[0]);
  }

  std::vector<double> truth;  // the synthetic ln-time of each configuration
  for (const Config& config : configs) {
    truth.push_back(testing_perf::SyntheticLogTime(BuildCpuProgramGraph(op, space, config)));
  }
  std::vector<double> sorted = truth;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[sorted.size() / 2];
  const size_t best =
      static_cast<size_t>(std::max_element(scores.begin(), scores.end()) - scores.begin());
  EXPECT_LT(truth[best], median) << "best predicted " << truth[best] << " ln s, median " << median
                                 << ", fastest " << sorted.front();
  // The model's top tenth is faster than the median on average too.
  std::vector<size_t> order(configs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return scores[x] > scores[y]; });
  double top = 0.0;
  for (size_t i = 0; i < order.size() / 10; ++i) top += truth[order[i]];
  top /= static_cast<double>(order.size() / 10);
  EXPECT_LT(top, median);
}

// Target "rank": the order within each operator by pairwise rank loss. Its predictions are
// −scores (higher score = faster), so they order an unseen operator's configurations as its times
// do; the file says which target it holds, and a file without one is a log-time model.
TEST(XgbPerfModelTest, ARankTargetOrdersAnUnseenOperatorAndTheFileSaysSo) {
  XgbPerfOptions options = SmallOptions();
  options.target = "rank";
  const XgbPerfModel trained = XgbPerfModel::Train(Records(), options);
  const XgbPerfModel* ranked = &trained;
  EXPECT_FALSE(ranked->TrainingInfo().contains("train_log_mse"));
  EXPECT_EQ(ranked->TrainingInfo().at("examples"), 4 * 40);

  const HeldOutSample held_out;
  const std::vector<const LoopNest*>& pointers = held_out.pointers;
  const std::vector<double> predicted = ranked->PredictLogTimes(pointers);
  EXPECT_GT(KendallTauB(predicted, held_out.truth), 0.3);

  const Json json = ranked->ToJson();
  EXPECT_EQ(json.at("options").at("target"), "rank");
  EXPECT_EQ(XgbPerfModel::FromJson(json, "r.json").PredictLogTimes(pointers), predicted);
  EXPECT_EQ(TrainedModel().ToJson().at("options").at("target"), "log-time");
  Json older = TrainedModel().ToJson();
  older["options"].erase("target");
  EXPECT_EQ(XgbPerfModel::FromJson(older, "old.json").options().target, "log-time");

  Json other = json;
  other["options"]["target"] = "quantile";
  std::string message = ErrorMessageOf([&] { XgbPerfModel::FromJson(other, "q.json"); });
  EXPECT_NE(message.find("q.json: options: target 'quantile'; accepted: log-time, rank"),
            std::string::npos)
      << message;
  options.target = "quantile";
  message = ErrorMessageOf([&] { XgbPerfModel::Train(Records(), options); });
  EXPECT_NE(message.find("target 'quantile'; accepted: log-time, rank"), std::string::npos)
      << message;
}

// Target "log-efficiency": ln(time / the roofline's estimate), the estimate added back to the
// prediction. A model whose trees add next to nothing (one round, a tiny step) therefore predicts
// the roofline's log estimate plus one constant; the full model orders an unseen operator, and
// the file keeps the target. Without a profile there is no estimate: refused.
TEST(XgbPerfModelTest, AnEfficiencyTargetPredictsRelativeToTheRooflineEstimate) {
  XgbPerfOptions options = SmallOptions();
  options.roofline = LoadMachineProfile(DefaultMachineProfilePath());
  options.schedule = true;
  options.target = "log-efficiency";

  XgbPerfOptions flat = options;
  flat.rounds = 1;
  flat.eta = 1e-6;
  const SomeNests some;
  const std::vector<double> near_estimate =
      XgbPerfModel::Train(Records(), flat).PredictLogTimes(some.pointers);
  std::vector<double> log_estimates;
  for (const LoopNest* nest : some.pointers) {
    log_estimates.push_back(std::log(EstimateRoofline(*nest, *options.roofline).time_s));
  }
  const auto [low, high] = std::minmax_element(log_estimates.begin(), log_estimates.end());
  EXPECT_GT(*high - *low, 1.0);  // the estimates differ, so the offsets below could too
  for (size_t i = 0; i < near_estimate.size(); ++i) {
    EXPECT_NEAR(near_estimate[i] - log_estimates[i], near_estimate[0] - log_estimates[0], 1e-3)
        << i;
  }

  const XgbPerfModel model = XgbPerfModel::Train(Records(), options);
  EXPECT_LT(model.TrainingInfo().at("train_log_mse").get<double>(), 0.05);
  const HeldOutSample held_out;
  const std::vector<double> predicted = model.PredictLogTimes(held_out.pointers);
  EXPECT_GT(KendallTauB(predicted, held_out.truth), 0.3);
  const Json json = model.ToJson();
  EXPECT_EQ(json.at("options").at("target"), "log-efficiency");
  EXPECT_EQ(XgbPerfModel::FromJson(json, "e.json").PredictLogTimes(held_out.pointers), predicted);

  Json no_profile = json;
  no_profile["options"].erase("roofline_profile");
  no_profile["options"].erase("schedule_features");
  EXPECT_NE(ErrorMessageOf([&] {
              XgbPerfModel::FromJson(no_profile, "e.json");
            }).find("e.json: options: target log-efficiency without a roofline_profile"),
            std::string::npos);
  XgbPerfOptions bare = SmallOptions();
  bare.target = "log-efficiency";
  EXPECT_NE(ErrorMessageOf([&] {
              XgbPerfModel::Train(Records(), bare);
            }).find("relative to the roofline's estimate"),
            std::string::npos);
}

// `glimpse tune --cost-model` takes the file like the network's: the run measures the model's
// best configurations and warns that it was trained on another machine ("synthetic").
TEST(XgbPerfModelTest, TuneTakesTheFileForCostModel) {
  const std::string dir = testing::MakeTempDir("glimpse_xgb_tune");
  const std::string model_path = dir + "/xgb.json";
  TrainedModel().Save(model_path);
  const std::string op_text = "dense:M=4,N=8,K=16,bias=1";
  const std::string db = dir + "/tune.db";
  const testing::CommandRun run = testing::RunGlimpseCommand(
      "tune --target cpu --op " + op_text + " --cost-model " + model_path +
          " --hardware-budget 2 --threads 1 --progress quiet --json --db " + db,
      dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("was trained on 'synthetic'"), std::string::npos) << run.err;
  const Json report = Json::parse(run.out);
  EXPECT_EQ(report["tuner"], "xgb");
  ASSERT_EQ(report["tasks"].size(), 1u);
  EXPECT_EQ(report["tasks"][0]["measurements"], 2);

  // The measured configurations rank in the model's top decile of a sample of the space.
  const Operator op = ParseOperator(op_text);
  const ConfigSpace space = MakeCpuSpace(op);
  LearnedCostModel cost(std::make_shared<const XgbPerfModel>(TrainedModel()), op, space);
  std::vector<Config> sample;
  Rng rng(3);
  for (int i = 0; i < 1000; ++i) sample.push_back(*space.SampleValid(rng));
  std::vector<double> sorted = cost.Predict(sample);
  std::sort(sorted.rbegin(), sorted.rend());
  const double top_decile = sorted[sorted.size() / 10];
  const testing::CommandRun exported = testing::RunGlimpseCommand("db export --db " + db, dir);
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  std::istringstream lines(exported.out);
  std::string line;
  int records = 0;
  while (std::getline(lines, line)) {
    const Json json = Json::parse(line);
    if (json["type"] != "record") continue;
    ++records;
    EXPECT_GE(cost.Predict({space.ConfigFromJson(json["config"])})[0], top_decile)
        << json["config"].dump();
  }
  EXPECT_EQ(records, 2);

  // A file of other features is refused before anything runs, with the remake command.
  Json stale = TrainedModel().ToJson();
  stale["program_graph_feature_version"] = kProgramGraphFeatureVersion + 1;
  WriteJsonFileAtomically(dir + "/stale.json", stale, "test");
  const testing::CommandRun refused = testing::RunGlimpseCommand(
      "tune --target cpu --op " + op_text + " --no-db --cost-model " + dir + "/stale.json", dir);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("--cost-model: "), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find(kRemake), std::string::npos) << refused.err;
}

}  // namespace
}  // namespace glimpse
