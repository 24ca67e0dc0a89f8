// Whether the model-free strategies search better than chance on smooth objectives. Medians over
// seeds keep these robust; the margins asserted are well inside what is observed.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <unordered_set>
#include <vector>

#include "glimpse/tuner.h"
#include "tuner/synthetic.h"

namespace glimpse {
namespace {

using testing::MakeTask;
using testing::SyntheticRunner;

constexpr size_t kCap = 3000;  // measurements per run

// Measurements until the optimum (time == kBase) is found; kCap + 1 when it is not.
size_t MeasurementsToOptimum(Tuner& tuner, const Task& task, SyntheticRunner& runner, uint64_t seed,
                             size_t batch) {
  std::vector<Config> proposed = testing::Drive(tuner, task, runner, seed, batch, kCap);
  for (size_t i = 0; i < proposed.size(); ++i) {
    if (runner.TimeOf(proposed[i]) <= SyntheticRunner::kBase) return i + 1;
  }
  return kCap + 1;
}

size_t MedianToOptimum(const std::function<std::unique_ptr<Tuner>()>& make, size_t batch) {
  // 4 knobs × 12 values ≈ 2·10^4 configurations, some failing; one optimum.
  Task task = MakeTask(testing::GridSpace(4, 12));
  SyntheticRunner runner(task.space, {7, 3, 9, 5}, /*fail_every=*/13);
  std::vector<size_t> counts;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    std::unique_ptr<Tuner> tuner = make();
    counts.push_back(MeasurementsToOptimum(*tuner, task, runner, seed, batch));
  }
  std::sort(counts.begin(), counts.end());
  return (counts[4] + counts[5]) / 2;
}

TEST(SearchQuality, GeneticBeatsRandomOnASmoothObjective) {
  size_t random = MedianToOptimum([] { return MakeRandomTuner(); }, 16);
  size_t genetic = MedianToOptimum([] { return MakeGeneticTuner(); }, 16);
  RecordProperty("random_median", static_cast<int>(random));
  RecordProperty("ga_median", static_cast<int>(genetic));
  EXPECT_LT(genetic * 2, random) << "ga median " << genetic << ", random median " << random;
}

TEST(SearchQuality, AnnealingBeatsRandomOnASmoothObjective) {
  size_t random = MedianToOptimum([] { return MakeRandomTuner(); }, 1);
  size_t annealing = MedianToOptimum([] { return MakeAnnealingTuner(); }, 1);
  RecordProperty("random_median", static_cast<int>(random));
  RecordProperty("sa_median", static_cast<int>(annealing));
  EXPECT_LT(annealing * 2, random) << "sa median " << annealing << ", random median " << random;
}

TEST(Annealing, ColdWalkMovesToBetterNeighbours) {
  // Nearly zero temperature: a worse configuration is never accepted, so every proposal is a
  // neighbour of the state, and the state is the latest observation at least as fast as it.
  AnnealingOptions cold;
  cold.initial_temperature = 1e-9;
  cold.final_temperature = 1e-12;
  cold.cooling = 0.999;
  Task task = MakeTask(testing::GridSpace(4, 12));
  SyntheticRunner runner(task.space, {7, 3, 9, 5});
  for (uint64_t seed : {1, 2, 3}) {
    std::unique_ptr<Tuner> tuner = MakeAnnealingTuner(cold);
    tuner->Init(task, seed);
    std::unordered_set<Config, ConfigHasher> visited;
    std::optional<Config> state;
    double state_time = 0.0;
    size_t steps = 0;
    while (!state || runner.TimeOf(*state) > SyntheticRunner::kBase) {
      ASSERT_LT(++steps, 400u) << "no optimum after 400 measurements, seed " << seed;
      std::vector<Config> configs = tuner->Propose(1);
      ASSERT_EQ(configs.size(), 1u);
      const Config& config = configs[0];
      if (state) {
        std::vector<Config> open;
        for (const Config& n : task.space.Neighbours(*state)) {
          if (!visited.count(n)) open.push_back(n);
        }
        if (!open.empty()) {
          EXPECT_NE(std::find(open.begin(), open.end(), config), open.end())
              << "not an unvisited neighbour of the state, seed " << seed;
        }
      }
      visited.insert(config);
      MeasureResult result = runner.Measure(config);
      tuner->Observe(configs, {result});
      if (!state || result.time_s <= state_time) {
        state = config;
        state_time = result.time_s;
      }
    }
  }
}

TEST(Annealing, FailedStartMovesOnAndFailuresAreNotAccepted) {
  // A failed state moves to anything; a working state never moves onto a failure.
  Task task = MakeTask(testing::GridSpace(3, 8));
  SyntheticRunner runner(task.space, {6, 6, 6});
  AnnealingOptions cold;
  cold.initial_temperature = 1e-9;
  cold.final_temperature = 1e-12;
  std::unique_ptr<Tuner> tuner = MakeAnnealingTuner(cold);
  tuner->Init(task, 7);
  Config start{{0, 0, 0}};
  MeasureResult failed;
  failed.status = MeasureStatus::kRuntimeDevice;
  tuner->Observe({start}, {failed});
  // The state is the failed start: its neighbours come first.
  std::vector<Config> next = tuner->Propose(3);
  ASSERT_EQ(next.size(), 3u);
  std::vector<Config> around = task.space.Neighbours(start);
  for (const Config& config : next) {
    EXPECT_NE(std::find(around.begin(), around.end(), config), around.end());
  }
  // One of them works: it becomes the state; a failing one after it is not accepted.
  Config good = next[0];
  Config bad = next[1];
  MeasureResult bad_result;
  bad_result.status = MeasureStatus::kCompileDevice;
  tuner->Observe({good, bad}, {runner.Measure(good), bad_result});
  std::vector<Config> around_good = task.space.Neighbours(good);
  std::unordered_set<Config, ConfigHasher> visited(next.begin(), next.end());
  visited.insert(start);
  size_t open = 0;
  for (const Config& config : around_good) open += visited.count(config) == 0;
  ASSERT_GT(open, 1u);
  // Had the walk moved onto `bad`, most of these would be neighbours of `bad` instead.
  for (const Config& config : tuner->Propose(open)) {
    EXPECT_NE(std::find(around_good.begin(), around_good.end(), config), around_good.end());
  }
}

}  // namespace
}  // namespace glimpse
