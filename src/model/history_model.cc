// FitHistoryModel (glimpse/model_tuner.h): the cost model the transfer-learning tuners fit on
// other devices' records.
#include <cmath>
#include <string>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/model_tuner.h"

namespace glimpse {

std::unique_ptr<CostModel> FitHistoryModel(const ConfigSpace& space, const TransferHistory& history,
                                           XgbCostModelOptions options, const std::string& tuner,
                                           size_t min_records) {
  std::vector<Config> configs;
  std::vector<double> scores;
  for (size_t i = 0; i < history.size(); ++i) {
    const auto& [config, result] = history[i];
    if (!space.InRange(config)) {
      throw Error("tuner '" + tuner + "': history record " + std::to_string(i) +
                  " is not a configuration of this task's space (" +
                  std::to_string(config.indices.size()) + " knob indices for " +
                  std::to_string(space.NumKnobs()) + " knobs, or an index out of range)");
    }
    configs.push_back(config);
    const bool ok = result.ok() && std::isfinite(result.time_s) && result.time_s > 0.0;
    scores.push_back(ok ? 1.0 / result.time_s : 0.0);
  }
  if (configs.size() < min_records) return nullptr;
  options.num_boost_round = kHistoryModelBoostRounds;
  options.early_stopping_rounds = kHistoryModelEarlyStop;
  std::unique_ptr<CostModel> model = MakeXgbCostModel(space, options);
  model->Fit(configs, scores);
  return model;
}

}  // namespace glimpse
