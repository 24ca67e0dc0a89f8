// No input pack: broadcasts straight from the NCHW input; register tile 2 oc blocks x 7 columns.
// -DINTCLAMP clamps on the float's bits; -DNTSTORE writes the output with non-temporal stores;
// -DKB=1 -DCOLS=8: one output block x 8 columns (the FMAs broadcast from memory themselves);
// -DFLAT_INDEX: the input read through one flat index (g++ then shares the loads of taps that
// read the same element as explicit broadcasts); -DKINNER: every output block of a column tile
// before the next tile; -DPF_IN / -DPF_OUT prefetch the next output row's new input rows / its
// output lines.
#include <immintrin.h>

#include <cstdint>
#include <cstdlib>
#ifndef COLS
#define COLS 7
#endif
#ifndef KB
#define KB 2
#endif
extern "C" int64_t kern_prepared_size() { return 864; }
extern "C" void kern_prepare(const float* const* inputs, float* prepared) {
  const float* __restrict Wt = inputs[1];
  float* __restrict Wp = prepared;
  // Wp[k1][r][s][c][16]
  for (int k1 = 0; k1 < 2; ++k1)
    for (int r = 0; r < 3; ++r)
      for (int s = 0; s < 3; ++s)
        for (int c = 0; c < 3; ++c)
          for (int k2 = 0; k2 < 16; ++k2)
            Wp[432 * k1 + 144 * r + 48 * s + 16 * c + k2] =
                Wt[27 * (16 * k1 + k2) + 9 * c + 3 * r + s];
}
template <bool LEFT>
static inline void tile(const float* __restrict I, const float* __restrict Wp,
                        const float* __restrict bias, float* __restrict O, int64_t oh, int64_t ow0,
                        int64_t kb0) {
  alignas(64) float acc[KB][COLS][16];
#ifdef PF_IN
  if (kb0 == 0 && oh + 1 < 112)
    for (int c = 0; c < 3; ++c)
      for (int r = 2; r < 4; ++r) {
        const char* p = (const char*)(I + 50176 * c + 224 * (2 * oh + r) + 2 * ow0);
        __builtin_prefetch(p, 0, 3);
        __builtin_prefetch(p + 64, 0, 3);
      }
#endif
#ifdef PF_OUT
  if (oh + 1 < 112)
    for (int z = 0; z < KB; ++z)
      for (int w = 0; w < COLS; ++w)
        __builtin_prefetch(O + 200704 * (kb0 + z) + 1792 * (oh + 1) + 16 * (ow0 + w), 1, 3);
#endif
  for (int z = 0; z < KB; ++z)
#pragma GCC unroll 16
    for (int w = 0; w < COLS; ++w)
#pragma omp simd
      for (int k = 0; k < 16; ++k) acc[z][w][k] = 0.0f;
  const int64_t rbeg = oh == 0 ? 1 : 0;
  for (int64_t r = rbeg; r < 3; ++r) {
#pragma GCC unroll 3
    for (int64_t s = 0; s < 3; ++s) {
#pragma GCC unroll 3
      for (int64_t c = 0; c < 3; ++c) {
        const float* row = I + 50176 * c + 224 * (2 * oh + r - 1) + 2 * ow0 + s - 1;
#pragma GCC unroll 2
        for (int z = 0; z < KB; ++z) {
#pragma GCC unroll 16
          for (int64_t w = 0; w < COLS; ++w) {
#pragma omp simd
            for (int k = 0; k < 16; ++k) {
              if (!LEFT || (2 * w + s - 1 >= 0))
#ifdef FLAT_INDEX  // one index into I, as the template's code has it
                acc[z][w][k] += I[50176 * c + 224 * (2 * oh + r - 1) + 2 * ow0 + s - 1 + 2 * w] *
                                Wp[432 * (kb0 + z) + 144 * r + 48 * s + 16 * c + k];
#else
                acc[z][w][k] += row[2 * w] * Wp[432 * (kb0 + z) + 144 * r + 48 * s + 16 * c + k];
#endif
            }
          }
        }
      }
    }
  }
  for (int z = 0; z < KB; ++z)
#pragma GCC unroll 16
    for (int w = 0; w < COLS; ++w) {
#ifdef NTSTORE
      alignas(64) float out[16];
#endif
#pragma omp simd
      for (int k = 0; k < 16; ++k) {
        float v = acc[z][w][k] + bias[16 * (kb0 + z) + k];
#ifdef INTCLAMP
        int32_t b = __builtin_bit_cast(int32_t, v);
        b = b < 0x40c00000 ? b : 0x40c00000;
        b = b > 0 ? b : 0;
#ifdef NTSTORE
        out[k] = __builtin_bit_cast(float, b);
#else
        O[200704 * (kb0 + z) + 1792 * oh + 16 * (ow0 + w) + k] = __builtin_bit_cast(float, b);
#endif
#else
        v = v > 0.0f ? v : 0.0f;
        O[200704 * (kb0 + z) + 1792 * oh + 16 * (ow0 + w) + k] = v < 6.0f ? v : 6.0f;
#endif
      }
#ifdef NTSTORE
      _mm512_stream_ps(O + 200704 * (kb0 + z) + 1792 * oh + 16 * (ow0 + w), _mm512_load_ps(out));
#endif
    }
}
extern "C" void kern(const float* const* inputs, float* output) {
  const float* __restrict I = inputs[0];
  const float* __restrict bias = inputs[2];
  const float* __restrict Wp = inputs[3];
  float* __restrict O = output;
#pragma omp parallel for schedule(static)
  for (int64_t oh = 0; oh < 112; ++oh) {
#ifdef KINNER  // each column tile for every output block before the next tile
    for (int64_t kb0 = 0; kb0 < 2; kb0 += KB) tile<true>(I, Wp, bias, O, oh, 0, kb0);
    for (int64_t ow0 = COLS; ow0 < 112; ow0 += COLS)
      for (int64_t kb0 = 0; kb0 < 2; kb0 += KB) tile<false>(I, Wp, bias, O, oh, ow0, kb0);
#else
    for (int64_t kb0 = 0; kb0 < 2; kb0 += KB) {
      tile<true>(I, Wp, bias, O, oh, 0, kb0);
      for (int64_t ow0 = COLS; ow0 < 112; ow0 += COLS) tile<false>(I, Wp, bias, O, oh, ow0, kb0);
    }
#endif
  }
}
