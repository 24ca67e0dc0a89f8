// glimpse/perf_training.h — training the learned performance model (glimpse/perf_model.h) on a
// measured corpus (glimpse/perf_corpus.h): docs/perf-model.md "The model".
//
// The objective is Kaufman's: squared error on the log of the time (targets standardised with the
// training set's mean and deviation of ln seconds), plus, with a weight, the pairwise rank loss
// over the pairs of one operator in a batch (Kaufman eq. 2: φ(y'_slow − y'_fast), φ the hinge
// (1 − z)₊ or the logistic log(1 + e^−z), averaged over the pairs). With a rank loss, batches are
// made of whole runs of one operator's records so that they hold such pairs, as the paper groups
// one kernel's tile sizes in a batch. Adam, on one thread, seeded: the same examples and options
// give the same model.
//
// The caller chooses what to train on (the evaluation's splits are its own); the trainer holds a
// fraction of the operators out for validation and keeps the weights of the epoch with the lowest
// validation error (early stopping after `patience` epochs without a better one).
//
// TrainPerfModel needs libtorch (glimpse_perf_training); PerfTrainingExamples does not.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "glimpse/perf_corpus.h"
#include "glimpse/perf_model.h"
#include "glimpse/perf_predictor.h"
#include "glimpse/program_graph.h"

namespace glimpse {

struct PerfTrainingExample {
  ProgramGraph graph;
  double log_time = 0.0;  // ln(seconds)
  std::string group;      // what the rank loss and the validation split group by: the operator
  // ln of a baseline estimate the network learns a correction to (0: none, the plain target). The
  // network then learns log_time − log_offset, a prediction is the offset added back, and the rank
  // loss orders pairs by the predicted times (offset included) against their measured ones. Last,
  // so that {graph, log_time, group} still makes a plain example.
  double log_offset = 0.0;
};

// The examples of a corpus: every ok record with a positive time, its program rebuilt from the
// operator and configuration (BuildCpuProgramGraph; target "cpu" only), grouped by operator.
// Records that cannot be rebuilt are left out, each with why in `skipped` (when given).
std::vector<PerfTrainingExample> PerfTrainingExamples(const PerfCorpus& corpus,
                                                      std::vector<std::string>* skipped = nullptr);
// The same over some records of a corpus (an evaluation split's side); `skipped` names them by
// their position in `records`. With `log_offset`, each kept example's log_offset is its value on
// that example's record (the roofline's ln estimate, for a network relative to it).
std::vector<PerfTrainingExample> PerfTrainingExamples(
    const std::vector<const PerfCorpusRecord*>& records,
    std::vector<std::string>* skipped = nullptr,
    const std::function<double(const PerfCorpusRecord&)>& log_offset = nullptr);
// The program graph of every record, in order, whatever its status. Throws Error naming the
// record's operator when its program cannot be rebuilt.
std::vector<ProgramGraph> RecordProgramGraphs(const std::vector<const PerfCorpusRecord*>& records);
// `model`'s predicted seconds for each record's program: RecordProgramGraphs, then one batched
// inference call.
std::vector<double> PredictRecordSeconds(const PerfModel& model,
                                         const std::vector<const PerfCorpusRecord*>& records);

enum class PerfRankLoss { kHinge, kLogistic };
// "hinge", "logistic"; Parse throws Error listing both.
const char* PerfRankLossName(PerfRankLoss loss);
PerfRankLoss ParsePerfRankLoss(const std::string& name);

struct PerfModelTrainOptions {
  PerfModelShape shape;
  int epochs = 40;
  int batch_size = 64;  // graphs per step
  double learning_rate = 1e-3;
  double rank_loss_weight = 0.5;  // 0: squared error alone
  PerfRankLoss rank_loss = PerfRankLoss::kLogistic;
  // Of the operators (groups), the fraction held out for validation (0: none; at least one when
  // positive and there are two or more).
  double validation_fraction = 0.1;
  int patience = 10;  // epochs without a better validation error before stopping; 0: never
  uint64_t seed = 0;
};

struct PerfModelEpoch {
  double train_loss = 0.0;     // the objective (standardised units), mean over the epoch's steps
  double train_log_mse = 0.0;  // squared error of ln(seconds), mean over the epoch's examples
  double validation_log_mse = 0.0;  // on the held-out examples (0 without any)
  double seconds = 0.0;
};

struct PerfModelTrainReport {
  std::vector<PerfModelEpoch> epochs;
  int best_epoch = -1;  // whose weights the model has (0-based)
  size_t train_examples = 0, validation_examples = 0;
  size_t train_groups = 0, validation_groups = 0;
  double seconds = 0.0;
};

// Trains a model on `examples`. Throws Error for no examples or options out of range. `progress`
// (may be null) gets a line per epoch.
PerfModel TrainPerfModel(const std::vector<PerfTrainingExample>& examples,
                         const PerfModelTrainOptions& options,
                         PerfModelTrainReport* report = nullptr, std::ostream* progress = nullptr);

// The learned model as one of the evaluation's predictors (glimpse/perf_predictor.h), named by
// its architecture ("graphsage", "lstm"): Fit trains a fresh model with `options` on the split's
// training records (their own validation operators for early stopping come out of those, so the
// test side is never seen); PredictSeconds is the plain C++ inference over the test side's graphs.
// `progress` (may be null) gets the training's lines.
//
// With `efficiency` (a machine profile), the network learns each program's time relative to the
// roofline's estimate on that profile (EstimateRoofline), as xgb-efficiency-roofline-schedule
// does: the log of the factor by which a schedule misses the estimate, which keeps its meaning on
// shapes never seen, where a log time moves with the shape. The estimate is added back to each
// prediction. (Evaluation only: a saved model file has no place for the profile.)
std::unique_ptr<PerfPredictor> MakeLearnedPerfPredictor(
    const PerfModelTrainOptions& options, std::ostream* progress = nullptr,
    std::optional<MachineProfile> efficiency = std::nullopt);

}  // namespace glimpse
