// bench/cpu_baselines/peak.h — the FP32 peak this CPU reaches in practice: per thread, many
// independent chains of vector fused multiply-adds (acc = acc · a + b) kept in registers, enough
// of them to cover the FMA latency on every FMA port, so the loop is bound by FMA throughput.
// AVX2+FMA (8 lanes) always when the CPU has it, AVX-512F (16 lanes) when the CPU has it
// (__builtin_cpu_supports); each on one thread and on every given CPU, one pinned thread each.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol.h"

namespace glimpse::baselines {

struct PeakResult {
  std::string isa;                // "avx2+fma" or "avx512f"
  std::vector<int> cpus;          // one pinned thread per CPU
  int lanes = 0;                  // floats per vector
  int chains = 0;                 // independent accumulators per thread
  int64_t iterations = 0;         // per thread and sample; each iteration is `chains` vector FMAs
  std::vector<double> samples_s;  // wall-clock from the first thread's start to the last's end
  double median_s = 0;
  double gflops = 0;       // 2 flops per FMA per lane, all threads, at the median
  double best_gflops = 0;  // the same at the fastest sample
  // The core clock measured on the same CPUs right after (MeasureClockGhz), and what the peak is
  // per cycle and core at that clock: 32 FP32 FLOP/cycle is two 256-bit FMA pipes (Zen 4, also
  // for AVX-512, which it runs as two halves), 64 two 512-bit ones (Sapphire Rapids).
  double clock_ghz = 0;
  double flop_per_cycle = 0;  // gflops / threads / clock_ghz
};

// The clock of the cores `cpus` while each runs a chain of dependent 64-bit integer multiplies
// (three cycles each), one pinned thread per CPU: the chain's cycles / median seconds. Throws
// Error when a thread cannot be pinned.
double MeasureClockGhz(const std::vector<int>& cpus, const Protocol& protocol);

// Per supported ISA: one thread on cpus[0], then one thread on each of `cpus` (when there is more
// than one). Each sample's work is calibrated to take about 2 ms on one thread (the length of a
// typical library call); `protocol` decides warm-up and repeats (no cache flush: the data lives in
// registers). Throws Error when the CPU has neither AVX2+FMA nor AVX-512F.
std::vector<PeakResult> MeasurePeak(const std::vector<int>& cpus, const Protocol& protocol);

}  // namespace glimpse::baselines
