#include <immintrin.h>

#include <cstdint>
extern "C" int64_t kern_prepared_size() { return 16; }
extern "C" void kern_prepare(const float* const*, float*) {}
// Reads the input once and writes the output once: the layer's memory traffic with no compute.
// -DNOREAD / -DNOWRITE leave one side out; -DNTSTORE writes the output with non-temporal stores.
extern "C" void kern(const float* const* inputs, float* __restrict O) {
  const float* __restrict I = inputs[0];
#pragma omp parallel for schedule(static)
  for (int64_t oh = 0; oh < 112; ++oh) {
    float s[16] = {};
#ifndef NOREAD
    for (int c = 0; c < 3; ++c)
      for (int r = 0; r < 2; ++r)
#pragma omp simd
        for (int w = 0; w < 224; ++w) s[w & 15] += I[50176 * c + 224 * (2 * oh + r) + w];
#endif
#ifdef NOWRITE
    if (s[3] == 12345.f) O[oh] = s[0];  // keeps the reads; never true for this input
#else
    for (int k1 = 0; k1 < 2; ++k1)
      for (int w = 0; w < 112; ++w)
#ifdef NTSTORE
        _mm512_stream_ps(O + 200704 * k1 + 1792 * oh + 16 * w, _mm512_loadu_ps(s));
#else
#pragma omp simd
        for (int k = 0; k < 16; ++k) O[200704 * k1 + 1792 * oh + 16 * w + k] = s[k];
#endif
#endif
  }
}
