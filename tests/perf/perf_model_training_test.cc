// Training the performance model on a small synthetic corpus (tests/perf/synthetic_perf_corpus.h):
// the loss falls by a clear margin for GraphSAGE and the LSTM, with and without the rank loss, and
// a seeded run is repeatable.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "glimpse/error.h"
#include "glimpse/perf_eval.h"
#include "glimpse/perf_training.h"
#include "synthetic_perf_corpus.h"

namespace glimpse {
namespace {

const std::vector<PerfTrainingExample>& Examples() {
  static const std::vector<PerfTrainingExample> examples = [] {
    std::vector<std::string> skipped;
    PerfCorpus corpus = testing_perf::SyntheticCorpus(16, 5);
    std::vector<PerfTrainingExample> built = PerfTrainingExamples(corpus, &skipped);
    EXPECT_TRUE(skipped.empty());
    return built;
  }();
  return examples;
}

PerfModelTrainOptions SmallOptions(PerfModelArchitecture architecture) {
  PerfModelTrainOptions options;
  options.shape.architecture = architecture;
  options.shape.hidden = 16;
  options.shape.hops = 2;
  options.epochs = 12;
  options.batch_size = 16;
  options.learning_rate = 3e-3;
  options.validation_fraction = 0.2;
  options.patience = 0;
  options.rank_loss_weight = 0.0;
  return options;
}

void ExpectLearns(const PerfModelTrainOptions& options) {
  PerfModelTrainReport report;
  std::ostringstream progress;
  PerfModel model = TrainPerfModel(Examples(), options, &report, &progress);
  ASSERT_EQ(report.epochs.size(), static_cast<size_t>(options.epochs));
  EXPECT_EQ(report.train_examples + report.validation_examples, Examples().size());
  EXPECT_EQ(report.validation_groups, 1u);  // 20 % of 5 operators
  const double first = report.epochs.front().train_log_mse;
  const double last = report.epochs.back().train_log_mse;
  EXPECT_LT(last, 0.5 * first) << progress.str();
  EXPECT_LT(report.epochs.back().train_loss, report.epochs.front().train_loss) << progress.str();
  EXPECT_NE(progress.str().find("epoch 12/12"), std::string::npos);
  EXPECT_EQ(model.shape().architecture, options.shape.architecture);
  EXPECT_EQ(model.training_info().at("train_examples"), report.train_examples);
}

TEST(PerfModelTrainingTest, GraphSageLossFalls) {
  ExpectLearns(SmallOptions(PerfModelArchitecture::kGraphSage));
}

TEST(PerfModelTrainingTest, GraphSageWithRankLossFalls) {
  PerfModelTrainOptions options = SmallOptions(PerfModelArchitecture::kGraphSage);
  options.rank_loss_weight = 1.0;
  options.rank_loss = PerfRankLoss::kHinge;
  ExpectLearns(options);
}

TEST(PerfModelTrainingTest, LstmLossFalls) {
  ExpectLearns(SmallOptions(PerfModelArchitecture::kLstm));
}

TEST(PerfModelTrainingTest, SeededRunsAreRepeatable) {
  PerfModelTrainOptions options = SmallOptions(PerfModelArchitecture::kGraphSage);
  options.epochs = 2;
  options.rank_loss_weight = 0.5;
  const PerfModel a = TrainPerfModel(Examples(), options);
  const PerfModel b = TrainPerfModel(Examples(), options);
  std::vector<const ProgramGraph*> graphs;
  for (const PerfTrainingExample& e : Examples()) graphs.push_back(&e.graph);
  EXPECT_EQ(a.PredictLogTimes(graphs), b.PredictLogTimes(graphs));
}

// A model learns ln time less each example's offset: with one offset for every example it is the
// plain model shifted by that offset (the standardised targets and the rank loss's pairs are the
// same), so a prediction plus the offset is the plain model's.
TEST(PerfModelTrainingTest, AnOffsetIsLearnedAround) {
  PerfModelTrainOptions options = SmallOptions(PerfModelArchitecture::kGraphSage);
  options.epochs = 3;
  options.rank_loss_weight = 0.5;
  std::vector<PerfTrainingExample> shifted = Examples();
  for (PerfTrainingExample& e : shifted) e.log_offset = 2.5;
  const PerfModel plain = TrainPerfModel(Examples(), options);
  const PerfModel relative = TrainPerfModel(shifted, options);
  std::vector<const ProgramGraph*> graphs;
  for (const PerfTrainingExample& e : Examples()) graphs.push_back(&e.graph);
  const std::vector<double> a = plain.PredictLogTimes(graphs);
  const std::vector<double> b = relative.PredictLogTimes(graphs);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(b[i] + 2.5, a[i], 1e-3) << i;
  // Offsets that differ between examples change what is learned.
  for (size_t i = 0; i < shifted.size(); ++i) shifted[i].log_offset = 0.1 * double(i % 7);
  const PerfModel varied = TrainPerfModel(shifted, options);
  EXPECT_NE(varied.PredictLogTimes(graphs), b);
}

TEST(PerfModelTrainingTest, RefusesNoExamplesAndBadOptions) {
  EXPECT_THROW(TrainPerfModel({}, PerfModelTrainOptions()), Error);
  PerfModelTrainOptions options;
  options.epochs = 0;
  EXPECT_THROW(TrainPerfModel(Examples(), options), Error);
  EXPECT_THROW(ParsePerfRankLoss("square"), Error);
}

// The learned model as an evaluation predictor: trained on a split's training side alone, it
// ranks the configurations of the test side within each operator.
TEST(PerfModelTrainingTest, LearnedPredictorRanksTheTestSide) {
  const PerfCorpus corpus = testing_perf::SyntheticCorpus(48, 7);
  const PerfSplit split = SplitRandom(corpus, 0.25, 1);
  PerfPredictorOptions options;
  PerfModelTrainOptions train = SmallOptions(PerfModelArchitecture::kGraphSage);
  train.epochs = 30;
  options.learned = [&](const std::string& architecture) {
    train.shape.architecture = ParsePerfModelArchitecture(architecture);
    return MakeLearnedPerfPredictor(train);
  };
  auto predictor = MakePerfPredictor("graphsage", options);
  EXPECT_EQ(predictor->Name(), "graphsage");
  EXPECT_THROW(predictor->PredictSeconds(split.test), Error);
  predictor->Fit(split.train);
  const std::vector<double> predicted = predictor->PredictSeconds(split.test);
  ASSERT_EQ(predicted.size(), split.test.size());
  const WithinOperatorTau tau = KendallTauWithinOperator(split.test, predicted);
  EXPECT_EQ(tau.operators, 5);
  EXPECT_GT(tau.mean, 0.5);  // 0.73 when written
  const Json described = predictor->Describe();
  EXPECT_EQ(
      described["train_examples"].get<size_t>() + described["validation_examples"].get<size_t>(),
      split.train.size());
  EXPECT_EQ(described["target"], "log-time");
}

// Relative to the roofline's estimate: the network learns ln(time / estimate) and adds the
// estimate back, so its predictions are times (of the measured order) that rank the test side.
TEST(PerfModelTrainingTest, LearnedPredictorRelativeToTheRoofline) {
  const PerfCorpus corpus = testing_perf::SyntheticCorpus(48, 7);
  const PerfSplit split = SplitRandom(corpus, 0.25, 1);
  PerfModelTrainOptions train = SmallOptions(PerfModelArchitecture::kGraphSage);
  train.epochs = 30;
  const MachineProfile profile = LoadMachineProfile(DefaultMachineProfilePath());
  auto predictor = MakeLearnedPerfPredictor(train, nullptr, profile);
  EXPECT_EQ(predictor->Name(), "graphsage-efficiency");
  EXPECT_EQ(predictor->Describe()["target"], "log-efficiency");
  predictor->Fit(split.train);
  const std::vector<double> predicted = predictor->PredictSeconds(split.test);
  ASSERT_EQ(predicted.size(), split.test.size());
  const WithinOperatorTau tau = KendallTauWithinOperator(split.test, predicted);
  EXPECT_EQ(tau.operators, 5);
  EXPECT_GT(tau.mean, 0.5);
  // Times, not residuals: the median prediction within a factor of 3 of the median measurement.
  std::vector<double> ratio;
  for (size_t i = 0; i < predicted.size(); ++i)
    ratio.push_back(predicted[i] / split.test[i]->time_s);
  std::nth_element(ratio.begin(), ratio.begin() + ratio.size() / 2, ratio.end());
  EXPECT_GT(ratio[ratio.size() / 2], 1.0 / 3.0);
  EXPECT_LT(ratio[ratio.size() / 2], 3.0);
  // The registry's names reach it through the caller's factory.
  PerfPredictorOptions options;
  options.learned = [&](const std::string&) {
    return MakeLearnedPerfPredictor(train, nullptr, profile);
  };
  EXPECT_EQ(MakePerfPredictor("graphsage-efficiency", options)->Name(), "graphsage-efficiency");
}

}  // namespace
}  // namespace glimpse
