// `glimpse perf-model evaluate` end to end on a tiny corpus written here (no measurement): the
// tables (per kind and per operator too), the JSON report, the split with nothing held out, a
// thinned training side, a corpus in two files, and a predictor name it does not know.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "glimpse/cpu.h"
#include "glimpse/perf_corpus.h"
#include "glimpse/random.h"
#include "test_paths.h"

namespace glimpse {
namespace {

namespace fs = std::filesystem;

using OperatorsOfModels = std::vector<std::pair<std::string, std::vector<std::string>>>;

// Three dense operators and a depthwise one of different models.
const OperatorsOfModels kTinyOperators = {
    {"dense:M=16,N=64,K=32,bias=1", {"resnet18"}},
    {"dense:M=8,N=32,K=64,bias=0", {"resnet50"}},
    {"dense:M=32,N=32,K=32,bias=1", {"vgg16"}},
    {"depthwise_conv2d:N=1,C=8,H=8,W=8,R=3,S=3,stride=1,pad=1,dilation=1,bias=0,relu=0",
     {"alexnet"}}};

// 12 sampled configurations of each operator, with times that grow with the configuration's
// position (no measurement: the command only reads them).
void WriteTinyCorpus(const std::string& path, const OperatorsOfModels& ops = kTinyOperators) {
  PerfCorpus corpus;
  corpus.header = Json{{"created_at", 1.0},
                       {"machine", {{"cpu", "test"}, {"cpus", 2}}},
                       {"protocol", {{"min_repeats", 3}}},
                       {"template_versions", {{"cpu", kCpuTemplateVersion}}},
                       {"program_graph_feature_version", 1}};
  for (const auto& [text, models] : ops) {
    const Operator op = ParseOperator(text);
    const ConfigSpace space = MakeCpuSpace(op);
    Rng rng(5);
    for (int i = 0; i < 12; ++i) {
      PerfCorpusRecord r;
      r.op = text;
      r.kind = text.substr(0, text.find(':'));
      r.target = "cpu";
      r.template_version = kCpuTemplateVersion;
      r.device = "test";
      r.workload_key = text;
      r.strategy = "corpus-uniform";
      r.models = models;
      r.config = space.ConfigToJson(*space.SampleValid(rng));
      r.status = MeasureStatus::kOk;
      r.time_s = 1e-5 * (1.0 + i);
      r.samples_s = {r.time_s};
      corpus.records.push_back(r);
    }
  }
  WritePerfCorpus(path, corpus);
}

std::string RunGlimpse(const std::string& args, int* rc) {
  const std::string out = (fs::temp_directory_path() / "glimpse_perf_eval_out.txt").string();
  *rc = std::system((testing::GlimpseBinary() + " " + args + " > " + out + " 2>&1").c_str());
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(PerfModelCommand, EvaluatesEverySplitAndWritesJson) {
  const fs::path dir = fs::temp_directory_path() / "glimpse_perf_eval_test";
  fs::create_directories(dir);
  const std::string corpus = (dir / "tiny.jsonl.gz").string();
  const std::string json = (dir / "eval.json").string();
  WriteTinyCorpus(corpus);
  int rc = 0;
  const std::string out =
      RunGlimpse("perf-model evaluate --corpus " + corpus +
                     " --split all,kind:depthwise_conv2d --xgb-rounds 10 --json " + json,
                 &rc);
  ASSERT_EQ(rc, 0) << out;
  for (const char* needle :
       {"split random", "split operators", "split models", "roofline-cal", "xgb", "MAPE %",
        "top-10", "split kind:depthwise_conv2d", "per kind:", "depthwise_conv2d"}) {
    EXPECT_NE(out.find(needle), std::string::npos) << needle << " in\n" << out;
  }
  std::ifstream in(json);
  const Json report = Json::parse(in);
  EXPECT_EQ(report["format"], "glimpse-perf-eval");
  ASSERT_EQ(report["splits"].size(), 4u);
  const Json& models = report["splits"][2];
  EXPECT_EQ(models["split"], "models");
  EXPECT_EQ(models["test_records"], 12);  // resnet50's operator
  EXPECT_EQ(models["train_records"], 36);
  ASSERT_EQ(models["scores"].size(), 3u);
  for (const Json& score : models["scores"]) {
    EXPECT_EQ(score["tau_operators"], 1);
    EXPECT_GE(score["top1_slowdown"]["mean"].get<double>(), 1.0);
    EXPECT_EQ(score["mape_records"], 12);
    ASSERT_EQ(score["by_kind"].size(), 1u);
    EXPECT_EQ(score["by_kind"][0]["kind"], "dense");
    EXPECT_EQ(score["by_kind"][0]["kendall_tau"], score["kendall_tau"]);
  }
  const Json& kind = report["splits"][3];
  EXPECT_EQ(kind["split"], "kind:depthwise_conv2d");
  EXPECT_EQ(kind["test_records"], 12);
  EXPECT_EQ(kind["train_records"], 36);
  for (const Json& score : kind["scores"]) {
    EXPECT_EQ(score["operators"], 1);
    EXPECT_EQ(score["by_kind"][0]["kind"], "depthwise_conv2d");
  }

  // Nothing held out: every operator's records to test, each reported on its own; a predictor
  // that would need a training side is refused before any work.
  const std::string json_none = (dir / "none.json").string();
  const std::string none = RunGlimpse("perf-model evaluate --corpus " + corpus +
                                          " --split none --predictors roofline --per-operator"
                                          " --json " +
                                          json_none,
                                      &rc);
  ASSERT_EQ(rc, 0) << none;
  for (const char* needle :
       {"split none", "per operator:", "dense:M=8,N=32,K=64,bias=0", "depthwise_conv2d:N=1,C=8"}) {
    EXPECT_NE(none.find(needle), std::string::npos) << needle << " in\n" << none;
  }
  std::ifstream none_in(json_none);
  const Json none_report = Json::parse(none_in);
  const Json& roofline = none_report["splits"][0]["scores"][0];
  EXPECT_EQ(none_report["splits"][0]["test_records"], 48);
  ASSERT_EQ(roofline["by_operator"].size(), 4u);
  EXPECT_EQ(roofline["by_operator"][0]["records"], 12);
  const std::string untrained = RunGlimpse(
      "perf-model evaluate --corpus " + corpus + " --split none --predictors roofline,xgb", &rc);
  EXPECT_NE(rc, 0);
  EXPECT_NE(untrained.find("predictor 'xgb' learns from the training side"), std::string::npos)
      << untrained;

  // A learning curve's point: the held-out-models split's training side thinned to one of its
  // three operators (the test side as before), recorded in the JSON; a share of 0 is refused.
  const std::string json_thin = (dir / "thin.json").string();
  const std::string thin = RunGlimpse("perf-model evaluate --corpus " + corpus +
                                          " --split models --predictors roofline"
                                          " --train-operators 0.34 --json " +
                                          json_thin,
                                      &rc);
  ASSERT_EQ(rc, 0) << thin;
  EXPECT_NE(thin.find("training thinned to 1 of its 3 operators"), std::string::npos) << thin;
  std::ifstream thin_in(json_thin);
  const Json thin_report = Json::parse(thin_in);
  EXPECT_EQ(thin_report["train_operator_fraction"], 0.34);
  EXPECT_EQ(thin_report["splits"][0]["train_records"], 12);
  EXPECT_EQ(thin_report["splits"][0]["test_records"], 12);
  const std::string zero = RunGlimpse(
      "perf-model evaluate --corpus " + corpus + " --split models --train-operators 0", &rc);
  EXPECT_NE(rc, 0);
  EXPECT_NE(zero.find("--train-operators must be a share in (0, 1]"), std::string::npos) << zero;

  // A corpus in two files: a second file's operator (of no zoo model) joins the training side.
  const std::string extra = (dir / "extra.jsonl.gz").string();
  WriteTinyCorpus(extra, {{"dense:M=4,N=64,K=64,bias=1", {}}});
  const std::string json_two = (dir / "two.json").string();
  const std::string two = RunGlimpse("perf-model evaluate --corpus " + corpus + "," + extra +
                                         " --split models --predictors roofline --json " + json_two,
                                     &rc);
  ASSERT_EQ(rc, 0) << two;
  std::ifstream two_in(json_two);
  const Json two_report = Json::parse(two_in);
  EXPECT_EQ(two_report["corpus"], corpus + "," + extra);
  EXPECT_EQ(two_report["splits"][0]["train_records"], 48);
  EXPECT_EQ(two_report["splits"][0]["test_records"], 12);

  const std::string bad =
      RunGlimpse("perf-model evaluate --corpus " + corpus + " --predictors gnn", &rc);
  EXPECT_NE(rc, 0);
  EXPECT_NE(bad.find("known: roofline, roofline-cal, xgb"), std::string::npos) << bad;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace glimpse
