// Build: c++ -O3 -march=native -fopenmp -std=c++17 packbench.cc -o packbench
// Run: OMP_NUM_THREADS=T ./packbench C H W BLOCK PAD STRIP (packbench_output_run*.txt: two runs,
// 13:46 and 13:58 UTC, over the shapes listed there). Strides are run-time values here, unlike the
// generated kernels' constants, so this is a rough guide: vgg_conv64_parts/ times the real code.
// Times the blocked activation packing two ways: "gather" (channel loop innermost) and "strips"
// (rows in strips of S columns with the channel loop outside the strip).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
int main(int argc, char** argv) {
  const long C = atol(argv[1]), H = atol(argv[2]), W = atol(argv[3]), B = atol(argv[4]),
             P = atol(argv[5]), S = atol(argv[6]);
  const long HP = H + 2 * P, WP = W + 2 * P, CB = C / B;
  std::vector<float> in(C * H * W), flush(64 << 20 >> 2);
  for (auto& x : in) x = rand() / (float)RAND_MAX;
  float* ip = static_cast<float*>(std::aligned_alloc(64, CB * HP * WP * B * 4 + 64));
  const float* __restrict I = in.data();
  float* __restrict Ip = ip;
  auto gather = [&] {
#pragma omp parallel for collapse(2) schedule(static)
    for (long c0 = 0; c0 < CB; ++c0)
      for (long h = 0; h < HP; ++h)
        for (long w = 0; w < WP; ++w)
          for (long c1 = 0; c1 < B; ++c1)
            Ip[((c0 * HP + h) * WP + w) * B + c1] =
                (h - P >= 0 && h - P < H && w - P >= 0 && w - P < W)
                    ? I[((c0 * B + c1) * H + h - P) * W + w - P]
                    : 0.0f;
  };
  auto strips = [&] {
#pragma omp parallel for collapse(2) schedule(static)
    for (long c0 = 0; c0 < CB; ++c0)
      for (long h = 0; h < HP; ++h) {
        for (long w0 = 0; w0 < W / S; ++w0)
          for (long c1 = 0; c1 < B; ++c1)
            for (long w1 = 0; w1 < S; ++w1)
              Ip[((c0 * HP + h) * WP + w0 * S + w1 + P) * B + c1] =
                  (h - P >= 0 && h - P < H) ? I[((c0 * B + c1) * H + h - P) * W + w0 * S + w1]
                                            : 0.0f;
        for (long z = 0; z < P; ++z)
          for (long c1 = 0; c1 < B; ++c1) {
            Ip[((c0 * HP + h) * WP + z) * B + c1] = 0.0f;
            Ip[((c0 * HP + h) * WP + z + W + P) * B + c1] = 0.0f;
          }
      }
  };
  double best[2] = {1e9, 1e9};
  for (int rep = 0; rep < 40; ++rep) {
    for (int v = 0; v < 2; ++v) {
      for (auto& x : flush) x += 1;
      auto a = std::chrono::steady_clock::now();
      if (v == 0)
        gather();
      else
        strips();
      best[v] = std::min(
          best[v], std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
    }
  }
  printf(
      "C=%ld H=W=%ld block=%ld pad=%ld strip=%ld threads=%d: gather %.3f ms strips %.3f ms "
      "(%.2fx)\n",
      C, H, B, P, S, omp_get_max_threads(), best[0] * 1e3, best[1] * 1e3, best[1] / best[0]);
  free(ip);
}
