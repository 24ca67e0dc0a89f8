// Leave-one-GPU-out quality of the Blueprint-generated prior H(Π, Θ) (Glimpse Sec. 3.1) on the
// recorded spaces: each GPU in turn is held out, H is trained on the other GPUs' spaces (all
// kernels in one model), and on every held-out space the best of the prior's first 1 and 10
// initial configurations is compared with the recorded optimum (time_opt / time; 0 when none of
// them ran). Baselines on the same space: random sampling (the exact expectation of the best of n
// distinct recorded configurations) and transfer (the training GPUs' own best configurations of
// the same kernel: each one's best, nearest GPU in Blueprint distance first, then each one's
// second best, …). A ceiling: H trained on every GPU, the held-out one included (in-sample).
//
// Configurations a recorded file lacks are outside the space (Kernel Tuner caches keep only what
// the kernel's restrictions allow) and are skipped by every method; recorded failures count as
// measured configurations that give no time.
//
// Usage: bench_prior_generator [datasets-dir] [epochs]
//   default: $GLIMPSE_SHARED_DATASETS, else ../shared/datasets/benchmark_hub beside the checkout.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <string>

#include "glimpse/error.h"
#include "glimpse/hardware.h"
#include "glimpse/prior_generator.h"

namespace fs = std::filesystem;
using namespace glimpse;

namespace {

double Distance(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(sum);
}

// The ok configurations of a recorded space, fastest first, as JSON (knob name → value).
std::vector<Json> RankedConfigs(const RecordedSpace& recorded) {
  std::vector<std::pair<double, uint64_t>> ok;
  for (const auto& [index, entry] : recorded.entries) {
    if (entry.status == MeasureStatus::kOk) ok.emplace_back(entry.time_s, index);
  }
  std::sort(ok.begin(), ok.end());
  std::vector<Json> out;
  for (const auto& [time, index] : ok) {
    out.push_back(recorded.space.ConfigToJson(recorded.space.FromDenseIndex(index)));
  }
  return out;
}

struct Sums {
  double values[7] = {0, 0, 0, 0, 0, 0, 0};
  int folds = 0;
};

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
    std::cerr << "bench_prior_generator: datasets not found at " << dir
              << "; pass the benchmark_hub folder as the argument\n";
    return 2;
  }
  PriorTrainingOptions options;
  if (argc > 2) options.epochs = std::atoi(argv[2]);
  const Blueprint& blueprint = Blueprint::Default();
  LoadedTrainingSpaces loaded = LoadValidityTrainingSpaces({dir}, {}, GpuTable::Default());
  std::vector<PriorTrainingExample> all =
      MakePriorExamples(loaded.spaces, blueprint, options.top_fraction);
  std::set<std::string> gpus;
  for (const PriorTrainingExample& e : all) gpus.insert(e.gpu);

  CpuDescription cpu = DescribeLocalCpu();
  std::cout << fmt::format("prior generator, leave one GPU out — {}, {} hardware threads\n",
                           cpu.model_name, cpu.logical_cpus);
  std::cout << fmt::format("Blueprint: {} components; options {}\n", blueprint.components(),
                           options.ToJson().dump());
  for (const std::string& line : loaded.skipped) std::cout << "skipped " << line << "\n";

  PriorGenerator in_sample = PriorGenerator::Train(all, options);
  std::cout << "\n| kernel | held-out GPU | prior 1 | prior 10 | transfer 1 | transfer 10 | "
               "random 1 | random 10 | in-sample prior 10 |\n"
               "|---|---|---:|---:|---:|---:|---:|---:|---:|\n";
  std::map<std::string, Sums> by_kernel;
  Sums total;
  double train_seconds = 0;
  for (const std::string& held_out : gpus) {
    std::vector<PriorTrainingExample> train;
    for (const PriorTrainingExample& e : all) {
      if (e.gpu != held_out) train.push_back(e);
    }
    PriorTrainingReport report;
    PriorGenerator model = PriorGenerator::Train(train, options, &report);
    train_seconds += report.seconds;
    for (size_t i = 0; i < all.size(); ++i) {
      const PriorTrainingExample& e = all[i];
      if (e.gpu != held_out) continue;
      const ValidityTrainingSpace* space = nullptr;
      for (const ValidityTrainingSpace& s : loaded.spaces) {
        if (s.recorded->source_path == e.path) space = &s;
      }
      const RecordedSpace& recorded = *space->recorded;
      auto recorded_only = [&](const Config& c) {
        return recorded.entries.count(recorded.space.ToDenseIndex(c)) > 0;
      };
      FirstSamplesQuality prior = ScoreFirstSamples(
          recorded, model.InitialConfigs(recorded.space, e.task, e.blueprint, 10, recorded_only),
          {1, 10});
      FirstSamplesQuality ceiling = ScoreFirstSamples(
          recorded,
          in_sample.InitialConfigs(recorded.space, e.task, e.blueprint, 10, recorded_only),
          {1, 10});

      // Transfer: the other GPUs' best configurations of this kernel, nearest GPU first.
      std::vector<std::pair<double, std::vector<Json>>> donors;
      for (const PriorTrainingExample& d : train) {
        if (d.name != e.name) continue;
        const ValidityTrainingSpace* ds = nullptr;
        for (const ValidityTrainingSpace& s : loaded.spaces) {
          if (s.recorded->source_path == d.path) ds = &s;
        }
        donors.emplace_back(Distance(d.blueprint, e.blueprint), RankedConfigs(*ds->recorded));
      }
      std::sort(donors.begin(), donors.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      std::vector<Config> transfer;
      std::set<Config> seen;
      for (size_t rank = 0; transfer.size() < 10; ++rank) {
        bool any = false;
        for (const auto& [distance, ranked] : donors) {
          if (rank >= ranked.size() || transfer.size() >= 10) continue;
          any = true;
          Config c;
          try {
            c = recorded.space.ConfigFromJson(ranked[rank]);
          } catch (const Error&) {
            continue;  // a value this GPU's space lacks
          }
          if (recorded_only(c) && seen.insert(c).second) transfer.push_back(c);
        }
        if (!any) break;
      }
      FirstSamplesQuality t = ScoreFirstSamples(recorded, transfer, {1, 10});

      double row[7] = {prior.prior[0],  prior.prior[1],  t.prior[0],      t.prior[1],
                       prior.random[0], prior.random[1], ceiling.prior[1]};
      std::cout << fmt::format("| {} | {} |", e.name, e.gpu);
      for (double v : row) std::cout << fmt::format(" {:.3f} |", v);
      std::cout << "\n";
      for (int c = 0; c < 7; ++c) {
        by_kernel[e.name].values[c] += row[c];
        total.values[c] += row[c];
      }
      ++by_kernel[e.name].folds;
      ++total.folds;
    }
  }
  std::cout << "\nMeans:\n\n| kernel | folds | prior 1 | prior 10 | transfer 1 | transfer 10 | "
               "random 1 | random 10 | in-sample prior 10 |\n"
               "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  by_kernel["all"] = total;
  for (const auto& [name, sums] : by_kernel) {
    std::cout << fmt::format("| {} | {} |", name, sums.folds);
    for (double v : sums.values) std::cout << fmt::format(" {:.3f} |", v / sums.folds);
    std::cout << "\n";
  }
  std::cout << fmt::format("\n{} leave-one-out trainings, {:.1f} s of training in all\n",
                           gpus.size(), train_seconds);
  return 0;
}
