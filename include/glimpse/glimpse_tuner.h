// glimpse/glimpse_tuner.h — the Glimpse tuner (../shared/papers/glimpse-dac22.md, Algorithm 1):
// Blueprint prior → simulated annealing on a surrogate → validity ensemble → acquisition (UCB, or
// the meta-learned network) → measure → update the surrogate.
//
// One batch of the tuner (Propose(n)):
//   1. Before anything is observed (the first `initial_size` proposals): the prior's initial
//      samples (PriorGenerator::InitialConfigs, the configurations combining each knob's most
//      likely values, by the product of their probabilities), kept only when the validity
//      ensemble accepts them.
//   2. Afterwards, every batch: the surrogate (an ensemble of XGBoost regressors on bootstrap
//      resamples of the observations: mean and uncertainty) is refitted on everything observed;
//      simulated annealing with the surrogate's mean as energy proposes `pool_size` unvisited
//      candidates, `prior_pool_size` more are drawn from the prior (exploration the annealer
//      cannot make: it only sees what the surrogate already likes); the validity ensemble removes
//      those it votes invalid (τ = 1/3); the acquisition function scores the rest and the n best
//      scored are proposed: by default the surrogate's upper confidence bound; with
//      acquisition "learned", the paper's network, from the surrogate's mean and uncertainty, the
//      position t/T in the budget and the Blueprint Θ.
//   Differences from Algorithm 1, and why: the ensemble prunes before the acquisition chooses,
//   so that a batch is never short of measurable candidates; the prior keeps feeding the pool;
//   UCB, not the meta-learned network, is the default acquisition (GlimpseTunerOptions::
//   acquisition says why).
//
// The user's history (TargetKnowledge::history: the kernel's records on other GPUs, mapped into
// this space — what `glimpse tune --transfer-from` / `--transfer-from-db` and the studies'
// transfer modes give): an XGBoost regression on it (scores 1/time, failures 0; boosting as
// AutoTVM's transfer base model) ranks the history's own configurations, putting every GPU's
// records on one scale. The first batch alternates its best-ranked configurations with the
// prior's (history first: measured evidence before the learned prior), both through the validity
// ensemble; later batches add the next `history_pool_size` unvisited ones to the acquisition's
// pool. Configurations that failed wherever the history measured them are not proposed
// (history_rejects_failures). Without history (or with use_history false) nothing changes.
//
// Every component can be missing. With no prior model (or none for this space), the first batch
// is uniform random; with no validity model (or no kernel model for this space), nothing is
// pruned; with the learned acquisition but no model, candidates are chosen by UCB, the surrogate's
// mean + ucb_kappa · std. A device that is not in the spec table has no Blueprint: then the
// prior, the ensemble and the acquisition model are all off. Each fallback is said once on stderr
// at Init (GlimpseTunerOptions::quiet silences it) and is listed by GlimpseTunerComponents().
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "glimpse/hardware.h"
#include "glimpse/json.h"
#include "glimpse/measure.h"
#include "glimpse/random.h"
#include "glimpse/replay.h"
#include "glimpse/space.h"
#include "glimpse/tuner.h"
#include "glimpse/validity_ensemble.h"

namespace glimpse {

class PriorGenerator;

// ---------------------------------------------------------------------------------------------
// The surrogate: an ensemble of gradient-boosted trees with a mean and an uncertainty.

struct SurrogateOptions {
  int members = 5;                    // XGBoost regressors, each on its own bootstrap resample
  int num_boost_round = 200;          // upper bound per member (early stopping as the cost model's)
  int num_threads = 1;                // XGBoost threads per member
  std::string feature_type = "knob";  // as XgbCostModelOptions::feature_type
};

// Targets are scores (higher = faster, failures 0; e.g. optimum-free 1/time). They are normalised
// by their maximum inside, so the mean of the incumbent is about 1 and a failure about 0.
class SurrogateEnsemble {
 public:
  // `space` outlives the ensemble.
  SurrogateEnsemble(const ConfigSpace& space, SurrogateOptions options, uint64_t seed);
  ~SurrogateEnsemble();
  SurrogateEnsemble(SurrogateEnsemble&&) noexcept;
  SurrogateEnsemble& operator=(SurrogateEnsemble&&) noexcept;

  // Refits every member on a bootstrap resample (with replacement, same size) of the data. Error
  // on an empty list or sizes that differ.
  void Fit(const std::vector<Config>& configs, const std::vector<double>& scores);
  bool IsFitted() const;

  struct Prediction {
    std::vector<double> mean;  // over the members, in normalised score units
    std::vector<double> std;   // population standard deviation over the members
  };
  Prediction Predict(const std::vector<Config>& configs) const;  // Error when not fitted

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ---------------------------------------------------------------------------------------------
// The acquisition function (Sec. 3.2, after MetaBO, Volpp et al. ICLR 2020).

// What the acquisition function sees of one candidate (kAcquisitionFeatureVersion):
//   [0] the surrogate's mean, [1] its standard deviation (normalised score units),
//   [2] mean − the best observed normalised score (≤ 0 unless predicted better),
//   [3] the candidate's mean rank in the pool / pool size (0 = best predicted),
//   [4] t/T, measurements made / budget T (the episode length the tuner was told, see below),
//   [5] log10(T)/3,
//   [6 …] the Blueprint Θ of the target GPU (blueprint components values; zeros when none).
inline constexpr int kAcquisitionFeatureVersion = 1;
inline constexpr int kAcquisitionBaseFeatures = 6;

struct AcquisitionInput {
  std::vector<double> mean, std;  // per candidate
  double best_observed = 0.0;     // the largest normalised score observed
  double budget_fraction = 0.0;   // t/T in [0, 1]
  double budget = 0.0;            // T
  std::vector<double> blueprint;  // Θ; may be empty
};
// One feature row per candidate, kAcquisitionBaseFeatures + blueprint_components values
// (Θ padded with zeros or Error when longer).
std::vector<std::vector<double>> AcquisitionFeatures(const AcquisitionInput& input,
                                                     int blueprint_components);

// Chooses which candidates to measure. Choose returns k distinct indices into `features` (all of
// them when there are at most k), the most preferred first.
class AcquisitionPolicy {
 public:
  virtual ~AcquisitionPolicy() = default;
  virtual std::string Name() const = 0;
  virtual std::vector<size_t> Choose(const std::vector<std::vector<double>>& features, size_t k,
                                     Rng& rng) = 0;
};

// The fallback: the k largest mean + kappa · std (features [0] and [1]); ties by lower index.
std::unique_ptr<AcquisitionPolicy> MakeUcbAcquisition(double kappa);

// Version 3: the same network as version 2, its weights as numbers (version 2: a torch::save
// archive); version 2 made the network a residual on UCB (below), version 1 was the plain MLP.
inline constexpr int kAcquisitionModelVersion = 3;
inline constexpr const char* kAcquisitionModelFormat = "glimpse-acquisition";
// The kappa of the UCB term inside the neural acquisition function (the tuner's default
// ucb_kappa).
inline constexpr double kAcquisitionUcbKappa = 1.0;

// The neural acquisition function, applied to every candidate of a pool:
//   logit = w · z(mean + kAcquisitionUcbKappa · std) + MLP(features)
// where z standardises over the pool (zero mean, unit deviation), w is a learned weight that
// starts at 3 and the MLP (features → hidden → hidden → 1, tanh) starts with its output layer
// scaled down by 10. An untrained network therefore ranks like UCB, and training moves it away
// from UCB only as far as the rewards say: a plain MLP trained on episodes whose returns are
// nearly all 0 (the prior often finds the optimum in the first batch) learned too little to tune
// with and did far worse than UCB on unseen GPUs (bench/results/glimpse.md).
// The logits are those of a softmax policy over the pool. Choose takes the k largest
// (deterministic); the trainer samples instead (Plackett–Luce: k draws without replacement).
// Scoring and the model file are plain C++; a fresh network (initialised by libtorch, as
// training needs it) and training are in glimpse_hwaware_training.
struct AcquisitionTrainingOptions;
class AcquisitionNetwork {
 public:
  // An untrained network (libtorch's initialisation with `seed`; glimpse_hwaware_training).
  AcquisitionNetwork(int blueprint_components, int hidden, uint64_t seed);
  ~AcquisitionNetwork();
  AcquisitionNetwork(AcquisitionNetwork&&) noexcept;
  AcquisitionNetwork& operator=(AcquisitionNetwork&&) noexcept;

  // Reads a model file ("format": kAcquisitionModelFormat, "version": kAcquisitionModelVersion,
  // the Blueprint version and components, the feature version, the hidden width, the training
  // options and spaces, the command that made it, the layers' weights as numbers).
  // Another format, version, Blueprint version or feature version is an Error naming both and the
  // command that remakes the file.
  static AcquisitionNetwork Load(const std::string& path);
  static AcquisitionNetwork FromJson(const Json& json, const std::string& origin);
  Json ToJson() const;
  void Save(const std::string& path) const;  // written whole, then renamed into place

  std::vector<double> Score(const std::vector<std::vector<double>>& features) const;  // logits
  int blueprint_components() const;
  const std::string& made_by() const;
  void set_made_by(std::string command);
  Json& training_info();  // what the trainer stores about itself (options, spaces, curve)
  const Json& training_info() const;

  struct Network;  // its layers (src/hwaware/acquisition_internal.h)
  Network& network();
  const Network& network() const;

 private:
  AcquisitionNetwork();  // for FromJson
  std::unique_ptr<Network> network_;
  int blueprint_components_ = 0;
  int hidden_ = 0;
  std::string made_by_;
  Json training_info_ = Json::object();
};

// A policy that scores with a network and takes the k best. `network` outlives the policy.
std::unique_ptr<AcquisitionPolicy> MakeNeuralAcquisition(const AcquisitionNetwork& network);

// ---------------------------------------------------------------------------------------------
// The tuner

struct GlimpseTunerOptions {
  // Model files. "" = the shipped model
  // (GlimpseDataDir()/models/<prior|validity|acquisition>.json), "none" = that component off (the
  // ablations), otherwise a path. A missing shipped file is a fallback (said once); a missing or
  // unreadable explicit path is an Error at Init.
  std::string prior_model;
  std::string validity_model;
  std::string acquisition_model;  // read only when the acquisition is "learned"
  // How a batch is chosen from the pool: "ucb" (the surrogate's mean + ucb_kappa · std) or
  // "learned" (the paper's meta-learned network, acquisition_model). "" = "learned" when
  // acquisition_model names a file, else "ucb". UCB is the default because the network did not
  // beat it where it counts — on GPUs of held-out architectures, and with the user's history it
  // left more runs short of 95 % (bench/results/glimpse_held_out.md, part 7).
  std::string acquisition;

  // The target GPU, as any name GpuTable::Lookup accepts; "" = the task's device. A name the
  // table does not know is a fallback (no Blueprint), not an error.
  std::string device;
  // The kernel space the models know the task by ("convolution_milo"); "" = task.description's
  // "kernel".
  std::string kernel;

  int initial_size = 16;     // proposals from the prior before the first surrogate fit
  int pool_size = 128;       // annealing candidates per batch
  int prior_pool_size = 32;  // prior draws added to the pool per batch (0 without a prior)
  // With history: its model's best-rated unvisited candidates added to the pool per batch.
  int history_pool_size = 16;
  bool use_history = true;  // false: ignore TargetKnowledge::history (an ablation)
  // With history: configurations that failed on every GPU that measured them are not proposed
  // (unless nothing else is left), as those the validity ensemble rejects.
  bool history_rejects_failures = true;
  int budget = 400;        // T of the acquisition's t/T (the harness passes its budget)
  double ucb_kappa = 1.0;  // UCB's weight of the surrogate's spread
  SurrogateOptions surrogate;
  int sa_parallel_size = 64;  // the annealer (SaOptimizer) on the surrogate's mean
  int sa_n_iter = 200;
  int sa_early_stop = 30;
  bool quiet = false;  // no fallback lines on stderr

  // In-memory models, used instead of the paths when set (the acquisition trainer, tests). Not
  // JSON keys.
  std::shared_ptr<const PriorGenerator> prior;
  std::shared_ptr<const ValidityEnsembleModel> validity;
  // Replaces the acquisition model (the trainer's sampling policy; tests). Not a JSON key.
  std::shared_ptr<AcquisitionPolicy> policy;

  // Keys: the fields above except policy and surrogate, plus surrogate_members,
  // surrogate_rounds. Unknown keys and bad values are an Error naming "glimpse", the key and what
  // is accepted.
  static GlimpseTunerOptions FromJson(const Json& options);
  void Validate() const;
  // Whether candidates are chosen by the meta-learned network (see `acquisition`).
  bool UsesLearnedAcquisition() const;
};

// Registry name "glimpse".
std::unique_ptr<Tuner> MakeGlimpseTuner(const GlimpseTunerOptions& options = {});

// Registers "glimpse" in the tuner registry; idempotent. The command line calls it at startup,
// beside RegisterModelTuners() (glimpse_model cannot depend on this library).
void RegisterGlimpseTuner();

// What Init resolved, for messages, tests and reports ("prior: data/models/prior.json",
// "validity: none (no kernel model for 'gemm')", …), one line per component.
std::vector<std::string> GlimpseTunerComponents(const Tuner& glimpse_tuner);

// ---------------------------------------------------------------------------------------------
// Training the acquisition function by reinforcement learning over tuning episodes.

struct AcquisitionTrainingOptions {
  int iterations = 150;  // policy updates
  int episodes_per_iteration = 12;
  // Episodes of one iteration that replay the same space with different seeds: the baseline of
  // an episode's step is the mean return of its space's episodes at that step, so the advantage
  // compares choices on one space instead of an easy space with a hard one. Must divide
  // episodes_per_iteration.
  int episodes_per_space = 4;
  int episode_budget = 64;  // measurements per episode (T)
  int batch_size = 16;      // measurements per tuner batch in an episode (the harness's)
  int hidden = 32;
  double learning_rate = 3e-3;
  double entropy_bonus = 0.01;
  uint64_t seed = 0;
  Json ToJson() const;
  static AcquisitionTrainingOptions FromJson(const Json& json, const std::string& where);
};

struct AcquisitionTrainingReport {
  std::vector<double> mean_return;  // per iteration
  double seconds = 0.0;
};

// Episodes replay the training spaces (ValidityTrainingSpace: a recorded space and its GPU) with
// the Glimpse tuner whose prior and validity models are given (either may be null), its policy
// sampling from the network's softmax. Reward per decision (MetaBO): −(1 − best performance so
// far), performance = recorded optimum time / best time. REINFORCE with a per-space, per-step
// baseline (the mean return at that step of the iteration's episodes on the same space, see
// episodes_per_space) and an entropy bonus; Adam. In glimpse_hwaware_training (libtorch).
AcquisitionNetwork TrainAcquisition(const std::vector<ValidityTrainingSpace>& spaces,
                                    const Blueprint& blueprint,
                                    std::shared_ptr<const PriorGenerator> prior,
                                    std::shared_ptr<const ValidityEnsembleModel> validity,
                                    const AcquisitionTrainingOptions& options,
                                    AcquisitionTrainingReport* report = nullptr,
                                    std::ostream* progress = nullptr);

}  // namespace glimpse
