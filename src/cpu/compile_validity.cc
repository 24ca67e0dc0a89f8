// Compile-only validity checks for the CPU templates (see glimpse/cpu.h).
#include "glimpse/cpu.h"
#include "glimpse/validity.h"

namespace glimpse {

CompileValidityChecker::CompileValidityChecker(const Task& task, CpuBuilderOptions options)
    : task_(task), builder_(std::move(options)) {}

std::vector<ValidityResult> CompileValidityChecker::Check(const std::vector<Config>& configs) {
  return CheckByBuilding(task_, builder_, configs);
}

}  // namespace glimpse
