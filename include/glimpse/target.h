// glimpse/target.h — where candidates are built and measured: this CPU (CpuTarget, glimpse/cpu.h),
// an NVIDIA GPU (CudaTarget, glimpse/cuda.h, also build-only). A target makes the task of an
// operator, the run's builder, a runner per task and a compile-only validity checker per task,
// and describes its device to the strategies that read one, so that multi-task tuning
// (glimpse/tune_tasks.h) is written once for every target.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "glimpse/measure.h"
#include "glimpse/ops.h"
#include "glimpse/task.h"
#include "glimpse/tuner.h"
#include "glimpse/validity.h"

namespace glimpse {

class Target {
 public:
  virtual ~Target() = default;
  // "cpu", "cuda".
  virtual std::string Name() const = 0;
  // The device its records are stored under (the CPU's model name, the GPU's name; a build-only
  // run's "build-only sm_90", so that a measured run never resumes its records).
  virtual std::string Device() const = 0;
  // The architecture kernels are compiled for ("sm_90"); empty where there is no choice.
  virtual std::string Arch() const { return ""; }
  // False when candidates are built and checked but never run (no times).
  virtual bool Measures() const { return true; }

  // The task of `op`; Error saying why when the target has no template for it.
  virtual Task MakeTask(const Operator& op) const = 0;
  // The run's builder, compiling into `work_dir`.
  virtual std::unique_ptr<Builder> MakeBuilder(const std::string& work_dir) const = 0;
  // A runner for `task` whose candidates may take `timeout_s` each.
  virtual std::unique_ptr<Runner> MakeRunner(const Task& task, double timeout_s) const = 0;
  // A compile-only validity check of `task`'s configurations, compiling into `work_dir`.
  virtual std::shared_ptr<ValidityChecker> MakeValidityChecker(
      const Task& task, const std::string& work_dir) const = 0;
  // The device as the target knows it, for strategies that read one (TunerTraits::reads_device);
  // null when there is none. Adds what it had to guess to `notes`.
  virtual std::shared_ptr<const GpuSpec> DescribeDevice(std::vector<std::string>& notes) const {
    return nullptr;
  }
};

}  // namespace glimpse
