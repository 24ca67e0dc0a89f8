// Simulated annealing over measured results, after Kernel Tuner's simulated_annealing strategy
// (kernel_tuner/strategies/simulated_annealing.py); there is no cost model, the energy of a
// configuration is its measured time (+inf when it failed).
//
// Map:
//   state        the current configuration and its cost; none before the first observation
//   Propose(n)   n distinct valid unvisited configurations near the state: its neighbours
//                (ConfigSpace::Neighbours) in random order; when fewer are left, random walks from
//                the state of growing length; then random valid configurations (a random restart).
//                Before any observation: random valid configurations (the starting points).
//   Observe      each observation, in order, is a trial move from the current state: accepted with
//                Kernel Tuner's probability 1 if better, else exp(((old - new) / old) / T); the
//                temperature is T = initial · cooling^c after c observations.
// Batches: one walker; a batch is n neighbours of the state at proposal time, and the moves are
// then judged one after another, so a batch of 1 is exactly Kernel Tuner's loop.
// Where we differ: Kernel Tuner stops when T falls below T_min; we reheat (T back to initial) and
// go on from the current state, because the budget belongs to the tuning loop. Kernel Tuner
// sometimes draws Hamming neighbours (any value of one knob); we use ConfigSpace's neighbours
// (adjacent values of ordered knobs, any value of categorical ones).
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/strategy_options.h"
#include "glimpse/tuner.h"
#include "tuner/sampling_tuner.h"

namespace glimpse {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Random walks tried per missing proposal before falling back to random configurations.
constexpr int kWalksPerProposal = 8;

class AnnealingTuner : public tuner::SamplingTuner {
 public:
  explicit AnnealingTuner(const AnnealingOptions& options) : options_(options) {}

  std::string Name() const override { return "sa"; }

  using Tuner::Init;
  void Init(const TuningContext& context) override {
    space_ = &context.task->space;
    StartRun(space_, context.seed);
    current_.reset();
    current_cost_ = kInfinity;
    temperature_ = options_.initial_temperature;
  }

  std::vector<Config> Propose(size_t n) override {
    std::vector<Config> out;
    if (current_) {
      std::vector<Config> neighbours = space_->Neighbours(*current_);
      for (size_t i = neighbours.size(); i > 1; --i) {
        std::swap(neighbours[i - 1], neighbours[UniformIndex(rng_, i)]);
      }
      for (Config& neighbour : neighbours) {
        if (out.size() >= n) break;
        if (visited_.Insert(neighbour)) out.push_back(std::move(neighbour));
      }
      const size_t missing = n - out.size();
      const size_t walks = missing * kWalksPerProposal;
      for (size_t attempt = 0; attempt < walks && out.size() < n; ++attempt) {
        int steps = 2 + static_cast<int>(attempt / std::max<size_t>(missing, 1));
        Config walked = space_->RandomWalk(*current_, steps, rng_);
        if (space_->IsValid(walked) && visited_.Insert(walked)) out.push_back(std::move(walked));
      }
    }
    AppendFresh(n, out);
    return out;
  }

  void Observe(const std::vector<Config>& configs,
               const std::vector<MeasureResult>& results) override {
    for (size_t i = 0; i < configs.size() && i < results.size(); ++i) {
      visited_.Insert(configs[i]);
      double cost = results[i].ok() ? results[i].time_s : kInfinity;
      // The uniform draw is made for every observation so the sequence of draws does not depend
      // on which branch was taken.
      double draw = UniformUnit(rng_);
      if (!current_ || Acceptance(current_cost_, cost) > draw) {
        current_ = configs[i];
        current_cost_ = cost;
      }
      temperature_ *= options_.cooling;
      if (temperature_ < options_.final_temperature) temperature_ = options_.initial_temperature;
    }
  }

 private:
  // Kernel Tuner's acceptance_prob for a cost to minimise.
  double Acceptance(double old_cost, double new_cost) const {
    if (old_cost == kInfinity) return 1.0;  // a failed state moves anywhere
    if (new_cost == kInfinity) return 0.0;  // never move onto a failure from a working state
    if (new_cost < old_cost) return 1.0;
    return std::exp(((old_cost - new_cost) / old_cost) / temperature_);
  }

  AnnealingOptions options_;
  const ConfigSpace* space_ = nullptr;
  std::optional<Config> current_;
  double current_cost_ = kInfinity;  // seconds
  double temperature_ = 1.0;
};

}  // namespace

AnnealingOptions AnnealingOptions::FromJson(const Json& options) {
  tuner::CheckOptionKeys(options, "sa", {"cooling", "final_temperature", "initial_temperature"});
  AnnealingOptions out;
  if (auto v = tuner::NumberOption(options, "sa", "initial_temperature")) {
    out.initial_temperature = *v;
  }
  if (auto v = tuner::NumberOption(options, "sa", "final_temperature")) out.final_temperature = *v;
  if (auto v = tuner::NumberOption(options, "sa", "cooling")) out.cooling = *v;
  if (!(out.initial_temperature > 0.0)) {
    throw Error("tuner 'sa': option 'initial_temperature' must be a positive number (got " +
                Json(out.initial_temperature).dump() + ")");
  }
  if (!(out.final_temperature > 0.0 && out.final_temperature < out.initial_temperature)) {
    throw Error(
        "tuner 'sa': option 'final_temperature' must be positive and below "
        "initial_temperature=" +
        Json(out.initial_temperature).dump() + " (got " + Json(out.final_temperature).dump() + ")");
  }
  if (!(out.cooling > 0.0 && out.cooling < 1.0)) {
    throw Error("tuner 'sa': option 'cooling' must be a number in (0, 1) (got " +
                Json(out.cooling).dump() + ")");
  }
  return out;
}

std::unique_ptr<Tuner> MakeAnnealingTuner(const AnnealingOptions& options) {
  if (!(options.initial_temperature > 0.0 && options.final_temperature > 0.0 &&
        options.final_temperature < options.initial_temperature && options.cooling > 0.0 &&
        options.cooling < 1.0)) {
    throw Error(
        "tuner 'sa': needs 0 < final_temperature < initial_temperature and cooling in "
        "(0, 1)");
  }
  return std::make_unique<AnnealingTuner>(options);
}

}  // namespace glimpse
