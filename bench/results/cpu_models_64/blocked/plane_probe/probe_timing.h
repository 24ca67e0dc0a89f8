// What harness.cc and plane.cc share: the timing loop (a 64 MiB read-modify-write sweep before
// each of 300 calls; the times sorted) and the check against a double-precision sum of the 1×1
// stride-2 convolution on a sample of outputs (every 7th channel, 3rd row, 5th column).
#pragma once
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <vector>

template <typename Call>
std::vector<double> SortedCallTimes(Call call) {
  std::vector<float> flush(64 << 20 >> 2);
  std::vector<double> t;
  for (int rep = 0; rep < 300; ++rep) {
    for (size_t i = 0; i < flush.size(); i += 16) flush[i] += 1;
    auto s = std::chrono::steady_clock::now();
    call();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count());
  }
  std::sort(t.begin(), t.end());
  return t;
}

// O[k][oh][ow] against bias[k] + Σ_c I[c][2·oh][2·ow] · Wt[k][c] (I is C × 2·OH × 2·OW).
inline double MaxError(const std::vector<float>& I, const std::vector<float>& Wt,
                       const std::vector<float>& b, const std::vector<float>& O, int C, int K,
                       int OH, int OW) {
  const int H = 2 * OH, W = 2 * OW;
  double err = 0;
  for (int k = 0; k < K; k += 7)
    for (int oh = 0; oh < OH; oh += 3)
      for (int ow = 0; ow < OW; ow += 5) {
        double r = b[k];
        for (int c = 0; c < C; ++c) r += I[c * H * W + 2 * oh * W + 2 * ow] * Wt[k * C + c];
        err = std::max(err, std::abs(r - O[(k * OH + oh) * OW + ow]));
      }
  return err;
}
