// Uniform random sampling of valid configurations without replacement.
#include <memory>
#include <string>
#include <vector>

#include "glimpse/strategy_options.h"
#include "glimpse/tuner.h"
#include "tuner/visited.h"

namespace glimpse {

namespace {

class RandomTuner : public Tuner {
 public:
  std::string Name() const override { return "random"; }

  using Tuner::Init;
  void Init(const TuningContext& context) override {
    const Task& task = *context.task;
    const uint64_t seed = context.seed;
    rng_.seed(seed);
    visited_.Clear();
    sampler_.Reset(&task.space);
  }

  std::vector<Config> Propose(size_t n) override {
    std::vector<Config> out;
    while (out.size() < n) {
      std::optional<Config> config = sampler_.Next(rng_, visited_);
      if (!config) break;  // exhausted (exactly so for enumerable spaces)
      visited_.Insert(*config);
      out.push_back(std::move(*config));
    }
    return out;
  }

  void Observe(const std::vector<Config>& configs,
               const std::vector<MeasureResult>& results) override {
    for (const Config& config : configs) visited_.Insert(config);
  }

 private:
  Rng rng_;
  tuner::VisitedSet visited_;
  tuner::FreshSampler sampler_;
};

}  // namespace

std::unique_ptr<Tuner> MakeRandomTuner(const Json& options) {
  tuner::CheckOptionKeys(options, "random", {});
  return std::make_unique<RandomTuner>();
}

}  // namespace glimpse
