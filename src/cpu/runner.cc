// CpuRunner: candidates measured one at a time in a worker process (cpu/worker/cpu_worker.cc).
//
// The runner writes one request line per candidate and waits for the answer with the candidate's
// timeout. End of file from the worker means the kernel crashed it (runtime-device, with the
// signal); no answer in time means it hangs (run-timeout, the worker's process group is killed).
// Either way the next candidate starts a fresh worker.
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "glimpse/subprocess.h"
#include "glimpse/cpu.h"
#include "glimpse/error.h"

#ifndef GLIMPSE_CPU_WORKER_PATH
#define GLIMPSE_CPU_WORKER_PATH ""
#endif

namespace glimpse {

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// Bytes of the largest cache sysfs lists for CPU 0, or 0.
int64_t LastLevelCacheBytes() {
  int64_t best = 0;
  for (int index = 0; index < 8; ++index) {
    std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) +
                     "/size");
    std::string text;
    if (!(in >> text) || text.empty()) continue;
    int64_t value = std::atoll(text.c_str());
    char unit = text.back();
    if (unit == 'K') value <<= 10;
    if (unit == 'M') value <<= 20;
    best = std::max(best, value);
  }
  return best;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace

struct CpuRunner::Impl {
  CpuRunnerOptions options;
  std::string worker_path;
  std::string cpus;  // "0,1"
  int threads = 1;
  int64_t flush_bytes = 0;
  process::Child worker;
  std::string buffer;  // bytes read from the worker past the last full line
  int started = 0;

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

  // Starts a worker when none is running; returns an error text, empty on success.
  std::string EnsureWorker() {
    if (worker.pid > 0) return "";
    process::ChildOptions child;
    child.argv = {worker_path, "--cpus", cpus};
    child.extra_env = {"OMP_NUM_THREADS=" + std::to_string(threads), "OMP_PROC_BIND=close",
                       "OMP_PLACES=threads"};
    child.pipes = true;
    try {
      worker = process::StartChild(child);
    } catch (const Error& error) {
      return error.what();
    }
    ++started;
    std::string line;
    bool timed_out = false;
    if (!ReadLine(line, Clock::now() + std::chrono::seconds(30), timed_out) ||
        line.find("ready") == std::string::npos) {
      Stop();
      return "the worker " + worker_path + " did not start";
    }
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
    Json request;
    try {
      request = {{"artifact", build.artifact},
                 {"op", OperatorToJson(OperatorFromJson(input.task->description))},
                 {"warmup", options.warmup},
                 {"min_repeats", options.min_repeats},
                 {"min_time_s", options.min_time_s},
                 {"max_repeats", options.max_repeats},
                 {"flush_bytes", flush_bytes},
                 {"rtol", options.rtol},
                 {"seed", options.data_seed}};
    } catch (const Error& error) {
      return finish(MeasureStatus::kInstantiation, error.what());
    }
    if (std::string error = EnsureWorker(); !error.empty()) {
      return finish(MeasureStatus::kRuntimeDevice, error);
    }
    std::string line = request.dump() + "\n";
    if (write(worker.to_child, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
      Stop();
      return finish(MeasureStatus::kRuntimeDevice, "the worker stopped taking requests");
    }
    bool timed_out = false;
    auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                                std::chrono::duration<double>(options.timeout_s));
    if (!ReadLine(line, deadline, timed_out)) {
      if (timed_out) {
        Stop();
        return finish(MeasureStatus::kRunTimeout,
                      "no result within " + std::to_string(options.timeout_s) +
                          " s; the worker was killed");
      }
      process::ChildExit exit = process::WaitChild(worker.pid, 5.0);
      worker.pid = -1;
      Stop();
      std::string what = exit.signaled ? "signal " + std::to_string(exit.code) + " (" +
                                             strsignal(exit.code) + ")"
                                       : "exit status " + std::to_string(exit.code);
      return finish(MeasureStatus::kRuntimeDevice, "the kernel killed its worker: " + what);
    }
    Json response = Json::parse(line, nullptr, false);
    if (response.is_discarded() || !response.contains("status")) {
      Stop();
      return finish(MeasureStatus::kUnknown, "unreadable worker answer: " + line.substr(0, 200));
    }
    MeasureStatus status = StatusFromName(response["status"].get<std::string>());
    if (status != MeasureStatus::kOk) return finish(status, response.value("error", ""));
    result.samples_s = response.value("samples", std::vector<double>{});
    if (result.samples_s.empty()) return finish(MeasureStatus::kUnknown, "no samples");
    result.time_s = Median(result.samples_s);
    return finish(MeasureStatus::kOk, "");
  }
};

CpuRunner::CpuRunner(CpuRunnerOptions options) : impl_(std::make_unique<Impl>()) {
  Impl& impl = *impl_;
  if (options.min_repeats < 1) throw Error("cpu runner: min_repeats must be ≥ 1");
  if (options.timeout_s <= 0) throw Error("cpu runner: timeout_s must be > 0");
  if (options.rtol <= 0) throw Error("cpu runner: rtol must be > 0");
  impl.worker_path = options.worker_path;
  if (impl.worker_path.empty()) {
    const char* env = std::getenv("GLIMPSE_CPU_WORKER");
    impl.worker_path = env && *env ? env : GLIMPSE_CPU_WORKER_PATH;
  }
  if (impl.worker_path.empty()) {
    throw Error("cpu runner: no worker executable; set GLIMPSE_CPU_WORKER or worker_path");
  }
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  sched_getaffinity(0, sizeof(allowed), &allowed);
  int available = std::max(1, CPU_COUNT(&allowed));
  impl.threads = options.threads > 0 ? std::min(options.threads, available) : available;
  int listed = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE && listed < impl.threads; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    impl.cpus += (listed++ ? "," : "") + std::to_string(cpu);
  }
  // A virtual machine may report its host socket's whole L3 (480 MiB seen on a 2-CPU guest): a
  // flush of twice that before each of up to max_repeats timed runs would run every candidate
  // into its timeout, so the default stops at kMaxDefaultFlushBytes.
  constexpr int64_t kMaxDefaultFlushBytes = int64_t{128} << 20;
  const int64_t cache = LastLevelCacheBytes() > 0 ? LastLevelCacheBytes() : (int64_t{32} << 20);
  impl.flush_bytes = options.flush_bytes > 0   ? options.flush_bytes
                     : options.flush_bytes < 0 ? 0
                                               : std::min(2 * cache, kMaxDefaultFlushBytes);
  impl.options = std::move(options);
  // A worker that dies while we write to it must not take this process down with SIGPIPE.
  struct sigaction current {};
  if (sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) {
    signal(SIGPIPE, SIG_IGN);
  }
}

CpuRunner::~CpuRunner() { impl_->Stop(); }

int CpuRunner::workers_started() const { return impl_->started; }

std::vector<MeasureResult> CpuRunner::Run(const std::vector<MeasureInput>& inputs,
                                          const std::vector<BuildResult>& builds) {
  if (inputs.size() != builds.size()) {
    throw Error("cpu runner: " + std::to_string(inputs.size()) + " inputs but " +
                std::to_string(builds.size()) + " builds");
  }
  std::vector<MeasureResult> results;
  results.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) results.push_back(impl_->RunOne(inputs[i], builds[i]));
  return results;
}

}  // namespace glimpse
