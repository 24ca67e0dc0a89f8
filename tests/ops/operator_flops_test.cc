// FLOP counts: the nominal one (every tap of the window) and the one inside the image (what a
// convolution that skips the zero padding computes), with the tap counts worked out by hand.
#include <gtest/gtest.h>

#include "glimpse/ops.h"

namespace glimpse {
namespace {

TEST(OperatorFlopsTest, NominalCountsEveryTapOfTheWindow) {
  EXPECT_DOUBLE_EQ(OperatorFlops(ParseOperator("dense:M=1,N=1000,K=512")), 2.0 * 1000 * 512);
  EXPECT_DOUBLE_EQ(
      OperatorFlops(ParseOperator("conv2d:N=1,C=256,H=14,W=14,K=256,R=3,S=3,stride=1,pad=1")),
      2.0 * 256 * 14 * 14 * 256 * 9);
}

TEST(OperatorFlopsTest, InsideImageSkipsThePaddedTaps) {
  // 3×3, pad 1, stride 1 on 14: per axis 14 · 3 taps, of which the first and last output miss one.
  const Operator same = ParseOperator("conv2d:N=1,C=256,H=14,W=14,K=256,R=3,S=3,stride=1,pad=1");
  EXPECT_DOUBLE_EQ(OperatorFlopsInsideImage(same), 2.0 * 256 * 256 * 40 * 40);
  EXPECT_NEAR(OperatorFlopsInsideImage(same) / OperatorFlops(same), (40.0 / 42) * (40.0 / 42),
              1e-12);
  // 7×7, pad 3, stride 2 on 224 → 112 outputs per axis; output 0 misses 3 taps, output 1 one,
  // output 111 two (inputs 224 and 225): 112 · 7 − 6 = 778.
  const Operator stem =
      ParseOperator("conv2d:N=1,C=3,H=224,W=224,K=64,R=7,S=7,stride=2,pad=3,bias=1");
  EXPECT_DOUBLE_EQ(OperatorFlopsInsideImage(stem), 2.0 * 64 * 3 * 778 * 778);
  // Depthwise 3×3, pad 1, stride 2 on 112 → 56 outputs; only output 0 misses a tap: 167.
  const Operator depthwise =
      ParseOperator("depthwise_conv2d:N=1,C=32,H=112,W=112,R=3,S=3,stride=2,pad=1");
  EXPECT_DOUBLE_EQ(OperatorFlopsInsideImage(depthwise), 2.0 * 32 * 167 * 167);
}

TEST(OperatorFlopsTest, InsideImageEqualsNominalWithoutPadding) {
  for (const char* text : {"conv2d:N=1,C=64,H=56,W=56,K=128,R=1,S=1,stride=2,pad=0",
                           "conv2d:N=2,C=8,H=9,W=11,K=4,R=3,S=2,stride=1,pad=0,dilation=2",
                           "dense:M=4,N=64,K=32,bias=1", "batch_matmul:B=12,M=128,N=128,K=64"}) {
    const Operator op = ParseOperator(text);
    EXPECT_DOUBLE_EQ(OperatorFlopsInsideImage(op), OperatorFlops(op)) << text;
  }
}

}  // namespace
}  // namespace glimpse
