// The run-time loaded CUDA driver: the "no CUDA device" paths (no library, a library that is not
// a driver, cuInit failing, zero devices, an incomplete driver) through a fake libcuda, and the
// device query where a real device exists.
#include "cuda/driver/cuda_driver.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "cuda/runner_test_util.h"
#include "glimpse/cuda.h"
#include "glimpse/hardware.h"

namespace glimpse {
namespace {

using cuda::CudaDriver;
using cuda::NoDeviceReason;
using cuda_test::FakeDriver;
using cuda_test::HasPart;
using cuda_test::ScopedEnv;
using cuda_test::StartsWith;

constexpr const char* kMissing = cuda_test::kMissingDriver;

TEST(CudaDriverTest, MissingLibraryIsNoDeviceWithTheLibraryNamed) {
  CudaDriver driver(kMissing);
  EXPECT_FALSE(driver.available());
  EXPECT_EQ(driver.reason(), NoDeviceReason::kNoLibrary);
  EXPECT_PRED_FORMAT2(HasPart, driver.unavailable_reason(), kMissing);
  EXPECT_EQ(driver.device_count(), 0);
  try {
    driver.Require();
    FAIL() << "Require() accepted a missing driver";
  } catch (const cuda::NoCudaDevice& error) {
    EXPECT_EQ(error.reason(), NoDeviceReason::kNoLibrary);
    EXPECT_PRED_FORMAT2(StartsWith, error.what(), "no CUDA device: cannot load");
  }
  EXPECT_THROW(driver.api(), cuda::NoCudaDevice);
}

TEST(CudaDriverTest, EnvironmentVariableChoosesTheLibrary) {
  ScopedEnv env("GLIMPSE_CUDA_DRIVER", kMissing);
  CudaDriver driver;
  EXPECT_EQ(driver.library(), kMissing);
  EXPECT_EQ(driver.reason(), NoDeviceReason::kNoLibrary);
  EXPECT_PRED_FORMAT2(StartsWith, CudaUnavailableReason(), "no CUDA device: ");
  EXPECT_PRED_FORMAT2(HasPart, CudaUnavailableReason(), kMissing);
  EXPECT_FALSE(LocalCudaArch().has_value());
  try {
    QueryCudaDevice(0);
    FAIL() << "QueryCudaDevice succeeded without a driver";
  } catch (const Error& error) {
    EXPECT_PRED_FORMAT2(StartsWith, error.what(), "no CUDA device: ");
  }
}

TEST(CudaDriverTest, LibraryThatIsNotADriverNamesTheMissingFunction) {
  CudaDriver driver("libm.so.6");
  EXPECT_EQ(driver.reason(), NoDeviceReason::kMissingSymbol);
  EXPECT_PRED_FORMAT2(HasPart, driver.unavailable_reason(), "cuInit");
}

class FakeDriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (FakeDriver().empty()) GTEST_SKIP() << "this build has no fake libcuda";
  }
};

TEST_F(FakeDriverTest, InitErrorReportsTheDriversErrorName) {
  ScopedEnv mode("GLIMPSE_FAKE_CUDA_MODE", "init-error");
  CudaDriver driver(FakeDriver());
  EXPECT_EQ(driver.reason(), NoDeviceReason::kInitFailed);
  const std::string& why = driver.unavailable_reason();
  EXPECT_PRED_FORMAT2(HasPart, why, "cuInit failed: CUDA_ERROR_NO_DEVICE");
  EXPECT_PRED_FORMAT2(HasPart, why, "no CUDA-capable device is detected");
  EXPECT_EQ(driver.device_count(), 0);
}

TEST_F(FakeDriverTest, ZeroDevicesIsNoDevice) {
  ScopedEnv mode("GLIMPSE_FAKE_CUDA_MODE", "zero-devices");
  CudaDriver driver(FakeDriver());
  EXPECT_EQ(driver.reason(), NoDeviceReason::kNoDevices);
  EXPECT_PRED_FORMAT2(HasPart, driver.unavailable_reason(), "reports 0 devices");
  EXPECT_EQ(driver.device_count(), 0);
  ScopedEnv env("GLIMPSE_CUDA_DRIVER", FakeDriver());
  EXPECT_PRED_FORMAT2(HasPart, CudaUnavailableReason(), "no CUDA device: the driver");
}

TEST_F(FakeDriverTest, IncompleteDriverNamesTheFirstMissingFunction) {
  ScopedEnv mode("GLIMPSE_FAKE_CUDA_MODE", "one-device");
  CudaDriver driver(FakeDriver());
  EXPECT_EQ(driver.reason(), NoDeviceReason::kMissingSymbol);
  EXPECT_PRED_FORMAT2(HasPart, driver.unavailable_reason(), "does not define cuDriverGetVersion");
  EXPECT_EQ(driver.device_count(), 0);
  EXPECT_FALSE(driver.available());
}

TEST_F(FakeDriverTest, ErrorNamesFallBackToTheNumber) {
  ScopedEnv mode("GLIMPSE_FAKE_CUDA_MODE", "zero-devices");
  CudaDriver driver(FakeDriver());
  EXPECT_EQ(driver.ErrorName(static_cast<CUresult>(100)), "CUDA_ERROR_NO_DEVICE");
  EXPECT_EQ(driver.ErrorName(static_cast<CUresult>(999)), "CUresult 999");
  try {
    driver.Check(static_cast<CUresult>(100), "cuSomething");
    FAIL() << "Check accepted an error";
  } catch (const cuda::CudaCallError& error) {
    EXPECT_EQ(error.name(), "CUDA_ERROR_NO_DEVICE");
    EXPECT_PRED_FORMAT2(HasPart, error.what(), "cuSomething: CUDA_ERROR_NO_DEVICE");
  }
  EXPECT_NO_THROW(driver.Check(CUDA_SUCCESS, "cuSomething"));
}

TEST(GpuLimitsFromDeviceTest, DeviceFiguresReplaceTheTablesAndZerosKeepThem) {
  CudaDeviceInfo info;
  info.name = "NVIDIA H100 80GB HBM3";
  info.cc_major = 9;
  info.cc_minor = 0;
  info.sm_count = 132;
  info.memory_bytes = int64_t{80} << 30;
  info.l2_bytes = int64_t{50} << 20;
  info.max_threads_per_block = 1024;
  info.shared_per_block = 48 * 1024;
  info.shared_per_block_optin = 227 * 1024;
  info.shared_per_sm = 228 * 1024;
  info.registers_per_block = 65536;
  info.registers_per_sm = 65536;
  info.max_threads_per_sm = 2048;
  info.max_blocks_per_sm = 0;  // not reported: the table's figure stays
  info.max_block_dims = {1024, 1024, 64};
  info.max_grid_dims = {2147483647, 65535, 65535};
  info.warp_size = 32;
  GpuLimits table = GpuLimitsForArch("sm_90");
  GpuLimits limits = ToGpuLimits(info);
  EXPECT_EQ(info.Arch(), "sm_90");
  EXPECT_EQ(limits.arch, "sm_90");
  EXPECT_EQ(limits.sm_count, 132);
  EXPECT_EQ(limits.max_optin_shared_per_block, 227 * 1024);
  EXPECT_EQ(limits.max_blocks_per_sm, table.max_blocks_per_sm);
  EXPECT_EQ(limits.register_allocation_unit, table.register_allocation_unit);
  // The memory a measured run's allocations are checked against; an architecture knows none.
  EXPECT_EQ(limits.memory_bytes, info.memory_bytes);
  EXPECT_EQ(limits.l2_bytes, info.l2_bytes);
  EXPECT_EQ(table.memory_bytes, 0);

  // A device with a smaller figure than the table wins (a partitioned or future part).
  info.max_threads_per_block = 512;
  info.shared_per_block_optin = 99 * 1024;
  limits = ToGpuLimits(info);
  EXPECT_EQ(limits.max_threads_per_block, 512);
  EXPECT_EQ(limits.max_optin_shared_per_block, 99 * 1024);

  // An architecture the table does not know keeps the device's figures and its own name.
  info.cc_major = 15;
  info.cc_minor = 3;
  limits = ToGpuLimits(info);
  EXPECT_EQ(limits.arch, "sm_153");
  EXPECT_EQ(limits.cc_major, 15);
  EXPECT_EQ(limits.max_threads_per_block, 512);

  Json json = info.ToJson();
  EXPECT_EQ(json["name"], "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(json["compute_capability"], "15.3");
  EXPECT_EQ(json["sm_count"], 132);
}

// ---- With a device (skipped where there is none)

TEST(CudaDeviceTest, QueryReportsALiveDevice) {
  if (std::string why = CudaUnavailableReason(); !why.empty()) GTEST_SKIP() << why;
  CudaDeviceInfo info = QueryCudaDevice(0);
  EXPECT_FALSE(info.name.empty());
  EXPECT_GE(info.cc_major, 7);
  EXPECT_GT(info.sm_count, 0);
  EXPECT_GT(info.memory_bytes, int64_t{1} << 30);
  EXPECT_GT(info.l2_bytes, 0);
  EXPECT_EQ(info.warp_size, 32);
  EXPECT_GE(info.max_threads_per_block, 1024);
  EXPECT_GE(info.shared_per_block_optin, info.shared_per_block);
  EXPECT_GT(info.registers_per_sm, 0);
  EXPECT_GE(info.driver_version, 11000);
  EXPECT_EQ(LocalCudaArch(), info.Arch());
  GpuLimits limits = ToGpuLimits(info);
  EXPECT_EQ(limits.sm_count, info.sm_count);
  EXPECT_THROW(QueryCudaDevice(1000), Error);
  std::cout << "device 0: " << info.ToJson().dump() << "\n";
  // Its hardware description, as the Glimpse tuner's Blueprint sees it.
  std::vector<std::string> notes;
  GpuSpec spec = GpuSpecOfDevice(info, GpuTable::Default(), &notes);
  EXPECT_EQ(spec.sm_count, info.sm_count);
  EXPECT_EQ(spec.memory_bytes, info.memory_bytes);
  EXPECT_GT(spec.fp32_flops, 0.0);
  for (const std::string& note : notes) std::cout << "note: " << note << "\n";
  std::cout << "description: " << spec.ToJson().dump() << "\n";
}

}  // namespace
}  // namespace glimpse
