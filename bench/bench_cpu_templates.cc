// CPU template sanity benchmark: how fast the best of a few random configurations of each CPU
// template is on real layers, beside this machine's FP32 peak.
//
//   bench_cpu_templates [--count N] [--seed S] [--threads T] [--peak-only] [--warm-activations]
//                       [--op TEXT [--fix knob=value]... [--config JSON]...]...
//
// Without --op: ResNet-18's four 3×3 conv2d layers with layout NCHW and NCHWc, its classifier
// (dense M=1, N=1000, K=512), two MobileNet-v2 depthwise layers with either vector axis and a
// batch_matmul. For each group, N (default 60) valid configurations are drawn at random with the
// fixed knobs held, compiled by CpuBuilder (-O3 -march=native) and measured by CpuRunner (default
// protocol: reference check, caches flushed before every timed call, median of ≥ 3 calls and
// ≥ 50 ms). Prints, per group, how many ran ok, the best and the median GFLOP/s, and the best
// configuration. With --config, an --op's given configurations are measured instead of random
// ones (the row then shows the best of them). The peak is measured first by a kernel of
// independent FMA chains on the same threads (8- and 16-lane vectors; the best of 200 tries of
// about 1 ms each). --threads T (default: every online CPU) sets the kernels' and the peak kernel's
// thread count: with 1, figures suffer less from other work on a shared machine (a parallel
// kernel waits for its slowest thread). --warm-activations times with the activation inputs read
// back into the caches after each flush, as inside a model (CpuRunnerOptions::warm_activations).
// Results: bench/results/cpu_templates.md.
#include <dlfcn.h>
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "glimpse/cpu.h"
#include "glimpse/error.h"
#include "glimpse/random.h"

namespace {

using namespace glimpse;

// 12 independent chains of vector FMAs per thread: enough to cover the FMA latency on both pipes
// of current x86 cores, so the loop runs at the FMA throughput.
const char* kPeakSource = R"peak(
#include <omp.h>
#define CHAINS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define PEAK(NAME, LANES)                                                              \
  typedef float NAME##_v __attribute__((vector_size(LANES * 4)));                      \
  extern "C" int NAME(long iters, float* sink, int wanted) {                           \
    int threads = 1;                                                                   \
    _Pragma("omp parallel num_threads(wanted)") {                                      \
      NAME##_v b = NAME##_v{} + 0.999f, c = NAME##_v{} + 0.001f;                       \
      CHAINS(DECLARE)                                                                  \
      for (long i = 0; i < iters; ++i) {                                               \
        CHAINS(STEP)                                                                   \
        __asm__ volatile("" ::: "memory");                                             \
      }                                                                                \
      float sum = 0;                                                                   \
      CHAINS(SUM)                                                                      \
      _Pragma("omp critical") sink[0] += sum;                                          \
      _Pragma("omp single") threads = omp_get_num_threads();                           \
    }                                                                                  \
    return threads;                                                                    \
  }
#define DECLARE(i) auto a##i = b * (float)(i);
#define STEP(i) a##i = a##i * b + c;
#define SUM(i) sum += a##i[0];
PEAK(glimpse_peak_8, 8)
PEAK(glimpse_peak_16, 16)
)peak";

struct Peak {
  double gflops = 0;
  int lanes = 0;
  int threads = 0;
};

Peak MeasurePeak(CpuBuilder& builder, int threads) {
  std::vector<BuildResult> built = builder.BuildSources({{kPeakSource, "glimpse_peak_8"}});
  if (built[0].status != MeasureStatus::kOk) throw Error("peak kernel: " + built[0].error);
  std::string path = built[0].artifact.substr(0, built[0].artifact.rfind(':'));
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) throw Error(std::string("peak kernel: ") + dlerror());
  // Many short tries, the best kept: on a shared machine a long run is always interrupted by
  // other work, while the kernels measured below are short too (milliseconds).
  Peak best;
  const long iters = 500'000;  // ≈ 1 ms per try at 200 GFLOP/s
  for (int lanes : {8, 16}) {
    auto fn = reinterpret_cast<int (*)(long, float*, int)>(
        dlsym(library, ("glimpse_peak_" + std::to_string(lanes)).c_str()));
    for (int attempt = 0; attempt < 200; ++attempt) {
      float sink = 0;
      auto start = std::chrono::steady_clock::now();
      int ran = fn(iters, &sink, threads);
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      double gflops = ran * static_cast<double>(iters) * 12 * lanes * 2 / s / 1e9;
      if (gflops > best.gflops) best = {gflops, lanes, ran};
    }
  }
  // The OpenMP runtime's threads may still be running code of the library: keep it loaded.
  return best;
}

struct Group {
  std::string op;
  std::map<std::string, Json> fixed;
  std::vector<Json> configs;  // given configurations: measured instead of random ones
};

std::string FixedText(const Group& group) {
  if (!group.configs.empty()) return std::to_string(group.configs.size()) + " given";
  std::string out;
  for (const auto& [knob, value] : group.fixed) {
    out += (out.empty() ? "" : ",") + knob + "=" +
           (value.is_string() ? value.get<std::string>() : value.dump());
  }
  return out.empty() ? "-" : out;
}

void RunGroup(const Group& group, int count, uint64_t seed, CpuBuilder& builder, CpuRunner& runner,
              double peak) {
  Task task = MakeCpuTask(ParseOperator(group.op));
  Rng rng(seed);
  std::vector<MeasureInput> inputs;
  for (const Json& config : group.configs) {
    inputs.push_back({&task, task.space.ConfigFromJson(config)});
  }
  for (int attempt = 0;
       attempt < 1000000 && group.configs.empty() && static_cast<int>(inputs.size()) < count;
       ++attempt) {
    std::optional<Config> config = task.space.SampleValid(rng);
    if (!config) break;
    Json json = task.space.ConfigToJson(*config);
    bool match = true;
    for (const auto& [knob, value] : group.fixed) match = match && json.at(knob) == value;
    if (match) inputs.push_back({&task, *config});
  }
  auto start = std::chrono::steady_clock::now();
  std::vector<BuildResult> builds = builder.Build(inputs);
  std::vector<MeasureResult> results = runner.Run(inputs, builds);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double flops = OperatorFlops(ParseOperator(group.op));
  std::vector<double> gflops;
  size_t best = results.size();
  std::map<std::string, int> failures;
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].ok()) {
      ++failures[StatusName(results[i].status)];
      continue;
    }
    gflops.push_back(flops / results[i].time_s / 1e9);
    if (best == results.size() || results[i].time_s < results[best].time_s) best = i;
  }
  std::sort(gflops.begin(), gflops.end());
  std::string failed;
  for (const auto& [status, n] : failures) {
    failed += (failed.empty() ? " (" : ", ") + std::to_string(n) + " " + status;
  }
  if (!failed.empty()) failed += ")";
  if (gflops.empty()) {
    fmt::print("| {} | {} | 0/{}{} | - | - | - | - | {:.0f} s |\n", group.op, FixedText(group),
               inputs.size(), failed, wall);
    std::fflush(stdout);
    return;
  }
  fmt::print("| {} | {} | {}/{}{} | {:.1f} | {:.0f} % | {:.1f} | {:.4f} ms | {:.0f} s |\n",
             group.op, FixedText(group), gflops.size(), inputs.size(), failed, gflops.back(),
             100 * gflops.back() / peak, gflops[gflops.size() / 2], results[best].time_s * 1e3,
             wall);
  fmt::print("|   best: {} | | | | | | | |\n", task.space.ConfigToString(inputs[best].config));
  std::fflush(stdout);  // a row at a time: a full run takes minutes
}

int Main(int argc, char** argv) {
  int count = 60;
  int threads = 0;
  uint64_t seed = 1;
  bool peak_only = false;
  bool warm_activations = false;
  std::vector<Group> groups;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--count") {
      count = std::stoi(value());
    } else if (arg == "--seed") {
      seed = std::stoull(value());
    } else if (arg == "--threads") {
      threads = std::stoi(value());
    } else if (arg == "--peak-only") {
      peak_only = true;
    } else if (arg == "--warm-activations") {
      warm_activations = true;
    } else if (arg == "--op") {
      groups.push_back({value(), {}, {}});
    } else if (arg == "--config") {
      if (groups.empty()) throw Error("--config JSON follows an --op");
      groups.back().configs.push_back(Json::parse(value()));
    } else if (arg == "--fix") {
      std::string fix = value();
      size_t eq = fix.find('=');
      if (groups.empty() || eq == std::string::npos) {
        throw Error("--fix knob=value follows an --op");
      }
      Json parsed = Json::parse(fix.substr(eq + 1), nullptr, false);
      groups.back().fixed[fix.substr(0, eq)] =
          parsed.is_discarded() ? Json(fix.substr(eq + 1)) : parsed;
    } else {
      throw Error("unknown argument '" + arg +
                  "'; known: --count, --seed, --threads, --peak-only, --warm-activations, --op, "
                  "--fix, --config");
    }
  }
  if (groups.empty()) {
    for (const char* op : {"conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1",
                           "conv2d:N=1,C=128,H=28,W=28,K=128,R=3,S=3,stride=1,pad=1",
                           "conv2d:N=1,C=256,H=14,W=14,K=256,R=3,S=3,stride=1,pad=1",
                           "conv2d:N=1,C=512,H=7,W=7,K=512,R=3,S=3,stride=1,pad=1"}) {
      groups.push_back({op, {{"layout", "NCHW"}}, {}});
      groups.push_back({op, {{"layout", "NCHWc"}}, {}});
    }
    groups.push_back({"dense:M=1,N=1000,K=512,bias=1", {}, {}});
    for (const char* op : {"depthwise_conv2d:N=1,C=144,H=56,W=56,R=3,S=3,stride=1,pad=1",
                           "depthwise_conv2d:N=1,C=144,H=56,W=56,R=3,S=3,stride=2,pad=1"}) {
      groups.push_back({op, {{"vector_axis", "ow"}}, {}});
      groups.push_back({op, {{"vector_axis", "c"}}, {}});
    }
    groups.push_back({"batch_matmul:B=12,M=128,N=128,K=64", {}, {}});
  }

  fmt::print("machine: {}, nproc {}\n", CpuDeviceName(), sysconf(_SC_NPROCESSORS_ONLN));
  std::string dir =
      (std::filesystem::temp_directory_path() / ("glimpse-bench-cpu-" + std::to_string(getpid())))
          .string();
  CpuBuilderOptions build_options;
  build_options.work_dir = dir;
  CpuBuilder builder(build_options);
  if (threads <= 0) threads = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  Peak peak = MeasurePeak(builder, threads);
  fmt::print(
      "FP32 peak (FMA chains, best of 200 tries of ~1 ms): {:.1f} GFLOP/s with {}-lane "
      "vectors on {} threads\n\n",
      peak.gflops, peak.lanes, peak.threads);
  if (peak_only) return 0;
  fmt::print("random valid configurations per group: {}, seed {}\n\n", count, seed);
  fmt::print(
      "| operator | fixed knobs | ok | best GFLOP/s | of peak | median GFLOP/s | best time "
      "| wall |\n|---|---|---|---|---|---|---|---|\n");
  CpuRunnerOptions run_options;
  run_options.threads = threads;
  run_options.warm_activations = warm_activations;
  CpuRunner runner(run_options);
  for (const Group& group : groups) RunGroup(group, count, seed, builder, runner, peak.gflops);
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Main(argc, argv);
  } catch (const std::exception& error) {
    fmt::print(stderr, "bench_cpu_templates: {}\n", error.what());
    return 1;
  }
}
