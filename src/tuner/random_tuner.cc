// Uniform random sampling of valid configurations without replacement.
#include <memory>
#include <string>
#include <vector>

#include "glimpse/strategy_options.h"
#include "glimpse/tuner.h"
#include "tuner/sampling_tuner.h"

namespace glimpse {

namespace {

class RandomTuner : public tuner::SamplingTuner {
 public:
  std::string Name() const override { return "random"; }

  using Tuner::Init;
  void Init(const TuningContext& context) override { StartRun(&context.task->space, context.seed); }

  std::vector<Config> Propose(size_t n) override {
    std::vector<Config> out;
    AppendFresh(n, out);
    return out;
  }

  void Observe(const std::vector<Config>& configs,
               const std::vector<MeasureResult>& results) override {
    for (const Config& config : configs) visited_.Insert(config);
  }
};

}  // namespace

std::unique_ptr<Tuner> MakeRandomTuner(const Json& options) {
  tuner::CheckOptionKeys(options, "random", {});
  return std::make_unique<RandomTuner>();
}

}  // namespace glimpse
