#include "peak.h"

#include <immintrin.h>

#include <algorithm>

#include "glimpse/error.h"

namespace glimpse::baselines {
namespace {

// Work per sample, in seconds on one thread: as long as a typical library call, so that the peak
// and the operators see the same share of interruptions on a busy machine.
constexpr double kSampleTarget = 0.002;
// Independent accumulators per thread. Filling the FMA pipes takes latency × ports chains
// (4 cycles × 2 ports = 8 on current x86 cores); more hide scheduling slack. AVX2 has 16 vector
// registers (12 chains + a + b fit), AVX-512 has 32.
constexpr int kChainsAvx2 = 12;
constexpr int kChainsAvx512 = 24;
// acc = acc · a + b with a just below 1 converges to b / (1 − a) = 1: no overflow, no denormals.
constexpr float kScale = 0.9999999f;
constexpr float kOffset = 1e-7f;

__attribute__((target("avx2,fma"))) float FmaChainsAvx2(int64_t iterations, float scale,
                                                        float offset) {
  const __m256 a = _mm256_set1_ps(scale), b = _mm256_set1_ps(offset);
  __m256 acc[kChainsAvx2];
  for (int i = 0; i < kChainsAvx2; ++i) acc[i] = _mm256_set1_ps(static_cast<float>(i));
  for (int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 32
    for (int i = 0; i < kChainsAvx2; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  }
  __m256 sum = acc[0];
  for (int i = 1; i < kChainsAvx2; ++i) sum = _mm256_add_ps(sum, acc[i]);
  float lanes[8];
  _mm256_storeu_ps(lanes, sum);
  float total = 0;
  for (float v : lanes) total += v;
  return total;
}

__attribute__((target("avx512f"))) float FmaChainsAvx512(int64_t iterations, float scale,
                                                         float offset) {
  const __m512 a = _mm512_set1_ps(scale), b = _mm512_set1_ps(offset);
  __m512 acc[kChainsAvx512];
  for (int i = 0; i < kChainsAvx512; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
  for (int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 32
    for (int i = 0; i < kChainsAvx512; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  }
  __m512 sum = acc[0];
  for (int i = 1; i < kChainsAvx512; ++i) sum = _mm512_add_ps(sum, acc[i]);
  float lanes[16];
  _mm512_storeu_ps(lanes, sum);
  float total = 0;
  for (float v : lanes) total += v;
  return total;
}

// 100 dependent 64-bit multiplies per iteration: three cycles each on every x86 core since Sandy
// Bridge and Zen, so the chain (not the loop's own counter and branch, which run beside it on
// other ALUs) sets the time. Not adds of an immediate: Golden Cove-class cores (Sapphire and
// Emerald Rapids) fold chains of those at register renaming, several per cycle — the clock read
// 9–17 GHz there.
#define GLIMPSE_MUL10                                                           \
  "imul %1, %0\n\timul %1, %0\n\timul %1, %0\n\timul %1, %0\n\timul %1, %0\n\t" \
  "imul %1, %0\n\timul %1, %0\n\timul %1, %0\n\timul %1, %0\n\timul %1, %0\n\t"
constexpr int kCyclesPerIteration = 100 * 3;

__attribute__((noinline)) float MultiplyChain(int64_t iterations) {
  uint64_t x = 1;
  volatile uint64_t one_source = 1;  // a value the compiler cannot see, in a register
  const uint64_t one = one_source;
  for (int64_t it = 0; it < iterations; ++it) {
    asm volatile(GLIMPSE_MUL10 GLIMPSE_MUL10 GLIMPSE_MUL10 GLIMPSE_MUL10 GLIMPSE_MUL10 GLIMPSE_MUL10
                     GLIMPSE_MUL10 GLIMPSE_MUL10 GLIMPSE_MUL10 GLIMPSE_MUL10
                 : "+r"(x)
                 : "r"(one));
  }
  return static_cast<float>(x);
}
#undef GLIMPSE_MUL10

using ChainsFn = float (*)(int64_t, float, float);

// One sample: the chains on every CPU at once (RunPinnedSample).
double RunSample(ChainsFn fn, const std::vector<int>& cpus, int64_t iterations) {
  return RunPinnedSample(
      cpus, [&](size_t) { return fn(iterations, kScale, kOffset); }, "FP32 peak");
}

PeakResult Measure(const std::string& isa, ChainsFn fn, int lanes, int chains,
                   const std::vector<int>& cpus, int64_t iterations, const Protocol& protocol) {
  PeakResult result;
  result.isa = isa;
  result.cpus = cpus;
  result.lanes = lanes;
  result.chains = chains;
  result.iterations = iterations;
  result.samples_s = RepeatSamples([&] { return RunSample(fn, cpus, iterations); }, protocol);
  result.median_s = Median(result.samples_s);
  const double flops = 2.0 * lanes * chains * static_cast<double>(iterations) * cpus.size();
  result.gflops = flops / result.median_s / 1e9;
  result.best_gflops =
      flops / *std::min_element(result.samples_s.begin(), result.samples_s.end()) / 1e9;
  return result;
}

// Iterations for about `target_s` seconds on one thread, from short timed runs (the fastest of
// three, so that a run that lost the CPU to other work does not set the length).
int64_t Calibrate(ChainsFn fn, int cpu, double target_s) {
  int64_t iterations = 1 << 10;
  for (;;) {
    double seconds = RunSample(fn, {cpu}, iterations);
    seconds = std::min(seconds, RunSample(fn, {cpu}, iterations));
    seconds = std::min(seconds, RunSample(fn, {cpu}, iterations));
    if (seconds >= target_s / 4 || iterations >= (int64_t{1} << 34)) {
      return std::max<int64_t>(1, static_cast<int64_t>(iterations * target_s / seconds));
    }
    iterations *= 4;
  }
}

}  // namespace

double MeasureClockGhz(const std::vector<int>& cpus, const Protocol& protocol) {
  if (cpus.empty()) throw Error("clock: no CPUs to run on");
  const auto sample = [&](int64_t iterations, const std::vector<int>& on) {
    return RunPinnedSample(
        on, [&](size_t) { return MultiplyChain(iterations); }, "clock");
  };
  // About 2 ms per sample, like the peak's, from the fastest of three short runs.
  int64_t iterations = 1 << 10;
  for (;;) {
    double seconds = std::min({sample(iterations, {cpus[0]}), sample(iterations, {cpus[0]}),
                               sample(iterations, {cpus[0]})});
    if (seconds >= kSampleTarget / 4 || iterations >= (int64_t{1} << 34)) {
      iterations = std::max<int64_t>(1, static_cast<int64_t>(iterations * kSampleTarget / seconds));
      break;
    }
    iterations *= 4;
  }
  const std::vector<double> samples =
      RepeatSamples([&] { return sample(iterations, cpus); }, protocol);
  return static_cast<double>(iterations) * kCyclesPerIteration / Median(samples) / 1e9;
}

std::vector<PeakResult> MeasurePeak(const std::vector<int>& cpus, const Protocol& protocol) {
  if (cpus.empty()) throw Error("FP32 peak: no CPUs to run on");
  struct Kind {
    std::string isa;
    bool supported;
    ChainsFn fn;
    int lanes, chains;
  };
  __builtin_cpu_init();
  const std::vector<Kind> kinds = {
      {"avx2+fma", __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"), FmaChainsAvx2,
       8, kChainsAvx2},
      {"avx512f", static_cast<bool>(__builtin_cpu_supports("avx512f")), FmaChainsAvx512, 16,
       kChainsAvx512},
  };
  std::vector<PeakResult> results;
  for (const Kind& kind : kinds) {
    if (!kind.supported) continue;
    const int64_t iterations = Calibrate(kind.fn, cpus[0], kSampleTarget);
    std::vector<std::vector<int>> teams = {{cpus[0]}};
    if (cpus.size() > 1) teams.push_back(cpus);
    for (const auto& team : teams) {
      PeakResult result =
          Measure(kind.isa, kind.fn, kind.lanes, kind.chains, team, iterations, protocol);
      result.clock_ghz = MeasureClockGhz(team, protocol);
      result.flop_per_cycle = result.gflops / static_cast<double>(team.size()) / result.clock_ghz;
      results.push_back(std::move(result));
    }
  }
  if (results.empty()) throw Error("FP32 peak: this CPU has neither AVX2+FMA nor AVX-512F");
  return results;
}

}  // namespace glimpse::baselines
