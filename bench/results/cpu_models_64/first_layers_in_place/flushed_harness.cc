// Times MobileNet-v2's first layer (3x3 stride 2, 3 -> 32 channels, 224x224) as one kernel file
// defines it, the output checked against a plain loop. Before each call every OpenMP thread
// writes one float of each line of a 64 MiB buffer (the runner's sweep). Environment:
//   NOFLUSH=1  no sweep (warm);  CLEAN=1  a second, read-only 64 MiB sweep after it, so that the
//   caches hold clean lines instead of dirty ones;  CLFLUSH=1  then input and output clflushed
//   line by line (the runner's protocol adds this);  HUGE=1  input and output on 2 MiB pages.
#include <immintrin.h>
#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
static float* Big(size_t n) {
  size_t bytes = (n * 4 + (2 << 20) - 1) / (2 << 20) * (2 << 20);
  float* p = (float*)std::aligned_alloc(2 << 20, bytes);
  if (getenv("HUGE")) madvise(p, bytes, MADV_HUGEPAGE);
  memset(p, 0, bytes);
  return p;
}
extern "C" int64_t kern_prepared_size();
extern "C" void kern_prepare(const float* const* inputs, float* prepared);
extern "C" void kern(const float* const* inputs, float* output);
int main(int argc, char** argv) {
  const int C = 3, H = 224, W = 224, K = 32, OH = 112, OW = 112;
  int reps = argc > 1 ? atoi(argv[1]) : 300;
  std::vector<float> Wt(K * C * 9), b(K), flush(64 << 20 >> 2), clean(64 << 20 >> 2, 1.0f);
  float* O = Big(K * OH * OW);
  float* I = Big(C * H * W);
  float* P = (float*)std::aligned_alloc(64, std::max<int64_t>(64, kern_prepared_size() * 4));
  for (size_t i = 0; i < size_t(C * H * W); ++i) I[i] = (i % 17) * 0.1f - 0.5f;
  for (size_t i = 0; i < Wt.size(); ++i) Wt[i] = (i % 13) * 0.01f - 0.05f;
  for (int k = 0; k < K; ++k) b[k] = k * 0.05f;
  const float* in0[3] = {I, Wt.data(), b.data()};
  kern_prepare(in0, P);
  const float* in[4] = {I, Wt.data(), b.data(), P};
  std::vector<double> t;
  for (int rep = 0; rep < reps; ++rep) {
    if (!getenv("NOFLUSH")) {
#pragma omp parallel for
      for (size_t i = 0; i < flush.size(); i += 16) flush[i] += 1;
      if (getenv("CLFLUSH")) {  // then every line of the input and output, as the runner does
#pragma omp parallel for
        for (int64_t i = 0; i < C * H * W; i += 16) _mm_clflush(I + i);
#pragma omp parallel for
        for (int64_t i = 0; i < K * OH * OW; i += 16) _mm_clflush(O + i);
        _mm_mfence();
      }
      if (getenv("CLEAN")) {
        float sum = 0;
#pragma omp parallel for reduction(+ : sum)
        for (size_t i = 0; i < clean.size(); i += 16) sum += clean[i];
        if (sum == 1.2345f) printf("x");
      }
    }
    auto s = std::chrono::steady_clock::now();
    kern(in, O);
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
