// CpuRunner: candidates measured one at a time in a worker process (cpu/worker/cpu_worker.cc).
//
// What the CPU adds to the worker layer (glimpse/measure_worker.h, which turns crashes, hangs and
// unreadable answers into statuses): the worker is pinned to its CPUs (those this process may use,
// or those the target left to measuring), with as many OpenMP threads, and the flush size comes
// from the last-level cache.
#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "glimpse/build_support.h"
#include "glimpse/cache_flush.h"
#include "glimpse/cpu.h"
#include "glimpse/error.h"
#include "glimpse/measure_worker.h"

#ifndef GLIMPSE_CPU_WORKER_PATH
#define GLIMPSE_CPU_WORKER_PATH ""
#endif
#ifndef GLIMPSE_INSTALLED_CPU_WORKER_PATH
#define GLIMPSE_INSTALLED_CPU_WORKER_PATH ""
#endif

namespace glimpse {

struct CpuRunner::Impl {
  CpuRunnerOptions options;
  int64_t flush_bytes = 0;
  std::unique_ptr<process::MeasureWorker> worker;

  MeasureResult RunOne(const MeasureInput& input, const BuildResult& build) {
    return worker->Measure(build, [&] {
      process::MeasureRequest request =
          process::MakeMeasureRequest(input, build, options, flush_bytes);
      request.warm_activations = options.warm_activations;
      return request;
    });
  }
};

CpuRunner::CpuRunner(CpuRunnerOptions options) : impl_(std::make_unique<Impl>()) {
  Impl& impl = *impl_;
  if (options.min_repeats < 1) throw Error("cpu runner: min_repeats must be ≥ 1");
  if (options.timeout_s <= 0) throw Error("cpu runner: timeout_s must be > 0");
  if (options.rtol <= 0) throw Error("cpu runner: rtol must be > 0");
  const std::string worker_path = process::FindWorker(
      options.worker_path, "GLIMPSE_CPU_WORKER",
      {GLIMPSE_CPU_WORKER_PATH, GLIMPSE_INSTALLED_CPU_WORKER_PATH}, "cpu runner");
  std::vector<int> cpus = options.cpus;
  if (cpus.empty()) {
    cpus = process::AllowedCpus();
    if (options.threads > 0 && options.threads < static_cast<int>(cpus.size())) {
      cpus.resize(static_cast<size_t>(options.threads));
    }
  }
  const int threads = static_cast<int>(cpus.size());
  std::string cpu_list;  // "0,1"
  for (int cpu : cpus) cpu_list += (cpu_list.empty() ? "" : ",") + std::to_string(cpu);
  impl.flush_bytes = options.flush_bytes > 0   ? options.flush_bytes
                     : options.flush_bytes < 0 ? 0
                                               : DefaultCacheFlushBytes();
  process::MeasureWorkerOptions worker;
  worker.name = "the cpu worker";
  worker.argv = {worker_path, "--cpus", cpu_list};
  worker.extra_env = {"OMP_NUM_THREADS=" + std::to_string(threads), "OMP_PROC_BIND=close",
                      "OMP_PLACES=threads"};
  worker.start_timeout_s = 30.0;
  worker.timeout_s = options.timeout_s;
  impl.worker = std::make_unique<process::MeasureWorker>(std::move(worker));
  impl.options = std::move(options);
  impl.options.cpus = std::move(cpus);
}

CpuRunner::~CpuRunner() = default;

int CpuRunner::workers_started() const { return impl_->worker->workers_started(); }

bool CpuRunner::TimesBesideBuilds() const { return impl_->options.builds_elsewhere; }

const std::vector<int>& CpuRunner::cpus() const { return impl_->options.cpus; }

std::vector<MeasureResult> CpuRunner::Run(const std::vector<MeasureInput>& inputs,
                                          const std::vector<BuildResult>& builds) {
  return process::MeasureEach("cpu runner", inputs, builds,
                              [&](const MeasureInput& input, const BuildResult& build) {
                                return impl_->RunOne(input, build);
                              });
}

}  // namespace glimpse
