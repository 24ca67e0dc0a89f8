// CpuTarget (glimpse/cpu.h): this CPU as a tuning target.
#include "glimpse/cpu.h"

namespace glimpse {

CpuTarget::CpuTarget(CpuTargetOptions options) : options_(options) {}

std::string CpuTarget::Device() const { return CpuDeviceName(); }

Task CpuTarget::MakeTask(const Operator& op) const { return MakeCpuTask(op); }

CpuBuilderOptions CpuTarget::BuildOptions(const std::string& work_dir) const {
  CpuBuilderOptions build;
  build.work_dir = work_dir;
  build.parallel_invocations = options_.build_jobs;
  build.timeout_s = options_.build_timeout_s;
  return build;
}

std::unique_ptr<Builder> CpuTarget::MakeBuilder(const std::string& work_dir) const {
  return std::make_unique<CpuBuilder>(BuildOptions(work_dir));
}

std::unique_ptr<Runner> CpuTarget::MakeRunner(const Task& task, double timeout_s) const {
  CpuRunnerOptions run;
  run.threads = options_.threads;
  run.timeout_s = timeout_s;
  return std::make_unique<CpuRunner>(run);
}

std::shared_ptr<ValidityChecker> CpuTarget::MakeValidityChecker(const Task& task,
                                                                const std::string& work_dir) const {
  return std::make_shared<CompileValidityChecker>(task, BuildOptions(work_dir));
}

}  // namespace glimpse
