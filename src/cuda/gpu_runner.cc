// GpuRunner: candidates measured one at a time in a worker process (cuda/worker/gpu_worker.cc),
// on the worker layer every runner shares (glimpse/measure_worker.h): a fault answered "fatal"
// (the CUDA context is unusable), a crash or a hang ends that worker and the next candidate starts
// a fresh one. A worker that reports no usable device at start makes every candidate
// runtime-device with its reason, and is not started again; one that could not start CUDA on an
// existing device fails only the candidate.
#include <cstdlib>

#include "glimpse/cuda.h"
#include "glimpse/error.h"
#include "glimpse/measure_worker.h"

#ifndef GLIMPSE_GPU_WORKER_PATH
#define GLIMPSE_GPU_WORKER_PATH ""
#endif
#ifndef GLIMPSE_INSTALLED_GPU_WORKER_PATH
#define GLIMPSE_INSTALLED_GPU_WORKER_PATH ""
#endif

namespace glimpse {

namespace {

// Starting CUDA in a fresh process (driver load, context) takes up to a few seconds on a large
// GPU; a worker that says nothing for this long is broken.
constexpr double kStartTimeoutS = 60.0;

}  // namespace

struct GpuRunner::Impl {
  GpuRunnerOptions options;
  std::unique_ptr<process::MeasureWorker> worker;

  MeasureResult RunOne(const MeasureInput& input, const BuildResult& build) {
    return worker->Measure(build, [&] {
      return process::MakeMeasureRequest(input, build, options, options.flush_bytes);
    });
  }
};

GpuRunner::GpuRunner(GpuRunnerOptions options) : impl_(std::make_unique<Impl>()) {
  Impl& impl = *impl_;
  if (options.device < 0) throw Error("gpu runner: device must be ≥ 0");
  if (options.warmup < 0) throw Error("gpu runner: warmup must be ≥ 0");
  if (options.min_repeats < 1) throw Error("gpu runner: min_repeats must be ≥ 1");
  if (options.max_repeats < 1) throw Error("gpu runner: max_repeats must be ≥ 1");
  if (options.timeout_s <= 0) throw Error("gpu runner: timeout_s must be > 0");
  if (!(options.rtol > 0)) throw Error("gpu runner: rtol must be > 0");
  const std::string worker_path = process::FindWorker(
      options.worker_path, "GLIMPSE_GPU_WORKER",
      {GLIMPSE_GPU_WORKER_PATH, GLIMPSE_INSTALLED_GPU_WORKER_PATH}, "gpu runner");
  process::MeasureWorkerOptions worker;
  worker.name = "the GPU worker";
  worker.argv = {worker_path, "--device", std::to_string(options.device)};
  worker.start_timeout_s = kStartTimeoutS;
  worker.timeout_s = options.timeout_s;
  impl.worker = std::make_unique<process::MeasureWorker>(std::move(worker));
  impl.options = std::move(options);
}

GpuRunner::~GpuRunner() = default;

int GpuRunner::workers_started() const { return impl_->worker->workers_started(); }
const std::string& GpuRunner::device_name() const { return impl_->worker->hello().device; }
const std::string& GpuRunner::no_device_reason() const { return impl_->worker->no_device_reason(); }

std::vector<MeasureResult> GpuRunner::Run(const std::vector<MeasureInput>& inputs,
                                          const std::vector<BuildResult>& builds) {
  return process::MeasureEach("gpu runner", inputs, builds,
                              [&](const MeasureInput& input, const BuildResult& build) {
                                return impl_->RunOne(input, build);
                              });
}

}  // namespace glimpse
