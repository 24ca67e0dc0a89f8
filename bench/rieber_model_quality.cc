// Rieber et al. Sec. III-B on our recorded spaces: how the share of valid configurations in the
// training set shapes the XGBoost cost model's ranking (../shared/papers/rieber-2022-hw-aware-
// initialization.txt, Fig. 2). Results and the command are recorded in
// bench/results/rieber_model_quality.md.
//
// Protocol per space and repeat: the recorded entries (restriction-valid, ok or failed) are split
// at random into 75 % training and 25 % test; for every training size n and valid ratio r, the
// model (the xgb tuner's: rank loss, knob features, one thread) is fitted on round(r·n) valid and
// n − round(r·n) invalid training entries drawn at random (score 1/time, failures 0, as the tuner
// feeds it), and scored on the whole, unmodified test split: pairwise accuracy valid–valid and
// valid–invalid, precision@N and nDCG@N (N = 50, one epoch of the paper's tuner;
// glimpse/ranking_metrics.h). A cell for which the training split lacks enough valid or invalid
// entries is left out ("-"). Cells are means over repeats, then over spaces.
//
// Usage: rieber_model_quality [DATASETS_DIR [REPEATS]]
//   DATASETS_DIR  default <source>/../shared/datasets/benchmark_hub
//   REPEATS       default 5
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "glimpse/cost_model.h"
#include "glimpse/evaluation.h"
#include "glimpse/random.h"
#include "glimpse/ranking_metrics.h"
#include "glimpse/replay.h"

namespace {

using namespace glimpse;

constexpr size_t kTopN = 50;
const std::vector<size_t> kSizes = {50, 100, 200, 400};
const std::vector<double> kRatios = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9};
const char* const kMetrics[] = {"nDCG@50", "precision@50", "accuracy valid-invalid",
                                "accuracy valid-valid"};
constexpr int kNumMetrics = 4;

struct SpaceSpec {
  std::string file, t1;
};

struct Sample {
  Config config;
  bool valid;
  double score;  // 1 / time for valid entries, 0 otherwise
};

// Sums and counts of each metric per (size, ratio) cell.
struct Grid {
  std::map<std::pair<size_t, int>, std::array<double, kNumMetrics>> sum;
  std::map<std::pair<size_t, int>, std::array<int, kNumMetrics>> count;
  void Add(size_t size, int ratio, int metric, double value) {
    if (std::isnan(value)) return;
    sum[{size, ratio}][metric] += value;
    count[{size, ratio}][metric] += 1;
  }
  double Mean(size_t size, int ratio, int metric) const {
    auto s = sum.find({size, ratio});
    auto c = count.find({size, ratio});
    if (s == sum.end() || c->second[metric] == 0) return NAN;
    return s->second[metric] / c->second[metric];
  }
};

void Shuffle(std::vector<size_t>& items, Rng& rng) {
  for (size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[UniformIndex(rng, i)]);
}

void PrintGrid(const Grid& grid, int metric) {
  fmt::print("\n{} (rows: training size; columns: share of valid configurations)\n",
             kMetrics[metric]);
  fmt::print("{:>6}", "size");
  for (double ratio : kRatios) fmt::print("{:>7.1f}", ratio);
  fmt::print("\n");
  for (size_t size : kSizes) {
    fmt::print("{:>6}", size);
    for (size_t r = 0; r < kRatios.size(); ++r) {
      const double mean = grid.Mean(size, static_cast<int>(r), metric);
      if (std::isnan(mean)) {
        fmt::print("{:>7}", "-");
      } else {
        fmt::print("{:>7.3f}", mean);
      }
    }
    fmt::print("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string root =
      argc > 1 ? argv[1] : std::string(GLIMPSE_SOURCE_DIR) + "/../shared/datasets/benchmark_hub";
  const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
  const std::vector<SpaceSpec> specs = {
      {"convolution/RTX_3090.json.gz", "t1/convolution.json"},
      {"convolution_milo/A6000.json.gz", "t1/convolution_milo.json"},
      {"pnpoly/RTX_3090.json.gz", "t1/pnpoly.json"}};
  fmt::print("Cost-model quality against the share of valid training configurations\n");
  fmt::print("machine: {}\n", MachineDescription());
  fmt::print("repeats: {}, top N = {}, model: xgb rank loss, knob features, 1 thread\n", repeats,
             kTopN);
  const auto start = std::chrono::steady_clock::now();
  Grid all;
  for (const SpaceSpec& spec : specs) {
    ReplayLoadOptions load;
    load.t1_path = root + "/" + spec.t1;
    const RecordedSpace recorded = LoadRecordedSpace(root + "/" + spec.file, load);
    std::vector<Sample> samples;
    for (const auto& [index, entry] : recorded.entries) {
      const bool valid = entry.status == MeasureStatus::kOk && entry.time_s > 0.0;
      samples.push_back(
          {recorded.space.FromDenseIndex(index), valid, valid ? 1.0 / entry.time_s : 0.0});
    }
    // A fixed order (the map's is unspecified), so that the splits are reproducible.
    std::sort(samples.begin(), samples.end(),
              [](const Sample& a, const Sample& b) { return a.config < b.config; });
    size_t valid_total = 0;
    for (const Sample& sample : samples) valid_total += sample.valid ? 1 : 0;
    fmt::print("\nspace {}: {} entries, {:.3f} valid\n", spec.file, samples.size(),
               static_cast<double>(valid_total) / samples.size());

    Grid grid;
    for (int repeat = 0; repeat < repeats; ++repeat) {
      Rng rng(1000 + repeat);
      std::vector<size_t> order(samples.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      Shuffle(order, rng);
      const size_t n_test = samples.size() / 4;
      std::vector<Config> test_configs;
      std::vector<double> test_measured;
      std::vector<bool> test_valid;
      std::vector<size_t> train_valid, train_invalid;
      for (size_t i = 0; i < order.size(); ++i) {
        const Sample& sample = samples[order[i]];
        if (i < n_test) {
          test_configs.push_back(sample.config);
          test_measured.push_back(sample.score);
          test_valid.push_back(sample.valid);
        } else {
          (sample.valid ? train_valid : train_invalid).push_back(order[i]);
        }
      }
      for (size_t size : kSizes) {
        for (size_t r = 0; r < kRatios.size(); ++r) {
          const size_t n_valid = static_cast<size_t>(std::lround(kRatios[r] * size));
          const size_t n_invalid = size - n_valid;
          if (n_valid > train_valid.size() || n_invalid > train_invalid.size()) continue;
          Shuffle(train_valid, rng);
          Shuffle(train_invalid, rng);
          std::vector<Config> configs;
          std::vector<double> scores;
          for (size_t i = 0; i < n_valid; ++i) {
            configs.push_back(samples[train_valid[i]].config);
            scores.push_back(samples[train_valid[i]].score);
          }
          for (size_t i = 0; i < n_invalid; ++i) {
            configs.push_back(samples[train_invalid[i]].config);
            scores.push_back(0.0);
          }
          XgbCostModelOptions options;
          options.seed = static_cast<uint64_t>(repeat);
          std::unique_ptr<CostModel> model = MakeXgbCostModel(recorded.space, options);
          model->Fit(configs, scores);
          const std::vector<double> predicted = model->Predict(test_configs);
          const PairwiseAccuracy accuracy =
              ComputePairwiseAccuracy(predicted, test_measured, test_valid);
          const double values[kNumMetrics] = {NdcgAtN(predicted, test_measured, test_valid, kTopN),
                                              PrecisionAtN(predicted, test_valid, kTopN),
                                              accuracy.valid_invalid, accuracy.valid_valid};
          for (int m = 0; m < kNumMetrics; ++m) {
            grid.Add(size, static_cast<int>(r), m, values[m]);
          }
        }
      }
    }
    for (int m = 0; m < kNumMetrics; ++m) PrintGrid(grid, m);
    // The mean over spaces gives each space one vote per cell: add this space's cell means.
    for (size_t size : kSizes) {
      for (size_t r = 0; r < kRatios.size(); ++r) {
        for (int m = 0; m < kNumMetrics; ++m) {
          all.Add(size, static_cast<int>(r), m, grid.Mean(size, static_cast<int>(r), m));
        }
      }
    }
  }
  fmt::print("\n=== mean over the {} spaces (a cell: over the spaces where it exists) ===\n",
             specs.size());
  for (int m = 0; m < kNumMetrics; ++m) PrintGrid(all, m);
  fmt::print("\nelapsed: {:.1f} s\n",
             std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return 0;
}
