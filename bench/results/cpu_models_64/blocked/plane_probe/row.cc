// Row kernel: per (16-row channel tile, output row), acc[K2][16] over positions of one output row
// (OW valid of 16 lanes), the input read directly at stride 2 (lanes past OW read the next row,
// never stored). No compaction.
// The stride-2 load, by macro (run28_permute.sh): by default as g++ vectorises row[2 * w];
// -DLOAD_STAGED copies the even lanes once per input channel into a 16-float buffer;
// -DLOAD_PERMUTE loads two vectors and takes their even lanes with __builtin_shuffle (one
// vpermt2ps, as MetaSchedule's LLVM code does). -DOH_OUTER puts the output row outside the channel
// tile in the parallel loop.
#include <omp.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
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
#define K2 16
#endif
constexpr int64_t H = 2 * OH, W = 2 * OH, OW = OH, P = OH * OW, V = 16;
extern "C" void __attribute__((noinline))
kern(const float* __restrict I, const float* __restrict Wt, const float* __restrict bias,
     float* __restrict O) {
#pragma omp parallel for collapse(2) schedule(static)
#ifdef OH_OUTER
  for (int64_t oh = 0; oh < OH; ++oh)
    for (int64_t k0 = 0; k0 < KOUT / K2; ++k0) {
#else
  for (int64_t k0 = 0; k0 < KOUT / K2; ++k0)
    for (int64_t oh = 0; oh < OH; ++oh) {
#endif
#ifdef LOAD_PERMUTE
      typedef float v16 __attribute__((vector_size(64)));
      typedef int32_t v16i __attribute__((vector_size(64)));
      v16 vacc[K2];
#pragma GCC unroll 64
      for (int64_t z = 0; z < K2; ++z) vacc[z] = v16{};
      for (int64_t c = 0; c < CIN; ++c) {
        const float* row = I + c * H * W + 2 * oh * W;
        v16 lo, hi;
        __builtin_memcpy(&lo, row, 64);
        __builtin_memcpy(&hi, row + 16, 64);
        const v16 x = __builtin_shuffle(
            lo, hi, v16i{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30});
#pragma GCC unroll 64
        for (int64_t k2 = 0; k2 < K2; ++k2) vacc[k2] += x * Wt[(k0 * K2 + k2) * CIN + c];
      }
      alignas(64) float acc[K2 * V];
#pragma GCC unroll 64
      for (int64_t z = 0; z < K2; ++z) __builtin_memcpy(acc + z * V, &vacc[z], 64);
#else
      alignas(64) float acc[K2 * V];
#pragma GCC unroll 64
      for (int64_t z = 0; z < K2; ++z) {
#pragma omp simd
        for (int64_t w = 0; w < V; ++w) acc[z * V + w] = 0.f;
      }
      for (int64_t c = 0; c < CIN; ++c) {
        const float* row = I + c * H * W + 2 * oh * W;
#ifdef LOAD_STAGED
        alignas(64) float xr[V];
#pragma omp simd
        for (int64_t w = 0; w < V; ++w) xr[w] = row[2 * w];
#define ROW_AT(w) xr[w]
#else
#define ROW_AT(w) row[2 * (w)]
#endif
#pragma GCC unroll 64
        for (int64_t k2 = 0; k2 < K2; ++k2) {
#pragma omp simd
          for (int64_t w = 0; w < V; ++w)
            acc[k2 * V + w] += ROW_AT(w) * Wt[(k0 * K2 + k2) * CIN + c];
        }
      }
#endif
#pragma GCC unroll 64
      for (int64_t k2 = 0; k2 < K2; ++k2) {
#pragma omp simd
        for (int64_t w = 0; w < OW; ++w)
          O[(k0 * K2 + k2) * P + oh * OW + w] = acc[k2 * V + w] + bias[k0 * K2 + k2];
      }
    }
}
#if defined(LOAD_PERMUTE)
constexpr const char* kLoad = " permute";
#elif defined(LOAD_STAGED)
constexpr const char* kLoad = " staged";
#else
constexpr const char* kLoad = "";
#endif
#ifdef OH_OUTER
constexpr const char* kOrder = " oh-outer";
#else
constexpr const char* kOrder = "";
#endif
int main() {
  std::vector<float> I(CIN * H * W + 64), Wt(KOUT * CIN), b(KOUT), O(KOUT * P);
  for (size_t i = 0; i < I.size(); ++i) I[i] = (i % 17) * 0.1f;
  for (size_t i = 0; i < Wt.size(); ++i) Wt[i] = (i % 13) * 0.01f;
  for (int k = 0; k < KOUT; ++k) b[k] = k * 0.5f;
  const std::vector<double> t =
      SortedCallTimes([&] { kern(I.data(), Wt.data(), b.data(), O.data()); });
  const double err = MaxError(I, Wt, b, O, CIN, KOUT, OH, OW);
  double flops = 2.0 * KOUT * CIN * P;
  printf("median %.1f us min %.1f us  %.1f GFLOP/s  maxerr %g  (row%s%s K2=%d)\n",
         t[t.size() / 2] * 1e6, t[0] * 1e6, flops / t[t.size() / 2] / 1e9, err, kLoad, kOrder, K2);
}
