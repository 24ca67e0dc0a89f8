// bench/cpu_baselines/protocol.h — glimpse's CPU measurement protocol (src/cpu/runner.cc,
// src/cpu/worker/cpu_worker.cc, DESIGN.md "Measurement protocol") applied to library calls: which
// CPUs are used and how threads are pinned to them, the cache flush between timed calls, the
// timing loop, and the description of the machine a result was taken on.
//
// Units: seconds and bytes unless a name says otherwise.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "glimpse/cache_flush.h"  // the runner worker's flush and cache sizes, shared

namespace glimpse::baselines {

// The first `threads` CPUs this process may use (every one of them when threads <= 0), in
// increasing order — the CPUs glimpse's runner pins its worker to. Throws Error when `threads`
// exceeds the CPUs available.
std::vector<int> SelectCpus(int threads);

// Makes the process look like glimpse's runner worker: pinned to `cpus`, with OMP_NUM_THREADS =
// cpus.size(), OMP_PROC_BIND=close and OMP_PLACES=threads, so that OpenMP (oneDNN's threading in
// Debian) binds one thread per CPU. libgomp reads its environment when it is loaded, before main
// runs, so the first call sets the environment and affinity and re-executes the program (same
// argv) through /proc/self/exe. Call it before anything else, with SelectCpus' answer; in the
// re-executed program it returns the CPUs the first image chose (by then OpenMP has bound the
// initial thread to the first of them, so they could not be asked of sched_getaffinity again).
// Throws Error when the re-execution fails.
std::vector<int> EnsurePinnedOpenMp(const std::vector<int>& cpus, char** argv);

// True in the re-executed image (EnsurePinnedOpenMp has been here before).
bool IsPinnedImage();

// Pins the calling thread to one CPU. Throws Error on failure.
void PinThisThread(int cpu);

// One sample of work on several CPUs at once: a thread per CPU, pinned, released together;
// `work(t)` runs on thread t. The sample lasts from the earliest start to the latest end, each
// read by its own thread (the releasing thread only waits). `work`'s results are summed into a
// volatile sink so that the work cannot be dropped as dead code. Throws Error (with `what`) when
// a thread cannot be pinned.
double RunPinnedSample(const std::vector<int>& cpus, const std::function<float(size_t)>& work,
                       const std::string& what);

// How every library call is timed; the defaults are CpuRunnerOptions' defaults.
struct Protocol {
  bool timed = true;         // false: only the first (checked) call runs, nothing is timed
  int warmup = 1;            // untimed calls after the first call
  int min_repeats = 3;       // timed calls at least …
  double min_time_s = 0.05;  // … and at least this much summed call time …
  int max_repeats = 200;     // … but never more calls than this
  int64_t flush_bytes = 0;   // bytes swept before every timed call (CacheFlusher); 0: none
};

// `protocol.warmup` untimed samples, then samples until protocol.min_repeats and
// protocol.min_time_s (at most max_repeats): for work that times itself (RunPinnedSample).
std::vector<double> RepeatSamples(const std::function<double()>& sample, const Protocol& protocol);

// Runs `call` protocol.warmup times untimed, then times single calls — each preceded by a flush
// (the sweep, then the `operands` the call reads and writes, as the worker flushes a kernel's) —
// until min_repeats samples and min_time_s of summed call time are reached (at most max_repeats).
// Returns every sample in seconds. `call` must include any wait for the library to finish.
std::vector<double> TimeCalls(const std::function<void()>& call, const Protocol& protocol,
                              CacheFlusher& flusher,
                              const std::vector<FlushedOperand>& operands = {});

// The median (the mean of the middle two for an even count); 0 for no values.
double Median(std::vector<double> values);

// One library's result for one operator.
struct Measurement {
  std::string variant;         // column key: "onednn_blocked", "openblas_sgemm", …
  std::string implementation;  // what the library says it runs (oneDNN's impl_info_str)
  std::string note;            // what is and is not inside the timed call
  std::vector<double> samples_s;
  double median_s = 0;
  bool checked = false;  // the first call's output was compared with the double reference
  bool passed = false;   // … and every element was within the tolerance
  std::string check;     // "not checked", "passed (…)" or "FAILED: element …"
  std::string error;     // non-empty: the library refused the operator; nothing was timed
};

// The machine a result was taken on.
struct MachineInfo {
  std::string cpu_model;  // /proc/cpuinfo "model name"
  int online_cpus = 0;    // hardware threads the system has online
  std::vector<int> cpus;  // those this run used (pinned)
  int64_t llc_bytes = 0;
  bool avx2 = false, fma = false, avx512f = false;  // from __builtin_cpu_supports
  std::string compiler;                             // compiler id and version
  std::string cxx_flags;                            // flags this program was compiled with
};
MachineInfo DescribeMachine(const std::vector<int>& cpus);

// The 1, 5 and 15 minute load averages from /proc/loadavg ("1.20 0.95 0.80"), as uptime shows.
std::string LoadAverage();

}  // namespace glimpse::baselines
