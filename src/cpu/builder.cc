// CpuBuilder: generated sources → shared objects with the system compiler.
//
// Candidates are grouped (candidates_per_invocation) into one translation unit and one .so, so
// that the compiler's start-up and the link are paid once per group; groups compile in parallel
// (parallel_invocations). A group that fails to compile is retried one candidate per unit so that
// each failure is attributed; a group that times out is reported as build-timeout as a whole.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "glimpse/build_support.h"
#include "glimpse/cpu.h"
#include "glimpse/error.h"
#include "glimpse/subprocess.h"

namespace glimpse {

namespace fs = std::filesystem;

namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct UnitOutcome {
  MeasureStatus status = MeasureStatus::kOk;
  std::string error;
  double seconds = 0;
};

}  // namespace

std::vector<std::string> DefaultCpuCompilerFlags() {
  std::vector<std::string> flags = {"-O3",      "-march=native", "-fPIC", "-shared",
                                    "-fopenmp", "-std=c++17",    "-w"};
#if defined(__x86_64__) || defined(__i386__)
  if (__builtin_cpu_supports("avx512f")) flags.push_back("-mprefer-vector-width=512");
#endif
  return flags;
}

CpuBuilder::CpuBuilder(CpuBuilderOptions options) : options_(std::move(options)) {
  if (options_.candidates_per_invocation < 1) {
    throw Error("cpu builder: candidates_per_invocation must be ≥ 1");
  }
  if (options_.timeout_s <= 0) throw Error("cpu builder: timeout_s must be > 0");
  if (options_.parallel_invocations <= 0 && !options_.cpus.empty()) {
    options_.parallel_invocations = static_cast<int>(options_.cpus.size());
  }
  options_.parallel_invocations = process::BuildJobs(options_.parallel_invocations);
  options_.work_dir = process::MakeBuildDir(options_.work_dir, "glimpse-cpu");
  usable_memory_ = process::UsableMemoryBytes();
}

size_t CpuBuilder::WaveSize() const {
  return static_cast<size_t>(options_.candidates_per_invocation) *
         static_cast<size_t>(options_.parallel_invocations);
}

std::vector<BuildResult> CpuBuilder::Build(const std::vector<MeasureInput>& inputs) {
  std::vector<Generated<KernelSource>> kernels(inputs.size());
  const int64_t batch = next_unit_;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string symbol = "glimpse_kernel_" + std::to_string(batch) + "_" + std::to_string(i);
    kernels[i] = RunTemplate<KernelSource>([&] {
      return KernelSource{GenerateCpuKernelToMeasure(*inputs[i].task, inputs[i].config, symbol,
                                                     static_cast<double>(usable_memory_)),
                          symbol};
    });
  }
  return BuildGenerated(kernels);
}

std::vector<BuildResult> CpuBuilder::BuildSources(const std::vector<KernelSource>& sources) {
  std::vector<Generated<KernelSource>> kernels(sources.size());
  for (size_t i = 0; i < sources.size(); ++i) kernels[i].source = sources[i];
  return BuildGenerated(kernels);
}

std::vector<BuildResult> CpuBuilder::BuildGenerated(
    const std::vector<Generated<KernelSource>>& kernels) {
  std::vector<BuildResult> results(kernels.size());
  std::vector<size_t> pending;
  for (size_t i = 0; i < kernels.size(); ++i) {
    if (kernels[i].ok()) {
      pending.push_back(i);
    } else {
      results[i].status = kernels[i].status;
      results[i].error = kernels[i].error;
    }
  }
  std::vector<std::vector<size_t>> groups;
  for (size_t start = 0; start < pending.size(); start += options_.candidates_per_invocation) {
    size_t end = std::min(pending.size(), start + options_.candidates_per_invocation);
    groups.emplace_back(pending.begin() + start, pending.begin() + end);
  }
  const int64_t first_unit = next_unit_;
  next_unit_ += static_cast<int64_t>(kernels.size()) + 1;

  // Compiles `members` into one shared object and fills their results.
  auto compile = [&](const std::vector<size_t>& members, const std::string& unit) -> UnitOutcome {
    const std::string base = (fs::path(options_.work_dir) / unit).string();
    {
      std::ofstream out(base + ".cc");
      for (size_t i : members) out << kernels[i].source.code << "\n";
    }
    process::ChildOptions child;
    child.argv.push_back(options_.compiler);
    child.argv.insert(child.argv.end(), options_.flags.begin(), options_.flags.end());
    child.argv.insert(child.argv.end(), {base + ".cc", "-o", base + ".so"});
    child.stderr_path = base + ".log";
    child.cpus = options_.cpus;
    auto start = std::chrono::steady_clock::now();
    UnitOutcome outcome;
    process::ChildExit exit;
    // A compiler that cannot be started says nothing about the configurations: recording them
    // as compile-host failures would keep them out of every later run that resumes this one.
    // The batch is given up instead, with nothing of it recorded (docs/cpu-tuning.md).
    const std::string cannot_run =
        "cannot run the compiler '" + options_.compiler +
        "' (not on PATH, or not executable); nothing of this batch was recorded — install it "
        "(scripts/install-deps.sh) or name another, and rerun the same command to resume";
    try {
      exit = process::WaitChild(process::StartChild(child).pid, options_.timeout_s);
    } catch (const Error& error) {
      throw Error(cannot_run + ": " + error.what());
    }
    outcome.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (exit.timed_out) {
      outcome.status = MeasureStatus::kBuildTimeout;
      outcome.error = "compiler killed after " + std::to_string(options_.timeout_s) + " s";
    } else if (exit.signaled || exit.code != 0) {
      outcome.status = MeasureStatus::kCompileHost;
      outcome.error = ReadFile(base + ".log");
      // 127 with nothing on stderr: the child's exec failed (the shell's "command not found").
      if (exit.code == 127 && !exit.signaled && outcome.error.empty()) throw Error(cannot_run);
      if (outcome.error.empty())
        outcome.error = "compiler exited with status " + std::to_string(exit.code);
      outcome.error = process::TruncateMessage(std::move(outcome.error), options_.max_error_chars);
    }
    for (size_t i : members) {
      results[i].status = outcome.status;
      results[i].error = outcome.error;
      results[i].compile_time_s = outcome.seconds / static_cast<double>(members.size());
      results[i].artifact =
          outcome.status == MeasureStatus::kOk ? base + ".so:" + kernels[i].source.symbol : "";
    }
    return outcome;
  };

  process::ForEachInParallel(groups.size(), options_.parallel_invocations, [&](size_t g) {
    const std::string unit = "unit_" + std::to_string(first_unit + static_cast<int64_t>(g));
    UnitOutcome outcome = compile(groups[g], unit);
    if (outcome.status != MeasureStatus::kCompileHost || groups[g].size() < 2) return;
    for (size_t j = 0; j < groups[g].size(); ++j) {
      compile({groups[g][j]}, unit + "_" + std::to_string(j));
    }
  });
  return results;
}

}  // namespace glimpse
