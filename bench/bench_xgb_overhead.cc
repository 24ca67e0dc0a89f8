// The XGBoost tuner's own CPU time per 64-candidate batch: Observe of 64 new measurements (which
// refits the cost model on every record so far) + Propose(64) (simulated-annealing planning over
// the new model). Goal: ≤ 50 ms at 2000 records, so that the strategy never slows a replay study
// or a real tuning run noticeably.
//
// Usage: bench_xgb_overhead [threads [recorded-file t1-file]]
//   threads: XGBoost threads (XgbTunerOptions::num_threads; default 1, 0 = every core).
//   default: convolution_milo on the A100 (4362 recorded configurations, 10 knobs) from
//   ../shared/datasets when present, else the copy bundled under data/recorded.
// Columns: records before the batch; medians over repeats of the refit alone (the same rows, order
// and seed as the tuner's own refit, so the same work), of planning (whole batch − refit, per
// repeat) and of the whole batch; the fastest batch. Run it on an idle machine: under load the
// medians grow, the minimum much less.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <vector>

#include "glimpse/cost_model.h"
#include "glimpse/evaluation.h"
#include "glimpse/model_tuner.h"
#include "glimpse/replay.h"

namespace fs = std::filesystem;
using namespace glimpse;

namespace {

using Clock = std::chrono::steady_clock;

double MillisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::string path, t1;
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  if (argc > 3) {
    path = argv[2];
    t1 = argv[3];
  } else {
    fs::path shared = fs::path(GLIMPSE_SOURCE_DIR).parent_path() / "shared/datasets/benchmark_hub";
    fs::path root = fs::exists(shared) ? shared : fs::path(GLIMPSE_SOURCE_DIR) / "data/recorded";
    path = (root / "convolution_milo/A100.json.gz").string();
    t1 = (root / "t1/convolution_milo.json").string();
  }
  ReplayLoadOptions load;
  load.t1_path = t1;
  auto recorded = std::make_shared<RecordedSpace>(LoadRecordedSpace(path, load));
  Task task = recorded->MakeTask();

  // Every recorded configuration in a fixed shuffled order, as a run would measure them.
  std::vector<std::pair<Config, MeasureResult>> records;
  for (const auto& [index, entry] : recorded->entries) {
    MeasureResult result;
    result.status = entry.status;
    if (entry.status == MeasureStatus::kOk) result.time_s = entry.time_s;
    records.emplace_back(task.space.FromDenseIndex(index), result);
  }
  std::sort(records.begin(), records.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  Rng rng(7);
  for (size_t i = records.size(); i > 1; --i) {
    std::swap(records[i - 1], records[UniformIndex(rng, i)]);
  }

  std::ifstream loadavg("/proc/loadavg");
  std::string load_1min;
  loadavg >> load_1min;
  std::cout << fmt::format(
      "XGBoost tuner overhead per 64-candidate batch\nmachine: {} (load "
      "average {} at start)\nspace: {} ({} recorded configurations, {} "
      "knobs)\ntuner: xgb defaults (rank loss, knob features), num_threads "
      "{}\n\n",
      MachineDescription(), load_1min, path, records.size(), task.space.NumKnobs(), threads);
  std::cout << fmt::format("{:>8} {:>8} {:>10} {:>14} {:>14} {:>12} {:>8}\n", "records", "repeats",
                           "fit (ms)", "planning (ms)", "batch (ms)", "fastest (ms)", "goal");
  constexpr size_t kBatch = 64;
  constexpr int kRepeats = 9;
  for (size_t count : {size_t{500}, size_t{2000}}) {
    if (count + kBatch > records.size()) continue;
    std::vector<Config> configs;
    std::vector<MeasureResult> results;
    std::vector<double> scores;
    for (size_t i = 0; i < count + kBatch; ++i) {
      configs.push_back(records[i].first);
      results.push_back(records[i].second);
      scores.push_back(records[i].second.ok() ? 1.0 / records[i].second.time_s : 0.0);
    }
    std::vector<double> fit_ms, plan_ms, batch_ms;
    for (int repeat = 0; repeat < kRepeats; ++repeat) {
      // The fit alone, on the records the batch's refit sees.
      XgbCostModelOptions model_options;
      model_options.seed = repeat;
      model_options.num_threads = threads;
      auto model = MakeXgbCostModel(task.space, model_options);
      Clock::time_point start = Clock::now();
      model->Fit(configs, scores);
      fit_ms.push_back(MillisecondsSince(start));

      // The whole batch: the tuner has seen `count` records (and fitted on them, untimed).
      XgbTunerOptions tuner_options;
      tuner_options.num_threads = threads;
      auto tuner = MakeXgbTuner(tuner_options);
      tuner->Init(task, repeat);
      tuner->Observe(std::vector<Config>(configs.begin(), configs.begin() + count),
                     std::vector<MeasureResult>(results.begin(), results.begin() + count));
      start = Clock::now();
      tuner->Observe(std::vector<Config>(configs.begin() + count, configs.end()),
                     std::vector<MeasureResult>(results.begin() + count, results.end()));
      std::vector<Config> next = tuner->Propose(kBatch);
      batch_ms.push_back(MillisecondsSince(start));
      plan_ms.push_back(batch_ms.back() - fit_ms.back());
      if (next.size() != kBatch) {
        std::cerr << "proposed " << next.size() << " configurations instead of " << kBatch << "\n";
        return 1;
      }
    }
    const double batch = Median(batch_ms);
    std::cout << fmt::format("{:>8} {:>8} {:>10.1f} {:>14.1f} {:>14.1f} {:>12.1f} {:>8}\n", count,
                             kRepeats, Median(fit_ms), Median(plan_ms), batch,
                             *std::min_element(batch_ms.begin(), batch_ms.end()),
                             count == 2000 ? (batch <= 50.0 ? "met" : "missed") : "-");
  }
  return 0;
}
