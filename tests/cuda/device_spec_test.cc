// The hardware description of a queried device (GpuSpecOfDevice): what the Glimpse tuner's
// Blueprint is made from on a live GPU. The device figures below are what the CUDA driver reports
// for an H100 SXM5 (cudaDeviceProp of CUDA 12/13: 132 SMs, 1980 MHz, 2619 MHz HBM3 clock on a
// 5120-bit bus, 50 MiB L2).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "glimpse/cuda.h"
#include "glimpse/error.h"
#include "glimpse/hardware.h"

namespace glimpse {
namespace {

CudaDeviceInfo H100Query(const std::string& name) {
  CudaDeviceInfo info;
  info.name = name;
  info.cc_major = 9;
  info.cc_minor = 0;
  info.sm_count = 132;
  info.sm_clock_khz = 1980000;
  info.memory_clock_khz = 2619000;
  info.memory_bus_bits = 5120;
  info.memory_bytes = 85899345920;
  info.l2_bytes = 52428800;
  info.shared_per_block = 49152;
  info.shared_per_block_optin = 232448;
  info.shared_per_sm = 233472;
  info.registers_per_block = 65536;
  info.registers_per_sm = 65536;
  info.max_threads_per_block = 1024;
  info.max_threads_per_sm = 2048;
  info.max_blocks_per_sm = 32;
  info.warp_size = 32;
  return info;
}

TEST(GpuSpecOfDeviceTest, AGpuTheTableKnowsKeepsItsEntryWhenTheDriverAgrees) {
  const GpuTable& table = GpuTable::Default();
  const GpuSpec& h100 = table.Lookup("NVIDIA H100 80GB HBM3");
  std::vector<std::string> notes;
  GpuSpec spec = GpuSpecOfDevice(H100Query("NVIDIA H100 80GB HBM3"), table, &notes);
  EXPECT_EQ(spec.name, h100.name);
  EXPECT_EQ(spec.sm_count, 132);
  EXPECT_DOUBLE_EQ(spec.fp32_flops, h100.fp32_flops);
  EXPECT_EQ(Blueprint::Default().Embed(spec), Blueprint::Default().Embed(h100));
  EXPECT_TRUE(notes.empty());
}

TEST(GpuSpecOfDeviceTest, AMigSliceIsDescribedByWhatTheDriverReports) {
  const GpuTable& table = GpuTable::Default();
  const GpuSpec& h100 = table.Lookup("NVIDIA H100 80GB HBM3");
  CudaDeviceInfo slice = H100Query("NVIDIA H100 80GB HBM3");
  slice.sm_count = 66;  // a 4g.40gb-like slice: half the SMs, memory and L2
  slice.memory_bytes = h100.memory_bytes / 2;
  slice.l2_bytes = h100.l2_bytes / 2;
  std::vector<std::string> notes;
  GpuSpec spec = GpuSpecOfDevice(slice, table, &notes);
  EXPECT_EQ(spec.sm_count, 66);
  EXPECT_EQ(spec.memory_bytes, h100.memory_bytes / 2);
  EXPECT_NEAR(spec.fp32_flops, h100.fp32_flops / 2, 1e-6 * h100.fp32_flops);
  EXPECT_NEAR(spec.fp16_flops / spec.fp32_flops, h100.fp16_flops / h100.fp32_flops, 1e-12);
  EXPECT_EQ(spec.boost_clock_mhz, h100.boost_clock_mhz);  // not reported differently: kept
  EXPECT_NE(spec.sources.at("sm_count").find("driver"), std::string::npos);
  EXPECT_EQ(spec.sources.at("boost_clock_mhz"), h100.sources.at("boost_clock_mhz"));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("66 SMs"), std::string::npos) << notes[0];
  EXPECT_NE(Blueprint::Default().Embed(spec), Blueprint::Default().Embed(h100));
}

// A GPU the table lacks is described from the driver's figures and its compute capability's
// table GPUs; for an H100 under another name, that description agrees with the datasheet entry
// where the driver reports the figures, and its Blueprint is nearest a Hopper GPU's.
TEST(GpuSpecOfDeviceTest, AnUnknownGpuIsDescribedFromTheQueryAndItsArchitecture) {
  const GpuTable& table = GpuTable::Default();
  const GpuSpec& h100 = table.Lookup("NVIDIA H100 80GB HBM3");
  std::vector<std::string> notes;
  GpuSpec spec = GpuSpecOfDevice(H100Query("NVIDIA H100 Prototype"), table, &notes);
  EXPECT_EQ(spec.name, "NVIDIA H100 Prototype");
  EXPECT_EQ(spec.architecture, "Hopper");
  EXPECT_EQ(spec.target, "sm_90");
  EXPECT_NEAR(spec.fp32_flops, h100.fp32_flops, 0.005 * h100.fp32_flops);
  EXPECT_NEAR(spec.memory_bandwidth_gb_per_s, h100.memory_bandwidth_gb_per_s,
              0.01 * h100.memory_bandwidth_gb_per_s);
  EXPECT_EQ(spec.l2_bytes, h100.l2_bytes);
  EXPECT_GT(spec.base_clock_mhz, 0.0);
  EXPECT_TRUE(spec.chip.empty());  // the peer's chip is not known to be this GPU's
  EXPECT_NE(spec.sources.at("sm_count").find("driver"), std::string::npos);
  EXPECT_NE(spec.sources.at("cores_per_sm").find("same compute capability"), std::string::npos);
  EXPECT_LE(spec.base_clock_mhz, spec.boost_clock_mhz);
  ASSERT_FALSE(notes.empty());
  EXPECT_NE(notes[0].find("not in the GPU table"), std::string::npos) << notes[0];

  const Blueprint& blueprint = Blueprint::Default();
  const std::vector<double> theta = blueprint.Embed(spec);
  double nearest = std::numeric_limits<double>::infinity();
  const GpuSpec* nearest_gpu = nullptr;
  for (const GpuSpec& gpu : table.gpus()) {
    std::vector<double> other;
    try {
      other = blueprint.Embed(gpu);
    } catch (const Error&) {
      continue;  // a GPU lacking a Blueprint feature
    }
    double d = 0.0;
    for (size_t i = 0; i < theta.size(); ++i) d += (theta[i] - other[i]) * (theta[i] - other[i]);
    if (d < nearest) nearest = d, nearest_gpu = &gpu;
  }
  ASSERT_NE(nearest_gpu, nullptr);
  EXPECT_EQ(nearest_gpu->architecture, "Hopper") << nearest_gpu->name;
}

TEST(GpuSpecOfDeviceTest, AComputeCapabilityTheTableLacksIsAnError) {
  CudaDeviceInfo info = H100Query("Some Future GPU");
  info.cc_major = 42;
  try {
    GpuSpecOfDevice(info, GpuTable::Default());
    FAIL() << "described a GPU of an unknown compute capability";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("compute capability 42.0"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace glimpse
