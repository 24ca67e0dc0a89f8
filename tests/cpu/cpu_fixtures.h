// Builder and runner options that keep the CPU tests fast on a busy machine.
#pragma once

#include <string>

#include "glimpse/cpu.h"
#include "test_paths.h"

namespace glimpse::testing {

inline CpuBuilderOptions FastBuild(const std::string& dir) {
  CpuBuilderOptions options;
  options.work_dir = dir;
  options.flags = {"-O1", "-march=native", "-fPIC", "-shared", "-fopenmp", "-std=c++17", "-w"};
  options.candidates_per_invocation = 4;
  options.parallel_invocations = 2;
  return options;
}

inline CpuRunnerOptions FastRun() {
  CpuRunnerOptions options;
  options.min_time_s = 0.001;
  options.max_repeats = 5;
  options.flush_bytes = 1 << 20;
  options.timeout_s = 5.0;
  return options;
}

}  // namespace glimpse::testing
