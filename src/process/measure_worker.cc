#include "glimpse/measure_worker.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "glimpse/build_support.h"
#include "glimpse/error.h"
#include "glimpse/subprocess.h"

namespace glimpse::process {

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

Clock::time_point After(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

void IgnoreSigpipeUnlessHandled() {
  struct sigaction current {};
  if (sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) {
    signal(SIGPIPE, SIG_IGN);
  }
}

}  // namespace

double MedianSample(std::vector<double> samples) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  size_t n = samples.size();
  return n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
}

std::string FindWorker(const std::string& given, const char* env,
                       const std::vector<std::string>& built_in, const std::string& runner) {
  if (!given.empty()) return given;
  const char* value = std::getenv(env);
  if (value != nullptr && *value != '\0') return value;
  for (const std::string& path : built_in) {
    if (!path.empty() && access(path.c_str(), X_OK) == 0) return path;
  }
  for (const std::string& path : built_in) {
    if (!path.empty()) return path;
  }
  throw Error(runner + ": no worker executable; set " + env + " or worker_path");
}

std::vector<MeasureResult> MeasureEach(
    const std::string& runner, const std::vector<MeasureInput>& inputs,
    const std::vector<BuildResult>& builds,
    const std::function<MeasureResult(const MeasureInput&, const BuildResult&)>& measure) {
  if (inputs.size() != builds.size()) {
    throw Error(runner + ": " + std::to_string(inputs.size()) + " inputs but " +
                std::to_string(builds.size()) + " builds");
  }
  std::vector<MeasureResult> results;
  results.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) results.push_back(measure(inputs[i], builds[i]));
  return results;
}

struct MeasureWorker::Impl {
  MeasureWorkerOptions options;
  Child worker;
  std::string buffer;  // bytes read from the worker past the last full line
  int started = 0;
  WorkerHello hello;
  std::string no_device;

  void Stop() {
    if (worker.pid > 0) KillChild(worker.pid);
    if (worker.to_child >= 0) close(worker.to_child);
    if (worker.from_child >= 0) close(worker.from_child);
    worker = {};
    buffer.clear();
  }

  enum class Read { kLine, kEndOfFile, kTimeout };

  Read ReadLine(std::string& line, Clock::time_point deadline) {
    while (true) {
      size_t newline = buffer.find('\n');
      if (newline != std::string::npos) {
        line = buffer.substr(0, newline);
        buffer.erase(0, newline + 1);
        return Read::kLine;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return Read::kTimeout;
      pollfd fd{worker.from_child, POLLIN, 0};
      int ready = poll(&fd, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
      if (ready < 0 && errno != EINTR) return Read::kEndOfFile;
      if (ready <= 0) continue;
      char chunk[4096];
      ssize_t n = read(worker.from_child, chunk, sizeof(chunk));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return Read::kEndOfFile;
      buffer.append(chunk, static_cast<size_t>(n));
    }
  }

  // How the worker ended, once its output reached end of file.
  std::string Death() {
    ChildExit exit = WaitChild(worker.pid, 5.0);
    worker.pid = -1;
    Stop();
    if (!exit.signaled) return "exit status " + std::to_string(exit.code);
    std::string death = "signal " + std::to_string(exit.code) + " (" + strsignal(exit.code) + ")";
    // Nothing of glimpse's sends SIGKILL to a worker that answered in time: another process did,
    // most often the kernel's out-of-memory killer.
    if (exit.code == SIGKILL) {
      death +=
          ", killed from outside: the out-of-memory killer, most often (the kernel's log, "
          "dmesg, names it)";
    }
    return death;
  }

  // Starts a worker when none is running; returns an error text, empty on success.
  std::string EnsureWorker() {
    if (!no_device.empty()) return no_device;
    if (worker.pid > 0) return "";
    ChildOptions child;
    child.argv = options.argv;
    child.extra_env = options.extra_env;
    child.pipes = true;
    try {
      worker = StartChild(child);
    } catch (const Error& error) {
      return error.what();
    }
    ++started;
    std::string line;
    switch (ReadLine(line, After(options.start_timeout_s))) {
      case Read::kTimeout:
        Stop();
        return options.name + " " + options.argv[0] + " did not start within " +
               std::to_string(options.start_timeout_s) + " s";
      case Read::kEndOfFile:
        return options.name + " " + options.argv[0] + " exited before it was ready (" + Death() +
               "; cannot be executed?)";
      case Read::kLine:
        break;
    }
    try {
      hello = WorkerHelloFromJson(Json::parse(line));
    } catch (const std::exception&) {
      Stop();
      return options.name + " " + options.argv[0] + " said '" + TruncateMessage(line, 200) +
             "' instead of its hello";
    }
    if (!hello.ready) {
      Stop();
      // Only a device that does not exist is final; a failed start fails this candidate alone.
      if (hello.no_device) no_device = hello.error;
      return hello.error;
    }
    return "";
  }

  MeasureResult Measure(const BuildResult& build,
                        const std::function<MeasureRequest()>& make_request) {
    MeasureResult result;
    result.compile_time_s = build.compile_time_s;
    const auto start = Clock::now();
    auto finish = [&](MeasureStatus status, std::string error) {
      result.status = status;
      result.error = std::move(error);
      result.cost_s = build.compile_time_s + Seconds(start);
      return result;
    };
    if (build.status != MeasureStatus::kOk) return finish(build.status, build.error);
    std::string line;
    try {
      line = ProtocolLine(MeasureRequestToJson(make_request())) + "\n";
    } catch (const Error& error) {
      return finish(MeasureStatus::kInstantiation, error.what());
    }
    if (std::string error = EnsureWorker(); !error.empty()) {
      return finish(MeasureStatus::kRuntimeDevice, error);
    }
    if (write(worker.to_child, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
      Stop();
      return finish(MeasureStatus::kRuntimeDevice, options.name + " stopped taking requests");
    }
    switch (ReadLine(line, After(options.timeout_s))) {
      case Read::kTimeout:
        Stop();
        return finish(MeasureStatus::kRunTimeout, "no result within " +
                                                      std::to_string(options.timeout_s) + " s; " +
                                                      options.name + " was killed");
      case Read::kEndOfFile:
        return finish(MeasureStatus::kRuntimeDevice, options.name + " died: " + Death());
      case Read::kLine:
        break;
    }
    MeasureAnswer answer;
    try {
      answer = MeasureAnswerFromJson(Json::parse(line));
    } catch (const std::exception& error) {
      Stop();
      return finish(MeasureStatus::kUnknown, "unreadable worker answer '" +
                                                 TruncateMessage(line, 200) + "': " + error.what());
    }
    // The worker exits after a fatal answer; reap it now so the next candidate starts afresh.
    if (answer.fatal) Stop();
    if (answer.status != MeasureStatus::kOk) return finish(answer.status, answer.error);
    if (answer.samples.empty()) return finish(MeasureStatus::kUnknown, "ok without samples");
    result.samples_s = std::move(answer.samples);
    result.time_s = MedianSample(result.samples_s);
    return finish(MeasureStatus::kOk, "");
  }
};

MeasureWorker::MeasureWorker(MeasureWorkerOptions options) : impl_(std::make_unique<Impl>()) {
  if (options.argv.empty() || options.argv[0].empty()) {
    throw Error(options.name + ": no worker executable");
  }
  if (!(options.timeout_s > 0)) throw Error(options.name + ": timeout_s must be > 0");
  if (!(options.start_timeout_s > 0)) throw Error(options.name + ": start_timeout_s must be > 0");
  impl_->options = std::move(options);
  IgnoreSigpipeUnlessHandled();
}

MeasureWorker::~MeasureWorker() { impl_->Stop(); }

MeasureResult MeasureWorker::Measure(const BuildResult& build,
                                     const std::function<MeasureRequest()>& make_request) {
  return impl_->Measure(build, make_request);
}

int MeasureWorker::workers_started() const { return impl_->started; }
const WorkerHello& MeasureWorker::hello() const { return impl_->hello; }
const std::string& MeasureWorker::no_device_reason() const { return impl_->no_device; }
void MeasureWorker::Stop() { impl_->Stop(); }

}  // namespace glimpse::process
