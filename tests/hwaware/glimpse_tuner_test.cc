// The Glimpse tuner end to end on recorded spaces of the repository: the Tuner contract (valid,
// distinct, unvisited, reproducible, exhaustion), the first batch from the prior's ranking, the
// validity ensemble's pruning, what the acquisition sees, the fallbacks, options and errors.
// Budgets, ensembles and annealing are tiny so that every test takes a second or two.
#include "glimpse/glimpse_tuner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "glimpse/error.h"
#include "glimpse/prior_generator.h"
#include "glimpse/tuning_loop.h"
#include "test_paths.h"

namespace glimpse {
namespace {

using testing::RepoDataPath;

std::shared_ptr<const RecordedSpace> Recorded(const std::string& file) {
  return std::make_shared<const RecordedSpace>(LoadRecordedSpace(RepoDataPath(file)));
}

const std::shared_ptr<const RecordedSpace>& Convolution() {
  static const auto recorded = Recorded("recorded/convolution_milo/A100.json.gz");
  return recorded;
}

const std::shared_ptr<const RecordedSpace>& Pnpoly() {
  static const auto recorded = Recorded("recorded/pnpoly/RTX_3090.json.gz");
  return recorded;
}

// Small everything; the shipped prior; no validity model unless a test gives one.
GlimpseTunerOptions FastOptions(const std::string& kernel) {
  GlimpseTunerOptions options;
  options.kernel = kernel;
  options.validity_model = "none";
  options.initial_size = 8;
  options.pool_size = 24;
  options.prior_pool_size = 8;
  options.budget = 48;
  options.surrogate.members = 2;
  options.surrogate.num_boost_round = 30;
  options.sa_parallel_size = 16;
  options.sa_n_iter = 20;
  options.sa_early_stop = 5;
  options.quiet = true;
  return options;
}

// Forwards to a tuner and keeps every proposal, in order.
class Recording : public Tuner {
 public:
  explicit Recording(std::unique_ptr<Tuner> inner) : inner_(std::move(inner)) {}
  std::string Name() const override { return inner_->Name(); }
  void Init(const TuningContext& context) override { inner_->Init(context); }
  std::vector<Config> Propose(size_t n) override {
    std::vector<Config> configs = inner_->Propose(n);
    batches.push_back(configs);
    proposed.insert(proposed.end(), configs.begin(), configs.end());
    return configs;
  }
  void Observe(const std::vector<Config>& configs,
               const std::vector<MeasureResult>& results) override {
    inner_->Observe(configs, results);
  }
  Tuner& inner() { return *inner_; }

  std::vector<Config> proposed;
  std::vector<std::vector<Config>> batches;

 private:
  std::unique_ptr<Tuner> inner_;
};

struct ReplayRun {
  TuneSummary summary;
  std::vector<Config> proposed;
  std::vector<std::vector<Config>> batches;
};

ReplayRun Replay(const std::shared_ptr<const RecordedSpace>& recorded,
                 const GlimpseTunerOptions& options, uint64_t seed, int64_t budget = 48,
                 int batch = 8) {
  Task task = recorded->MakeTask();
  Recording tuner(MakeGlimpseTuner(options));
  ReplayRunner runner(recorded);
  NullBuilder builder;
  TuneOptions tune;
  tune.max_measurements = budget;
  tune.batch_size = batch;
  tune.seed = seed;
  tune.progress = ProgressMode::kQuiet;
  ReplayRun run;
  run.summary = Tune(task, tuner, builder, runner, nullptr, tune);
  run.proposed = tuner.proposed;
  run.batches = tuner.batches;
  return run;
}

TEST(GlimpseTunerTest, ReplaysARecordedSpaceWithDistinctValidProposals) {
  const auto& recorded = Convolution();
  ReplayRun run = Replay(recorded, FastOptions("convolution_milo"), 1);
  EXPECT_EQ(run.summary.measurements, 48);
  ASSERT_EQ(run.proposed.size(), 48u);
  std::set<Config> distinct;
  for (const Config& config : run.proposed) {
    EXPECT_TRUE(recorded->space.IsValid(config)) << recorded->space.ConfigToString(config);
    EXPECT_TRUE(distinct.insert(config).second)
        << "proposed twice: " << recorded->space.ConfigToString(config);
  }
  ASSERT_TRUE(run.summary.best_config.has_value());
}

TEST(GlimpseTunerTest, SameSeedSameProposalsOtherSeedOtherLaterBatches) {
  const auto& recorded = Convolution();
  GlimpseTunerOptions options = FastOptions("convolution_milo");
  ReplayRun a = Replay(recorded, options, 4, 40);
  ReplayRun b = Replay(recorded, options, 4, 40);
  ReplayRun c = Replay(recorded, options, 5, 40);
  EXPECT_EQ(a.proposed, b.proposed);
  ASSERT_EQ(a.proposed.size(), c.proposed.size());
  // The prior's ranking does not depend on the seed; what the surrogate's batches do does.
  EXPECT_TRUE(std::equal(a.proposed.begin(), a.proposed.begin() + 8, c.proposed.begin()));
  EXPECT_NE(a.proposed, c.proposed);
}

TEST(GlimpseTunerTest, FirstBatchIsThePriorsRankingAndBeatsRandom) {
  const auto& recorded = Convolution();
  const std::string prior_path = RepoDataPath("models/prior.json");
  ASSERT_TRUE(std::filesystem::exists(prior_path));
  PriorGenerator prior = PriorGenerator::Load(prior_path);
  const GpuSpec& gpu = LookupGpu(recorded->device_name);
  std::vector<Config> expected = prior.InitialConfigs(
      recorded->space, PriorTaskOf(*recorded, "convolution_milo"), gpu, Blueprint::Default(), 8);

  Task task = recorded->MakeTask();
  std::unique_ptr<Tuner> tuner = MakeGlimpseTuner(FastOptions("convolution_milo"));
  tuner->Init(task, 9);
  std::vector<Config> first = tuner->Propose(8);
  EXPECT_EQ(first, expected);
  const std::vector<std::string> lines = GlimpseTunerComponents(*tuner);
  EXPECT_NE(std::find(lines.begin(), lines.end(), "prior: " + prior_path), lines.end());

  // The prior was trained on the shared datasets, this GPU among them: its first batch is
  // better than the expected best of as many random recorded configurations.
  std::vector<double> scores;
  auto optimum = recorded->Best();
  for (const auto& [index, entry] : recorded->entries) {
    scores.push_back(entry.status == MeasureStatus::kOk ? optimum->second.time_s / entry.time_s
                                                        : 0.0);
  }
  double best = 0.0;
  for (const Config& config : first) best = std::max(best, RelativeToOptimum(*recorded, config));
  EXPECT_GT(best, ExpectedBestOfRandom(scores, 8));
}

// A recorded space's entries as another GPU's history of the same kernel.
TransferHistory HistoryOf(const RecordedSpace& recorded) {
  TransferHistory history;
  for (const auto& [index, entry] : recorded.entries) {
    MeasureResult result;
    result.status = entry.status;
    if (result.ok()) result.time_s = entry.time_s;
    history.emplace_back(recorded.space.FromDenseIndex(index), std::move(result));
  }
  return history;
}

TEST(GlimpseTunerTest, HistoryLeadsTheFirstBatchAlternatingWithThePrior) {
  const auto& recorded = Convolution();
  Task task = recorded->MakeTask();
  const GlimpseTunerOptions options = FastOptions("convolution_milo");
  std::unique_ptr<Tuner> plain = MakeGlimpseTuner(options);
  plain->Init(task, 9);
  const std::vector<Config> prior_first = plain->Propose(8);

  // History from a GPU whose records are this space's own: its best-rated candidates are
  // near the optimum, and they alternate with the prior's ranking, history first.
  TuningContext context{&task, 9, {}};
  context.knowledge.history = HistoryOf(*recorded);
  std::unique_ptr<Tuner> tuner = MakeGlimpseTuner(options);
  tuner->Init(context);
  const std::vector<Config> first = tuner->Propose(8);
  ASSERT_EQ(first.size(), 8u);
  double best_of_history = 0.0;
  for (size_t i = 0; i < first.size(); i += 2) {
    best_of_history = std::max(best_of_history, RelativeToOptimum(*recorded, first[i]));
  }
  EXPECT_GE(best_of_history, 0.9);
  std::vector<Config> prior_positions;
  for (size_t i = 1; i < first.size(); i += 2) prior_positions.push_back(first[i]);
  // The prior's picks keep their order (the ones history already took are skipped).
  std::vector<Config> expected;
  for (const Config& config : prior_first) {
    if (std::find(first.begin(), first.end(), config) == first.end()) continue;
    if (std::find(prior_positions.begin(), prior_positions.end(), config) !=
        prior_positions.end()) {
      expected.push_back(config);
    }
  }
  EXPECT_EQ(prior_positions, expected);
  // What failed in the history is never proposed (the history here is this space's own records).
  std::set<Config> failed;
  for (const auto& [config, result] : context.knowledge.history) {
    if (!result.ok()) failed.insert(config);
  }
  ASSERT_FALSE(failed.empty());
  const std::vector<Config> later = tuner->Propose(8);
  for (const Config& config : first) EXPECT_EQ(failed.count(config), 0u);
  for (const Config& config : later) EXPECT_EQ(failed.count(config), 0u);
  const std::vector<std::string> lines = GlimpseTunerComponents(*tuner);
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [&](const std::string& line) {
    return line.rfind("history: " + std::to_string(context.knowledge.history.size()) + " records",
                      0) == 0;
  }));

  // use_history false: the history changes nothing.
  GlimpseTunerOptions ignoring = options;
  ignoring.use_history = false;
  std::unique_ptr<Tuner> ablation = MakeGlimpseTuner(ignoring);
  ablation->Init(context);
  EXPECT_EQ(ablation->Propose(8), prior_first);

  RegisterGlimpseTuner();
  EXPECT_TRUE(TraitsOfTuner("glimpse").learns_from_history);
}

TEST(GlimpseTunerTest, ValidityEnsemblePrunesTheFirstBatchAndThePool) {
  const auto& recorded = Pnpoly();
  const GpuSpec& gpu = LookupGpu(recorded->device_name);
  auto model = std::make_shared<const ValidityEnsembleModel>(ValidityEnsembleModel::Train(
      {ValidityTrainingSpace{recorded, gpu, "pnpoly"}}, Blueprint::Default()));
  ValidityEnsemble ensemble = model->ForSpace("pnpoly", recorded->space, gpu, Blueprint::Default());
  // It does reject something here: the pruning below is not vacuous.
  ASSERT_GT(EvaluateEnsemble(ensemble, *recorded).failures_rejected, 0);
  GlimpseTunerOptions options = FastOptions("pnpoly");
  options.validity = model;

  PriorGenerator prior = PriorGenerator::Load(RepoDataPath("models/prior.json"));
  std::vector<Config> expected = prior.InitialConfigs(
      recorded->space, PriorTaskOf(*recorded, "pnpoly"), gpu, Blueprint::Default(), 8,
      [&](const Config& config) { return ensemble.IsValid(config); });

  ReplayRun run = Replay(recorded, options, 2, 32);
  ASSERT_EQ(run.proposed.size(), 32u);
  ASSERT_FALSE(run.batches.empty());
  EXPECT_EQ(run.batches[0], expected);
  // The space has far more accepted configurations than the run measures: none rejected is
  // ever proposed.
  for (const Config& config : run.proposed) {
    EXPECT_TRUE(ensemble.IsValid(config)) << recorded->space.ConfigToString(config);
  }
}

// Records what the acquisition is shown and picks the last candidates of the pool.
class LastFirstPolicy : public AcquisitionPolicy {
 public:
  std::string Name() const override { return "last-first"; }
  std::vector<size_t> Choose(const std::vector<std::vector<double>>& features, size_t k,
                             Rng&) override {
    calls.push_back(features);
    std::vector<size_t> picks;
    for (size_t i = features.size(); i > 0 && picks.size() < k; --i) picks.push_back(i - 1);
    return picks;
  }
  std::vector<std::vector<std::vector<double>>> calls;
};

TEST(GlimpseTunerTest, TheAcquisitionSeesThePoolAndTheBudgetPosition) {
  const auto& recorded = Convolution();
  GlimpseTunerOptions options = FastOptions("convolution_milo");
  auto policy = std::make_shared<LastFirstPolicy>();
  options.policy = policy;
  ReplayRun run = Replay(recorded, options, 3, 32);
  ASSERT_EQ(run.proposed.size(), 32u);
  // 8 from the prior, then three batches chosen by the policy.
  ASSERT_EQ(policy->calls.size(), 3u);
  const size_t width =
      static_cast<size_t>(kAcquisitionBaseFeatures + Blueprint::Default().components());
  for (size_t call = 0; call < policy->calls.size(); ++call) {
    const auto& rows = policy->calls[call];
    ASSERT_GE(rows.size(), 8u);
    for (const auto& row : rows) {
      ASSERT_EQ(row.size(), width);
      EXPECT_DOUBLE_EQ(row[4], 8.0 * static_cast<double>(call + 1) / 48.0);  // t/T
      EXPECT_GE(row[1], 0.0);                                                // std
    }
  }
}

TEST(GlimpseTunerTest, FallbacksAreListedAndTheTunerStillWorks) {
  const auto& recorded = Convolution();
  GlimpseTunerOptions options = FastOptions("convolution_milo");
  options.device = "Imaginary GPU 9000";
  options.acquisition_model = "none";
  options.validity_model = "";  // the shipped one, if any: off here without a Blueprint
  Task task = recorded->MakeTask();
  std::unique_ptr<Tuner> tuner = MakeGlimpseTuner(options);
  tuner->Init(task, 0);
  const std::vector<std::string> lines = GlimpseTunerComponents(*tuner);
  auto has = [&](const std::string& start, const std::string& part) {
    for (const std::string& line : lines) {
      if (line.rfind(start, 0) == 0 && line.find(part) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(has("device: none", "Imaginary GPU 9000")) << ::testing::PrintToString(lines);
  EXPECT_TRUE(has("prior: none", "no Blueprint")) << ::testing::PrintToString(lines);
  EXPECT_TRUE(has("validity: none", "no Blueprint")) << ::testing::PrintToString(lines);
  EXPECT_TRUE(has("acquisition: ucb", "acquisition_model \"none\""))
      << ::testing::PrintToString(lines);
  // Random first batch, then the surrogate with UCB.
  std::set<Config> seen;
  for (int round = 0; round < 3; ++round) {
    std::vector<Config> configs = tuner->Propose(8);
    ASSERT_EQ(configs.size(), 8u);
    std::vector<MeasureResult> results;
    for (const Config& config : configs) {
      EXPECT_TRUE(task.space.IsValid(config));
      EXPECT_TRUE(seen.insert(config).second);
      MeasureResult result;
      result.status = MeasureStatus::kOk;
      result.time_s = 1e-3 * (1 + config.indices[0]);
      results.push_back(result);
    }
    tuner->Observe(configs, results);
  }
}

// UCB unless the learned network is asked for, by name or by giving its file; the shipped network
// is used only with acquisition "learned".
TEST(GlimpseTunerTest, TheAcquisitionIsUcbUnlessTheLearnedOneIsAskedFor) {
  const auto& recorded = Convolution();
  const std::string shipped = RepoDataPath("models/acquisition.json");
  ASSERT_TRUE(std::filesystem::exists(shipped));
  auto acquisition_line = [&](const GlimpseTunerOptions& options) {
    std::unique_ptr<Tuner> tuner = MakeGlimpseTuner(options);
    tuner->Init(recorded->MakeTask(), 0);
    for (const std::string& line : GlimpseTunerComponents(*tuner)) {
      if (line.rfind("acquisition: ", 0) == 0) return line;
    }
    return std::string("(no acquisition line)");
  };
  GlimpseTunerOptions options = FastOptions("convolution_milo");
  options.acquisition_model = "";
  EXPECT_FALSE(options.UsesLearnedAcquisition());
  EXPECT_EQ(acquisition_line(options).rfind("acquisition: ucb, mean + 1 · std (the default;", 0),
            0u)
      << acquisition_line(options);
  options.acquisition = "learned";
  EXPECT_TRUE(options.UsesLearnedAcquisition());
  EXPECT_EQ(acquisition_line(options), "acquisition: " + shipped + " (neural)");
  options.acquisition = "";
  options.acquisition_model = shipped;  // a file named: the network, as before the option existed
  EXPECT_TRUE(options.UsesLearnedAcquisition());
  EXPECT_EQ(acquisition_line(options), "acquisition: " + shipped + " (neural)");
  options.acquisition = "ucb";
  options.acquisition_model = "";
  EXPECT_EQ(acquisition_line(options), "acquisition: ucb, mean + 1 · std (acquisition \"ucb\")");
}

TEST(GlimpseTunerTest, ResumedObservationsAreNeverProposedAndASmallSpaceIsExhaustedOnce) {
  ConfigSpace space;
  space.AddKnob(Knob::Ordered("a", {int64_t{1}, int64_t{2}, int64_t{4}, int64_t{8}}));
  space.AddKnob(Knob::Ordered("b", {int64_t{1}, int64_t{2}, int64_t{4}}));
  space.AddKnob(Knob::Ordered("c", {int64_t{0}, int64_t{1}, int64_t{2}}));
  space.AddRestriction("a * b <= 16");
  Task task;
  task.name = "tiny";
  task.device = "no such device";
  task.space = space;
  const uint64_t valid = space.CountValid();
  GlimpseTunerOptions options = FastOptions("tiny");
  options.initial_size = 4;
  std::unique_ptr<Tuner> tuner = MakeGlimpseTuner(options);
  tuner->Init(task, 1);
  // Two records of an earlier run.
  std::vector<Config> resumed = {Config{{0, 0, 0}}, Config{{3, 1, 2}}};
  MeasureResult ok;
  ok.status = MeasureStatus::kOk;
  ok.time_s = 2e-3;
  tuner->Observe(resumed, {ok, ok});
  std::set<Config> seen(resumed.begin(), resumed.end());
  for (int round = 0; round < 20; ++round) {
    std::vector<Config> configs = tuner->Propose(5);
    if (configs.empty()) break;
    std::vector<MeasureResult> results;
    for (const Config& config : configs) {
      EXPECT_TRUE(space.IsValid(config));
      EXPECT_TRUE(seen.insert(config).second) << space.ConfigToString(config);
      MeasureResult result = ok;
      result.time_s = 1e-3 * (1 + config.indices[0] + config.indices[2]);
      results.push_back(result);
    }
    tuner->Observe(configs, results);
  }
  EXPECT_EQ(seen.size(), valid);
  EXPECT_TRUE(tuner->Propose(5).empty());
}

TEST(GlimpseTunerTest, ExplicitModelPathsMustExist) {
  Task task = Convolution()->MakeTask();
  for (const char* key : {"prior_model", "validity_model", "acquisition_model"}) {
    GlimpseTunerOptions options = FastOptions("convolution_milo");
    const std::string missing = "/nonexistent/glimpse-model-for-" + std::string(key) + ".json";
    if (std::string(key) == "prior_model") options.prior_model = missing;
    if (std::string(key) == "validity_model") options.validity_model = missing;
    if (std::string(key) == "acquisition_model") options.acquisition_model = missing;
    std::unique_ptr<Tuner> tuner = MakeGlimpseTuner(options);
    try {
      tuner->Init(task, 0);
      ADD_FAILURE() << key << ": no error for a missing file";
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find(missing), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find(key), std::string::npos) << error.what();
    }
  }
}

TEST(GlimpseTunerOptionsTest, FromJsonReadsKeysAndRejectsUnknownOnesAndBadValues) {
  GlimpseTunerOptions options = GlimpseTunerOptions::FromJson({{"kernel", "pnpoly"},
                                                               {"device", "RTX_3090"},
                                                               {"pool_size", "64"},
                                                               {"ucb_kappa", 2.5},
                                                               {"surrogate_members", 3},
                                                               {"surrogate_rounds", 50},
                                                               {"quiet", true},
                                                               {"prior_model", "none"}});
  EXPECT_EQ(options.kernel, "pnpoly");
  EXPECT_EQ(options.device, "RTX_3090");
  EXPECT_EQ(options.pool_size, 64);
  EXPECT_DOUBLE_EQ(options.ucb_kappa, 2.5);
  EXPECT_EQ(options.surrogate.members, 3);
  EXPECT_EQ(options.surrogate.num_boost_round, 50);
  EXPECT_TRUE(options.quiet);
  EXPECT_EQ(options.prior_model, "none");

  auto message = [](const Json& json) -> std::string {
    try {
      GlimpseTunerOptions::FromJson(json);
    } catch (const Error& error) {
      return error.what();
    }
    return "";
  };
  std::string unknown = message({{"pool_sise", 3}});
  EXPECT_NE(unknown.find("'glimpse'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("pool_sise"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("pool_size"), std::string::npos) << unknown;  // the accepted keys
  std::string bad = message({{"pool_size", 0}});
  EXPECT_NE(bad.find("pool_size"), std::string::npos) << bad;
  EXPECT_NE(bad.find("≥ 1"), std::string::npos) << bad;
  EXPECT_NE(message({{"ucb_kappa", -1}}).find("ucb_kappa"), std::string::npos);
  EXPECT_NE(message({{"quiet", "yes"}}).find("quiet"), std::string::npos);
  EXPECT_NE(message({{"acquisition", "ei"}}).find("accepted: ucb, learned"), std::string::npos);
  EXPECT_NE(message({{"acquisition", "ucb"}, {"acquisition_model", "a.json"}})
                .find("acquisition \"ucb\" uses no model"),
            std::string::npos);
  EXPECT_NE(message({{"acquisition", "learned"}, {"acquisition_model", "none"}})
                .find("needs the network"),
            std::string::npos);
  EXPECT_EQ(GlimpseTunerOptions::FromJson({{"acquisition", "learned"}}).acquisition, "learned");
}

TEST(GlimpseTunerOptionsTest, RegistrationIsIdempotentAndMakesTheTuner) {
  RegisterGlimpseTuner();
  RegisterGlimpseTuner();
  std::vector<std::string> known = KnownTuners();
  EXPECT_NE(std::find(known.begin(), known.end(), "glimpse"), known.end());
  EXPECT_FALSE(TunerDescription("glimpse").empty());
  std::unique_ptr<Tuner> tuner = MakeTuner("glimpse", {{"quiet", true}});
  EXPECT_EQ(tuner->Name(), "glimpse");
  EXPECT_THROW(MakeTuner("glimpse", {{"no_such_key", 1}}), Error);
  std::unique_ptr<Tuner> random = MakeRandomTuner();
  EXPECT_THROW(GlimpseTunerComponents(*random), Error);
}

}  // namespace
}  // namespace glimpse
