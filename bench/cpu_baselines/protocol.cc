#include "protocol.h"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "glimpse/error.h"

#ifndef GLIMPSE_BASELINES_CXX_FLAGS
#define GLIMPSE_BASELINES_CXX_FLAGS "unknown"
#endif

namespace glimpse::baselines {
namespace {

// Set in the re-executed program to the CPU list it was pinned to, so that it does not re-execute.
constexpr const char* kPinnedVariable = "GLIMPSE_BASELINES_PINNED";

std::string JoinCpus(const std::vector<int>& cpus) {
  std::string list;
  for (size_t i = 0; i < cpus.size(); ++i) list += (i ? "," : "") + std::to_string(cpus[i]);
  return list;
}

}  // namespace

std::vector<int> SelectCpus(int threads) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) {
    throw Error(std::string("sched_getaffinity: ") + std::strerror(errno));
  }
  const int available = CPU_COUNT(&allowed);
  if (threads > available) {
    throw Error("--threads " + std::to_string(threads) + ": this process may use only " +
                std::to_string(available) + " CPUs; accepted: 1.." + std::to_string(available) +
                " (0: all)");
  }
  const int wanted = threads > 0 ? threads : available;
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE && static_cast<int>(cpus.size()) < wanted; ++cpu) {
    if (CPU_ISSET(cpu, &allowed)) cpus.push_back(cpu);
  }
  return cpus;
}

bool IsPinnedImage() { return std::getenv(kPinnedVariable) != nullptr; }

std::vector<int> EnsurePinnedOpenMp(const std::vector<int>& cpus, char** argv) {
  if (const char* pinned = std::getenv(kPinnedVariable)) {
    std::vector<int> chosen;
    std::stringstream in(pinned);
    std::string item;
    while (std::getline(in, item, ',')) chosen.push_back(std::stoi(item));
    return chosen;
  }
  const std::string list = JoinCpus(cpus);
  setenv("OMP_NUM_THREADS", std::to_string(cpus.size()).c_str(), 1);
  setenv("OMP_PROC_BIND", "close", 1);
  setenv("OMP_PLACES", "threads", 1);
  setenv(kPinnedVariable, list.c_str(), 1);
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    throw Error("cannot pin to CPUs " + list + ": " + std::strerror(errno));
  }
  execv("/proc/self/exe", argv);
  throw Error(std::string("cannot re-execute /proc/self/exe to set OpenMP's environment: ") +
              std::strerror(errno));
}

void PinThisThread(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  int status = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
  if (status != 0) {
    throw Error("cannot pin a thread to CPU " + std::to_string(cpu) + ": " + std::strerror(status));
  }
}

double RunPinnedSample(const std::vector<int>& cpus, const std::function<float(size_t)>& work,
                       const std::string& what) {
  using Clock = std::chrono::steady_clock;
  const size_t n = cpus.size();
  std::atomic<size_t> ready{0};
  std::atomic<bool> go{false};
  std::vector<Clock::time_point> starts(n), ends(n);
  std::vector<float> results(n);
  std::vector<std::string> errors(n);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < n; ++t) {
    threads.emplace_back([&, t] {
      try {
        PinThisThread(cpus[t]);
      } catch (const Error& error) {
        errors[t] = error.what();
      }
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      starts[t] = Clock::now();
      results[t] = work(t);
      ends[t] = Clock::now();
    });
  }
  while (ready.load() < n) std::this_thread::yield();
  go.store(true, std::memory_order_release);
  for (auto& thread : threads) thread.join();
  for (const auto& error : errors) {
    if (!error.empty()) throw Error(what + ": " + error);
  }
  volatile float sink = 0;
  for (float r : results) sink = sink + r;
  return std::chrono::duration<double>(*std::max_element(ends.begin(), ends.end()) -
                                       *std::min_element(starts.begin(), starts.end()))
      .count();
}

std::vector<double> RepeatSamples(const std::function<double()>& sample, const Protocol& protocol) {
  for (int i = 0; i < protocol.warmup; ++i) sample();
  std::vector<double> samples;
  double total = 0;
  const int max_repeats = std::max(protocol.min_repeats, protocol.max_repeats);
  while (static_cast<int>(samples.size()) < max_repeats &&
         (static_cast<int>(samples.size()) < protocol.min_repeats || total < protocol.min_time_s)) {
    samples.push_back(sample());
    total += samples.back();
  }
  return samples;
}

std::vector<double> TimeCalls(const std::function<void()>& call, const Protocol& protocol,
                              CacheFlusher& flusher, const std::vector<FlushedOperand>& operands) {
  std::vector<double> samples;
  if (!protocol.timed) return samples;
  for (int i = 0; i < protocol.warmup; ++i) call();
  const int max_repeats = std::max(protocol.min_repeats, protocol.max_repeats);
  double total = 0;
  while (static_cast<int>(samples.size()) < max_repeats &&
         (static_cast<int>(samples.size()) < protocol.min_repeats || total < protocol.min_time_s)) {
    flusher.Flush(operands);
    auto start = std::chrono::steady_clock::now();
    call();
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    samples.push_back(seconds);
    total += seconds;
  }
  return samples;
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

MachineInfo DescribeMachine(const std::vector<int>& cpus) {
  MachineInfo info;
  info.cpu_model = "unknown CPU";
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      info.cpu_model = line.substr(line.find(':') + 2);
      break;
    }
  }
  info.online_cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  info.cpus = cpus;
  info.llc_bytes = LastLevelCacheBytes();
  __builtin_cpu_init();
  info.avx2 = __builtin_cpu_supports("avx2");
  info.fma = __builtin_cpu_supports("fma");
  info.avx512f = __builtin_cpu_supports("avx512f");
#if defined(__clang__)
  info.compiler = std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  info.compiler = std::string("g++ ") + __VERSION__;
#else
  info.compiler = "unknown compiler";
#endif
  info.cxx_flags = GLIMPSE_BASELINES_CXX_FLAGS;
  return info;
}

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  if (!(in >> one >> five >> fifteen)) return "unknown";
  return one + " " + five + " " + fifteen;
}

}  // namespace glimpse::baselines
