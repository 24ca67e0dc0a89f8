// What an operator's tensors take, and the refusals that follow from it: a tensor too large to
// index is refused when the operator is read, one too large for the memory before it is built.
#include <gtest/gtest.h>

#include <string>

#include "glimpse/error.h"
#include "glimpse/ops.h"

namespace glimpse {
namespace {

TEST(OperatorBytesTest, InputsAndOutputInFloat32) {
  // dense 4×8×16 with bias and residual: A 4·16, B 8·16, bias 8, residual 4·8; output 4·8.
  const OperatorBytes dense =
      OperatorTensorBytes(ParseOperator("dense:M=4,N=8,K=16,bias=1,residual=1"));
  EXPECT_DOUBLE_EQ(dense.inputs, 4.0 * (64 + 128 + 8 + 32));
  EXPECT_DOUBLE_EQ(dense.output, 4.0 * 32);
  // conv2d 1×3×224×224, 64 filters 7×7 stride 2 pad 3 → 64×112×112.
  const OperatorBytes stem =
      OperatorTensorBytes(ParseOperator("conv2d:N=1,C=3,H=224,W=224,K=64,R=7,S=7,stride=2,pad=3"));
  EXPECT_DOUBLE_EQ(stem.inputs, 4.0 * (3 * 224 * 224 + 64 * 3 * 49));
  EXPECT_DOUBLE_EQ(stem.output, 4.0 * 64 * 112 * 112);
  const OperatorBytes depthwise = OperatorTensorBytes(
      ParseOperator("depthwise_conv2d:N=1,C=32,H=112,W=112,R=3,S=3,stride=2,pad=1,bias=1"));
  EXPECT_DOUBLE_EQ(depthwise.inputs, 4.0 * (32 * 112 * 112 + 32 * 9 + 32));
  EXPECT_DOUBLE_EQ(depthwise.output, 4.0 * 32 * 56 * 56);
  const OperatorBytes bmm = OperatorTensorBytes(ParseOperator("batch_matmul:B=12,M=128,N=64,K=32"));
  EXPECT_DOUBLE_EQ(bmm.Total(), 4.0 * (12 * 128 * 32 + 12 * 64 * 32 + 12 * 128 * 64));
}

TEST(OperatorBytesTest, FormatBytesPicksTheUnit) {
  EXPECT_EQ(FormatBytes(812), "812 B");
  EXPECT_EQ(FormatBytes(3.2 * 1024), "3.2 KiB");
  EXPECT_EQ(FormatBytes(23.4 * 1024 * 1024 * 1024), "23.4 GiB");
  EXPECT_EQ(FormatBytes(4.0 * 1024 * 1024 * 1024 * 1024), "4.0 TiB");
}

TEST(OperatorBytesTest, AnOperatorLargerThanTheMemoryIsRefusedWithBothSizes) {
  // 1024⁴ input floats: 4 TiB.
  const Operator huge = ParseOperator("conv2d:N=1024,C=1024,H=1024,W=1024,K=1,R=1,S=1");
  try {
    CheckOperatorFitsMemory(huge, 24.0 * 1024 * 1024 * 1024, "the test machine");
    FAIL() << "4 TiB of tensors fit in 24 GiB";
  } catch (const Error& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find(OperatorToString(huge) + ": its tensors take 4.0 TiB (inputs 4.0 TiB, "
                                                 "output 4.0 GiB), more than the 24.0 GiB of the "
                                                 "test machine"),
              std::string::npos)
        << what;
  }
  EXPECT_NO_THROW(CheckOperatorFitsMemory(ParseOperator("dense:M=1,N=1000,K=512"),
                                          24.0 * 1024 * 1024 * 1024, "the test machine"));
  EXPECT_NO_THROW(CheckOperatorFitsMemory(huge, 0, "a machine that says nothing"));
}

// The tensors fit, the measurement does not: the reference the output is checked against takes
// four times the output (two doubles per float), and the cache flush comes on top.
TEST(OperatorBytesTest, AMeasurementLargerThanTheMemoryIsRefusedWithItsParts) {
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  // An outer product: 2·32768 input floats, a 32768² output of 4 GiB; the reference 16 GiB.
  const Operator outer = ParseOperator("dense:M=32768,N=32768,K=1");
  const MeasurementBytes bytes = OperatorMeasurementBytes(outer, 128.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(bytes.tensors.output, 4.0 * kGiB);
  EXPECT_DOUBLE_EQ(bytes.reference, 16.0 * kGiB);
  EXPECT_DOUBLE_EQ(bytes.flush, 128.0 * 1024 * 1024);
  EXPECT_NO_THROW(CheckOperatorFitsMemory(outer, 16 * kGiB, "a 16-GiB machine"));
  try {
    CheckMeasurementFitsMemory(outer, bytes, 16 * kGiB, "a 16-GiB machine");
    FAIL() << "a 20-GiB measurement fit in 16 GiB";
  } catch (const Error& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find(OperatorToString(outer) + ": measuring it takes 20.1 GiB (its tensors "
                                                  "4.0 GiB, the reference its output is checked "
                                                  "against 16.0 GiB, the cache flush 128.0 MiB), "
                                                  "more than the 16.0 GiB of a 16-GiB machine"),
              std::string::npos)
        << what;
  }
  EXPECT_NO_THROW(CheckMeasurementFitsMemory(outer, bytes, 24 * kGiB, "a 24-GiB machine"));
  EXPECT_NO_THROW(CheckMeasurementFitsMemory(outer, bytes, 0, "a machine that says nothing"));
  // Tensors alone too large: the tensors' message, as before.
  EXPECT_THROW(CheckMeasurementFitsMemory(outer, bytes, 2 * kGiB, "a 2-GiB machine"), Error);

  // A workspace on top of what fits.
  EXPECT_NO_THROW(CheckWorkspaceFitsMemory(bytes, kGiB, kGiB, 24 * kGiB, "a 24-GiB machine"));
  try {
    CheckWorkspaceFitsMemory(bytes, 3 * kGiB, kGiB, 24 * kGiB, "a 24-GiB machine");
    FAIL() << "20.1 + 4 GiB fit in 24 GiB";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what())
                  .find("the configuration's workspace takes 4.0 GiB (packed weights 3.0 GiB, "
                        "scratch 1.0 GiB); with the 20.1 GiB the measurement holds, more than the "
                        "24.0 GiB of a 24-GiB machine"),
              std::string::npos)
        << error.what();
  }
}

TEST(OperatorBytesTest, ATensorTooLargeToIndexIsRefusedWhenRead) {
  try {
    ParseOperator("conv2d:N=100000,C=100000,H=100000,W=100000,K=1,R=1,S=1");
    FAIL() << "a tensor of 10^20 elements was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what())
                  .find("conv2d: a tensor of 1e+20 elements; accepted: shapes "
                        "whose tensors have fewer than 2^62 elements"),
              std::string::npos)
        << error.what();
  }
  EXPECT_NO_THROW(ParseOperator("dense:M=1,N=4096,K=25088"));
}

}  // namespace
}  // namespace glimpse
