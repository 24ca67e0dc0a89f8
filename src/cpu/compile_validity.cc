// Compile-only validity checks for the CPU templates (see glimpse/cpu.h).
#include "glimpse/cpu.h"
#include "glimpse/error.h"

namespace glimpse {

CompileValidityChecker::CompileValidityChecker(const Task& task, CpuBuilderOptions options)
    : task_(task), builder_(std::move(options)) {}

std::vector<ValidityResult> CompileValidityChecker::Check(const std::vector<Config>& configs) {
  std::vector<ValidityResult> results(configs.size());
  std::vector<MeasureInput> inputs;
  std::vector<size_t> positions;  // where each compiled input's result goes
  for (size_t i = 0; i < configs.size(); ++i) {
    if (!task_.space.InRange(configs[i])) {
      throw Error("validity check of '" + task_.name + "': configuration out of the space's range");
    }
    if (!task_.space.IsValid(configs[i])) {
      results[i].status = MeasureStatus::kInstantiation;  // never compiled, costs nothing
      continue;
    }
    inputs.push_back({&task_, configs[i]});
    positions.push_back(i);
  }
  std::vector<BuildResult> builds = builder_.Build(inputs);
  for (size_t j = 0; j < builds.size(); ++j) {
    ValidityResult& result = results[positions[j]];
    result.valid = builds[j].status == MeasureStatus::kOk;
    result.status = builds[j].status;
    result.cost_s = builds[j].compile_time_s;
  }
  return results;
}

}  // namespace glimpse
