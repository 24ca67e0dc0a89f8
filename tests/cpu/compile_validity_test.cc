// The compile-only validity check of the CPU templates.
#include <gtest/gtest.h>

#include "cpu_fixtures.h"
#include "glimpse/cpu.h"

namespace glimpse::testing {
namespace {

TEST(CompileValidityCheckerTest, CompilesValidConfigurationsAndRefusesRestrictedOnes) {
  Task task = MakeCpuTask(ParseOperator("dense:M=4,N=16,K=8,bias=1,relu=1"));
  CompileValidityChecker checker(task, FastBuild(MakeTempDir("glimpse-validity")));
  Rng rng(5);
  std::vector<Config> configs;
  for (int i = 0; i < 2; ++i) configs.push_back(*task.space.SampleValid(rng));
  // A raw configuration that breaks a restriction, if the space has any that do.
  std::optional<Config> restricted;
  for (int i = 0; i < 10000 && !restricted; ++i) {
    Config raw = task.space.SampleRaw(rng);
    if (!task.space.IsValid(raw)) restricted = raw;
  }
  if (restricted) configs.push_back(*restricted);

  std::vector<ValidityResult> results = checker.Check(configs);
  ASSERT_EQ(results.size(), configs.size());
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(results[i].valid);
    EXPECT_EQ(results[i].status, MeasureStatus::kOk);
    EXPECT_GT(results[i].cost_s, 0.0);  // a real compile happened
  }
  if (restricted) {
    EXPECT_FALSE(results[2].valid);
    EXPECT_EQ(results[2].status, MeasureStatus::kInstantiation);
    EXPECT_EQ(results[2].cost_s, 0.0);
  }
}

}  // namespace
}  // namespace glimpse::testing
