// Does the measurement protocol's cache flush evict? (issue: "a flush that provably evicts").
//
// A probe buffer is read by every thread of the OpenMP team (each its own slice, as a kernel's
// threads read theirs; one load per cache line) right after one of these, and the read is timed:
//   warm              nothing: the probe was just read, so it is in the caches;
//   memset            memset of the flush buffer by one thread (the worker's flush until
//                     November 2026; glibc writes large buffers with non-temporal stores);
//   one-thread sweep  one thread loads and stores a byte of every line of the flush buffer;
//   all-thread read sweep  every thread loads (no store) a byte of each line of its slice;
//   sweep             CacheFlusher's sweep alone (glimpse/cache_flush.h): every thread loads and
//                     stores a byte of each line of its slice;
//   CacheFlusher      the protocol's flush: the sweep, then the probe named as the operand and
//                     flushed line by line, as the worker names a kernel's operands;
//   clflush           only every line of the probe flushed with clflush (evicted from every level
//                     of every core: the reference for a cold read).
// The flush buffer is DefaultCacheFlushBytes() (2 × the last-level cache, at most 128 MiB), the
// probe sizes span the levels. The conditions run round-robin, each preceded by a warm read of the
// probe, so that slow drifts of the machine fall on all of them alike; the median is reported.
// A flush evicts when its read is at least as slow as after clflush (within 10 %): CacheFlusher
// must, for every probe size, or the program exits with status 1. (It is slower where the sweep's
// dirty lines are written back during the read.)
//
// Usage: bench_cache_flush [--repeats N] [--probe-kib K,K,…] [--json FILE]
// It re-executes itself with OMP_PROC_BIND=close and OMP_PLACES=threads (the worker's binding)
// when they are not set. Run it on a quiet machine; bench/results/cpu_instruments.md has its
// figures.
#include <emmintrin.h>
#include <fmt/format.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "glimpse/cache_flush.h"
#include "glimpse/json.h"

using namespace glimpse;

namespace {

using Clock = std::chrono::steady_clock;

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

template <typename T>
std::unique_ptr<T, FreeDeleter> AlignedArray(int64_t count) {
  const size_t bytes = (static_cast<size_t>(count) * sizeof(T) + 63) / 64 * 64;
  auto* p = static_cast<T*>(std::aligned_alloc(64, bytes));
  if (p == nullptr) {
    std::cerr << "bench_cache_flush: cannot allocate " << bytes << " bytes\n";
    std::exit(2);
  }
  std::memset(p, 0, bytes);
  return std::unique_ptr<T, FreeDeleter>(p);
}

volatile float sink = 0;

// Every thread loads one float of each cache line of its slice of the probe into eight
// independent sums, so that the loads, not a chain of additions, set the time (a plain float sum
// runs at one vector add per add latency whatever the level, and hides the difference); seconds
// for the whole team.
double TimedRead(const float* probe, int64_t count) {
  constexpr int64_t kFloatsPerLine = kCacheLineBytes / static_cast<int64_t>(sizeof(float));
  const int64_t lines = count / kFloatsPerLine;
  const auto start = Clock::now();
  float total = 0;
#pragma omp parallel reduction(+ : total)
  {
    const int64_t threads = omp_get_num_threads(), thread = omp_get_thread_num();
    const int64_t begin = lines * thread / threads, end = lines * (thread + 1) / threads;
    float sums[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t line = begin;
    for (; line + 8 <= end; line += 8) {
      for (int k = 0; k < 8; ++k) sums[k] += probe[(line + k) * kFloatsPerLine];
    }
    for (; line < end; ++line) sums[0] += probe[line * kFloatsPerLine];
    for (float sum : sums) total += sum;
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  sink = sink + total;
  return seconds;
}

void MemsetFlush(unsigned char* buffer, int64_t bytes, int round) {
  std::memset(buffer, round & 0xff, static_cast<size_t>(bytes));
  sink = sink + buffer[(static_cast<int64_t>(round) * 4099) % bytes];
}

void OneThreadSweep(unsigned char* buffer, int64_t bytes) {
  volatile unsigned char* line = buffer;
  for (int64_t i = 0; i < bytes; i += kCacheLineBytes, line += kCacheLineBytes) {
    *line = static_cast<unsigned char>(*line + 1);
  }
}

// Every thread loads (never stores) one byte of each line of its slice of the flush buffer.
void AllThreadReadSweep(const unsigned char* buffer, int64_t bytes) {
  const int64_t lines = bytes / kCacheLineBytes;
  unsigned total = 0;
#pragma omp parallel reduction(+ : total)
  {
    const int64_t threads = omp_get_num_threads(), thread = omp_get_thread_num();
    const int64_t begin = lines * thread / threads, end = lines * (thread + 1) / threads;
    const volatile unsigned char* line = buffer + begin * kCacheLineBytes;
    for (int64_t i = begin; i < end; ++i, line += kCacheLineBytes) total += *line;
  }
  sink = sink + static_cast<float>(total);
}

void ClflushProbe(const float* probe, int64_t count) {
  const auto* bytes = reinterpret_cast<const char*>(probe);
  const int64_t size = count * static_cast<int64_t>(sizeof(float));
  for (int64_t i = 0; i < size; i += kCacheLineBytes) _mm_clflush(bytes + i);
  _mm_mfence();
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

std::vector<int64_t> ParseKibList(const std::string& text) {
  std::vector<int64_t> sizes;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    const long long value = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || value <= 0) {
      std::cerr << "bench_cache_flush: --probe-kib takes positive whole numbers of KiB separated "
                   "by commas (got '"
                << text << "')\n";
      std::exit(2);
    }
    sizes.push_back(value);
  }
  return sizes;
}

// libgomp reads its binding from the environment when it loads: set it and start again.
void EnsureBoundThreads(char** argv) {
  if (std::getenv("OMP_PROC_BIND") != nullptr && std::getenv("OMP_PLACES") != nullptr) return;
  setenv("OMP_PROC_BIND", "close", 1);
  setenv("OMP_PLACES", "threads", 1);
  execv("/proc/self/exe", argv);
  std::cerr << "bench_cache_flush: cannot re-execute itself with bound OpenMP threads\n";
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  EnsureBoundThreads(argv);
  int repeats = 31;
  std::vector<int64_t> probe_kib = {16, 256, 2048, 16384};
  std::string json_path;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--repeats" && i + 1 < argc) {
      repeats = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--probe-kib" && i + 1 < argc) {
      probe_kib = ParseKibList(argv[++i]);
    } else if (arg == "--json" && i + 1 < argc) {
      json_path = argv[++i];
    } else {
      std::cerr << "usage: bench_cache_flush [--repeats N] [--probe-kib K,K,...] [--json FILE]\n";
      return 2;
    }
  }

  const int64_t flush_bytes = DefaultCacheFlushBytes();
  CacheFlusher flusher(flush_bytes);
  auto flush_buffer = AlignedArray<unsigned char>(flush_bytes);
  std::cout << fmt::format(
      "cache flush probe: {} OpenMP threads (bound: OMP_PROC_BIND={}, OMP_PLACES={}), last-level "
      "cache {} KiB, flush buffer {} MiB, {} repeats per condition\n\n",
      omp_get_max_threads(), std::getenv("OMP_PROC_BIND"), std::getenv("OMP_PLACES"),
      LastLevelCacheBytes() >> 10, flush_bytes >> 20, repeats);

  const std::vector<std::string> conditions = {
      "warm",  "memset",       "one-thread sweep", "all-thread read sweep",
      "sweep", "CacheFlusher", "clflush"};
  const size_t kFlusher = 5, kClflush = 6;
  Json report = {{"flush_bytes", flush_bytes},
                 {"llc_bytes", LastLevelCacheBytes()},
                 {"threads", omp_get_max_threads()},
                 {"repeats", repeats},
                 {"probes", Json::array()}};
  bool evicts_everywhere = true;
  std::cout << "| probe | warm µs | memset µs | one-thread sweep µs | all-thread read sweep µs | "
               "sweep µs | CacheFlusher µs | clflush µs | CacheFlusher ÷ clflush |\n"
               "|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const int64_t kib : probe_kib) {
    const int64_t count = kib * 1024 / static_cast<int64_t>(sizeof(float));
    auto probe = AlignedArray<float>(count);
    for (int64_t i = 0; i < count; ++i) probe.get()[i] = static_cast<float>(i % 7);
    std::vector<std::vector<double>> samples(conditions.size());
    for (int r = 0; r < repeats; ++r) {
      for (size_t c = 0; c < conditions.size(); ++c) {
        TimedRead(probe.get(), count);  // the probe is warm before every condition
        switch (c) {
          case 0:
            break;
          case 1:
            MemsetFlush(flush_buffer.get(), flush_bytes, r);
            break;
          case 2:
            OneThreadSweep(flush_buffer.get(), flush_bytes);
            break;
          case 3:
            AllThreadReadSweep(flush_buffer.get(), flush_bytes);
            break;
          case 4:
            flusher.Flush();
            break;
          case 5:
            flusher.Flush({{probe.get(), static_cast<size_t>(count) * sizeof(float)}});
            break;
          case 6:
            ClflushProbe(probe.get(), count);
            break;
        }
        samples[c].push_back(TimedRead(probe.get(), count));
      }
    }
    std::vector<double> medians;
    for (const auto& s : samples) medians.push_back(Median(s));
    const double ratio = medians[kFlusher] / medians[kClflush];
    const bool evicts = ratio >= 0.9;
    evicts_everywhere = evicts_everywhere && evicts;
    std::string row = fmt::format("| {} KiB |", kib);
    for (double m : medians) row += fmt::format(" {:.1f} |", m * 1e6);
    std::cout << row << fmt::format(" {:.2f}{} |\n", ratio, evicts ? "" : " (does not evict)");
    Json probe_json = {{"probe_bytes", kib * 1024}, {"conditions", Json::object()}};
    for (size_t c = 0; c < conditions.size(); ++c) {
      probe_json["conditions"][conditions[c]] = {{"median_s", medians[c]},
                                                 {"samples_s", samples[c]}};
    }
    probe_json["flusher_over_clflush"] = ratio;
    report["probes"].push_back(probe_json);
  }
  std::cout << "\n"
            << (evicts_everywhere
                    ? "CacheFlusher evicts: after it every probe reads at least as slowly as after "
                      "clflush (within 10 %)\n"
                    : "CacheFlusher does NOT evict every probe (marked above)\n");
  if (!json_path.empty()) {
    std::ofstream out(json_path);
    out << report.dump(1) << "\n";
    if (!out) {
      std::cerr << "bench_cache_flush: cannot write " << json_path << "\n";
      return 2;
    }
  }
  return evicts_everywhere ? 0 : 1;
}
