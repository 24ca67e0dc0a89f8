// Time to load the largest recorded spaces: reading + inflating the file, and the whole
// LoadRecordedSpace (parse, knobs, entries by dense index). Best of 3 per file. Goal: well under a
// few seconds for the largest file (the GEMM cache: 17956 entries × 32 samples, ~30 MB of JSON).
//
// Usage: bench_load_recorded [datasets-dir]
//   default: $GLIMPSE_SHARED_DATASETS, else ../shared/datasets/benchmark_hub beside the checkout.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

#include "glimpse/evaluation.h"
#include "glimpse/replay.h"

namespace fs = std::filesystem;
using namespace glimpse;

namespace {

constexpr int kRepeats = 3;

template <typename Body>
double BestSeconds(Body&& body) {
  double best = 1e300;
  for (int i = 0; i < kRepeats; ++i) {
    auto start = std::chrono::steady_clock::now();
    body();
    best = std::min(
        best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir;
  if (argc > 1) {
    dir = argv[1];
  } else if (const char* env = std::getenv("GLIMPSE_SHARED_DATASETS"); env && *env) {
    dir = env;
  } else {
    dir = (fs::path(GLIMPSE_SOURCE_DIR).parent_path() / "shared/datasets/benchmark_hub").string();
  }
  if (!fs::is_directory(dir)) {
    std::cerr << "bench_load_recorded: datasets not found at " << dir
              << "; pass the benchmark_hub folder as the argument\n";
    return 2;
  }
  std::cout << fmt::format("load recorded spaces — {}\nbest of {} runs each\n\n",
                           MachineDescription(), kRepeats);
  std::cout << fmt::format("{:<36} {:>8} {:>9} {:>11} {:>12} {:>10}\n", "file", "entries",
                           "JSON MB", "inflate s", "load total s", "µs/entry");
  for (const char* name : {"gemm/RTX_2080_Ti.json.gz", "dedispersion_milo/W7800.json.gz",
                           "convolution_milo/W7800_T4.json.gz"}) {
    std::string path = dir + "/" + name;
    size_t json_bytes = 0;
    size_t entries = 0;
    double inflate_s = BestSeconds([&] { json_bytes = ReadMaybeGzipFile(path).size(); });
    double load_s = BestSeconds([&] { entries = LoadRecordedSpace(path).entries.size(); });
    std::cout << fmt::format("{:<36} {:>8} {:>9.1f} {:>11.3f} {:>12.3f} {:>10.1f}\n", name, entries,
                             json_bytes / 1e6, inflate_s, load_s,
                             1e6 * load_s / static_cast<double>(std::max<size_t>(entries, 1)));
  }
  return 0;
}
