// The shipped performance models (data/models/perf-*.json) load with this build — their
// program-graph feature version is this featuriser's, a relative network's roofline profile reads —
// and rank real measured programs: the corpus of MobileNet-v1's 1×1 layers, measured on the
// machine they were trained for. A change to the featuriser that the files do not follow fails
// here, not in a user's tuning run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "glimpse/perf_corpus.h"
#include "glimpse/perf_eval.h"
#include "glimpse/perf_predictor.h"
#include "glimpse/program_time_model.h"
#include "glimpse/xgb_perf_model.h"
#include "test_paths.h"

namespace glimpse {
namespace {

using testing::RepoDataPath;

// The corpus's ok records and their programs, read and built once for every file scored.
struct MeasuredPrograms {
  PerfCorpus corpus;
  std::vector<const PerfCorpusRecord*> records;
  std::vector<LoopNest> nests;
  std::vector<const LoopNest*> pointers;
};

const MeasuredPrograms& MobileNetV1Pointwise() {
  // Built in place (the pointers point into the object's own vectors).
  static const std::unique_ptr<MeasuredPrograms> programs = [] {
    auto out = std::make_unique<MeasuredPrograms>();
    out->corpus =
        LoadPerfCorpus(RepoDataPath("corpus/cpu-amd-epyc-mobilenet-v1-pointwise.jsonl.gz"));
    for (const PerfCorpusRecord& record : out->corpus.records) {
      if (!record.ok()) continue;
      out->records.push_back(&record);
      out->nests.push_back(RecordNest(record));
    }
    for (const LoopNest& nest : out->nests) out->pointers.push_back(&nest);
    return out;
  }();
  return *programs;
}

class ShippedPerfModelsTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ShippedPerfModelsTest, RanksMeasuredProgramsWellAboveChance) {
  const MeasuredPrograms& programs = MobileNetV1Pointwise();
  const std::vector<const PerfCorpusRecord*>& records = programs.records;
  const std::vector<const LoopNest*>& pointers = programs.pointers;
  ASSERT_GT(records.size(), 500u);

  const auto model = LoadProgramTimeModel(RepoDataPath(std::string("models/") + GetParam()));
  const std::vector<double> log_times = model->PredictLogTimes(pointers);
  ASSERT_EQ(log_times.size(), records.size());
  std::vector<double> predicted;
  for (double log_time : log_times) {
    ASSERT_TRUE(std::isfinite(log_time));
    predicted.push_back(std::exp(log_time));
  }
  // Within each of the corpus's operators the predicted order agrees with the measured one far
  // more often than not (a random order scores 0; the three files scored 0.70–0.73 here when
  // this test was written).
  const WithinOperatorTau tau = KendallTauWithinOperator(records, predicted);
  EXPECT_GE(tau.operators, 5);
  EXPECT_GT(tau.mean, 0.5) << GetParam();
  // Its times are this machine's, not off by a scale (a relative network whose roofline estimate
  // were not added back would be off by orders of magnitude): the median ratio of predicted to
  // measured time within 1.5× (0.98–1.05 when written).
  std::vector<double> ratios;
  for (size_t i = 0; i < records.size(); ++i) ratios.push_back(predicted[i] / records[i]->time_s);
  std::nth_element(ratios.begin(), ratios.begin() + ratios.size() / 2, ratios.end());
  const double median_ratio = ratios[ratios.size() / 2];
  EXPECT_GT(median_ratio, 1.0 / 1.5) << GetParam();
  EXPECT_LT(median_ratio, 1.5) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(EveryShippedFile, ShippedPerfModelsTest,
                         ::testing::Values("perf-cpu-amd-epyc.json", "perf-rel-cpu-amd-epyc.json",
                                           "perf-xgb-cpu-amd-epyc.json"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           std::string name = info.param;
                           name = name.substr(0, name.find('.'));
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace glimpse
