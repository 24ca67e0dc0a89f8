// The local CPU (from a fake /proc and /sys tree, and from this machine) and the local NVIDIA GPUs
// (from a fake nvidia-smi put first on PATH).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "glimpse/error.h"
#include "glimpse/hardware.h"
#include "test_paths.h"

namespace glimpse {
namespace {

namespace fs = std::filesystem;

void Write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

const GpuTable& Shipped() {
  static const GpuTable table = GpuTable::Load(testing::RepoDataPath("hardware/gpus.json"));
  return table;
}

TEST(LocalCpu, ReadsCpuinfoCachesAndFrequenciesFromTheTree) {
  fs::path root = testing::MakeTempDir("glimpse-cpu");
  std::string cpuinfo;
  // Two sockets, two cores each, two threads per core: 8 logical CPUs.
  for (int cpu = 0; cpu < 8; ++cpu) {
    cpuinfo += "processor\t: " + std::to_string(cpu) + "\n";
    cpuinfo += "vendor_id\t: GenuineIntel\nmodel name\t: Test CPU 9000\ncpu MHz\t\t: 2100.500\n";
    cpuinfo += "physical id\t: " + std::to_string(cpu / 4) + "\n";
    cpuinfo += "core id\t\t: " + std::to_string((cpu / 2) % 2) + "\n";
    cpuinfo += "flags\t\t: fpu sse2 sse4_2 avx avx2 fma avx512f avx512bw avx512_vnni\n\n";
  }
  Write(root / "proc/cpuinfo", cpuinfo);
  fs::path cpu0 = root / "sys/devices/system/cpu/cpu0";
  Write(cpu0 / "cpufreq/cpuinfo_max_freq", "3500000\n");
  Write(cpu0 / "cpufreq/base_frequency", "2100000\n");
  auto cache = [&](int index, int level, const char* type, const char* size, const char* shared) {
    fs::path dir = cpu0 / "cache" / ("index" + std::to_string(index));
    Write(dir / "level", std::to_string(level));
    Write(dir / "type", type);
    Write(dir / "size", size);
    Write(dir / "shared_cpu_list", shared);
  };
  cache(0, 1, "Data", "48K", "0,4");
  cache(1, 1, "Instruction", "32K", "0,4");
  cache(2, 2, "Unified", "2048K", "0,4");
  cache(3, 3, "Unified", "105M", "0-3,8-11");

  CpuDescription cpu = DescribeLocalCpu(root.string());
  EXPECT_EQ(cpu.model_name, "Test CPU 9000");
  EXPECT_EQ(cpu.vendor, "GenuineIntel");
  EXPECT_EQ(cpu.logical_cpus, 8);
  EXPECT_EQ(cpu.physical_cores, 4);
  EXPECT_EQ(cpu.sockets, 2);
  EXPECT_DOUBLE_EQ(cpu.max_clock_mhz, 3500.0);
  EXPECT_DOUBLE_EQ(cpu.base_clock_mhz, 2100.0);
  EXPECT_DOUBLE_EQ(cpu.current_clock_mhz, 2100.5);
  ASSERT_EQ(cpu.caches.size(), 4u);
  EXPECT_EQ(cpu.caches[0].level, 1);
  EXPECT_EQ(cpu.caches[0].type, "Data");
  EXPECT_EQ(cpu.caches[0].size_bytes, 48 << 10);
  EXPECT_EQ(cpu.caches[0].shared_by_cpus, 2);
  EXPECT_EQ(cpu.caches[3].size_bytes, 105LL << 20);
  EXPECT_EQ(cpu.caches[3].shared_by_cpus, 8);
  EXPECT_EQ(cpu.isa_flags, (std::vector<std::string>{"sse4_2", "avx", "avx2", "fma", "avx512f",
                                                     "avx512bw", "avx512_vnni"}));
  EXPECT_EQ(cpu.simd_width_bits, 512);
  EXPECT_EQ(cpu.ToJson()["caches"].size(), 4u);
}

TEST(LocalCpu, MissingCpuinfoIsAnError) {
  fs::path root = testing::MakeTempDir("glimpse-nocpu");
  EXPECT_THROW(DescribeLocalCpu(root.string()), Error);
}

TEST(LocalCpu, ThisMachine) {
  CpuDescription cpu = DescribeLocalCpu();
  EXPECT_GE(cpu.logical_cpus, 1);
  EXPECT_GE(cpu.physical_cores, 1);
  EXPECT_LE(cpu.physical_cores, cpu.logical_cpus);
  EXPECT_FALSE(cpu.model_name.empty());
}

// Puts an executable `nvidia-smi` with `script` as its body first on PATH for the test's life.
class FakeNvidiaSmi : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("glimpse-smi");
    const char* path = std::getenv("PATH");
    old_path_ = path ? path : "";
  }
  void TearDown() override { setenv("PATH", old_path_.c_str(), 1); }

  void Install(const std::string& script) {
    fs::path smi = fs::path(dir_) / "nvidia-smi";
    std::ofstream(smi) << "#!/bin/sh\n" << script;
    chmod(smi.c_str(), 0755);
    setenv("PATH", (dir_ + ":" + old_path_).c_str(), 1);
  }

  std::string dir_, old_path_;
};

TEST_F(FakeNvidiaSmi, ParsesGpusAndMatchesThemToTheTable) {
  Install(
      "case \"$*\" in *--format=csv,noheader,nounits*) ;; *) exit 9 ;; esac\n"
      "echo '0, NVIDIA A100-PCIE-40GB, 40960, 1410, 1215, 535.104.05, 8.0'\n"
      "echo '1, NVIDIA Mystery GPU 9000, 16384, 2100, [N/A], 535.104.05, 9.9'\n");
  std::vector<LocalGpu> gpus = DescribeLocalNvidiaGpus(Shipped());
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[0].index, 0);
  EXPECT_EQ(gpus[0].name, "NVIDIA A100-PCIE-40GB");
  EXPECT_EQ(gpus[0].memory_bytes, 40960LL << 20);
  EXPECT_DOUBLE_EQ(gpus[0].max_sm_clock_mhz, 1410.0);
  EXPECT_DOUBLE_EQ(gpus[0].max_memory_clock_mhz, 1215.0);
  EXPECT_EQ(gpus[0].driver_version, "535.104.05");
  EXPECT_EQ(gpus[0].compute_capability, "8.0");
  EXPECT_TRUE(gpus[0].in_table);
  EXPECT_EQ(gpus[0].spec.sm_count, 108);
  EXPECT_FALSE(gpus[1].in_table);
  EXPECT_EQ(gpus[1].spec.name, "NVIDIA Mystery GPU 9000");
  EXPECT_EQ(gpus[1].spec.memory_bytes, 16384LL << 20);
  EXPECT_DOUBLE_EQ(gpus[1].max_memory_clock_mhz, 0.0);  // [N/A]
  EXPECT_EQ(gpus[1].spec.sm_count, 0);                  // unknown, so it cannot be embedded
}

TEST_F(FakeNvidiaSmi, OldDriversAreAskedAgainWithoutComputeCap) {
  Install(
      "case \"$*\" in *compute_cap*) echo 'Field \"compute_cap\" is not a valid field to query.'; "
      "exit 2 ;; esac\n"
      "echo '0, Tesla V100-PCIE-32GB, 32768, 1380, 877, 470.82.01'\n");
  std::vector<LocalGpu> gpus = DescribeLocalNvidiaGpus(Shipped());
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_EQ(gpus[0].compute_capability, "");
  EXPECT_TRUE(gpus[0].in_table);
  EXPECT_EQ(gpus[0].spec.name, "Tesla V100-PCIE-32GB");
}

TEST_F(FakeNvidiaSmi, FailuresAndGarbageAreErrors) {
  Install(
      "echo 'NVIDIA-SMI has failed because it could not communicate with the driver'\nexit 9\n");
  try {
    DescribeLocalNvidiaGpus(Shipped());
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("could not communicate"), std::string::npos) << e.what();
  }
  Install("echo '0, only three, fields'\n");
  EXPECT_THROW(DescribeLocalNvidiaGpus(Shipped()), Error);
}

TEST_F(FakeNvidiaSmi, NoNvidiaSmiMeansNoGpus) {
  setenv("PATH", dir_.c_str(), 1);  // an empty folder: no nvidia-smi anywhere
  EXPECT_TRUE(DescribeLocalNvidiaGpus(Shipped()).empty());
}

}  // namespace
}  // namespace glimpse
