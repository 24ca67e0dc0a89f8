// The evaluation splits on hand-made corpora: disjoint, deterministic for a seed, whole operators
// for the held-out-operators split, the held-out-models rule for shared operators, and whole
// kinds for the held-out-kind split, everything to test for `none`.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/perf_eval.h"

namespace glimpse {
namespace {

PerfCorpusRecord Record(const std::string& op, std::vector<std::string> models, bool ok = true,
                        const std::string& kind = "dense") {
  PerfCorpusRecord r;
  r.op = op;
  r.kind = kind;
  r.models = std::move(models);
  r.status = ok ? MeasureStatus::kOk : MeasureStatus::kCompileHost;
  r.time_s = 1e-3;
  return r;
}

// 10 operators × 10 records, one failure per operator.
PerfCorpus TenOperators() {
  PerfCorpus corpus;
  for (int op = 0; op < 10; ++op) {
    for (int i = 0; i < 10; ++i) {
      corpus.records.push_back(Record("op" + std::to_string(op), {"m"}, /*ok=*/i != 3));
    }
  }
  return corpus;
}

std::set<const PerfCorpusRecord*> Set(const std::vector<const PerfCorpusRecord*>& v) {
  return {v.begin(), v.end()};
}

TEST(PerfSplits, RandomIsDisjointDeterministicAndOkOnly) {
  const PerfCorpus corpus = TenOperators();
  const PerfSplit a = SplitRandom(corpus, 0.2, 7);
  EXPECT_EQ(a.train.size() + a.test.size(), 90u);
  EXPECT_EQ(a.test.size(), 18u);
  std::set<const PerfCorpusRecord*> all = Set(a.train);
  for (const PerfCorpusRecord* r : a.test) EXPECT_TRUE(all.insert(r).second);
  for (const PerfCorpusRecord* r : all) EXPECT_TRUE(r->ok());
  const PerfSplit again = SplitRandom(corpus, 0.2, 7);
  EXPECT_EQ(again.test, a.test);
  EXPECT_NE(SplitRandom(corpus, 0.2, 8).test, a.test);
  EXPECT_THROW(SplitRandom(corpus, 1.0, 0), Error);
}

TEST(PerfSplits, HeldOutOperatorsMovesWholeOperators) {
  const PerfCorpus corpus = TenOperators();
  const PerfSplit split = SplitHeldOutOperators(corpus, 0.3, 1);
  std::set<std::string> train_ops;
  std::set<std::string> test_ops;
  for (const PerfCorpusRecord* r : split.train) train_ops.insert(r->op);
  for (const PerfCorpusRecord* r : split.test) test_ops.insert(r->op);
  EXPECT_EQ(test_ops.size(), 3u);
  EXPECT_EQ(train_ops.size(), 7u);
  for (const std::string& op : test_ops) EXPECT_EQ(train_ops.count(op), 0u);
  EXPECT_EQ(split.test.size(), 27u);
  EXPECT_EQ(SplitHeldOutOperators(corpus, 0.3, 1).test, split.test);
  // Record order does not change which operators are held out.
  PerfCorpus reversed = corpus;
  std::reverse(reversed.records.begin(), reversed.records.end());
  std::set<std::string> reversed_ops;
  for (const PerfCorpusRecord* r : SplitHeldOutOperators(reversed, 0.3, 1).test) {
    reversed_ops.insert(r->op);
  }
  EXPECT_EQ(reversed_ops, test_ops);
  // A tiny fraction still holds one operator out.
  EXPECT_EQ(SplitHeldOutOperators(corpus, 0.01, 1).test.size(), 9u);
}

TEST(PerfSplits, HeldOutOperatorsDrawsTestShapesFromTheFirstFileOnly) {
  // Records of op0..op9 as a first file, then a further file of op10..op14 (as
  // LoadPerfCorpusFiles leaves them: first file first, its count in the header's parts).
  PerfCorpus first = TenOperators();
  PerfCorpus grown = first;
  for (int op = 10; op < 15; ++op) {
    for (int i = 0; i < 10; ++i) grown.records.push_back(Record("op" + std::to_string(op), {}));
  }
  grown.header = {{"parts", {{{"path", "a"}, {"records", 100}}, {{"path", "b"}, {"records", 50}}}}};
  for (uint64_t seed = 0; seed < 20; ++seed) {
    const PerfSplit alone = SplitHeldOutOperators(first, 0.3, seed);
    const PerfSplit split = SplitHeldOutOperators(grown, 0.3, seed);
    std::set<std::string> alone_ops;
    std::set<std::string> test_ops;
    std::set<std::string> train_ops;
    for (const PerfCorpusRecord* r : alone.test) alone_ops.insert(r->op);
    for (const PerfCorpusRecord* r : split.test) test_ops.insert(r->op);
    for (const PerfCorpusRecord* r : split.train) train_ops.insert(r->op);
    // The same test shapes as the first file alone; the further file's five train, every time.
    EXPECT_EQ(test_ops, alone_ops) << "seed " << seed;
    EXPECT_EQ(split.train.size(), alone.train.size() + 50u) << "seed " << seed;
    for (int op = 10; op < 15; ++op) {
      EXPECT_EQ(train_ops.count("op" + std::to_string(op)), 1u) << "seed " << seed;
    }
    EXPECT_NE(split.note.find("further files' 5 other operators train only"), std::string::npos)
        << split.note;
  }
  // Without parts (one file) every operator may be drawn: some seed holds a further one out.
  grown.header = Json::object();
  bool further_held_out = false;
  for (uint64_t seed = 0; seed < 20 && !further_held_out; ++seed) {
    for (const PerfCorpusRecord* r : SplitHeldOutOperators(grown, 0.3, seed).test) {
      further_held_out = further_held_out || r->op.size() == 4;  // op10..op14
    }
  }
  EXPECT_TRUE(further_held_out);
}

TEST(PerfSplits, ThinningKeepsWholeTrainingOperatorsAndLeavesTheTestSide) {
  const PerfCorpus corpus = TenOperators();
  PerfSplit split = SplitHeldOutOperators(corpus, 0.2, 3);  // 8 training operators, 72 records
  const std::vector<const PerfCorpusRecord*> test = split.test;
  std::set<std::string> before;
  for (const PerfCorpusRecord* r : split.train) before.insert(r->op);
  ASSERT_EQ(before.size(), 8u);
  ThinTrainingOperators(split, 0.5, 3);
  EXPECT_EQ(split.test, test);
  std::set<std::string> kept;
  for (const PerfCorpusRecord* r : split.train) kept.insert(r->op);
  EXPECT_EQ(kept.size(), 4u);
  for (const std::string& op : kept) EXPECT_EQ(before.count(op), 1u);
  EXPECT_EQ(split.train.size(), 36u);  // whole operators: 9 ok records each
  EXPECT_NE(split.note.find("4 of its 8 operators"), std::string::npos) << split.note;
  // The same seed keeps the same operators; a tiny fraction keeps one; 1 keeps everything.
  PerfSplit again = SplitHeldOutOperators(corpus, 0.2, 3);
  ThinTrainingOperators(again, 0.5, 3);
  EXPECT_EQ(again.train, split.train);
  PerfSplit one = SplitHeldOutOperators(corpus, 0.2, 3);
  ThinTrainingOperators(one, 0.01, 3);
  EXPECT_EQ(one.train.size(), 9u);
  PerfSplit all = SplitHeldOutOperators(corpus, 0.2, 3);
  ThinTrainingOperators(all, 1.0, 3);
  EXPECT_EQ(all.train.size(), 72u);
  EXPECT_THROW(ThinTrainingOperators(all, 0.0, 3), Error);
  EXPECT_THROW(ThinTrainingOperators(all, 1.5, 3), Error);
}

TEST(PerfSplits, HeldOutModelsTestsOnlyTheirOwnShapesAndDropsShared) {
  PerfCorpus corpus;
  corpus.records.push_back(Record("only_resnet50", {"resnet50"}));
  corpus.records.push_back(Record("only_held", {"mobilenet_v2", "resnet50"}));
  corpus.records.push_back(Record("shared", {"resnet18", "resnet50"}));
  corpus.records.push_back(Record("shared", {"resnet18", "resnet50"}));
  corpus.records.push_back(Record("train", {"resnet18", "vgg16"}));
  corpus.records.push_back(Record("no_model", {}));
  corpus.records.push_back(Record("only_resnet50", {"resnet50"}, /*ok=*/false));
  const PerfSplit split = SplitHeldOutModels(corpus, DefaultHeldOutModels());
  ASSERT_EQ(split.test.size(), 2u);
  EXPECT_EQ(split.test[0]->op, "only_resnet50");
  EXPECT_EQ(split.test[1]->op, "only_held");
  ASSERT_EQ(split.train.size(), 2u);
  EXPECT_EQ(split.train[0]->op, "train");
  EXPECT_EQ(split.train[1]->op, "no_model");
  EXPECT_EQ(split.excluded, 2);
  EXPECT_THROW(SplitHeldOutModels(corpus, {}), Error);
}

TEST(PerfSplits, HeldOutKindTestsEveryOperatorOfThatKindAndNoOther) {
  PerfCorpus corpus;
  corpus.records.push_back(Record("dw1", {"mobilenet_v2"}, true, "depthwise_conv2d"));
  corpus.records.push_back(Record("d1", {"resnet18"}));
  corpus.records.push_back(Record("dw2", {"mobilenet_v2"}, true, "depthwise_conv2d"));
  corpus.records.push_back(Record("dw2", {"mobilenet_v2"}, false, "depthwise_conv2d"));
  corpus.records.push_back(Record("c1", {"resnet18"}, true, "conv2d"));
  const PerfSplit split = SplitHeldOutKind(corpus, "depthwise_conv2d");
  EXPECT_EQ(split.name, "kind:depthwise_conv2d");
  ASSERT_EQ(split.test.size(), 2u);  // the failure is in neither side
  EXPECT_EQ(split.test[0]->op, "dw1");
  EXPECT_EQ(split.test[1]->op, "dw2");
  ASSERT_EQ(split.train.size(), 2u);
  EXPECT_EQ(split.train[0]->op, "d1");
  EXPECT_EQ(split.train[1]->op, "c1");
  EXPECT_NE(split.note.find("2 operators to test"), std::string::npos) << split.note;
  EXPECT_EQ(MakePerfSplit("kind:conv2d", corpus, 0.2, 0).test.size(), 1u);

  // A kind the corpus lacks, or a corpus of one kind, is refused with the kinds it has.
  try {
    SplitHeldOutKind(corpus, "pool2d");
    FAIL();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("conv2d, dense, depthwise_conv2d"), std::string::npos)
        << error.what();
  }
  EXPECT_THROW(SplitHeldOutKind(TenOperators(), "dense"), Error);
}

TEST(PerfSplits, NoneTestsEveryOkRecordAndTrainsOnNothing) {
  const PerfCorpus corpus = TenOperators();
  const PerfSplit split = MakePerfSplit("none", corpus, 0.2, 0);
  EXPECT_EQ(split.name, "none");
  EXPECT_TRUE(split.train.empty());
  ASSERT_EQ(split.test.size(), 90u);
  EXPECT_EQ(split.test.front(), &corpus.records[0]);
  for (const PerfCorpusRecord* r : split.test) EXPECT_TRUE(r->ok());
}

TEST(PerfSplits, ByNameListsTheKnownOnes) {
  const PerfCorpus corpus = TenOperators();
  EXPECT_EQ(MakePerfSplit("operators", corpus, 0.2, 3).name, "operators");
  try {
    MakePerfSplit("shapes", corpus, 0.2, 3);
    FAIL();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("random, operators, models, kind:KIND"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace glimpse
