// `glimpse perf-model evaluate`: every performance predictor on the corpus's splits, scored with
// Kaufman et al.'s metrics (docs/perf-eval.md).
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string_view>

#include "commands.h"
#include "format.h"
#include "glimpse/error.h"
#include "glimpse/perf_eval.h"
#include "glimpse/perf_predictor.h"
#include "glimpse/perf_training.h"
#include "perf_train_flags.h"

// glimpse_lite and a build without libtorch evaluate trained model files but train none.
#if !defined(GLIMPSE_WITHOUT_TORCH) && !defined(GLIMPSE_WITHOUT_TRAIN)
#define GLIMPSE_PERF_EVAL_TRAINS 1
#endif

namespace glimpse::cli {
namespace {

struct PerfModelFlags {
  std::string corpus;
  std::string split = "all";
  std::string predictors = "roofline,roofline-cal,xgb";
  uint64_t seed = 0;
  double test_fraction = 0.2;
  double train_operators = 1.0;
  std::string profile;  // empty: DefaultMachineProfilePath()
  int xgb_rounds = XgbPerfOptions{}.rounds;
  int xgb_max_depth = XgbPerfOptions{}.max_depth;
  double xgb_eta = XgbPerfOptions{}.eta;
  double xgb_subsample = XgbPerfOptions{}.subsample;
  double xgb_colsample = XgbPerfOptions{}.colsample_bytree;
  double xgb_min_child_weight = XgbPerfOptions{}.min_child_weight;
  PerfModelTrainOptions learned;  // graphsage and lstm: trained on each split's training side
  std::string rank_loss = "logistic";
  bool quiet = false;
  bool per_operator = false;
  std::string json;
};

void RunEvaluate(const PerfModelFlags& flags) {
  if (!(flags.train_operators > 0.0 && flags.train_operators <= 1.0)) {
    throw Error(fmt::format(
        "--train-operators must be a share in (0, 1] of the training operators (got {})",
        flags.train_operators));
  }
  const PerfCorpus corpus = LoadPerfCorpusFiles(SplitCommaList(flags.corpus));
  std::vector<std::string> splits;
  for (const std::string& name : SplitCommaList(flags.split)) {
    if (name == "all") {
      splits.insert(splits.end(), PerfSplitNames().begin(), PerfSplitNames().end());
    } else {
      splits.push_back(name);
    }
  }
  const std::vector<std::string> predictors = SplitCommaList(flags.predictors);
  if (predictors.empty()) throw Error("--predictors: name at least one");

  PerfPredictorOptions options;
  options.profile =
      LoadMachineProfile(flags.profile.empty() ? DefaultMachineProfilePath() : flags.profile);
  options.xgb.rounds = flags.xgb_rounds;
  options.xgb.max_depth = flags.xgb_max_depth;
  options.xgb.eta = flags.xgb_eta;
  options.xgb.subsample = flags.xgb_subsample;
  options.xgb.colsample_bytree = flags.xgb_colsample;
  options.xgb.min_child_weight = flags.xgb_min_child_weight;
  options.xgb.seed = flags.seed;
#ifdef GLIMPSE_PERF_EVAL_TRAINS
  PerfModelTrainOptions learned = flags.learned;
  learned.rank_loss = ParsePerfRankLoss(flags.rank_loss);
  learned.seed = flags.seed;
  std::ostream* progress = flags.quiet ? nullptr : &std::cerr;
  // "graphsage-efficiency", "lstm-efficiency": the network relative to the roofline's estimate on
  // the evaluation's profile, as xgb-efficiency-roofline-schedule is.
  options.learned = [learned, progress, profile = options.profile](const std::string& name) {
    constexpr std::string_view kEfficiency = "-efficiency";
    const bool efficiency = name.ends_with(kEfficiency);
    PerfModelTrainOptions o = learned;
    o.shape.architecture = ParsePerfModelArchitecture(
        efficiency ? name.substr(0, name.size() - kEfficiency.size()) : name);
    return MakeLearnedPerfPredictor(
        o, progress, efficiency ? std::optional<MachineProfile>(profile) : std::nullopt);
  };
#endif
  // The one place the evaluation makes predictors.
  auto factory = [&](const std::string& name) { return MakePerfPredictor(name, options); };
  for (const std::string& name : predictors) factory(name);  // unknown names fail before the work

  PerfEvalReport report = EvaluatePerfPredictors(
      corpus, splits, predictors, factory, flags.test_fraction, flags.seed, flags.train_operators);
  report.corpus = flags.corpus;
  report.per_operator = flags.per_operator;
  std::cout << PerfEvalReportToText(report);
  if (!flags.json.empty()) {
    std::ofstream out(flags.json);
    if (!out) throw Error("--json '" + flags.json + "': cannot open for writing");
    out << PerfEvalReportToJson(report).dump(2) << "\n";
    if (!out) throw Error("--json '" + flags.json + "': write failed");
  }
}

}  // namespace

void AddPerfModelCommand(CLI::App& app) {
  CLI::App* perf = app.add_subcommand("perf-model", "Performance models of programs: evaluate");
  perf->require_subcommand(1);
  auto flags = std::make_shared<PerfModelFlags>();
  CLI::App* evaluate = perf->add_subcommand(
      "evaluate",
      "Score performance predictors on a corpus's random, held-out-operator and "
      "held-out-model splits (MAPE >= 5 us, Kendall tau, top-k slowdown)");
  evaluate
      ->add_option("--corpus", flags->corpus,
                   "The corpus (glimpse corpus export); several files read as one: A,B")
      ->required();
  evaluate->add_option("--split", flags->split,
                       "random, operators, models, kind:KIND (every operator of one kind held "
                       "out, e.g. kind:depthwise_conv2d), none (every record to test, for "
                       "file: predictors and the roofline), or all (the first three; comma list)");
  evaluate->add_option("--predictors", flags->predictors,
                       "Comma list of roofline, roofline-cal, xgb, xgb-rank (XGBoost ranking "
                       "within each operator), xgb-roofline, xgb-rank-roofline (the same with the "
                       "roofline's estimate on --profile among the features), "
                       "xgb-roofline-schedule, xgb-rank-roofline-schedule (and the schedule's "
                       "ratios on that profile's machine), xgb-efficiency-roofline-schedule "
                       "(the last, learning ln(time / the roofline's estimate)), graphsage, lstm "
                       "(trained on each split's training side), graphsage-efficiency, "
                       "lstm-efficiency (the same learning ln(time / the roofline's estimate)), "
                       "file:MODEL.json (a trained model as it is; "
                       "file:A.json+B.json their mean)");
  evaluate->add_option("--seed", flags->seed,
                       "The splits', XGBoost's and the learned models' seed");
  evaluate->add_option("--test-fraction", flags->test_fraction,
                       "Share of records (random) or operators (operators) held out");
  // Its range is checked in RunEvaluate, whose error names the flag and the accepted (0, 1].
  evaluate->add_option("--train-operators", flags->train_operators,
                       "Share of each split's training operators kept (at random by --seed; the "
                       "test side unchanged): a learning curve's point, to see whether more "
                       "measured shapes would pay");
  evaluate->add_option("--profile", flags->profile,
                       "The roofline's machine profile (default data/hardware/"
                       "cpu_machine_profile.json)");
  evaluate->add_option("--xgb-rounds", flags->xgb_rounds, "XGBoost boosting rounds");
  evaluate->add_option("--xgb-max-depth", flags->xgb_max_depth, "XGBoost tree depth")
      ->check(CLI::Range(1, 32));
  evaluate->add_option("--xgb-eta", flags->xgb_eta, "XGBoost learning rate")
      ->check(CLI::PositiveNumber);
  evaluate
      ->add_option("--xgb-subsample", flags->xgb_subsample,
                   "XGBoost: share of the rows each tree samples, in (0, 1]")
      ->check(CLI::Range(1e-6, 1.0));
  evaluate
      ->add_option("--xgb-colsample", flags->xgb_colsample,
                   "XGBoost: share of the feature columns each tree samples, in (0, 1]")
      ->check(CLI::Range(1e-6, 1.0));
  evaluate
      ->add_option("--xgb-min-child-weight", flags->xgb_min_child_weight,
                   "XGBoost: least hessian weight (rows, for squared error) in a leaf")
      ->check(CLI::NonNegativeNumber);
  AddPerfTrainFlags(evaluate, flags->learned, flags->rank_loss, "graphsage/lstm: ");
  evaluate->add_flag("--per-operator", flags->per_operator,
                     "Also report every test operator's metrics (text and JSON)");
  evaluate->add_flag("--quiet", flags->quiet, "No training progress on stderr");
  evaluate->add_option("--json", flags->json, "Also write the report as JSON to this file");
  evaluate->callback([flags] { RunEvaluate(*flags); });
}

}  // namespace glimpse::cli
