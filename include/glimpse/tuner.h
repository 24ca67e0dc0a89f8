// glimpse/tuner.h — search strategies and their registry.
//
// Lifecycle (after AutoTVM's Tuner and MetaSchedule's SearchStrategy):
//   Init(task, seed) → loop { Propose(n) → [measure] → Observe(configs, results) } → Finish()
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
#include <vector>

#include "glimpse/json.h"
#include "glimpse/measure.h"
#include "glimpse/space.h"
#include "glimpse/task.h"

namespace glimpse {

class Tuner {
 public:
  virtual ~Tuner() = default;
  // The registry name ("random", "ga", …).
  virtual std::string Name() const = 0;
  // `task` outlives the tuner.
  virtual void Init(const Task& task, uint64_t seed) = 0;
  virtual std::vector<Config> Propose(size_t n) = 0;
  virtual void Observe(const std::vector<Config>& configs,
                       const std::vector<MeasureResult>& results) = 0;
  virtual void Finish() {}
};

// Options of a strategy as JSON (from the command line's --tuner-option key=value). Unknown keys
// are an Error naming the accepted ones.
using TunerFactory = std::function<std::unique_ptr<Tuner>(const Json& options)>;

// The registry. MakeTuner throws Error "unknown tuner 'xgbb'; known: ga, grid, random, sa" (names
// sorted). KnownTuners() is sorted too.
std::unique_ptr<Tuner> MakeTuner(const std::string& name, const Json& options = Json::object());
std::vector<std::string> KnownTuners();
std::string TunerDescription(const std::string& name);
// Adds a strategy; later issues register model-based ones. Re-registering a name is an Error.
void RegisterTuner(const std::string& name, const std::string& description, TunerFactory factory);

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
