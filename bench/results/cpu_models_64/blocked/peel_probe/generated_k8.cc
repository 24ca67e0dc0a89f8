extern "C" int64_t vgg16_k8_prepared_size() { return 2359296; }

extern "C" void vgg16_k8_prepare(const float* const* inputs, float* prepared) {
  const float* __restrict Wt = inputs[1];
  const float* __restrict bias = inputs[2];
  float* __restrict Wp = prepared + 0;
#pragma omp parallel for schedule(static)
  for (int64_t qk0 = 0; qk0 < 32; ++qk0) {
    for (int64_t qc0 = 0; qc0 < 32; ++qc0) {
      for (int64_t qr = 0; qr < 3; ++qr) {
        for (int64_t qs = 0; qs < 3; ++qs) {
          for (int64_t qc1 = 0; qc1 < 16; ++qc1) {
            for (int64_t qk2 = 0; qk2 < 16; ++qk2) {
              Wp[73728 * qk0 + 2304 * qc0 + 768 * qr + 256 * qs + 16 * qc1 + qk2] =
                  Wt[73728 * qk0 + 4608 * qk2 + 144 * qc0 + 9 * qc1 + 3 * qr + qs];
            }
          }
        }
      }
    }
  }
}

extern "C" void vgg16_k8(const float* const* inputs, float* output) {
  const float* __restrict I = inputs[0];
  const float* __restrict Wt = inputs[1];
  const float* __restrict bias = inputs[2];
  float* __restrict O = output;
  const float* __restrict Wp = inputs[3] + 0;
  for (int64_t n = 0; n < 1; ++n) {
    for (int64_t k0 = 0; k0 < 16; ++k0) {
#pragma omp parallel for schedule(static)
      for (int64_t oh0 = 0; oh0 < 14; ++oh0) {
        for (int64_t ow0 = 0; ow0 < 2; ++ow0) {
          for (int64_t oh1 = 0; oh1 < 1; ++oh1) {
            for (int64_t ow1 = 0; ow1 < 1; ++ow1) {
              alignas(64) float acc[224];
#pragma GCC unroll 2
              for (int64_t zk1 = 0; zk1 < 2; ++zk1) {
#pragma GCC unroll 7
                for (int64_t zw = 0; zw < 7; ++zw) {
#pragma omp simd
                  for (int64_t zk2 = 0; zk2 < 16; ++zk2) {
                    acc[112 * zk1 + 16 * zw + zk2] = 0.0f;
                  }
                }
              }
              for (int64_t c0 = 0; c0 < 32; ++c0) {
                for (int64_t r = 0; r < 3; ++r) {
#pragma GCC unroll 3
                  for (int64_t s = 0; s < 3; ++s) {
                    for (int64_t c1 = 0; c1 < 16; ++c1) {
#pragma GCC unroll 2
                      for (int64_t k1 = 0; k1 < 2; ++k1) {
#pragma GCC unroll 7
                        for (int64_t ow2 = 0; ow2 < 7; ++ow2) {
#pragma omp simd
                          for (int64_t k2 = 0; k2 < 16; ++k2) {
                            acc[112 * k1 + 16 * ow2 + k2] +=
                                ((oh0 + oh1 + r - 1) >= 0 && (oh0 + oh1 + r - 1) < 14 &&
                                         (7 * ow0 + 7 * ow1 + ow2 + s - 1) >= 0 &&
                                         (7 * ow0 + 7 * ow1 + ow2 + s - 1) < 14
                                     ? I[100352 * n + 3136 * c0 + 224 * oh0 + 224 * oh1 + 224 * r +
                                         112 * ow0 + 112 * ow1 + 16 * ow2 + 16 * s + c1 - 240]
                                     : 0.0f) *
                                Wp[147456 * k0 + 73728 * k1 + 2304 * c0 + 768 * r + 256 * s +
                                   16 * c1 + k2];
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
                    {
                      float v_ = acc[112 * wk1 + 16 * ww + wk2] + bias[32 * k0 + 16 * wk1 + wk2];
                      O[100352 * n + 6272 * k0 + 3136 * wk1 + 224 * oh0 + 224 * oh1 + 112 * ow0 +
                        112 * ow1 + 16 * ww + wk2] = v_ > 0.0f ? v_ : 0.0f;
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}
