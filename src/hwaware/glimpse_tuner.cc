// The Glimpse tuner (glimpse/glimpse_tuner.h): one batch is prior or annealing candidates →
// validity ensemble → acquisition.
//
// Map: helpers (model paths, the task's PriorTask, the annealer's view of the surrogate) ·
// GlimpseTuner::Init (device → Blueprint Θ, kernel, then the prior, the validity ensemble and
// the acquisition policy, each with its fallback) · Propose (InitialBatch from the prior's
// ranking while the run is young, ModelBatch afterwards; RandomFill tops both up) · Observe
// (scores 1/time, failures 0; observed configurations are never proposed) · the public factory,
// registration and GlimpseTunerComponents.
#include "glimpse/glimpse_tuner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "glimpse/cost_model.h"
#include "glimpse/error.h"
#include "glimpse/model_search.h"
#include "glimpse/model_tuner.h"
#include "glimpse/prior_generator.h"
#include "hwaware/prior_internal.h"

namespace glimpse {
namespace {

using model::ConfigSet;

// Random streams of the parts, apart from the tuner's own (which draws prior samples, random
// fills and the policy's choices).
constexpr uint64_t kSurrogateSeedSalt = 0x911e'0001;
constexpr uint64_t kAnnealerSeedSalt = 0x911e'0002;
constexpr uint64_t kHistorySeedSalt = 0x911e'0003;
// The prior's best-first enumeration visits at most this many candidates per initial batch (it
// skips restricted, rejected and visited ones), so that a prior concentrated on configurations
// the restrictions forbid cannot stall a batch.
constexpr uint64_t kMaxEnumerationVisits = 200'000;
// Draws per prior sample before the prior counts as used up for this batch.
constexpr uint64_t kPriorDrawAttempts = 200;
// Random draws per wanted configuration while looking for ones the ensemble accepts.
constexpr int kAcceptedDrawsPerConfig = 50;

// Where a model comes from.
struct ModelFile {
  bool off = false;      // "none"
  bool shipped = false;  // the default path under GlimpseDataDir()
  std::string path;      // empty when off, or shipped but no data folder was found
};

ModelFile ResolveModelFile(const std::string& option, const std::string& name) {
  if (option == "none") return {true, false, ""};
  if (!option.empty()) return {false, false, option};
  try {
    return {false, true, GlimpseDataDir() + "/models/" + name + ".json"};
  } catch (const Error&) {
    return {false, true, ""};
  }
}

// The text that says where a model came from, for the components list.
std::string Origin(const ModelFile& file) { return file.path; }

// Π of the task: the kernel space's name and the numbers of description["problem_size"] (a
// number or an array; PriorTaskOf reads a recorded space the same way).
PriorTask PriorTaskOfDescription(const Json& description, const std::string& kernel) {
  PriorTask task;
  task.kernel = kernel;
  if (!description.is_object() || !description.contains("problem_size")) return task;
  task.problem_size = hwaware::ProblemSizeNumbers(description.at("problem_size"));
  return task;
}

// "RTX_2080_Ti" for "…/RTX_2080_Ti.json.gz": a recorded file's name names its GPU.
std::string FileStem(const std::string& name) {
  std::string stem = std::filesystem::path(name).filename().string();
  for (const std::string suffix : {".gz", ".json"}) {
    if (stem.size() > suffix.size() && stem.ends_with(suffix))
      stem.resize(stem.size() - suffix.size());
  }
  return stem;
}

// The annealer's energy: the surrogate's mean. The annealer only predicts.
class SurrogateMean : public CostModel {
 public:
  explicit SurrogateMean(const SurrogateEnsemble& surrogate) : surrogate_(surrogate) {}
  std::string FeatureVersion() const override { return "glimpse-surrogate-mean"; }
  void Fit(const std::vector<Config>&, const std::vector<double>&) override { Unsupported(); }
  std::vector<double> Predict(const std::vector<Config>& configs) const override {
    return surrogate_.Predict(configs).mean;
  }
  bool IsFitted() const override { return surrogate_.IsFitted(); }
  void SetBaseModel(std::shared_ptr<const CostModel>) override { Unsupported(); }
  bool HasBaseModel() const override { return false; }
  void Save(const std::string&) const override { Unsupported(); }
  void Load(const std::string&) override { Unsupported(); }

 private:
  [[noreturn]] static void Unsupported() {
    throw Error("glimpse tuner: the surrogate's mean is read-only; fit the ensemble instead");
  }
  const SurrogateEnsemble& surrogate_;
};

// libtorch modules are not documented as safe for concurrent forward passes; the prior is asked
// once per Init, so one lock for every tuner of the process costs nothing.
std::mutex& PriorMutex() {
  static std::mutex mutex;
  return mutex;
}

class GlimpseTuner : public Tuner {
 public:
  explicit GlimpseTuner(GlimpseTunerOptions options) : options_(std::move(options)) {
    options_.Validate();
  }

  std::string Name() const override { return "glimpse"; }
  using Tuner::Init;
  void Init(const TuningContext& context) override;
  std::vector<Config> Propose(size_t n) override;
  void Observe(const std::vector<Config>& configs,
               const std::vector<MeasureResult>& results) override;

  const std::vector<std::string>& components() const { return components_; }

 private:
  void ResolveDevice(const Task& task);
  void ResolvePrior(const Task& task);
  void ResolveValidity();
  void ResolveAcquisition();
  void ResolveHistory(const TransferHistory& history, uint64_t seed);
  // The steps ResolvePrior and ResolveValidity share: the model given in memory (`given`), else
  // the one in the file that option '<name>_model' (`option`) names, loaded into `model`. False,
  // with the component said to be none, where there is no model to use.
  template <typename Model>
  bool ResolveModel(const char* name, const std::string& option,
                    const std::shared_ptr<const Model>& given, const char* consequence,
                    std::shared_ptr<const Model>& model, ModelFile& file);
  // A component line; fallbacks are also said on stderr (unless quiet).
  void Component(const std::string& line, bool fallback);

  // Neither the validity ensemble nor the history (a configuration that failed on every GPU that
  // measured it) rejects it.
  bool Accepted(const Config& config) const {
    return (!ensemble_ || ensemble_->IsValid(config)) && !history_failed_.count(config);
  }
  bool InInitialPhase() const;
  void InitialBatch(size_t count, std::vector<Config>& out);
  void ModelBatch(size_t count, std::vector<Config>& out);
  // Appends up to `count` random valid configurations outside `excluded` (and adds them to it):
  // ones the ensemble accepts first, then any. Fewer only when the space has no more.
  void RandomFill(size_t count, ConfigSet& excluded, std::vector<Config>& out);
  void FitSurrogate();
  void RequireInit(const char* call) const {
    if (space_ == nullptr) throw Error(std::string("tuner 'glimpse': ") + call + " before Init");
  }

  GlimpseTunerOptions options_;
  const ConfigSpace* space_ = nullptr;
  Rng rng_;
  std::vector<std::string> components_;

  // What Init resolved.
  const GpuSpec* gpu_ = nullptr;
  std::shared_ptr<const GpuSpec> described_gpu_;  // keeps a described device alive
  std::vector<double> theta_;                     // Θ; empty without a known device
  int feature_components_ = 0;                    // Blueprint values in the acquisition's features
  std::string kernel_;
  std::shared_ptr<const PriorGenerator> prior_;
  std::optional<PriorDistribution> distribution_;
  std::optional<PriorSampler> prior_sampler_;
  std::shared_ptr<const ValidityEnsembleModel> validity_model_;
  std::optional<ValidityEnsemble> ensemble_;
  std::shared_ptr<const AcquisitionNetwork> network_;  // outlives policy_
  std::shared_ptr<AcquisitionPolicy> policy_;
  // The history's model, and the candidates it rates best (best first), ranked once at Init.
  std::shared_ptr<CostModel> history_model_;
  std::vector<Config> history_ranked_;
  ConfigSet history_failed_;  // failed wherever the history measured them

  // The search.
  std::optional<SurrogateEnsemble> surrogate_;
  std::optional<model::SaOptimizer> annealer_;
  model::UnvisitedSampler sampler_;
  ConfigSet visited_;       // proposed or observed
  std::vector<Config> xs_;  // every observation, in order
  std::vector<double> ys_;  // its score: 1 / time_s, 0 for failures
  size_t fitted_on_ = 0;    // observations the surrogate was last fitted on
  size_t initial_proposed_ = 0;
  size_t resumed_ = 0;  // observations of configurations this run never proposed
};

void GlimpseTuner::Component(const std::string& line, bool fallback) {
  components_.push_back(line);
  if (fallback && !options_.quiet) std::cerr << "glimpse: " << line << "\n";
}

void GlimpseTuner::Init(const TuningContext& context) {
  const Task& task = *context.task;
  const uint64_t seed = context.seed;
  space_ = &task.space;
  rng_.seed(seed);
  components_.clear();
  gpu_ = nullptr;
  // The target's description of its device (the command line passes the live GPU's on a CUDA
  // target: the table's figures corrected by the driver), used instead of looking `device` up.
  described_gpu_ = context.knowledge.gpu;
  theta_.clear();
  feature_components_ = 0;
  prior_.reset();
  distribution_.reset();
  prior_sampler_.reset();
  validity_model_.reset();
  ensemble_.reset();
  network_.reset();
  policy_.reset();
  visited_.clear();
  xs_.clear();
  ys_.clear();
  fitted_on_ = 0;
  initial_proposed_ = 0;
  resumed_ = 0;

  kernel_ = options_.kernel;
  if (kernel_.empty() && task.description.is_object() && task.description.contains("kernel") &&
      task.description.at("kernel").is_string()) {
    kernel_ = task.description.at("kernel").get<std::string>();
  }
  ResolveDevice(task);
  Component(kernel_.empty() ? "kernel: none given (option 'kernel' or the task's \"kernel\")"
                            : "kernel: " + kernel_,
            false);
  ResolvePrior(task);
  ResolveValidity();
  ResolveAcquisition();
  Component(fmt::format("surrogate: {} XGBoost regressors on bootstrap resamples, up to {} "
                        "rounds; annealing {} walkers × {} iterations",
                        options_.surrogate.members, options_.surrogate.num_boost_round,
                        options_.sa_parallel_size, options_.sa_n_iter),
            false);

  surrogate_.emplace(*space_, options_.surrogate, seed ^ kSurrogateSeedSalt);
  model::SaOptions sa;
  sa.parallel_size = options_.sa_parallel_size;
  sa.n_iter = options_.sa_n_iter;
  sa.early_stop = options_.sa_early_stop;
  annealer_.emplace(*space_, sa, seed ^ kAnnealerSeedSalt);
  sampler_.Reset(space_);
  ResolveHistory(context.knowledge.history, seed);
}

void GlimpseTuner::ResolveHistory(const TransferHistory& history, uint64_t seed) {
  history_model_.reset();
  history_ranked_.clear();
  history_failed_.clear();
  if (history.empty() || !options_.use_history) {
    Component(
        history.empty()
            ? "history: none (no records of this kernel on other GPUs or of an epilogue sibling)"
            : "history: ignored (use_history false)",
        false);
    return;
  }
  XgbCostModelOptions model_options;
  model_options.seed = seed ^ kHistorySeedSalt;
  // Squared error on the normalised throughput: ranking the history's own configurations, it put
  // a 0.93-of-optimum configuration first where the pairwise ranking loss put a failure first
  // (convolution_milo/A100's records as history, GlimpseTunerTest).
  model_options.loss_type = "reg";
  history_model_ = FitHistoryModel(*space_, history, model_options, "glimpse");
  // Each configuration the history holds, and whether it ran on some GPU.
  std::map<Config, bool> ran_ok;
  for (const auto& [config, result] : history) {
    ran_ok[config] |= result.ok() && std::isfinite(result.time_s) && result.time_s > 0.0;
  }
  // The candidates: the history's own configurations (what ran on other GPUs), ranked by the
  // model, which puts every GPU's records on one scale. Enough for a first batch and the pools
  // after it; the pools take the next unvisited ones.
  std::vector<Config> candidates;
  for (const auto& [config, ok] : ran_ok) candidates.push_back(config);
  const std::vector<double> rated = history_model_->Predict(candidates);
  std::vector<size_t> order(candidates.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return rated[a] > rated[b]; });
  order.resize(std::min(order.size(), static_cast<size_t>(options_.pool_size)));
  for (size_t i : order) history_ranked_.push_back(candidates[i]);
  // What failed on every GPU that measured it (a resource limit the kernel shares across GPUs,
  // most often) is not proposed, as the validity ensemble's rejections are not.
  if (options_.history_rejects_failures) {
    for (const auto& [config, ok] : ran_ok) {
      if (!ok) history_failed_.insert(config);
    }
  }
  Component(
      fmt::format(
          "history: {} records (other GPUs, epilogue siblings); an XGBoost model on them ranks {} "
          "candidates for the first batch (alternating with the prior) and adds {} "
          "to each pool; {} configurations that failed wherever measured are not "
          "proposed",
          history.size(), history_ranked_.size(), options_.history_pool_size,
          history_failed_.size()),
      false);
}

void GlimpseTuner::ResolveDevice(const Task& task) {
  const std::string name = options_.device.empty() ? task.device : options_.device;
  std::string why;
  try {
    const GpuTable& table = GpuTable::Default();
    if (described_gpu_) {
      gpu_ = described_gpu_.get();
    } else if (!name.empty()) {
      gpu_ = table.Find(name);
      if (gpu_ == nullptr && FileStem(name) != name) gpu_ = table.Find(FileStem(name));
    }
    if (gpu_ != nullptr) {
      theta_ = Blueprint::Default().Embed(*gpu_);
      feature_components_ = static_cast<int>(theta_.size());
    } else {
      why = name.empty() ? "no device given (option 'device' or the task's device)"
                         : fmt::format("'{}' is not in the GPU table {}", name, table.origin());
      feature_components_ = Blueprint::Default().components();
    }
  } catch (const Error& error) {
    gpu_ = nullptr;
    theta_.clear();
    why = error.what();
  }
  if (gpu_ != nullptr) {
    Component(fmt::format("device: {} (Blueprint of {} components{})", gpu_->name, theta_.size(),
                          described_gpu_ ? ", from the device's own description" : ""),
              false);
  } else {
    Component(fmt::format("device: none ({}): no Blueprint, so no prior, validity ensemble or "
                          "acquisition model",
                          why),
              true);
  }
}

template <typename Model>
bool GlimpseTuner::ResolveModel(const char* name, const std::string& option,
                                const std::shared_ptr<const Model>& given, const char* consequence,
                                std::shared_ptr<const Model>& model, ModelFile& file) {
  file = ResolveModelFile(option, name);
  if (given) {
    model = given;
    file = {false, false, "a model in memory"};
  } else if (file.off) {
    Component(fmt::format("{}: none ({}_model \"none\"): {}", name, name, consequence), false);
    return false;
  }
  if (gpu_ == nullptr) {
    Component(fmt::format("{}: none (no Blueprint): {}", name, consequence), true);
    return false;
  }
  if (!model) {
    if (file.path.empty() || (file.shipped && !std::filesystem::exists(file.path))) {
      Component(fmt::format("{}: none (no shipped model{}{}): {}", name,
                            file.path.empty() ? "" : " at ", file.path, consequence),
                true);
      return false;
    }
    if (!std::filesystem::exists(file.path)) {
      throw Error(
          fmt::format("tuner 'glimpse': option '{}_model': no such file '{}'", name, file.path));
    }
    model = std::make_shared<const Model>(Model::Load(file.path));
  }
  return true;
}

void GlimpseTuner::ResolvePrior(const Task& task) {
  ModelFile file;
  const char* consequence = "the first batch is uniform random";
  if (!ResolveModel("prior", options_.prior_model, options_.prior, consequence, prior_, file)) {
    return;
  }
  PriorTask prior_task = PriorTaskOfDescription(task.description, kernel_);
  {
    std::lock_guard<std::mutex> lock(PriorMutex());
    distribution_ = prior_->Distribution(*space_, prior_task, theta_);
  }
  prior_sampler_.emplace(*space_, *distribution_);
  Component("prior: " + Origin(file), false);
}

void GlimpseTuner::ResolveValidity() {
  ModelFile file;
  const char* consequence = "nothing is pruned";
  if (!ResolveModel("validity", options_.validity_model, options_.validity, consequence,
                    validity_model_, file)) {
    return;
  }
  const KernelValidityModel* kernel_model = validity_model_->Find(kernel_, *space_);
  if (kernel_model == nullptr) {
    std::string known;
    for (const KernelValidityModel& k : validity_model_->kernels()) {
      known += (known.empty() ? "" : ", ") + k.name;
    }
    if (known.empty()) known = "none";
    // glimpse's own templates (the CPU and CUDA targets' tasks) name no kernel: say that rather
    // than look up a kernel called ''.
    Component(kernel_.empty()
                  ? fmt::format("validity: none (the task names no kernel, as glimpse's own "
                                "templates do not, so none of the kernel models of {} applies; "
                                "it has: {}): {}",
                                Origin(file), known, consequence)
                  : fmt::format("validity: none (no kernel model for '{}' with this space's knobs "
                                "in {}; it has: {}): {}",
                                kernel_, Origin(file), known, consequence),
              true);
    return;
  }
  ensemble_.emplace(validity_model_->ForSpace(kernel_, *space_, theta_));
  Component(fmt::format("validity: {} (kernel space '{}', {} voters, tau {:.3f})", Origin(file),
                        kernel_model->name, ensemble_->voters(), ensemble_->tau()),
            false);
}

void GlimpseTuner::ResolveAcquisition() {
  const std::string ucb = fmt::format("ucb, mean + {:g} · std", options_.ucb_kappa);
  auto use_ucb = [&](const std::string& why, bool fallback) {
    policy_ = MakeUcbAcquisition(options_.ucb_kappa);
    Component(fmt::format("acquisition: {} ({})", ucb, why), fallback);
  };
  if (options_.policy) {
    policy_ = options_.policy;
    Component(fmt::format("acquisition: policy '{}' given in memory", policy_->Name()), false);
    return;
  }
  if (!options_.UsesLearnedAcquisition()) {
    if (options_.acquisition_model == "none") return use_ucb("acquisition_model \"none\"", false);
    if (options_.acquisition == "ucb") return use_ucb("acquisition \"ucb\"", false);
    return use_ucb("the default; acquisition \"learned\" for the meta-learned network", false);
  }
  ModelFile file = ResolveModelFile(options_.acquisition_model, "acquisition");
  if (gpu_ == nullptr) return use_ucb("no Blueprint", true);
  if (file.path.empty() || (file.shipped && !std::filesystem::exists(file.path))) {
    return use_ucb(file.path.empty() ? "no shipped model" : "no shipped model at " + file.path,
                   true);
  }
  if (!std::filesystem::exists(file.path)) {
    throw Error(
        fmt::format("tuner 'glimpse': option 'acquisition_model': no such file '{}'", file.path));
  }
  auto network = std::make_shared<const AcquisitionNetwork>(AcquisitionNetwork::Load(file.path));
  if (network->blueprint_components() != static_cast<int>(theta_.size())) {
    return use_ucb(fmt::format("{} was made with a Blueprint of {} components, this one has {}",
                               file.path, network->blueprint_components(), theta_.size()),
                   true);
  }
  network_ = std::move(network);
  policy_ = MakeNeuralAcquisition(*network_);
  Component("acquisition: " + file.path + " (neural)", false);
}

bool GlimpseTuner::InInitialPhase() const {
  return xs_.empty() || initial_proposed_ + resumed_ < static_cast<size_t>(options_.initial_size);
}

std::vector<Config> GlimpseTuner::Propose(size_t n) {
  RequireInit("Propose");
  std::vector<Config> out;
  if (n == 0) return out;
  if (InInitialPhase()) {
    // With nothing observed there is no surrogate: the whole batch comes from the prior.
    const size_t left =
        static_cast<size_t>(options_.initial_size) -
        std::min(static_cast<size_t>(options_.initial_size), initial_proposed_ + resumed_);
    const size_t count = xs_.empty() ? n : std::min(n, left);
    InitialBatch(count, out);
    initial_proposed_ += out.size();
    if (out.size() < count) return out;  // exhausted
  }
  if (out.size() < n) ModelBatch(n - out.size(), out);
  return out;
}

void GlimpseTuner::InitialBatch(size_t count, std::vector<Config>& out) {
  std::vector<Config> prior_picks;
  if (distribution_) {
    prior_picks = EnumerateByProbability(
        *space_, *distribution_, count,
        [&](const Config& config) { return !visited_.count(config) && Accepted(config); },
        kMaxEnumerationVisits);
  }
  // The history's best-rated candidates and the prior's, alternately, history first; without
  // history, the prior's in their order.
  std::vector<Config> picks;
  size_t next_history = 0, next_prior = 0;
  auto take = [&](const std::vector<Config>& from, size_t& next) {
    while (next < from.size()) {
      const Config& config = from[next++];
      if (visited_.count(config) || !Accepted(config)) continue;
      visited_.insert(config);
      picks.push_back(config);
      return;
    }
  };
  while (picks.size() < count &&
         (next_history < history_ranked_.size() || next_prior < prior_picks.size())) {
    take(history_ranked_, next_history);
    if (picks.size() < count) take(prior_picks, next_prior);
  }
  if (picks.size() < count) RandomFill(count - picks.size(), visited_, picks);
  out.insert(out.end(), picks.begin(), picks.end());
}

void GlimpseTuner::RandomFill(size_t count, ConfigSet& excluded, std::vector<Config>& out) {
  const size_t target = out.size() + count;
  if (ensemble_ || !history_failed_.empty()) {
    const size_t draws = count * kAcceptedDrawsPerConfig;
    for (size_t draw = 0; draw < draws && out.size() < target; ++draw) {
      std::optional<Config> config = sampler_.Next(rng_, excluded);
      if (!config) return;  // nothing unvisited is left at all
      if (!Accepted(*config)) continue;
      excluded.insert(*config);
      out.push_back(std::move(*config));
    }
  }
  while (out.size() < target) {
    std::optional<Config> config = sampler_.Next(rng_, excluded);
    if (!config) return;
    excluded.insert(*config);
    out.push_back(std::move(*config));
  }
}

void GlimpseTuner::FitSurrogate() {
  if (fitted_on_ == xs_.size() && surrogate_->IsFitted()) return;
  surrogate_->Fit(xs_, ys_);
  fitted_on_ = xs_.size();
}

void GlimpseTuner::ModelBatch(size_t count, std::vector<Config>& out) {
  FitSurrogate();
  SurrogateMean mean(*surrogate_);
  std::vector<Config> pool =
      annealer_->FindMaximums(mean, static_cast<size_t>(options_.pool_size), visited_);
  ConfigSet excluded = visited_;
  excluded.insert(pool.begin(), pool.end());
  if (prior_sampler_) {
    for (int draw = 0; draw < options_.prior_pool_size; ++draw) {
      std::optional<Config> config = prior_sampler_->Sample(
          rng_, [&](const Config& c) { return !excluded.count(c); }, kPriorDrawAttempts);
      if (!config) break;  // the prior's mass lies on what is already there
      excluded.insert(*config);
      pool.push_back(std::move(*config));
    }
  }
  // What ran well on other GPUs: the history model's next best-rated unvisited candidates.
  int from_history = 0;
  for (const Config& config : history_ranked_) {
    if (from_history == options_.history_pool_size) break;
    if (excluded.count(config)) continue;
    excluded.insert(config);
    pool.push_back(config);
    ++from_history;
  }
  if (ensemble_) pool = ensemble_->Filter(pool);
  if (!history_failed_.empty()) {
    pool.erase(std::remove_if(pool.begin(), pool.end(),
                              [&](const Config& config) { return history_failed_.count(config); }),
               pool.end());
  }
  if (ensemble_ || !history_failed_.empty()) {
    // Rejected candidates may come back in the top-up below when nothing else is left.
    excluded = visited_;
    excluded.insert(pool.begin(), pool.end());
  }
  if (pool.size() < count) RandomFill(count - pool.size(), excluded, pool);
  if (pool.empty()) return;

  SurrogateEnsemble::Prediction prediction = surrogate_->Predict(pool);
  AcquisitionInput input;
  input.mean = std::move(prediction.mean);
  input.std = std::move(prediction.std);
  // Scores are normalised by the best observed one: it is 1 once anything ran.
  input.best_observed = *std::max_element(ys_.begin(), ys_.end()) > 0.0 ? 1.0 : 0.0;
  input.budget = static_cast<double>(options_.budget);
  input.budget_fraction = std::min(1.0, static_cast<double>(xs_.size()) / input.budget);
  input.blueprint = theta_;
  std::vector<std::vector<double>> features = AcquisitionFeatures(input, feature_components_);
  std::vector<size_t> chosen = policy_->Choose(features, count, rng_);

  // The policy's contract is k distinct indices; a policy that breaks it must not break the
  // tuner's (distinct, unvisited, n unless exhausted), so its picks are checked and completed.
  std::vector<bool> taken(pool.size(), false);
  const size_t wanted = std::min(count, pool.size());
  size_t added = 0;
  for (size_t index : chosen) {
    if (added == wanted) break;
    if (index >= pool.size() || taken[index]) continue;
    taken[index] = true;
    ++added;
    visited_.insert(pool[index]);
    out.push_back(pool[index]);
  }
  for (size_t index = 0; index < pool.size() && added < wanted; ++index) {
    if (taken[index]) continue;
    taken[index] = true;
    ++added;
    visited_.insert(pool[index]);
    out.push_back(pool[index]);
  }
}

void GlimpseTuner::Observe(const std::vector<Config>& configs,
                           const std::vector<MeasureResult>& results) {
  RequireInit("Observe");
  if (configs.size() != results.size()) {
    throw Error(fmt::format("tuner 'glimpse': Observe got {} configurations but {} results",
                            configs.size(), results.size()));
  }
  for (size_t i = 0; i < configs.size(); ++i) {
    if (!space_->InRange(configs[i])) {
      throw Error(
          fmt::format("tuner 'glimpse': observed configuration {} is not in the task's space", i));
    }
    const MeasureResult& result = results[i];
    const bool ok = result.ok() && std::isfinite(result.time_s) && result.time_s > 0.0;
    if (visited_.insert(configs[i]).second) ++resumed_;  // a record of an earlier run
    xs_.push_back(configs[i]);
    ys_.push_back(ok ? 1.0 / result.time_s : 0.0);
  }
}

}  // namespace

std::unique_ptr<Tuner> MakeGlimpseTuner(const GlimpseTunerOptions& options) {
  return std::make_unique<GlimpseTuner>(options);
}

void RegisterGlimpseTuner() {
  static std::once_flag once;
  std::call_once(once, [] {
    const std::vector<std::string> known = KnownTuners();
    if (std::find(known.begin(), known.end(), "glimpse") != known.end()) return;
    RegisterTuner(
        "glimpse",
        "Glimpse (DAC'22): Blueprint prior for the first batch, then simulated "
        "annealing on an XGBoost-ensemble surrogate, a validity ensemble pruning the "
        "pool and a meta-learned acquisition choosing the batch",
        [](const Json& options) {
          return MakeGlimpseTuner(GlimpseTunerOptions::FromJson(options));
        },
        TunerTraits{.learns_from_history = true, .reads_device = true});
  });
}

std::vector<std::string> GlimpseTunerComponents(const Tuner& glimpse_tuner) {
  const auto* tuner = dynamic_cast<const GlimpseTuner*>(&glimpse_tuner);
  if (tuner == nullptr) {
    throw Error("GlimpseTunerComponents: tuner '" + glimpse_tuner.Name() +
                "' is not the glimpse tuner");
  }
  return tuner->components();
}

}  // namespace glimpse
