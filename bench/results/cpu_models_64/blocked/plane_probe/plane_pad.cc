// The plane kernel with a padded plane (P2 need not divide P). MODE: 0 = compact (parallel over c)
// then GEMM parallel over (k0,p0); 1 = fused: parallel over position tiles, each thread compacts
// its own positions then computes every channel; 2 = GEMM alone; 3 = compaction alone; 4 and 5 =
// compaction, then each thread a range of channel tiles, position tiles outside (4) or inside (5).
#include <omp.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "probe_timing.h"
#ifndef OH
#define OH 14
#endif
#ifndef CIN
#define CIN 128
#endif
#ifndef KOUT
#define KOUT 256
#endif
#ifndef K2
#define K2 8
#endif
#ifndef P2
#define P2 16
#endif
#ifndef MODE
#define MODE 0
#endif
constexpr int64_t H = 2 * OH, W = 2 * OH, OW = OH, P = OH * OW;
constexpr int64_t TILES = (P + P2 - 1) / P2, PP = TILES * P2;
static_assert(KOUT % K2 == 0, "");
static float* X;
static inline void tile(int64_t k0, int64_t p0, const float* __restrict Wt,
                        const float* __restrict bias, float* __restrict O) {
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
        acc[k2 * P2 + w] += X[c * PP + p0 * P2 + w] * Wt[(k0 * K2 + k2) * CIN + c];
    }
  }
  const int64_t n = p0 * P2 + P2 <= P ? P2 : P - p0 * P2;
#pragma GCC unroll 64
  for (int64_t k2 = 0; k2 < K2; ++k2) {
#pragma omp simd
    for (int64_t w = 0; w < P2; ++w)
      if (w < n) O[(k0 * K2 + k2) * P + p0 * P2 + w] = acc[k2 * P2 + w] + bias[k0 * K2 + k2];
  }
}
static inline void compact_range(const float* __restrict I, int64_t c0, int64_t c1, int64_t q0,
                                 int64_t q1) {
  for (int64_t c = c0; c < c1; ++c) {
    int64_t q = q0;
    for (int64_t oh = q0 / OW; oh < OH && q < q1; ++oh) {
      const int64_t w0 = q - oh * OW, w1 = q1 - oh * OW < OW ? q1 - oh * OW : OW;
#pragma omp simd
      for (int64_t ow = w0; ow < w1; ++ow)
        X[c * PP + oh * OW + ow] = I[c * H * W + 2 * oh * W + 2 * ow];
      q = oh * OW + w1;
    }
    for (; q < q1; ++q) X[c * PP + q] = 0.f;
  }
}
extern "C" void __attribute__((noinline))
kern(const float* __restrict I, const float* __restrict Wt, const float* __restrict bias,
     float* __restrict O) {
#if MODE == 0 || MODE == 3
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < CIN; ++c) {
    for (int64_t oh = 0; oh < OH; ++oh) {
#pragma omp simd
      for (int64_t ow = 0; ow < OW; ++ow)
        X[c * PP + oh * OW + ow] = I[c * H * W + 2 * oh * W + 2 * ow];
    }
    for (int64_t q = P; q < PP; ++q) X[c * PP + q] = 0.f;
  }
#endif
#if MODE == 0 || MODE == 2
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t k0 = 0; k0 < KOUT / K2; ++k0)
    for (int64_t p0 = 0; p0 < TILES; ++p0) tile(k0, p0, Wt, bias, O);
#endif
#if MODE == 4 || MODE == 5
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < CIN; ++c) {
    for (int64_t oh = 0; oh < OH; ++oh) {
#pragma omp simd
      for (int64_t ow = 0; ow < OW; ++ow)
        X[c * PP + oh * OW + ow] = I[c * H * W + 2 * oh * W + 2 * ow];
    }
    for (int64_t q = P; q < PP; ++q) X[c * PP + q] = 0.f;
  }
#pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int64_t a = KOUT / K2 * t / nt, b = KOUT / K2 * (t + 1) / nt;
#if MODE == 4
    for (int64_t p0 = 0; p0 < TILES; ++p0)
      for (int64_t k0 = a; k0 < b; ++k0) tile(k0, p0, Wt, bias, O);
#else
    for (int64_t k0 = a; k0 < b; ++k0)
      for (int64_t p0 = 0; p0 < TILES; ++p0) tile(k0, p0, Wt, bias, O);
#endif
  }
#endif
#if MODE == 1
#pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int64_t a = TILES * t / nt, b = TILES * (t + 1) / nt;
    compact_range(I, 0, CIN, a * P2, b * P2);
    for (int64_t p0 = a; p0 < b; ++p0)
      for (int64_t k0 = 0; k0 < KOUT / K2; ++k0) tile(k0, p0, Wt, bias, O);
  }
#endif
}
int main() {
  std::vector<float> I(CIN * H * W), Wt(KOUT * CIN), b(KOUT), O(KOUT * P);
  X = static_cast<float*>(std::aligned_alloc(64, CIN * PP * 4));
  for (size_t i = 0; i < I.size(); ++i) I[i] = (i % 17) * 0.1f;
  for (size_t i = 0; i < Wt.size(); ++i) Wt[i] = (i % 13) * 0.01f;
  for (int k = 0; k < KOUT; ++k) b[k] = k * 0.5f;
  compact_range(I.data(), 0, CIN, 0, PP);
  const std::vector<double> t =
      SortedCallTimes([&] { kern(I.data(), Wt.data(), b.data(), O.data()); });
  const double err = (MODE == 3) ? 0 : MaxError(I, Wt, b, O, CIN, KOUT, OH, OW);
  double flops = 2.0 * KOUT * CIN * P;
  printf("median %.1f us min %.1f us  %.1f GFLOP/s  maxerr %g  (K2=%d P2=%d mode=%d)\n",
         t[t.size() / 2] * 1e6, t[0] * 1e6, flops / t[t.size() / 2] / 1e9, err, K2, P2, MODE);
}
