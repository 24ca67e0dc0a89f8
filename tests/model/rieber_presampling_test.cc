// Rieber et al.'s presampling (Algorithm 1) and the E0 selection.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <set>

#include "glimpse/error.h"
#include "model/rieber_init.h"
#include "rieber_fixtures.h"

namespace glimpse {
namespace {

using model::ManhattanDistance;
using model::Presample;
using model::PresampleOptions;
using model::PresampleResult;
using model_testing::ClusterSpace;
using model_testing::InCluster;
using model_testing::PredicateChecker;

uint64_t MinPairwiseDistance(const std::vector<Config>& configs) {
  uint64_t best = std::numeric_limits<uint64_t>::max();
  for (size_t i = 0; i < configs.size(); ++i) {
    for (size_t j = i + 1; j < configs.size(); ++j) {
      best = std::min(best, ManhattanDistance(configs[i], configs[j]));
    }
  }
  return best;
}

TEST(RieberPresamplingTest, ClassifiesExactlyNSamplesDistinctConfigurationsAndChargesEachCheck) {
  ConfigSpace space = ClusterSpace();
  PredicateChecker checker(InCluster, 0.5);
  Rng rng(1);
  PresampleOptions options;
  options.n_parallel = 16;
  options.n_samples = 300;
  PresampleResult result = Presample(space, checker, options, rng);
  EXPECT_EQ(result.valid.size() + result.invalid.size(), 300u);
  std::set<Config> distinct(checker.checked.begin(), checker.checked.end());
  EXPECT_EQ(checker.checked.size(), 300u);  // nothing is checked twice
  EXPECT_EQ(distinct.size(), 300u);
  for (const Config& config : result.valid) EXPECT_TRUE(InCluster(config));
  for (const Config& config : result.invalid) EXPECT_FALSE(InCluster(config));
  EXPECT_DOUBLE_EQ(result.cost_s, 150.0);
  EXPECT_EQ(result.rounds, checker.calls);
  EXPECT_GE(result.rounds, 300 / 16);
}

TEST(RieberPresamplingTest, FindsMoreValidConfigurationsThanUniformSampling) {
  ConfigSpace space = ClusterSpace();
  PresampleOptions options;
  options.n_samples = 300;
  size_t presampled_valid = 0, uniform_valid = 0;
  for (uint64_t seed = 0; seed < 5; ++seed) {
    PredicateChecker checker(InCluster);
    Rng rng(seed);
    presampled_valid += Presample(space, checker, options, rng).valid.size();
    // Uniform sampling without replacement, the same number of checks.
    Rng uniform(seed + 100);
    std::set<Config> drawn;
    while (drawn.size() < 300) drawn.insert(*space.SampleValid(uniform));
    for (const Config& config : drawn) uniform_valid += InCluster(config) ? 1 : 0;
  }
  // Uniform: 2.4 % of 1500 ≈ 35 valid. Walking the clusters' neighbourhoods finds many times more.
  EXPECT_GT(presampled_valid, 4 * uniform_valid)
      << "presampled " << presampled_valid << ", uniform " << uniform_valid;
}

TEST(RieberPresamplingTest, StopsAtTheSpaceSizeAndIsReproducible) {
  ConfigSpace space;
  space.AddKnob(Knob::Ordered("a", model_testing::Range(6)));
  space.AddKnob(Knob::Ordered("b", model_testing::Range(5)));
  space.AddRestriction("a + b <= 6");  // 25 valid of 30
  PredicateChecker checker([](const Config& c) { return c.indices[0] < 3; });
  PresampleOptions options;  // n_samples 1000 > |S|
  Rng rng(4);
  PresampleResult result = Presample(space, checker, options, rng);
  EXPECT_EQ(result.valid.size() + result.invalid.size(), space.CountValid());
  for (const Config& config : checker.checked) EXPECT_TRUE(space.IsValid(config));

  PredicateChecker again([](const Config& c) { return c.indices[0] < 3; });
  Rng same(4);
  PresampleResult repeated = Presample(space, again, options, same);
  EXPECT_EQ(repeated.valid, result.valid);
  EXPECT_EQ(repeated.invalid, result.invalid);
}

TEST(RieberPresamplingTest, RejectsNonPositiveSizes) {
  ConfigSpace space = ClusterSpace();
  PredicateChecker checker(InCluster);
  Rng rng(0);
  PresampleOptions options;
  options.n_parallel = 0;
  EXPECT_THROW(Presample(space, checker, options, rng), Error);
}

TEST(RieberSelectionTest, ManhattanDistanceAndSpreadOnAHandExample) {
  EXPECT_EQ(ManhattanDistance({{1, 5, 2}}, {{4, 3, 2}}), 5u);
  // On a line: 0 and 10 are the extremes; the greedy then takes the point nearest the middle.
  std::vector<Config> pool = {{{1}}, {{0}}, {{4}}, {{10}}, {{6}}, {{9}}};
  std::vector<size_t> picked = model::SelectSpread(pool, 3);
  // Sums of distances: 0 → 30 and 10 → 30 tie; the earlier in the pool (index 1) goes first.
  ASSERT_EQ(picked.size(), 3u);
  EXPECT_EQ(picked[0], 1u);  // 0
  EXPECT_EQ(picked[1], 3u);  // 10 (farthest from 0)
  EXPECT_EQ(picked[2], 2u);  // 4: nearest-distance 4 ties with 6, larger sum (4 + 6 = 10)
  EXPECT_EQ(model::SelectSpread(pool, 99).size(), pool.size());
}

TEST(RieberSelectionTest, InitialBatchHasTheComposition) {
  ConfigSpace space = ClusterSpace();
  PredicateChecker checker(InCluster);
  Rng rng(2);
  PresampleResult presampled = Presample(space, checker, {16, 1000}, rng);
  ASSERT_GT(presampled.valid.size(), 25u);
  ASSERT_GT(presampled.invalid.size(), 25u);
  model::InitialBatch batch = model::SelectInitialBatch(presampled, 50, 25);
  EXPECT_EQ(batch.configs.size(), 50u);
  EXPECT_EQ(batch.valid, 25u);
  EXPECT_EQ(batch.invalid, 25u);
  std::set<Config> distinct(batch.configs.begin(), batch.configs.end());
  EXPECT_EQ(distinct.size(), 50u);
  for (size_t i = 0; i < batch.configs.size(); ++i) {
    EXPECT_EQ(InCluster(batch.configs[i]), i < 25) << i;
  }

  // Few valid configurations: all of them, the rest invalid.
  PresampleResult few = presampled;
  few.valid.resize(7);
  batch = model::SelectInitialBatch(few, 50, 25);
  EXPECT_EQ(batch.valid, 7u);
  EXPECT_EQ(batch.invalid, 43u);
  EXPECT_EQ(batch.configs.size(), 50u);
  // Few invalid ones: valid ones fill the rest (E0 stays 50 where |N| allows).
  PresampleResult scarce = presampled;
  scarce.invalid.resize(10);
  batch = model::SelectInitialBatch(scarce, 50, 25);
  EXPECT_EQ(batch.invalid, 10u);
  EXPECT_EQ(batch.valid, 40u);
}

TEST(RieberSelectionTest, InitialBatchIsSpreadFartherThanARandomSubset) {
  ConfigSpace space = ClusterSpace();
  PredicateChecker checker(InCluster);
  Rng rng(3);
  PresampleResult presampled = Presample(space, checker, {16, 1000}, rng);
  model::InitialBatch batch = model::SelectInitialBatch(presampled, 50, 25);
  std::vector<Config> valid(batch.configs.begin(), batch.configs.begin() + batch.valid);
  std::vector<Config> invalid(batch.configs.begin() + batch.valid, batch.configs.end());
  // Random subsets of the same sizes (fixed seed): the best of 21 draws.
  Rng draw(11);
  auto random_min = [&](const std::vector<Config>& pool, size_t size) {
    std::vector<uint64_t> mins;
    for (int repeat = 0; repeat < 21; ++repeat) {
      std::vector<Config> copy = pool;
      for (size_t i = 0; i < size; ++i) {
        std::swap(copy[i], copy[i + UniformIndex(draw, copy.size() - i)]);
      }
      copy.resize(size);
      mins.push_back(MinPairwiseDistance(copy));
    }
    return *std::max_element(mins.begin(), mins.end());
  };
  const uint64_t valid_random = random_min(presampled.valid, valid.size());
  const uint64_t invalid_random = random_min(presampled.invalid, invalid.size());
  // Valid ones sit in three small clusters (random subsets: 1); invalid ones fill the space.
  EXPECT_GE(MinPairwiseDistance(valid), valid_random + 1) << "best random " << valid_random;
  EXPECT_GE(MinPairwiseDistance(invalid), 2 * invalid_random) << "best random " << invalid_random;
}

}  // namespace
}  // namespace glimpse
