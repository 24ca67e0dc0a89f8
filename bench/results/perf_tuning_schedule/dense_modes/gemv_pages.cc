// Dense M=1 (y = W·x + b, N=1000, K=2048) timed with cold caches, one fresh weight buffer per
// trial: does the time depend on where the buffer lands, and does asking for huge pages
// (MADV_HUGEPAGE) change that?   gemv_pages [trials] [huge 0|1]
#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

constexpr int64_t N = 1000, K = 2048;

__attribute__((noinline)) void Gemv(const float* __restrict w, const float* __restrict x,
                                    const float* __restrict b, float* __restrict y) {
#pragma omp parallel for schedule(static)
  for (int64_t n = 0; n < N; ++n) {
    float s = 0.f;
#pragma omp simd reduction(+ : s)
    for (int64_t k = 0; k < K; ++k) s += w[n * K + k] * x[k];
    y[n] = s + b[n];
  }
}

int main(int argc, char** argv) {
  const int trials = argc > 1 ? atoi(argv[1]) : 12;
  const bool huge = argc > 2 && atoi(argv[2]) != 0;
  const size_t bytes = N * K * 4, align = 2 << 20;
  std::vector<unsigned char> flush(64 << 20);
  std::vector<float> x(K, 0.5f), b(N, 1.f), y(N);
  std::vector<void*> keep;  // every buffer stays allocated, so each trial gets new pages
  for (int t = 0; t < trials; ++t) {
    void* p = std::aligned_alloc(align, (bytes + align - 1) / align * align);
    if (huge) madvise(p, (bytes + align - 1) / align * align, MADV_HUGEPAGE);
    keep.push_back(p);
    float* w = static_cast<float*>(p);
    for (int64_t i = 0; i < N * K; ++i) w[i] = (i % 7) * 0.01f;
    std::vector<double> times;
    for (int rep = 0; rep < 60; ++rep) {
#pragma omp parallel for schedule(static)
      for (size_t i = 0; i < flush.size(); i += 64) flush[i] += 1;
      const auto s = std::chrono::steady_clock::now();
      Gemv(w, x.data(), b.data(), y.data());
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count());
    }
    std::sort(times.begin(), times.end());
    printf("trial %2d huge %d buffer %p: median %.1f us min %.1f us  (%.1f GB/s)\n", t, huge, p,
           times[30] * 1e6, times[0] * 1e6, bytes / times[30] / 1e9);
  }
  FILE* f = fopen("/proc/self/smaps_rollup", "r");
  char line[256];
  while (f && fgets(line, sizeof line, f)) {
    if (strstr(line, "AnonHugePages")) printf("%s", line);
  }
  return y[0] > 1e30f;
}
