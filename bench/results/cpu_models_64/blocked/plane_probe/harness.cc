#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "gen.inc"  // run.sh substitutes each variant
int main() {
  const int C = 64, H = 56, W = 56, K = 128, OH = 28, OW = 28;
  std::vector<float> I(C * H * W), Wt(K * C), b(K), O(K * OH * OW),
      P(glimpse_kernel_2_0_prepared_size()), flush(64 << 20 >> 2);
  for (size_t i = 0; i < I.size(); ++i) I[i] = (i % 17) * 0.1f;
  for (size_t i = 0; i < Wt.size(); ++i) Wt[i] = (i % 13) * 0.01f;
  for (int k = 0; k < K; ++k) b[k] = k * 0.5f;
  const float* in0[3] = {I.data(), Wt.data(), b.data()};
  glimpse_kernel_2_0_prepare(in0, P.data());
  const float* in[4] = {I.data(), Wt.data(), b.data(), P.data()};
  std::vector<double> t;
  for (int rep = 0; rep < 300; ++rep) {
    for (size_t i = 0; i < flush.size(); i += 16) flush[i] += 1;
    auto s = std::chrono::steady_clock::now();
    glimpse_kernel_2_0(in, O.data());
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count());
  }
  double err = 0;
  for (int k = 0; k < K; k += 7)
    for (int oh = 0; oh < OH; oh += 3)
      for (int ow = 0; ow < OW; ow += 5) {
        double r = b[k];
        for (int c = 0; c < C; ++c) r += I[c * H * W + 2 * oh * W + 2 * ow] * Wt[k * C + c];
        err = std::max(err, std::abs(r - O[k * OH * OW + oh * OW + ow]));
      }
  std::sort(t.begin(), t.end());
  printf("median %.1f us min %.1f us  %.1f GFLOP/s  maxerr %g\n", t[t.size() / 2] * 1e6, t[0] * 1e6,
         2.0 * K * C * OH * OW / t[t.size() / 2] / 1e9, err);
}
