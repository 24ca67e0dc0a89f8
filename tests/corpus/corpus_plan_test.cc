// The corpus's operators and its uniform samples: every zoo operator once with its models, and a
// sample that is the same on every run, never repeats and stays inside the valid space.
#include <gtest/gtest.h>

#include <set>
#include <variant>

#include "glimpse/corpus_measure.h"
#include "glimpse/cpu.h"
#include "glimpse/error.h"
#include "glimpse/model_zoo.h"

namespace glimpse {
namespace {

TEST(CorpusPlanTest, EveryZooModelGivesOverSixtyOperatorsOfAllFourKinds) {
  std::vector<CorpusOperator> ops = PlanCorpusOperators(ZooModelNames(), {});
  EXPECT_GE(ops.size(), 60u);
  std::set<std::string> texts, kinds;
  for (const CorpusOperator& op : ops) {
    EXPECT_TRUE(texts.insert(op.op_text).second) << "twice: " << op.op_text;
    EXPECT_FALSE(op.models.empty()) << op.op_text;
    EXPECT_EQ(op.models, ZooModelsWithOperator(op.op)) << op.op_text;
    kinds.insert(OperatorName(op.op));
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"batch_matmul", "conv2d", "dense", "depthwise_conv2d"}));
}

TEST(CorpusPlanTest, SharedOperatorsNameEveryModelAndExtrasComeLast) {
  const Operator stem =
      ParseOperator("conv2d:N=1,C=3,H=224,W=224,K=64,R=7,S=7,stride=2,pad=3,bias=1");
  const Operator extra = ParseOperator("dense:M=1,N=16,K=16");
  std::vector<CorpusOperator> ops =
      PlanCorpusOperators({"ResNet-18", "resnet50"}, {extra, stem, extra});
  ASSERT_EQ(ops.front().op_text, OperatorToString(stem));
  EXPECT_EQ(ops.front().models, (std::vector<std::string>{"resnet18", "resnet50"}));
  EXPECT_EQ(ops.back().op_text, OperatorToString(extra));  // once, after the models' operators
  EXPECT_TRUE(ops.back().models.empty());
  size_t stems = 0;
  for (const CorpusOperator& op : ops) stems += op.op_text == OperatorToString(stem);
  EXPECT_EQ(stems, 1u);
  EXPECT_THROW(PlanCorpusOperators({"resnet19"}, {}), Error);
}

TEST(CorpusSampleTest, SameSeedSameListNoRepeatsAllValid) {
  const ConfigSpace space =
      MakeCpuSpace(ParseOperator("conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,pad=1"));
  const std::vector<Config> a = SampleUniformConfigs(space, 200, 7);
  const std::vector<Config> b = SampleUniformConfigs(space, 200, 7);
  ASSERT_EQ(a.size(), 200u);
  EXPECT_EQ(a, b);
  std::set<Config> distinct(a.begin(), a.end());
  EXPECT_EQ(distinct.size(), a.size());
  for (const Config& config : a) EXPECT_TRUE(space.IsValid(config));
  // A longer sample of the same seed starts with the shorter one: raising --per-operator only adds.
  const std::vector<Config> longer = SampleUniformConfigs(space, 250, 7);
  EXPECT_TRUE(std::equal(a.begin(), a.end(), longer.begin()));
  EXPECT_NE(SampleUniformConfigs(space, 200, 8), a);
}

TEST(CorpusSampleTest, ASmallSpaceIsSampledWhole) {
  // 3 × 4 points, 7 of them valid (a·b of 1, 2, 4; 2, 4; 3, 6).
  const ConfigSpace space = ConfigSpace::FromJson(Json{
      {"knobs", Json::array({Json{{"name", "a"}, {"kind", "ordered"}, {"values", {1, 2, 3}}},
                             Json{{"name", "b"}, {"kind", "ordered"}, {"values", {1, 2, 4, 8}}}})},
      {"restrictions", Json::array({"a * b != 8", "a * b < 12"})}});
  const uint64_t valid = space.CountValid();
  ASSERT_EQ(valid, 7u);
  const std::vector<Config> all = SampleUniformConfigs(space, 50, 1);
  EXPECT_EQ(all.size(), valid);
  EXPECT_EQ(std::set<Config>(all.begin(), all.end()).size(), valid);
  for (const Config& config : all) EXPECT_TRUE(space.IsValid(config));
}

TEST(CorpusSampleTest, OperatorSeedsAreStableAndDiffer) {
  EXPECT_EQ(CorpusOperatorSeed(0, "dense:M=1,N=16,K=16"),
            CorpusOperatorSeed(0, "dense:M=1,N=16,K=16"));
  EXPECT_NE(CorpusOperatorSeed(0, "dense:M=1,N=16,K=16"),
            CorpusOperatorSeed(0, "dense:M=1,N=16,K=32"));
  EXPECT_NE(CorpusOperatorSeed(0, "dense:M=1,N=16,K=16"),
            CorpusOperatorSeed(1, "dense:M=1,N=16,K=16"));
  // FNV-1a of the empty text: the same number on every machine and build.
  EXPECT_EQ(CorpusOperatorSeed(0, ""), 0xcbf29ce484222325ULL);
}

}  // namespace
}  // namespace glimpse
