// CpuTarget (glimpse/cpu.h): this CPU as a tuning target.
#include <string>

#include "glimpse/build_support.h"
#include "glimpse/cache_flush.h"
#include "glimpse/cpu.h"
#include "glimpse/error.h"

namespace glimpse {

CpuSplit SplitCpus(const std::vector<int>& allowed, int measure_threads) {
  const int total = static_cast<int>(allowed.size());
  if (total < 2) {
    throw Error(
        "overlapping builds with measurements needs at least 2 CPUs, this process may use " +
        std::to_string(total));
  }
  const int measure = measure_threads > 0 ? measure_threads : total - std::max(1, total / 4);
  if (measure >= total) {
    throw Error("overlapping builds with measurements: threads " + std::to_string(measure) +
                " leaves no CPU for the compiler (this process may use " + std::to_string(total) +
                "); give at most " + std::to_string(total - 1));
  }
  CpuSplit split;
  split.build.assign(allowed.begin(), allowed.end() - measure);
  split.measure.assign(allowed.end() - measure, allowed.end());
  return split;
}

CpuTarget::CpuTarget(CpuTargetOptions options) : options_(options) {
  if (options_.overlap_builds) split_ = SplitCpus(process::AllowedCpus(), options_.threads);
}

std::string CpuTarget::Device() const { return CpuRecordsDevice(options_.warm_activations); }

Task CpuTarget::MakeTask(const Operator& op) const {
  // A task that cannot be measured here — its tensors, the reference its output is checked
  // against, the cache flush — is refused before anything is built.
  CheckMeasurementFitsMemory(op, OperatorMeasurementBytes(op, DefaultCacheFlushBytes()),
                             static_cast<double>(process::UsableMemoryBytes()),
                             "this machine's memory (MemTotal in /proc/meminfo, or the cgroup's "
                             "memory.max)");
  Task task = MakeCpuTask(op);
  task.device = Device();
  return task;
}

CpuBuilderOptions CpuTarget::BuildOptions(const std::string& work_dir) const {
  CpuBuilderOptions build;
  build.work_dir = work_dir;
  build.parallel_invocations = options_.build_jobs;
  build.timeout_s = options_.build_timeout_s;
  return build;
}

std::unique_ptr<Builder> CpuTarget::MakeBuilder(const std::string& work_dir) const {
  CpuBuilderOptions build = BuildOptions(work_dir);
  build.cpus = split_.build;
  return std::make_unique<CpuBuilder>(build);
}

std::unique_ptr<Runner> CpuTarget::MakeRunner(const Task& task, double timeout_s) const {
  CpuRunnerOptions run;
  run.threads = options_.threads;
  run.cpus = split_.measure;
  run.builds_elsewhere = options_.overlap_builds;
  run.warm_activations = options_.warm_activations;
  run.timeout_s = timeout_s;
  return std::make_unique<CpuRunner>(run);
}

std::shared_ptr<ValidityChecker> CpuTarget::MakeValidityChecker(const Task& task,
                                                                const std::string& work_dir) const {
  // Compile-only checks never run beside a timed kernel: every CPU may build.
  return std::make_shared<CompileValidityChecker>(task, BuildOptions(work_dir));
}

}  // namespace glimpse
