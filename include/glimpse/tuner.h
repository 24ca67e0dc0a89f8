// glimpse/tuner.h — search strategies and their registry.
//
// Lifecycle (after AutoTVM's Tuner and MetaSchedule's SearchStrategy):
//   Init(context) → loop { Propose(n) → [measure] → Observe(configs, results) } → Finish()
// The context is the task, the seed and what the target knows besides (TargetKnowledge): a
// strategy takes from it what it can use and ignores the rest, so that one factory (MakeTuner)
// builds every strategy for every target.
// A strategy never measures; it proposes and learns. Contract for every strategy:
//   - Propose returns at most n distinct configurations that are valid (satisfy every
//     restriction) and were neither proposed nor observed before in this run; it returns fewer,
//     possibly none, only when it has nothing new to offer (the space is exhausted).
//   - Observe may be given configurations the strategy never proposed (records of an earlier run
//     that is being resumed); it learns from them and never proposes them.
//   - Given the same seed and the same observations, the same proposals (reproducible runs).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "glimpse/json.h"
#include "glimpse/measure.h"
#include "glimpse/space.h"
#include "glimpse/task.h"

namespace glimpse {

struct GpuSpec;         // glimpse/hardware.h
class ValidityChecker;  // glimpse/validity.h
class CostModel;        // glimpse/cost_model.h

// Measurements of the task's space on other devices (AutoTVM's load_history), in the task's
// configurations.
using TransferHistory = std::vector<std::pair<Config, MeasureResult>>;

// What the target (and the user) know besides the task's space.
struct TargetKnowledge {
  // The device as the target describes it (a GPU: the driver's figures completed from the GPU
  // table); null when the target is not a GPU or nothing is known of it.
  std::shared_ptr<const GpuSpec> gpu;
  // A check much cheaper than a measurement (compile only, a recorded status), for strategies that
  // presample validity; null when the target has none.
  std::shared_ptr<ValidityChecker> validity_checker;
  TransferHistory history;
  // A cost model of this task's space trained elsewhere — the learned performance model
  // (glimpse/learned_cost_model.h), which ranks an operator's configurations before any is
  // measured; null when none was given. Strategies that take one (TunerTraits::
  // takes_pretrained_model) plan their first batch from it and build their own model on it.
  std::shared_ptr<const CostModel> pretrained_model;
};

struct TuningContext {
  const Task* task = nullptr;  // outlives the tuner
  uint64_t seed = 0;
  TargetKnowledge knowledge;
  // The run's measurement budget (TuneOptions::max_measurements, resumed records included); 0
  // when only a time budget limits it. A strategy may pace itself by it (xgb's budget_rounds).
  int64_t max_measurements = 0;
};

class Tuner {
 public:
  virtual ~Tuner() = default;
  // The registry name ("random", "ga", …).
  virtual std::string Name() const = 0;
  // Starts a run: forgets every earlier proposal and observation.
  virtual void Init(const TuningContext& context) = 0;
  // Init with the task and seed alone.
  void Init(const Task& task, uint64_t seed) { Init(TuningContext{&task, seed, {}}); }
  virtual std::vector<Config> Propose(size_t n) = 0;
  virtual void Observe(const std::vector<Config>& configs,
                       const std::vector<MeasureResult>& results) = 0;
  virtual void Finish() {}
};

// Options of a strategy as JSON (from the command line's --tuner-option key=value). Unknown keys
// are an Error naming the accepted ones.
using TunerFactory = std::function<std::unique_ptr<Tuner>(const Json& options)>;

// What a strategy takes from TargetKnowledge, for the command line's checks ("--transfer-from needs
// a strategy that learns from history").
struct TunerTraits {
  bool learns_from_history = false;  // uses TargetKnowledge::history
  bool checks_validity = false;  // uses TargetKnowledge::validity_checker (option validity_init)
  bool reads_device = false;     // uses TargetKnowledge::gpu
  bool takes_pretrained_model = false;  // uses TargetKnowledge::pretrained_model
};

// The registry. MakeTuner throws Error "unknown tuner 'xgbb'; known: ga, grid, random, sa" (names
// sorted). KnownTuners() is sorted too.
std::unique_ptr<Tuner> MakeTuner(const std::string& name, const Json& options = Json::object());
std::vector<std::string> KnownTuners();
std::string TunerDescription(const std::string& name);
TunerTraits TraitsOfTuner(const std::string& name);
// The registered names whose traits satisfy `has`, sorted and comma-separated ("xgb, xgb-reg").
std::string TunersWith(bool (*has)(const TunerTraits&));
// Adds a strategy; later issues register model-based ones. Re-registering a name is an Error.
void RegisterTuner(const std::string& name, const std::string& description, TunerFactory factory,
                   TunerTraits traits = {});

// Uniform random sampling without replacement.
std::unique_ptr<Tuner> MakeRandomTuner(const Json& options = Json::object());
// Valid configurations in dense-index order.
std::unique_ptr<Tuner> MakeGridTuner(const Json& options = Json::object());

// Genetic algorithm with AutoTVM GATuner's defaults.
struct GeneticOptions {
  int population = 100;
  int elite = 3;
  double mutation_probability = 0.1;
  static GeneticOptions FromJson(const Json& options);
};
std::unique_ptr<Tuner> MakeGeneticTuner(const GeneticOptions& options = {});

// Simulated annealing over measured results: a walk through neighbouring configurations whose
// energy is the measured time.
struct AnnealingOptions {
  double initial_temperature = 1.0;
  double final_temperature = 0.001;
  double cooling = 0.995;  // temperature multiplier per observed measurement
  static AnnealingOptions FromJson(const Json& options);
};
std::unique_ptr<Tuner> MakeAnnealingTuner(const AnnealingOptions& options = {});

}  // namespace glimpse
