// Space sampling benchmark: valid-configuration sampling, IsValid throughput and enumeration on
// CLBlast's GEMM space (82 944 raw points, 17 956 valid) and on a synthetic conv2d-like space of
// split knobs with more than 10^8 raw points.
//
//   bench_space_sampling [--samples N] [--repeats R]
//
// Prints a table (median of R repeats) and the machine. Results: bench/results/space_sampling.md.
#include <fmt/core.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "glimpse/space.h"

// The process-wide switch between the enumerated-list sampler and the rejection sampler
// (src/space/space_internal.h; the benchmark does not see src/).
namespace glimpse::space_internal {
uint64_t EnumerationThreshold();
void SetEnumerationThreshold(uint64_t raw_size);
}  // namespace glimpse::space_internal

namespace {

using namespace glimpse;
using Clock = std::chrono::steady_clock;

std::vector<KnobValue> Ints(std::initializer_list<int64_t> values) {
  return std::vector<KnobValue>(values.begin(), values.end());
}

ConfigSpace GemmSpace() {
  ConfigSpace space;
  const std::vector<std::pair<std::string, std::vector<KnobValue>>> params = {
      {"MWG", Ints({16, 32, 64, 128})},
      {"NWG", Ints({16, 32, 64, 128})},
      {"KWG", Ints({32})},
      {"MDIMC", Ints({8, 16, 32})},
      {"NDIMC", Ints({8, 16, 32})},
      {"MDIMA", Ints({8, 16, 32})},
      {"NDIMB", Ints({8, 16, 32})},
      {"KWI", Ints({2})},
      {"VWM", Ints({1, 2, 4, 8})},
      {"VWN", Ints({1, 2, 4, 8})},
      {"STRM", Ints({0})},
      {"STRN", Ints({0})},
      {"SA", Ints({0, 1})},
      {"SB", Ints({0, 1})},
      {"PRECISION", Ints({32})}};
  for (const auto& [name, values] : params) space.AddKnob(Knob::Ordered(name, values));
  for (const char* r :
       {"KWG % KWI == 0", "MWG % (MDIMC * VWM) == 0", "NWG % (NDIMC * VWN) == 0",
        "MWG % (MDIMA * VWM) == 0", "NWG % (NDIMB * VWN) == 0",
        "KWG % ((MDIMC * NDIMC)/MDIMA) == 0", "KWG % ((MDIMC * NDIMC)/NDIMB) == 0"}) {
    space.AddRestriction(r);
  }
  return space;
}

// An AutoTVM-style conv2d CUDA template: 4-way splits of the output channels and spatial axes,
// 2-way splits of the reductions, unrolling and vector width.
ConfigSpace Conv2dSpace() {
  ConfigSpace space;
  space.AddKnob(Knob::Split("tile_f", 64, 4));   // 84
  space.AddKnob(Knob::Split("tile_y", 56, 4));   // 80
  space.AddKnob(Knob::Split("tile_x", 56, 4));   // 80
  space.AddKnob(Knob::Split("tile_rc", 64, 2));  // 7
  space.AddKnob(Knob::Split("tile_ry", 3, 2));   // 2
  space.AddKnob(Knob::Split("tile_rx", 3, 2));   // 2
  space.AddKnob(Knob::Ordered("auto_unroll_max_step", Ints({0, 512, 1500})));
  space.AddKnob(Knob::Ordered("unroll_explicit", Ints({0, 1})));
  space.AddKnob(Knob::Ordered("vec", Ints({1, 2, 4})));
  // Threads per block, virtual threads, shared memory of the input and filter tiles (floats),
  // vectorised inner loop, unrolling only with a step.
  space.AddRestriction("32 <= tile_f_2 * tile_y_2 * tile_x_2 <= 1024");
  space.AddRestriction("tile_f_1 * tile_y_1 * tile_x_1 <= 16");
  space.AddRestriction(
      "4 * (tile_f_1 * tile_f_2 * tile_f_3 * tile_rc_1 * tile_ry_1 * tile_rx_1"
      " + tile_rc_1 * (tile_y_1 * tile_y_2 * tile_y_3 + tile_ry_1 - 1)"
      " * (tile_x_1 * tile_x_2 * tile_x_3 + tile_rx_1 - 1)) <= 48 * 1024");
  space.AddRestriction("tile_x_3 % vec == 0");
  space.AddRestriction("unroll_explicit == 0 or auto_unroll_max_step > 0");
  return space;
}

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

double TimeMedian(int repeats, const std::function<void()>& fn) {
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    auto start = Clock::now();
    fn();
    times.push_back(Seconds(start));
  }
  return Median(times);
}

std::string CpuModel() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown CPU";
}

int Nproc() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return CPU_COUNT(&set);
  return static_cast<int>(std::thread::hardware_concurrency());
}

std::string Rate(double count, double seconds) {
  double r = count / seconds;
  if (r >= 1e6) return fmt::format("{:.2f} M/s", r / 1e6);
  if (r >= 1e3) return fmt::format("{:.1f} k/s", r / 1e3);
  return fmt::format("{:.1f} /s", r);
}

std::string Time(double seconds) {
  if (seconds >= 1) return fmt::format("{:.3f} s", seconds);
  if (seconds >= 1e-3) return fmt::format("{:.2f} ms", seconds * 1e3);
  return fmt::format("{:.2f} us", seconds * 1e6);
}

void Row(const std::string& what, const std::string& space, const std::string& time,
         const std::string& rate) {
  fmt::print("| {:<44} | {:<7} | {:>10} | {:>12} |\n", what, space, time, rate);
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t samples = 100000;
  int repeats = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--samples") == 0)
      samples = std::stoull(argv[i + 1]);
    else if (std::strcmp(argv[i], "--repeats") == 0)
      repeats = std::stoi(argv[i + 1]);
  }
  const uint64_t default_threshold = space_internal::EnumerationThreshold();

  fmt::print("machine: {}, nproc {}\n", CpuModel(), Nproc());
  fmt::print("samples per run: {}, repeats: {} (median shown)\n\n", samples, repeats);

  struct Named {
    std::string name;
    ConfigSpace space;
  };
  std::vector<Named> spaces;
  spaces.push_back({"gemm", GemmSpace()});
  spaces.push_back({"conv2d", Conv2dSpace()});

  // Counts first (they also tell the acceptance rate of rejection sampling).
  std::vector<uint64_t> valid_counts;
  for (const Named& s : spaces) valid_counts.push_back(s.space.CountValid());
  for (size_t i = 0; i < spaces.size(); ++i) {
    fmt::print("{}: {} knobs, {} restrictions, raw {} (10^{:.2f}), valid {} ({:.4f}% of raw)\n",
               spaces[i].name, spaces[i].space.NumKnobs(), spaces[i].space.restrictions().size(),
               spaces[i].space.RawSize(), spaces[i].space.RawSizeLog10(), valid_counts[i],
               100.0 * static_cast<double>(valid_counts[i]) /
                   static_cast<double>(spaces[i].space.RawSize()));
  }
  fmt::print("\n");
  fmt::print("| {:<44} | {:<7} | {:>10} | {:>12} |\n", "operation", "space", "time", "rate");
  fmt::print("|{:-<46}|{:-<9}|{:-<12}|{:-<14}|\n", "", "", "", "");

  uint64_t sink = 0;
  for (size_t i = 0; i < spaces.size(); ++i) {
    const ConfigSpace& space = spaces[i].space;
    const std::string& name = spaces[i].name;

    double count_time = TimeMedian(repeats, [&] { sink += space.CountValid(); });
    Row("CountValid (pruned walk)", name, Time(count_time),
        Rate(static_cast<double>(space.RawSize()), count_time) + "");

    if (space.RawSize() <= default_threshold) {
      // Enumerated list: the first call on a fresh copy pays for the enumeration.
      space_internal::SetEnumerationThreshold(default_threshold);
      double first = TimeMedian(repeats, [&] {
        ConfigSpace fresh = space;
        Rng rng(1);
        sink += fresh.SampleValid(rng)->indices[0];
      });
      Row("SampleValid first call (enumerates valid)", name, Time(first), "");
      Rng rng(42);
      sink += space.SampleValid(rng)->indices[0];
      double t = TimeMedian(repeats, [&] {
        for (uint64_t n = 0; n < samples; ++n) sink += space.SampleValid(rng)->indices[0];
      });
      Row(fmt::format("SampleValid x{} (enumerated list)", samples), name, Time(t),
          Rate(static_cast<double>(samples), t));
    }
    {
      space_internal::SetEnumerationThreshold(0);
      Rng rng(42);
      double t = TimeMedian(repeats, [&] {
        for (uint64_t n = 0; n < samples; ++n) sink += space.SampleValid(rng)->indices[0];
      });
      Row(fmt::format("SampleValid x{} (rejection)", samples), name, Time(t),
          Rate(static_cast<double>(samples), t));
      space_internal::SetEnumerationThreshold(default_threshold);
    }
    {
      Rng rng(7);
      double t = TimeMedian(repeats, [&] {
        for (uint64_t n = 0; n < samples; ++n) sink += space.SampleRaw(rng).indices[0];
      });
      Row(fmt::format("SampleRaw x{}", samples), name, Time(t),
          Rate(static_cast<double>(samples), t));
    }
    {
      // IsValid over a fixed set of raw (mostly invalid) and of valid configurations.
      Rng rng(9);
      std::vector<Config> raw, valid;
      for (uint64_t n = 0; n < samples; ++n) raw.push_back(space.SampleRaw(rng));
      for (uint64_t n = 0; n < samples; ++n) valid.push_back(*space.SampleValid(rng));
      double t_raw = TimeMedian(repeats, [&] {
        for (const Config& c : raw) sink += space.IsValid(c);
      });
      Row(fmt::format("IsValid x{} (raw configs)", samples), name, Time(t_raw),
          Rate(static_cast<double>(samples), t_raw));
      double t_valid = TimeMedian(repeats, [&] {
        for (const Config& c : valid) sink += space.IsValid(c);
      });
      Row(fmt::format("IsValid x{} (valid configs)", samples), name, Time(t_valid),
          Rate(static_cast<double>(samples), t_valid));
      unsigned threads = static_cast<unsigned>(Nproc());
      if (threads > 1) {
        double t_mt = TimeMedian(repeats, [&] {
          std::vector<std::thread> pool;
          std::vector<uint64_t> sinks(threads);
          for (unsigned th = 0; th < threads; ++th) {
            pool.emplace_back([&, th] {
              uint64_t local = 0;  // not sinks[th] in the loop: false sharing
              for (const Config& c : raw) local += space.IsValid(c);
              sinks[th] = local;
            });
          }
          for (auto& p : pool) p.join();
          for (uint64_t s : sinks) sink += s;
        });
        Row(fmt::format("IsValid x{} x {} threads (raw configs)", samples, threads), name,
            Time(t_mt), Rate(static_cast<double>(samples) * threads, t_mt));
      }
    }
    {
      Rng rng(3);
      Config start = *space.SampleValid(rng);
      double t = TimeMedian(repeats, [&] {
        Config c = start;
        for (int n = 0; n < 1000; ++n) c = space.RandomWalk(c, 1, rng);
        sink += c.indices[0];
      });
      Row("RandomWalk 1000 steps (valid neighbours)", name, Time(t), Rate(1000, t));
    }
  }
  {
    const ConfigSpace& space = spaces[1].space;
    double t = TimeMedian(1, [&] { sink += space.ValidIndices().size(); });
    Row("ValidIndices (sorted)", spaces[1].name, Time(t), "");
  }
  fmt::print("\n(checksum {})\n", sink % 1000);
  return 0;
}
