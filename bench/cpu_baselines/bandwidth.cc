#include "bandwidth.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <memory>

#include "glimpse/error.h"

namespace glimpse::baselines {
namespace {

constexpr double kSampleTarget = 0.005;

struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};

// Eight independent accumulators, so the loop waits on loads, not on the adds' latency.
__attribute__((target("avx512f"))) float SumAvx512(const float* data, int64_t floats,
                                                   int64_t passes) {
  __m512 acc[8];
  for (auto& a : acc) a = _mm512_setzero_ps();
  for (int64_t pass = 0; pass < passes; ++pass) {
    for (int64_t i = 0; i < floats; i += 128) {
#pragma GCC unroll 8
      for (int j = 0; j < 8; ++j) acc[j] = _mm512_add_ps(acc[j], _mm512_load_ps(data + i + 16 * j));
    }
  }
  __m512 sum = acc[0];
  for (int j = 1; j < 8; ++j) sum = _mm512_add_ps(sum, acc[j]);
  float lanes[16];
  _mm512_storeu_ps(lanes, sum);
  float total = 0;
  for (float v : lanes) total += v;
  return total;
}

__attribute__((target("avx2"))) float SumAvx2(const float* data, int64_t floats, int64_t passes) {
  __m256 acc[8];
  for (auto& a : acc) a = _mm256_setzero_ps();
  for (int64_t pass = 0; pass < passes; ++pass) {
    for (int64_t i = 0; i < floats; i += 64) {
#pragma GCC unroll 8
      for (int j = 0; j < 8; ++j) acc[j] = _mm256_add_ps(acc[j], _mm256_load_ps(data + i + 8 * j));
    }
  }
  __m256 sum = acc[0];
  for (int j = 1; j < 8; ++j) sum = _mm256_add_ps(sum, acc[j]);
  float lanes[8];
  _mm256_storeu_ps(lanes, sum);
  float total = 0;
  for (float v : lanes) total += v;
  return total;
}

using SumFn = float (*)(const float*, int64_t, int64_t);

// One sample: every thread reads its own buffer `passes` times (RunPinnedSample).
double RunSample(SumFn fn, const std::vector<float*>& buffers, int64_t floats,
                 const std::vector<int>& cpus, int64_t passes) {
  return RunPinnedSample(
      cpus, [&](size_t t) { return fn(buffers[t], floats, passes); }, "bandwidth");
}

}  // namespace

std::vector<BandwidthLevel> DefaultBandwidthLevels(int threads) {
  int64_t l1 = 0, l2 = 0, l3 = 0;
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::ifstream type_in(dir + "/type"), level_in(dir + "/level");
    std::string type;
    int level = 0;
    if (!(type_in >> type) || !(level_in >> level) || type == "Instruction") continue;
    const int64_t size = ReadCacheSizeBytes(dir + "/size");
    if (level == 1) l1 = size;
    if (level == 2) l2 = size;
    if (level == 3) l3 = size;
  }
  if (l1 == 0 || l2 == 0) throw Error("bandwidth: sysfs names no L1d or L2 cache for cpu0");
  threads = std::max(1, threads);
  std::vector<BandwidthLevel> levels = {{"L1", l1, l1 / 2}, {"L2", l2, l2 / 2}};
  if (l3 > 0) levels.push_back({"L3", l3, 4 * l2});
  const int64_t dram_total = std::max<int64_t>(int64_t{1} << 30, 2 * l3);
  levels.push_back({"DRAM", 0, dram_total / threads});
  return levels;
}

std::vector<BandwidthResult> MeasureReadBandwidth(const std::vector<BandwidthLevel>& levels,
                                                  const std::vector<int>& cpus,
                                                  const Protocol& protocol) {
  if (cpus.empty()) throw Error("bandwidth: no CPU to run on");
  const bool avx512 = __builtin_cpu_supports("avx512f");
  if (!avx512 && !__builtin_cpu_supports("avx2")) throw Error("bandwidth: needs AVX2 or AVX-512F");
  const SumFn fn = avx512 ? SumAvx512 : SumAvx2;
  std::vector<BandwidthResult> results;
  for (const BandwidthLevel& level : levels) {
    const int64_t floats = std::max<int64_t>(128, level.buffer_bytes_per_thread / 4 / 128 * 128);
    // Each thread allocates and first touches its buffer itself, so pages sit near its CPU.
    std::vector<std::unique_ptr<float, FreeDeleter>> owned(cpus.size());
    std::vector<float*> buffers(cpus.size());
    RunPinnedSample(
        cpus,
        [&](size_t t) {
          owned[t].reset(static_cast<float*>(std::aligned_alloc(64, floats * sizeof(float))));
          if (owned[t]) std::fill_n(owned[t].get(), floats, 1e-3f * static_cast<float>(t + 1));
          return 0.0f;
        },
        "bandwidth");
    for (size_t t = 0; t < cpus.size(); ++t) {
      if (!owned[t]) throw Error("bandwidth: cannot allocate " + std::to_string(floats * 4) + " B");
      buffers[t] = owned[t].get();
    }
    // Calibrate passes to about kSampleTarget per sample.
    int64_t passes = 1;
    for (;;) {
      const double s = RunSample(fn, buffers, floats, cpus, passes);
      if (s >= kSampleTarget || passes > (int64_t{1} << 30)) break;
      passes = std::max<int64_t>(
          passes + 1, static_cast<int64_t>(passes * kSampleTarget / std::max(s, 1e-7) * 1.1));
    }
    BandwidthResult result;
    result.level = level;
    result.level.buffer_bytes_per_thread = floats * 4;
    result.isa = avx512 ? "avx512f" : "avx2";
    result.cpus = cpus;
    result.passes = passes;
    result.samples_s =
        RepeatSamples([&] { return RunSample(fn, buffers, floats, cpus, passes); }, protocol);
    result.median_s = Median(result.samples_s);
    const double bytes = static_cast<double>(floats) * 4.0 * static_cast<double>(passes) *
                         static_cast<double>(cpus.size());
    result.gbs = bytes / result.median_s * 1e-9;
    result.best_gbs =
        bytes / *std::min_element(result.samples_s.begin(), result.samples_s.end()) * 1e-9;
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace glimpse::baselines
