#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
extern "C" int64_t kern_prepared_size();
extern "C" void kern_prepare(const float* const* inputs, float* prepared);
extern "C" void kern(const float* const* inputs, float* output);
int main(int argc, char** argv) {
  const int C = 3, H = 224, W = 224, K = 32, OH = 112, OW = 112;
  int reps = argc > 1 ? atoi(argv[1]) : 300;
  std::vector<float> I(C * H * W), Wt(K * C * 9), b(K), O(K * OH * OW), flush(64 << 20 >> 2);
  float* P = (float*)std::aligned_alloc(64, std::max<int64_t>(64, kern_prepared_size() * 4));
  for (size_t i = 0; i < I.size(); ++i) I[i] = (i % 17) * 0.1f - 0.5f;
  for (size_t i = 0; i < Wt.size(); ++i) Wt[i] = (i % 13) * 0.01f - 0.05f;
  for (int k = 0; k < K; ++k) b[k] = k * 0.05f;
  const float* in0[3] = {I.data(), Wt.data(), b.data()};
  kern_prepare(in0, P);
  const float* in[4] = {I.data(), Wt.data(), b.data(), P};
  std::vector<double> t;
  for (int rep = 0; rep < reps; ++rep) {
#pragma omp parallel for
    for (size_t i = 0; i < flush.size(); i += 16) flush[i] += 1;
    auto s = std::chrono::steady_clock::now();
    kern(in, O.data());
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count());
  }
  double err = 0;
  for (int k = 0; k < K; ++k)
    for (int oh = 0; oh < OH; ++oh)
      for (int ow = 0; ow < OW; ++ow) {
        double r = b[k];
        for (int c = 0; c < C; ++c)
          for (int kr = 0; kr < 3; ++kr)
            for (int ks = 0; ks < 3; ++ks) {
              int ih = 2 * oh + kr - 1, iw = 2 * ow + ks - 1;
              if (ih < 0 || iw < 0 || ih >= H || iw >= W) continue;
              r += I[c * H * W + ih * W + iw] * Wt[((k * C + c) * 3 + kr) * 3 + ks];
            }
        r = std::min(6.0, std::max(0.0, r));
        // blocked output NCHW16c
        double got = O[(k / 16) * OH * OW * 16 + (oh * OW + ow) * 16 + k % 16];
        err = std::max(err, std::abs(r - got));
      }
  std::sort(t.begin(), t.end());
  double flop = 2.0 * K * C * 9 * OH * OW;
  printf("threads %d median %.1f us min %.1f us  %.1f GFLOP/s (min %.1f)  maxerr %.2g\n",
         omp_get_max_threads(), t[t.size() / 2] * 1e6, t[0] * 1e6, flop / t[t.size() / 2] / 1e9,
         flop / t[0] / 1e9, err);
}
