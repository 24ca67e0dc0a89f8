#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>
extern "C" int64_t vgg16_k8_prepared_size();
extern "C" void vgg16_k8_prepare(const float* const* inputs, float* prepared);
extern "C" void vgg16_k8(const float* const* inputs, float* output);
extern "C" void peel_cols(const float* const* inputs, float* output);
extern "C" void peel_cols_rows(const float* const* inputs, float* output);
extern "C" void peel_if_both(const float* const* inputs, float* output);
using Fn = void (*)(const float* const*, float*);
int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 5;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> I(100352), W(2359296), B(512), P(vgg16_k8_prepared_size());
  for (auto& x : I) x = u(rng);
  for (auto& x : W) x = u(rng);
  for (auto& x : B) x = u(rng);
  const float* in[4] = {I.data(), W.data(), B.data(), P.data()};
  vgg16_k8_prepare(in, P.data());
  std::vector<float> ref(100352), out(100352);
  vgg16_k8(in, ref.data());
  Fn fns[4] = {vgg16_k8, peel_cols, peel_cols_rows, peel_if_both};
  const char* names[4] = {"orig", "peel_cols", "peel_cols_rows", "peel_if_both"};
  for (int f = 1; f < 4; ++f) {
    std::fill(out.begin(), out.end(), NAN);
    fns[f](in, out.data());
    double err = 0;
    for (size_t i = 0; i < out.size(); ++i) err = std::max(err, (double)std::fabs(out[i] - ref[i]));
    printf("%s max |diff| %.3g\n", names[f], err);
  }
  std::vector<char> flush(64 << 20);
  std::vector<double> best(4, 1e9);
  std::vector<std::vector<double>> all(4);
  for (int round = 0; round < rounds; ++round) {
    for (int j = 0; j < 4; ++j) {
      int f = (j + round) % 4;
      for (int rep = 0; rep < 10; ++rep) {
        memset(flush.data(), rep, flush.size());
        auto t0 = std::chrono::steady_clock::now();
        fns[f](in, out.data());
        double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        all[f].push_back(t);
        best[f] = std::min(best[f], t);
      }
    }
  }
  for (int f = 0; f < 4; ++f) {
    auto v = all[f];
    std::sort(v.begin(), v.end());
    printf("%-15s fastest %.3f ms  median %.3f ms\n", names[f], best[f] * 1e3,
           v[v.size() / 2] * 1e3);
  }
}
