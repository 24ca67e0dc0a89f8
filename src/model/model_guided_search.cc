// ModelGuidedSearch::Record (model/tuner_internal.h): the observations of the xgb and chameleon
// tuners, scored as AutoTVM scores them.
#include <algorithm>
#include <cmath>

#include "glimpse/error.h"
#include "model/tuner_internal.h"

namespace glimpse::model {

std::vector<bool> ModelGuidedSearch::Record(const ConfigSpace& space, const std::string& tuner,
                                            const std::vector<Config>& configs,
                                            const std::vector<MeasureResult>& results) {
  if (configs.size() != results.size()) {
    throw Error("tuner '" + tuner + "': Observe got " + std::to_string(configs.size()) +
                " configurations but " + std::to_string(results.size()) + " results");
  }
  std::vector<bool> ok(configs.size());
  for (size_t i = 0; i < configs.size(); ++i) {
    if (!space.InRange(configs[i])) {
      throw Error("tuner '" + tuner + "': observed configuration " + std::to_string(i) +
                  " is not in the task's space");
    }
    const MeasureResult& result = results[i];
    ok[i] = result.ok() && std::isfinite(result.time_s) && result.time_s > 0.0;
    const double score = ok[i] ? 1.0 / result.time_s : 0.0;
    xs.push_back(configs[i]);
    ys.push_back(score);
    score_max = std::max(score_max, score);
    visited.insert(configs[i]);  // also covers records of a resumed run
  }
  return ok;
}

}  // namespace glimpse::model
