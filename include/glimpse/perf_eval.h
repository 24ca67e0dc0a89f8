// glimpse/perf_eval.h — how well a performance model predicts the corpus's times: the metrics and
// splits of Kaufman et al.'s evaluation (docs/perf-eval.md), for every predictor in one run.
//
// Inputs are corpus records (glimpse/perf_corpus.h) with one predicted time per record, in
// seconds. Only ok records are scored: a failure has no time to compare with; metrics skip the
// others wherever they are passed. "An operator" is a record's `op` text (one shape of one kind).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "glimpse/json.h"
#include "glimpse/perf_corpus.h"

namespace glimpse {

// ---- Metrics

// Mean absolute percentage error, in percent: 100 · mean |predicted − measured| / measured over
// the entries whose measured time is ≥ min_time_s (the paper scores kernels of at least 5 µs:
// shorter ones are dominated by launch and timer noise). NaN when no entry qualifies. Throws
// Error when the sizes differ.
double Mape(const std::vector<double>& measured, const std::vector<double>& predicted,
            double min_time_s = 5e-6);
// The same over the ok records of `records` (measured: time_s), predictions aligned with them.
double MapeOfRecords(const std::vector<const PerfCorpusRecord*>& records,
                     const std::vector<double>& predicted, double min_time_s = 5e-6);
// How many entries MapeOfRecords averages over.
int64_t MapeCount(const std::vector<const PerfCorpusRecord*>& records, double min_time_s = 5e-6);

// Kendall's τ-b of two samples: (concordant − discordant) / √((n0 − t_x)(n0 − t_y)), n0 = n(n−1)/2
// pairs, t_x (t_y) the pairs tied in x (y). A pair tied in either is neither concordant nor
// discordant, and the denominator discounts the ties of each side. NaN when a side is all ties
// (or n < 2).
double KendallTauB(const std::vector<double>& x, const std::vector<double>& y);

struct WithinOperatorTau {
  double mean = 0.0;      // over the operators scored; NaN when none
  int64_t operators = 0;  // operators scored
};
// τ-b between measured and predicted times within each operator, averaged over operators (each
// counts once, whatever its size). An operator is skipped when it has fewer than 2 ok records or
// when its measured times all tie (nothing to rank); predictions that all tie while the
// measurements do not score 0 (they rank nothing), not NaN, so a constant predictor is not
// rewarded by being skipped.
WithinOperatorTau KendallTauWithinOperator(const std::vector<const PerfCorpusRecord*>& records,
                                           const std::vector<double>& predicted);

struct TopKSlowdown {
  double mean = 0.0;    // over operators; NaN when none
  double median = 0.0;  // the middle one (mean of the two middle ones for an even count)
  int64_t operators = 0;
};
// Per operator (its ok records): the best measured time among the k records predicted fastest,
// over the best measured time of the operator; 1 is perfect. Records are ranked by predicted time
// ascending; equal predictions keep the input order (so a predictor gains nothing from ties that
// happen to favour it only if the input order does). An operator with fewer than k records takes
// them all (slowdown 1). Throws Error for k < 1 or sizes that differ.
TopKSlowdown TopKSlowdownOf(const std::vector<const PerfCorpusRecord*>& records,
                            const std::vector<double>& predicted, int k);

// ---- Splits
//
// Every split holds the corpus's ok records only (a failure has no time to train on or score),
// as pointers into the corpus, in corpus order within each side.
struct PerfSplit {
  std::string name;  // "random", "operators", "models"
  std::vector<const PerfCorpusRecord*> train;
  std::vector<const PerfCorpusRecord*> test;
  // Ok records in neither side (the held-out-models split's shared operators); 0 otherwise.
  int64_t excluded = 0;
  std::string note;  // how it was made, for reports
};

// Configurations at random: round(test_fraction · n) ok records to test, chosen by `seed`. An
// operator is usually on both sides (the paper's random split).
PerfSplit SplitRandom(const PerfCorpus& corpus, double test_fraction, uint64_t seed);

// Whole operators at random: round(test_fraction · operators) distinct `op`s (at least 1 and at
// most all but one when there are two or more) go to test with all their records; the test shapes
// are never in training.
PerfSplit SplitHeldOutOperators(const PerfCorpus& corpus, double test_fraction, uint64_t seed);

// Held-out models (the paper's hard split), by each record's `models`:
//   - test: operators whose models are all held out (shapes only those models have);
//   - train: operators that belong to no held-out model (including those of no model at all);
//   - excluded: operators shared by a held-out model and a training model. In training they
//     would be layers of a held-out model, in test shapes seen in training; neither is the
//     question the split asks ("does the model generalise to the architectures it never saw?").
PerfSplit SplitHeldOutModels(const PerfCorpus& corpus, const std::vector<std::string>& held_out);

// Held-out kind: every ok record of the operators of one kind (PerfCorpusRecord::kind, e.g.
// depthwise_conv2d) to test, all the others to train. It asks what a tuner meets on a new layer
// type: can the model pick fast programs of a kind it has never seen? Throws Error when the
// corpus has no ok record of that kind, or only that kind, naming the kinds it has.
PerfSplit SplitHeldOutKind(const PerfCorpus& corpus, const std::string& kind);

// Nothing held out: every ok record to test, none to train. For predictors that do not learn
// from the corpus (trained model files, the roofline): how a model made elsewhere ranks this
// corpus's programs, e.g. another machine's measurements.
PerfSplit SplitNone(const PerfCorpus& corpus);

// The split of that name: "random", "operators", "models" (held_out: mobilenet_v2, resnet50),
// "kind:KIND" (SplitHeldOutKind), "none" (SplitNone). Throws Error naming the accepted names.
PerfSplit MakePerfSplit(const std::string& name, const PerfCorpus& corpus, double test_fraction,
                        uint64_t seed);

// A learning curve's point: keeps the records of round(fraction · n) of the training side's n
// distinct operators (at least one), chosen at random by `seed`, and drops the rest; the test
// side is untouched. It asks how a model's scores on unseen operators grow with the operators it
// learns from — whether measuring more shapes would pay. Throws Error for a fraction outside
// (0, 1]; 1 keeps everything.
void ThinTrainingOperators(PerfSplit& split, double fraction, uint64_t seed);
const std::vector<std::string>& PerfSplitNames();
const std::vector<std::string>& DefaultHeldOutModels();  // {"mobilenet_v2", "resnet50"}

}  // namespace glimpse

// ---- The evaluation run (`glimpse perf-model evaluate`)

namespace glimpse {

class PerfPredictor;

// Every metric over one set of records and their predictions.
struct PerfMetrics {
  double mape = 0.0;  // percent, records ≥ 5 µs; NaN when none
  int64_t mape_records = 0;
  WithinOperatorTau tau;
  TopKSlowdown top1, top5, top10;
  int64_t records = 0, operators = 0;  // what was scored
};
// MAPE, τ within operator and top-1/5/10 slowdown of `predicted` (aligned with `records`).
// Empty records give NaN everywhere. Throws Error when the sizes differ.
PerfMetrics ScorePredictions(const std::vector<const PerfCorpusRecord*>& records,
                             const std::vector<double>& predicted);

// The same metrics on one group of the records: an operator kind, or one operator.
struct PerfGroupMetrics {
  std::string group;  // the kind ("conv2d") or the operator's text
  PerfMetrics metrics;
};
// One entry per kind among `records`, sorted by kind name. An average over a whole split lets
// the kind with the most operators (conv2d) hide how a model does on the others.
std::vector<PerfGroupMetrics> ScorePredictionsByKind(
    const std::vector<const PerfCorpusRecord*>& records, const std::vector<double>& predicted);
// One entry per operator among `records`, sorted by its text.
std::vector<PerfGroupMetrics> ScorePredictionsByOperator(
    const std::vector<const PerfCorpusRecord*>& records, const std::vector<double>& predicted);

// One predictor on one split.
struct PerfPredictorScore {
  std::string predictor;
  PerfMetrics metrics;                        // the whole test side
  std::vector<PerfGroupMetrics> by_kind;      // the test side per operator kind
  std::vector<PerfGroupMetrics> by_operator;  // the test side per operator
  double fit_s = 0.0;                         // wall-clock of Fit
  double predict_s = 0.0;                     // wall-clock of PredictSeconds over the test side
  Json details;                               // PerfPredictor::Describe after the fit
};

struct PerfSplitScores {
  std::string split;
  std::string note;
  int64_t train_records = 0, test_records = 0, excluded_records = 0;
  int64_t train_operators = 0, test_operators = 0;
  std::vector<PerfPredictorScore> scores;
};

struct PerfEvalReport {
  std::string corpus;  // its path
  Json corpus_header;
  uint64_t seed = 0;
  double test_fraction = 0.0;
  double train_operator_fraction = 1.0;  // ThinTrainingOperators on every split
  std::vector<PerfSplitScores> splits;
  bool per_operator = false;  // the text and JSON add every operator's metrics
};

// Makes a fresh predictor for each split (a name of PerfPredictorNames(),
// glimpse/perf_predictor.h).
using PerfPredictorFactory = std::function<std::unique_ptr<PerfPredictor>(const std::string&)>;

// Every split × predictor: split the corpus, fit a fresh predictor on the training side, predict
// the test side, score it. Throws Error for an unknown split or predictor, and, before any work,
// for a predictor that learns from records (PerfPredictor::LearnsFromRecords) on a split with
// an empty training side.
PerfEvalReport EvaluatePerfPredictors(const PerfCorpus& corpus,
                                      const std::vector<std::string>& splits,
                                      const std::vector<std::string>& predictors,
                                      const PerfPredictorFactory& factory, double test_fraction,
                                      uint64_t seed, double train_operator_fraction = 1.0);

Json PerfEvalReportToJson(const PerfEvalReport& report);
// A table per split: predictor, MAPE (≥ 5 µs), τ, top-1/5/10 slowdown (mean, median), fit time;
// when the test side holds several operator kinds, the same per kind below it; with
// report.per_operator, per operator too.
std::string PerfEvalReportToText(const PerfEvalReport& report);

}  // namespace glimpse
