// Training the performance model on a small synthetic corpus (tests/perf/synthetic_perf_corpus.h):
// the loss falls by a clear margin for GraphSAGE and the LSTM, with and without the rank loss, and
// a seeded run is repeatable.
#include <gtest/gtest.h>

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
}

}  // namespace
}  // namespace glimpse
