// GpuRunner: candidates measured one at a time in a worker process (cuda/worker/gpu_worker.cc),
// with the CPU runner's process handling (glimpse/subprocess.h).
//
// The runner writes one request line per candidate and waits for the answer with the candidate's
// timeout. An answer marked "fatal" (a GPU fault left the context unusable) or end of file from
// the worker ends that worker; no answer in time means a hang (run-timeout, the worker's process
// group is killed). Either way the next candidate starts a fresh worker. A worker that reports no
// usable device at start makes every candidate runtime-device with its reason, and is not
// started again; one that could not start CUDA on an existing device fails only the candidate.
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "glimpse/subprocess.h"
#include "cuda/driver/worker_protocol.h"
#include "glimpse/cuda.h"
#include "glimpse/error.h"

#ifndef GLIMPSE_GPU_WORKER_PATH
#define GLIMPSE_GPU_WORKER_PATH ""
#endif

namespace glimpse {

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// Starting CUDA in a fresh process (driver load, context) takes up to a few seconds on a large
// GPU; a worker that says nothing for this long is broken.
constexpr double kStartTimeoutS = 60.0;

}  // namespace

struct GpuRunner::Impl {
  GpuRunnerOptions options;
  std::string worker_path;
  process::Child worker;
  std::string buffer;  // bytes read from the worker past the last full line
  int started = 0;
  std::string device_name;
  std::string no_device;  // "no CUDA device: …" once a worker reported it

  void Stop() {
    if (worker.pid > 0) process::KillChild(worker.pid);
    if (worker.to_child >= 0) close(worker.to_child);
    if (worker.from_child >= 0) close(worker.from_child);
    worker = {};
    buffer.clear();
  }

  // One line from the worker. Returns false on end of file (the worker died) or when the
  // deadline passes (`timed_out` set).
  bool ReadLine(std::string& line, Clock::time_point deadline, bool& timed_out) {
    timed_out = false;
    while (true) {
      size_t newline = buffer.find('\n');
      if (newline != std::string::npos) {
        line = buffer.substr(0, newline);
        buffer.erase(0, newline + 1);
        return true;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) {
        timed_out = true;
        return false;
      }
      pollfd fd{worker.from_child, POLLIN, 0};
      int ready = poll(&fd, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
      if (ready < 0 && errno != EINTR) return false;
      if (ready <= 0) continue;
      char chunk[4096];
      ssize_t n = read(worker.from_child, chunk, sizeof(chunk));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      buffer.append(chunk, static_cast<size_t>(n));
    }
  }

  // Starts a worker when none is running; returns an error text, empty on success. A worker that
  // reports no device sets `no_device`.
  std::string EnsureWorker() {
    if (!no_device.empty()) return no_device;
    if (worker.pid > 0) return "";
    process::ChildOptions child;
    child.argv = {worker_path, "--device", std::to_string(options.device)};
    child.pipes = true;
    try {
      worker = process::StartChild(child);
    } catch (const Error& error) {
      return error.what();
    }
    ++started;
    std::string line;
    bool timed_out = false;
    auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(kStartTimeoutS));
    if (!ReadLine(line, deadline, timed_out)) {
      Stop();
      return "the GPU worker " + worker_path +
             (timed_out ? " did not start within " + std::to_string(kStartTimeoutS) + " s"
                        : " exited before it was ready (cannot be executed?)");
    }
    Json hello = Json::parse(line, nullptr, false);
    if (hello.is_discarded() || !hello.contains("ready") || !hello["ready"].is_boolean()) {
      Stop();
      return "the GPU worker " + worker_path + " said '" + line.substr(0, 200) +
             "' instead of ready";
    }
    if (!hello["ready"].get<bool>()) {
      Stop();
      std::string error = hello.value("error", std::string("the GPU worker gave no reason"));
      // Only a device that does not exist is final; a failed start fails this candidate alone.
      if (hello.value("no_device", false)) no_device = error;
      return error;
    }
    device_name = hello.value("device", "");
    return "";
  }

  MeasureResult RunOne(const MeasureInput& input, const BuildResult& build) {
    MeasureResult result;
    result.compile_time_s = build.compile_time_s;
    auto start = Clock::now();
    auto finish = [&](MeasureStatus status, std::string error) {
      result.status = status;
      result.error = std::move(error);
      result.cost_s = build.compile_time_s + Seconds(start);
      return result;
    };
    if (build.status != MeasureStatus::kOk) return finish(build.status, build.error);
    std::string line;
    try {
      cuda::GpuMeasureRequest request;
      request.artifact = build.artifact;
      request.op = OperatorFromJson(input.task->description);
      request.warmup = options.warmup;
      request.min_repeats = options.min_repeats;
      request.min_time_s = options.min_time_s;
      request.max_repeats = options.max_repeats;
      request.flush_bytes = options.flush_bytes;
      request.rtol = options.rtol;
      request.seed = options.data_seed;
      line = cuda::GpuMeasureRequestToJson(request).dump() + "\n";
    } catch (const Error& error) {
      return finish(MeasureStatus::kInstantiation, error.what());
    }
    if (std::string error = EnsureWorker(); !error.empty()) {
      return finish(MeasureStatus::kRuntimeDevice, error);
    }
    if (write(worker.to_child, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
      Stop();
      return finish(MeasureStatus::kRuntimeDevice, "the GPU worker stopped taking requests");
    }
    bool timed_out = false;
    // From here on: a fresh worker's CUDA start-up does not eat into the candidate's time.
    auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(options.timeout_s));
    if (!ReadLine(line, deadline, timed_out)) {
      if (timed_out) {
        Stop();
        return finish(MeasureStatus::kRunTimeout, "no result within " +
                                                      std::to_string(options.timeout_s) +
                                                      " s; the GPU worker was killed");
      }
      process::ChildExit exit = process::WaitChild(worker.pid, 5.0);
      worker.pid = -1;
      Stop();
      std::string what =
          exit.signaled ? "signal " + std::to_string(exit.code) + " (" + strsignal(exit.code) + ")"
                        : "exit status " + std::to_string(exit.code);
      return finish(MeasureStatus::kRuntimeDevice, "the GPU worker died: " + what);
    }
    Json response = Json::parse(line, nullptr, false);
    if (response.is_discarded() || !response.contains("status")) {
      Stop();
      return finish(MeasureStatus::kUnknown, "unreadable worker answer: " + line.substr(0, 200));
    }
    // The worker exits after a fatal answer; reap it now so the next candidate starts afresh.
    if (response.value("fatal", false)) Stop();
    MeasureStatus status = MeasureStatus::kUnknown;
    try {
      status = StatusFromName(response["status"].get<std::string>());
    } catch (const std::exception&) {
      return finish(MeasureStatus::kUnknown, "unreadable worker answer: " + line.substr(0, 200));
    }
    if (status != MeasureStatus::kOk) return finish(status, response.value("error", ""));
    result.samples_s = response.value("samples", std::vector<double>{});
    if (result.samples_s.empty()) return finish(MeasureStatus::kUnknown, "no samples");
    result.time_s = Median(result.samples_s);
    return finish(MeasureStatus::kOk, "");
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
  impl.worker_path = options.worker_path;
  if (impl.worker_path.empty()) {
    const char* env = std::getenv("GLIMPSE_GPU_WORKER");
    impl.worker_path = env && *env ? env : GLIMPSE_GPU_WORKER_PATH;
  }
  if (impl.worker_path.empty()) {
    throw Error("gpu runner: no worker executable; set GLIMPSE_GPU_WORKER or worker_path");
  }
  impl.options = std::move(options);
  // A worker that dies while we write to it must not take this process down with SIGPIPE.
  struct sigaction current {};
  if (sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) {
    signal(SIGPIPE, SIG_IGN);
  }
}

GpuRunner::~GpuRunner() { impl_->Stop(); }

int GpuRunner::workers_started() const { return impl_->started; }
const std::string& GpuRunner::device_name() const { return impl_->device_name; }
const std::string& GpuRunner::no_device_reason() const { return impl_->no_device; }

std::vector<MeasureResult> GpuRunner::Run(const std::vector<MeasureInput>& inputs,
                                          const std::vector<BuildResult>& builds) {
  if (inputs.size() != builds.size()) {
    throw Error("gpu runner: " + std::to_string(inputs.size()) + " inputs but " +
                std::to_string(builds.size()) + " builds");
  }
  std::vector<MeasureResult> results;
  results.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) results.push_back(impl_->RunOne(inputs[i], builds[i]));
  return results;
}

}  // namespace glimpse
