// glimpse/model_search.h — searching a space on a cost model instead of the hardware, as the
// model-based strategies do: AutoTVM's SimulatedAnnealingOptimizer (sa_model_optimizer.py)
// restricted to valid configurations, and uniform sampling of unvisited valid configurations.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_set>
#include <utility>
#include <vector>

#include "glimpse/cost_model.h"
#include "glimpse/random.h"
#include "glimpse/space.h"

namespace glimpse::model {

using ConfigSet = std::unordered_set<Config, ConfigHasher>;

struct SaOptions {
  int parallel_size = 128;  // walkers, kept between calls (AutoTVM persistent=True)
  int n_iter = 500;         // iterations at most
  double temp_start = 1.0;  // temperature falls linearly to temp_end over n_iter + 1 steps
  double temp_end = 0.0;
  int early_stop = 50;   // stop after this many iterations that changed no top-k entry
  int log_interval = 0;  // progress line on stderr every this many iterations; 0: silent
  // Mutations tried per walk step before falling back to a uniformly chosen valid neighbour.
  int max_mutation_attempts = 64;
};

// Adjusts model scores in place before the annealing sees them; scores[i] belongs to configs[i].
// Rieber et al.'s validity bias (model/rieber_init.h) is one.
using ScoreBias =
    std::function<void(const std::vector<Config>& configs, std::vector<double>& scores)>;

class SaOptimizer {
 public:
  // `space` outlives the optimizer.
  SaOptimizer(const ConfigSpace& space, SaOptions options, uint64_t seed);

  // Up to `num` distinct valid configurations outside `exclusive`, best model score first: the
  // best seen by any walker during the annealing. Fewer only when the walk met fewer.
  std::vector<Config> FindMaximums(const CostModel& model, size_t num, const ConfigSet& exclusive);

  // One walk step (AutoTVM ConfigSpace.random_walk): set a random knob to a random value, again
  // and again (the changes accumulate) until the result differs from `from` and is valid. Returns
  // `from` when it has no valid neighbour at all.
  Config Mutate(const Config& from);

  int last_iterations() const { return last_iterations_; }  // of the latest FindMaximums

  // Every score the annealing uses (walk acceptance and the top-k heap) goes through `bias`
  // first; an empty function (the default) leaves the model's scores as they are.
  void set_score_bias(ScoreBias bias) { score_bias_ = std::move(bias); }

 private:
  const ConfigSpace& space_;
  SaOptions options_;
  Rng rng_;
  std::vector<Config> points_;  // the persistent walkers
  int last_iterations_ = 0;
  ScoreBias score_bias_;

  std::vector<double> Score(const CostModel& model, const std::vector<Config>& configs) const;
};

// Uniform sampling of valid configurations outside a visited set: rejection sampling first, and
// once that keeps hitting visited ones, a scan of the enumerated valid configurations (for spaces
// small enough to enumerate), so that exhaustion is detected exactly there.
class UnvisitedSampler {
 public:
  static constexpr int kMaxRejections = 1000;
  static constexpr double kMaxEnumerableLog10 = 7.5;  // ≈ 3·10^7 raw points

  void Reset(const ConfigSpace* space);
  std::optional<Config> Next(Rng& rng, const ConfigSet& visited);

 private:
  const ConfigSpace* space_ = nullptr;
  bool enumerated_ = false;
  std::vector<uint64_t> valid_;  // dense indices of every valid configuration once enumerated
};

}  // namespace glimpse::model
