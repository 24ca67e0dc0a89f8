#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_timing.h"
#ifndef OH
#define OH 28
#endif
#ifndef CIN
#define CIN 64
#endif
#ifndef KOUT
#define KOUT 128
#endif
#ifndef K2
#define K2 4
#endif
#ifndef P2
#define P2 112
#endif
#ifndef COMPACT
#define COMPACT 1
#endif
constexpr int64_t H = 2 * OH, W = 2 * OH, OW = OH, P = OH * OW;
static_assert(P % P2 == 0 && KOUT % K2 == 0, "tiles must divide the plane and the channels");
static float* X;
extern "C" void __attribute__((noinline))
kern(const float* __restrict I, const float* __restrict Wt, const float* __restrict bias,
     float* __restrict O) {
#if COMPACT
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t c = 0; c < CIN; ++c)
    for (int64_t oh = 0; oh < OH; ++oh) {
#pragma omp simd
      for (int64_t ow = 0; ow < OW; ++ow)
        X[c * P + oh * OW + ow] = I[c * H * W + 2 * oh * W + 2 * ow];
    }
#endif
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t k0 = 0; k0 < KOUT / K2; ++k0)
    for (int64_t p0 = 0; p0 < P / P2; ++p0) {
      alignas(64) float acc[K2 * P2];
#pragma GCC unroll 64
      for (int64_t z = 0; z < K2; ++z) {
#pragma omp simd
        for (int64_t w = 0; w < P2; ++w) acc[z * P2 + w] = 0.f;
      }
      for (int64_t c = 0; c < CIN; ++c) {
#pragma GCC unroll 64
        for (int64_t k2 = 0; k2 < K2; ++k2) {
#pragma omp simd
          for (int64_t w = 0; w < P2; ++w)
            acc[k2 * P2 + w] += X[c * P + p0 * P2 + w] * Wt[(k0 * K2 + k2) * CIN + c];
        }
      }
#pragma GCC unroll 64
      for (int64_t k2 = 0; k2 < K2; ++k2) {
#pragma omp simd
        for (int64_t w = 0; w < P2; ++w)
          O[(k0 * K2 + k2) * P + p0 * P2 + w] = acc[k2 * P2 + w] + bias[k0 * K2 + k2];
      }
    }
}
int main() {
  std::vector<float> I(CIN * H * W), Wt(KOUT * CIN), b(KOUT), O(KOUT * P);
  X = static_cast<float*>(std::aligned_alloc(64, CIN * P * 4));
  for (size_t i = 0; i < I.size(); ++i) I[i] = (i % 17) * 0.1f;
  for (size_t i = 0; i < Wt.size(); ++i) Wt[i] = (i % 13) * 0.01f;
  for (int k = 0; k < KOUT; ++k) b[k] = k * 0.5f;
  // The compacted input made once untimed, so that COMPACT=0 (the GEMM alone) reads real data.
  for (int64_t c = 0; c < CIN; ++c)
    for (int64_t p = 0; p < P; ++p) X[c * P + p] = I[c * H * W + 2 * (p / OW) * W + 2 * (p % OW)];
  const std::vector<double> t =
      SortedCallTimes([&] { kern(I.data(), Wt.data(), b.data(), O.data()); });
  const double err = MaxError(I, Wt, b, O, CIN, KOUT, OH, OW);
  double flops = 2.0 * KOUT * CIN * P;
  printf("median %.1f us min %.1f us  %.1f GFLOP/s  maxerr %g  (K2=%d P2=%d compact=%d)\n",
         t[t.size() / 2] * 1e6, t[0] * 1e6, flops / t[t.size() / 2] / 1e9, err, K2, P2, COMPACT);
}
