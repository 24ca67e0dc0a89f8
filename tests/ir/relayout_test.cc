// Relayout: a copy's shape and the two translations of an index — SourceIndex (filling the copy)
// and CopyIndex (reading the copy where the computation reads the source) — agree with each other
// and with the layouts the templates use; indices a layout cannot hold are refused.
#include "glimpse/relayout.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "glimpse/error.h"

namespace glimpse {
namespace {

using E = AffineExpr;

std::string Text(const E& e) {
  std::string text = std::to_string(e.constant);
  for (const auto& [loop, c] : e.terms) text += " + " + std::to_string(c) + "*" + loop;
  return text;
}

// Equal as affine functions (the order of the terms aside).
void ExpectSame(const std::vector<E>& actual, const std::vector<E>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t d = 0; d < actual.size(); ++d) {
    const E difference = actual[d] + expected[d] * -1;
    EXPECT_TRUE(difference.terms.empty() && difference.constant == 0)
        << "dimension " << d << ": " << Text(actual[d]) << " vs " << Text(expected[d]);
  }
}

TEST(RelayoutTest, PaddedCopyShiftsByThePad) {
  Relayout layout = Relayout({1, 3, 8, 8}).Pad(2, 1).Pad(3, 1);
  EXPECT_EQ(layout.shape(), (std::vector<int64_t>{1, 3, 10, 10}));
  EXPECT_TRUE(layout.HasWindow());
  ExpectSame(layout.SourceIndex({E::Var("n"), E::Var("c"), E::Var("h"), E::Var("w")}),
             {E::Var("n"), E::Var("c"), E::Var("h") + E::Const(-1), E::Var("w") + E::Const(-1)});
  ExpectSame(layout.CopyIndex({E::Var("n"), E::Var("c"),
                               E::Var("oh", 2) + E::Var("r") + E::Const(-1), E::Var("ow")}),
             {E::Var("n"), E::Var("c"), E::Var("oh", 2) + E::Var("r"), E::Var("ow") + E::Const(1)});
}

TEST(RelayoutTest, ChannelBlocksSplitASplitLoopsIndex) {
  // KCRS → OIHW[c1]i[k2]o with c1 = 4, k2 = 8: the conv2d NCHWc template's packed weight.
  Relayout layout = Relayout({32, 12, 3, 3}).Split(0, 8, 4).Split(1, 4, 4);
  EXPECT_EQ(layout.shape(), (std::vector<int64_t>{4, 3, 3, 3, 4, 8}));
  EXPECT_FALSE(layout.HasWindow());
  const std::vector<E> k_c = {E::Var("k0", 16) + E::Var("k1", 8) + E::Var("k2"),
                              E::Var("c0", 4) + E::Var("c1"), E::Var("r"), E::Var("s")};
  ExpectSame(layout.CopyIndex(k_c), {E::Var("k0", 2) + E::Var("k1"), E::Var("c0"), E::Var("r"),
                                     E::Var("s"), E::Var("c1"), E::Var("k2")});
  ExpectSame(layout.SourceIndex(layout.CopyIndex(k_c)), k_c);
  ExpectSame(
      layout.SourceIndex(
          {E::Var("a"), E::Var("b"), E::Var("r"), E::Var("s"), E::Var("i"), E::Var("o")}),
      {E::Var("a", 8) + E::Var("o"), E::Var("b", 4) + E::Var("i"), E::Var("r"), E::Var("s")});
}

TEST(RelayoutTest, MovingTileFixedDimensionAndTranspose) {
  // A block's k-major tile of A[B][M][K] for batch b: the GPU matmul template's shared tile.
  Relayout layout = Relayout({2, 64, 32})
                        .Fix(0, E::Var("b"))
                        .Window(0, E::Var("bm", 16), 16)
                        .Window(1, E::Var("k0", 8), 8)
                        .Permute({1, 0});
  EXPECT_EQ(layout.shape(), (std::vector<int64_t>{8, 16}));
  EXPECT_TRUE(layout.HasWindow());
  const std::vector<E> element = {E::Var("b"), E::Var("bm", 16) + E::Var("i"),
                                  E::Var("k0", 8) + E::Var("k1")};
  ExpectSame(layout.CopyIndex(element), {E::Var("k1"), E::Var("i")});
  ExpectSame(layout.SourceIndex({E::Var("kk"), E::Var("r")}),
             {E::Var("b"), E::Var("bm", 16) + E::Var("r"), E::Var("k0", 8) + E::Var("kk")});
}

TEST(RelayoutTest, IndicesTheLayoutCannotHoldAreRefused) {
  EXPECT_THROW(Relayout({10}).Split(0, 4, 1), Error);  // 4 does not divide 10
  EXPECT_THROW(Relayout({10}).Pad(1, 1), Error);       // no dimension 1
  EXPECT_THROW(Relayout({2, 3}).Permute({0, 0}), Error);
  // 6·x is neither a multiple of 4 nor below it.
  EXPECT_THROW(Relayout({16}).Split(0, 4, 1).CopyIndex({E::Var("x", 6)}), Error);
  // The copy holds batch b only.
  EXPECT_THROW(Relayout({2, 4}).Fix(0, E::Var("b")).CopyIndex({E::Var("c"), E::Var("i")}), Error);
  EXPECT_THROW(Relayout({2, 4}).CopyIndex({E::Var("i")}), Error);
  EXPECT_THROW(Relayout({2, 4}).SourceIndex({E::Var("i")}), Error);
}

}  // namespace
}  // namespace glimpse
