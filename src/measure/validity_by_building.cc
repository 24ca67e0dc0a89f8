// CheckByBuilding (glimpse/validity.h): what the CPU and CUDA compile-only checkers share.
#include "glimpse/error.h"
#include "glimpse/validity.h"

namespace glimpse {

std::vector<ValidityResult> CheckByBuilding(const Task& task, Builder& builder,
                                            const std::vector<Config>& configs) {
  std::vector<ValidityResult> results(configs.size());
  std::vector<MeasureInput> inputs;
  std::vector<size_t> positions;  // where each built input's result goes
  for (size_t i = 0; i < configs.size(); ++i) {
    if (!task.space.InRange(configs[i])) {
      throw Error("validity check of '" + task.name + "': configuration out of the space's range");
    }
    if (!task.space.IsValid(configs[i])) {
      results[i].status = MeasureStatus::kInstantiation;  // never built, costs nothing
      continue;
    }
    inputs.push_back({&task, configs[i]});
    positions.push_back(i);
  }
  std::vector<BuildResult> builds = builder.Build(inputs);
  for (size_t j = 0; j < builds.size(); ++j) {
    ValidityResult& result = results[positions[j]];
    result.valid = builds[j].status == MeasureStatus::kOk;
    result.status = builds[j].status;
    result.cost_s = builds[j].compile_time_s;
  }
  return results;
}

}  // namespace glimpse
