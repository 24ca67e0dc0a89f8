// The untuned ops' header that every compiled model carries (src/compile/runtime_ops.cc), checked
// on its own: a driver includes it beside a tap-by-tap reference written here (each tap tested
// against the plane, counted as ONNX counts it), is compiled with the system compiler as an
// artifact is, and compares every output.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "compile/artifact_text.h"

namespace {

namespace fs = std::filesystem;

// Every window shape, stride and padding below, both kinds of average, at channel blocks of
// 1 (NCHW), 3 (a width with no fast path), 4, 8 and 16, on planes where windows overhang the
// padded edge (ceil-mode outputs) and where a window lies wholly in the padding.
const char* kPoolDriver = R"DRIVER(
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>
#include "glimpse_model_ops.h"

static float Reference(const std::vector<float>& x, bool max, long lanes, long p, long lane,
                       long h, long w, long i, long j, long kh, long kw, long sh, long sw,
                       long pt, long pl, long pb, long pr, bool include_pad) {
  float acc = max ? -std::numeric_limits<float>::infinity() : 0.0f;
  long count = 0;
  for (long r = 0; r < kh; ++r) {
    for (long s = 0; s < kw; ++s) {
      const long ih = i * sh + r - pt, iw = j * sw + s - pl;
      if (ih >= 0 && ih < h && iw >= 0 && iw < w) {
        const float v = x[((p * h + ih) * w + iw) * lanes + lane];
        acc = max ? (v > acc ? v : acc) : acc + v;
        ++count;
      } else if (include_pad && ih < h + pb && iw < w + pr) {
        ++count;
      }
    }
  }
  return max ? acc : acc / static_cast<float>(count > 0 ? count : 1);
}

int main() {
  struct Case { long h, w, kh, kw, sh, sw, pt, pl, pb, pr, oh, ow; };
  const Case cases[] = {
      {12, 12, 3, 3, 2, 2, 1, 1, 1, 1, 6, 6},    // ResNet's stem pool
      {7, 9, 2, 2, 2, 2, 0, 0, 0, 0, 3, 4},      // 2×2 stride 2, odd planes
      {7, 9, 3, 3, 2, 2, 0, 0, 1, 1, 4, 5},      // ceil mode: the last windows overhang
      {5, 6, 3, 2, 1, 2, 2, 1, 2, 1, 7, 4},      // asymmetric window, stride and padding
      {4, 4, 3, 3, 3, 3, 2, 2, 2, 2, 3, 3},      // a corner window wholly in the padding
      {6, 5, 1, 1, 1, 1, 0, 0, 0, 0, 6, 5},      // 1×1
  };
  long checked = 0;
  for (const Case& c : cases) {
    for (long lanes : {1L, 3L, 4L, 8L, 16L}) {
      for (int kind = 0; kind < 3; ++kind) {
        const bool max = kind == 0, include_pad = kind == 2;
        const long planes = 3;
        std::vector<float> x(planes * c.h * c.w * lanes), y(planes * c.oh * c.ow * lanes, NAN);
        for (size_t e = 0; e < x.size(); ++e) x[e] = static_cast<float>((e * 37) % 101) - 50.0f;
        glimpse_rt::Pool(x.data(), y.data(), max, planes, c.h, c.w, c.oh, c.ow, c.kh, c.kw, c.sh,
                         c.sw, c.pt, c.pl, c.pb, c.pr, include_pad, lanes);
        for (long p = 0; p < planes; ++p)
          for (long i = 0; i < c.oh; ++i)
            for (long j = 0; j < c.ow; ++j)
              for (long lane = 0; lane < lanes; ++lane) {
                const float want = Reference(x, max, lanes, p, lane, c.h, c.w, i, j, c.kh, c.kw,
                                             c.sh, c.sw, c.pt, c.pl, c.pb, c.pr, include_pad);
                const float got = y[((p * c.oh + i) * c.ow + j) * lanes + lane];
                const bool same = std::isinf(want) ? got == want
                                                   : std::fabs(got - want) <= 1e-5f * (1 + std::fabs(want));
                if (!same) {
                  std::printf("mismatch: case %ld×%ld k%ld×%ld lanes %ld kind %d at (%ld,%ld,%ld,%ld): "
                              "%g, expected %g\n", c.h, c.w, c.kh, c.kw, lanes, kind, p, i, j, lane,
                              got, want);
                  return 1;
                }
                ++checked;
              }
      }
    }
  }
  std::printf("checked %ld\n", checked);
  return 0;
}
)DRIVER";

std::string RunCommand(const std::string& command) {
  std::string output;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return "popen failed";
  char buffer[512];
  while (fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
  const int status = pclose(pipe);
  if (status != 0) output += "\nexit status " + std::to_string(status);
  return output;
}

TEST(RuntimeOps, PoolMatchesATapByTapReferenceAtEveryBlockWidth) {
  const fs::path dir =
      fs::temp_directory_path() /
      ("glimpse_runtime_ops_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
       "_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "glimpse_model_ops.h") << glimpse::compile::RuntimeOpsHeader();
  std::ofstream(dir / "driver.cc") << kPoolDriver;
  // As an artifact's CMake project builds its kernels: optimised, OpenMP on.
  const std::string built =
      RunCommand("c++ -std=c++17 -O2 -fopenmp -o " + (dir / "driver").string() + " " +
                 (dir / "driver.cc").string());
  ASSERT_EQ(built, "") << built;
  const std::string output = RunCommand((dir / "driver").string());
  // 6 planes' shapes × 5 block widths × 3 kinds, each output counted once.
  EXPECT_EQ(output, "checked 38880\n");
  fs::remove_all(dir);
}

}  // namespace
