// Times a generated kernel alone: harness LIB.so SYMBOL in_floats weight_floats bias_floats
// out_floats; 100 calls, each after a 64 MiB sweep; prints the median and the fastest.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
typedef void (*K)(const float* const*, float*);
typedef long (*S)();
typedef void (*P)(const float* const*, float*);
int main(int argc, char** argv) {
  // harness lib.so symbol in_floats w_floats bias_floats out_floats
  void* h = dlopen(argv[1], RTLD_NOW);
  if (!h) {
    printf("%s\n", dlerror());
    return 1;
  }
  std::string sym = argv[2];
  K k = (K)dlsym(h, sym.c_str());
  S s = (S)dlsym(h, (sym + "_prepared_size").c_str());
  P p = (P)dlsym(h, (sym + "_prepare").c_str());
  long n[4];
  for (int i = 0; i < 4; ++i) n[i] = atol(argv[3 + i]);
  std::vector<float> in(n[0]), w(n[1]), b(n[2]), out(n[3]), flush(64 << 20 >> 2);
  for (auto& x : in) x = rand() / (float)RAND_MAX;
  for (auto& x : w) x = rand() / (float)RAND_MAX - 0.5f;
  std::vector<float> prep(s ? s() + 16 : 16);
  const float* inputs[4] = {in.data(), w.data(), b.data(), prep.data()};
  if (p) p(inputs, prep.data());
  std::vector<double> t;
  for (int i = 0; i < 100; ++i) {
    for (auto& x : flush) x += 1;
    auto a = std::chrono::steady_clock::now();
    k(inputs, out.data());
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  double sum = 0;
  for (auto x : out) sum += x;
  printf("%s median %.4f ms min %.4f ms checksum %.6g\n", argv[1], t[50] * 1e3, t[0] * 1e3, sum);
}
