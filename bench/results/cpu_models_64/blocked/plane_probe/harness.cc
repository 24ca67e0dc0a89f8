#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "gen.inc"  // run.sh substitutes each variant
#include "probe_timing.h"
int main() {
  const int C = 64, K = 128, OH = 28, OW = 28;
  std::vector<float> I(C * 4 * OH * OW), Wt(K * C), b(K), O(K * OH * OW),
      P(glimpse_kernel_2_0_prepared_size());
  for (size_t i = 0; i < I.size(); ++i) I[i] = (i % 17) * 0.1f;
  for (size_t i = 0; i < Wt.size(); ++i) Wt[i] = (i % 13) * 0.01f;
  for (int k = 0; k < K; ++k) b[k] = k * 0.5f;
  const float* in0[3] = {I.data(), Wt.data(), b.data()};
  glimpse_kernel_2_0_prepare(in0, P.data());
  const float* in[4] = {I.data(), Wt.data(), b.data(), P.data()};
  const std::vector<double> t = SortedCallTimes([&] { glimpse_kernel_2_0(in, O.data()); });
  const double err = MaxError(I, Wt, b, O, C, K, OH, OW);
  printf("median %.1f us min %.1f us  %.1f GFLOP/s  maxerr %g\n", t[t.size() / 2] * 1e6, t[0] * 1e6,
         2.0 * K * C * OH * OW / t[t.size() / 2] / 1e9, err);
}
