// NestLoops and MixedRadix: the two helpers every template builds its nests with.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/loop_nest.h"

namespace glimpse {
namespace {

TEST(NestLoopsTest, TheFirstLoopIsOutermostAndTheBodyInnermost) {
  Stmt zero{StmtKind::kZero};
  Node nest = NestLoops({{"i", 4, LoopKind::kParallel}, {"j", 8}, {"k", 2, LoopKind::kUnrolled}},
                        {Node::MakeStmt(zero), Node::MakeStmt(zero)});
  ASSERT_TRUE(nest.is_loop);
  EXPECT_EQ(nest.loop.name, "i");
  EXPECT_EQ(nest.loop.extent, 4);
  EXPECT_EQ(nest.loop.kind, LoopKind::kParallel);
  ASSERT_EQ(nest.body.size(), 1u);
  const Node& j = nest.body[0];
  EXPECT_EQ(j.loop.name, "j");
  EXPECT_EQ(j.loop.kind, LoopKind::kSerial);
  ASSERT_EQ(j.body.size(), 1u);
  const Node& k = j.body[0];
  EXPECT_EQ(k.loop.name, "k");
  EXPECT_EQ(k.loop.kind, LoopKind::kUnrolled);
  ASSERT_EQ(k.body.size(), 2u);
  EXPECT_FALSE(k.body[0].is_loop);
  EXPECT_THROW(NestLoops({}, {Node::MakeStmt(zero)}), Error);
}

TEST(MixedRadixTest, TheLastVariableMovesFastest) {
  // (a, b, c) with extents (5, 3, 4): a·12 + b·4 + c.
  AffineExpr position = MixedRadix({"a", "b", "c"}, {5, 3, 4});
  EXPECT_EQ(position.CoefficientOf("a"), 12);
  EXPECT_EQ(position.CoefficientOf("b"), 4);
  EXPECT_EQ(position.CoefficientOf("c"), 1);
  EXPECT_EQ(position.constant, 0);
  EXPECT_EQ(MixedRadix({}, {}).terms.size(), 0u);
  EXPECT_THROW(MixedRadix({"a", "b"}, {2}), Error);
}

}  // namespace
}  // namespace glimpse
