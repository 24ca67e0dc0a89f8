// Peeled variants of vgg16_k8 (the 512-channel 14x14 pick): ow0 (extent 2) as a compile-time
// constant so that the column guards fold, and the multiply-add skipped (not multiplied by 0)
// where the tap is in the padding.
#include <cstdint>
template <int OW0, int kMode>
static inline void Tile(const float* __restrict I, const float* __restrict Wp,
                        const float* __restrict bias, float* __restrict O, int64_t k0,
                        int64_t oh0) {
  alignas(64) float acc[224];
  for (int64_t i = 0; i < 224; ++i) acc[i] = 0.0f;
  for (int64_t c0 = 0; c0 < 32; ++c0) {
    constexpr bool kRowRange = kMode == 1;
    const int64_t r_from = kRowRange ? (1 - oh0 > 0 ? 1 - oh0 : 0) : 0;
    const int64_t r_to = kRowRange ? (15 - oh0 < 3 ? 15 - oh0 : 3) : 3;
    for (int64_t r = r_from; r < r_to; ++r) {
      const bool row_ok = kRowRange || ((oh0 + r - 1) >= 0 && (oh0 + r - 1) < 14);
#pragma GCC unroll 3
      for (int64_t s = 0; s < 3; ++s) {
        for (int64_t c1 = 0; c1 < 16; ++c1) {
#pragma GCC unroll 2
          for (int64_t k1 = 0; k1 < 2; ++k1) {
#pragma GCC unroll 7
            for (int64_t ow2 = 0; ow2 < 7; ++ow2) {
              const int64_t iw = 7 * OW0 + ow2 + s - 1;
              if (iw >= 0 && iw < 14 && (kMode != 2 || row_ok)) {
                const float x = (kMode == 2 || row_ok) ? I[3136 * c0 + 224 * oh0 + 224 * r +
                                                           112 * OW0 + 16 * ow2 + 16 * s + c1 - 240]
                                                       : 0.0f;
#pragma omp simd
                for (int64_t k2 = 0; k2 < 16; ++k2) {
                  acc[112 * k1 + 16 * ow2 + k2] +=
                      x *
                      Wp[147456 * k0 + 73728 * k1 + 2304 * c0 + 768 * r + 256 * s + 16 * c1 + k2];
                }
              }
            }
          }
        }
      }
    }
  }
#pragma GCC unroll 2
  for (int64_t wk1 = 0; wk1 < 2; ++wk1) {
#pragma GCC unroll 7
    for (int64_t ww = 0; ww < 7; ++ww) {
#pragma omp simd
      for (int64_t wk2 = 0; wk2 < 16; ++wk2) {
        float v_ = acc[112 * wk1 + 16 * ww + wk2] + bias[32 * k0 + 16 * wk1 + wk2];
        O[6272 * k0 + 3136 * wk1 + 224 * oh0 + 112 * OW0 + 16 * ww + wk2] = v_ > 0.0f ? v_ : 0.0f;
      }
    }
  }
}

template <int kRowRange>
static void Peeled(const float* const* inputs, float* output) {
  const float* __restrict I = inputs[0];
  const float* __restrict bias = inputs[2];
  const float* __restrict Wp = inputs[3];
  for (int64_t k0 = 0; k0 < 16; ++k0) {
#pragma omp parallel for schedule(static)
    for (int64_t oh0 = 0; oh0 < 14; ++oh0) {
      Tile<0, kRowRange>(I, Wp, bias, output, k0, oh0);
      Tile<1, kRowRange>(I, Wp, bias, output, k0, oh0);
    }
  }
}

extern "C" void peel_cols(const float* const* inputs, float* output) { Peeled<0>(inputs, output); }
extern "C" void peel_cols_rows(const float* const* inputs, float* output) {
  Peeled<1>(inputs, output);
}
extern "C" void peel_if_both(const float* const* inputs, float* output) {
  Peeled<2>(inputs, output);
}
