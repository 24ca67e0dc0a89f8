// The shipped GPU table (data/hardware/gpus.json) and lookup by the names drivers, tools and
// recorded files use.
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <set>

#include "glimpse/error.h"
#include "glimpse/hardware.h"
#include "test_paths.h"

namespace glimpse {
namespace {

namespace fs = std::filesystem;

const GpuTable& Shipped() {
  static const GpuTable table = GpuTable::Load(testing::RepoDataPath("hardware/gpus.json"));
  return table;
}

std::string ErrorOf(const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(GpuTable, LoadsWithEnoughGpusOfEachVendorAndGeneration) {
  const GpuTable& table = Shipped();
  EXPECT_EQ(table.version(), kGpuTableVersion);
  std::map<GpuVendor, int> per_vendor;
  std::set<std::string> architectures;
  for (const GpuSpec& gpu : table.gpus()) {
    ++per_vendor[gpu.vendor];
    architectures.insert(gpu.architecture);
  }
  EXPECT_GE(per_vendor[GpuVendor::kNvidia], 60);
  EXPECT_GE(per_vendor[GpuVendor::kAmd], 15);
  for (const char* generation :
       {"Kepler", "Maxwell",   "Pascal", "Volta",  "Turing",  "Ampere",       "Ada Lovelace",
        "Hopper", "Blackwell", "GCN 1",  "GCN 2",  "GCN 3/4", "GCN 5 (Vega)", "CDNA",
        "CDNA 2", "CDNA 3",    "RDNA",   "RDNA 2", "RDNA 3",  "RDNA 4"}) {
    EXPECT_TRUE(architectures.count(generation)) << generation;
  }
  // Datacenter and consumer parts on both sides.
  std::set<std::pair<GpuVendor, std::string>> segments;
  for (const GpuSpec& gpu : table.gpus()) segments.emplace(gpu.vendor, gpu.segment);
  for (GpuVendor vendor : {GpuVendor::kNvidia, GpuVendor::kAmd}) {
    EXPECT_TRUE(segments.count({vendor, "datacenter"}));
    EXPECT_TRUE(segments.count({vendor, "consumer"}));
  }
}

TEST(GpuTable, EveryFigureIsPresentAndHasASource) {
  for (const GpuSpec& gpu : Shipped().gpus()) {
    for (const GpuNumericField& field : GpuNumericFields()) {
      double value = field.get(gpu);
      if (std::string(field.name) == "l3_bytes") {
        EXPECT_GE(value, 0.0) << gpu.name;
      } else {
        EXPECT_GT(value, 0.0) << gpu.name << " " << field.name;
      }
      EXPECT_FALSE(gpu.sources.count(field.name) == 0 || gpu.sources.at(field.name).empty())
          << gpu.name << " " << field.name;
    }
    for (const char* field : {"architecture", "chip", "target", "memory_type"}) {
      EXPECT_TRUE(gpu.sources.count(field)) << gpu.name << " " << field;
    }
    EXPECT_LE(gpu.base_clock_mhz, gpu.boost_clock_mhz) << gpu.name;
    EXPECT_LE(gpu.shared_memory_per_block_bytes, gpu.shared_memory_per_sm_bytes) << gpu.name;
    EXPECT_LE(gpu.shared_memory_per_sm_bytes, gpu.l1_shared_per_sm_bytes) << gpu.name;
    // Peak FP32 is 2 x lanes x clock, or twice that where dual issue / packed FP32 is counted.
    double ratio =
        gpu.fp32_flops / (2.0 * gpu.sm_count * gpu.cores_per_sm * gpu.boost_clock_mhz * 1e6);
    EXPECT_TRUE((ratio > 0.93 && ratio < 1.07) || (ratio > 1.7 && ratio < 2.14))
        << gpu.name << " " << ratio;
  }
}

TEST(GpuTable, KnownFiguresOfWellDocumentedGpus) {
  const GpuSpec& a100 = Shipped().Lookup("NVIDIA A100-PCIE-40GB");
  EXPECT_EQ(a100.sm_count, 108);
  EXPECT_EQ(a100.l2_bytes, 40LL << 20);
  EXPECT_EQ(a100.memory_bytes, 40LL << 30);
  EXPECT_EQ(a100.compute_capability, "8.0");
  EXPECT_EQ(a100.shared_memory_per_sm_bytes, 164 << 10);
  EXPECT_NEAR(a100.fp32_flops, 19.5e12, 0.1e12);
  EXPECT_NEAR(a100.fp16_flops, 78e12, 0.5e12);  // non-tensor FP16 is 4x FP32 on GA100
  const GpuSpec& rtx3090 = Shipped().Lookup("NVIDIA GeForce RTX 3090");
  EXPECT_EQ(rtx3090.sm_count, 82);
  EXPECT_EQ(rtx3090.max_threads_per_sm, 1536);
  EXPECT_NEAR(rtx3090.memory_bandwidth_gb_per_s, 936, 1);
  const GpuSpec& mi250x = Shipped().Lookup("AMD Instinct MI250X");
  EXPECT_EQ(mi250x.devices_per_board, 2);
  EXPECT_EQ(mi250x.sm_count, 110);  // one GCD
  EXPECT_EQ(mi250x.warp_size, 64);
  EXPECT_EQ(mi250x.target, "gfx90a");
  const GpuSpec& w6600 = Shipped().Lookup("AMD Radeon PRO W6600");
  EXPECT_EQ(w6600.sm_count, 28);
  EXPECT_EQ(w6600.l3_bytes, 32LL << 20);
  EXPECT_EQ(w6600.warp_size, 32);
}

TEST(GpuLookup, DriverNamesAliasesAndFileNamesResolve) {
  const GpuTable& table = Shipped();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"NVIDIA A100-PCIE-40GB", "NVIDIA A100-PCIE-40GB"},
      {"Tesla V100-PCIE-32GB", "Tesla V100-PCIE-32GB"},
      {"NVIDIA GeForce RTX 3090", "NVIDIA GeForce RTX 3090"},
      {"AMD Radeon PRO W6600", "AMD Radeon PRO W6600"},
      {"RTX_2080_Ti", "NVIDIA GeForce RTX 2080 Ti"},
      // Without the vendor, brand or with other separators and case.
      {"GeForce RTX 3090", "NVIDIA GeForce RTX 3090"},
      {"rtx 3090", "NVIDIA GeForce RTX 3090"},
      {"RTX_3090", "NVIDIA GeForce RTX 3090"},
      {"V100-PCIE-32GB", "Tesla V100-PCIE-32GB"},
      {"Radeon Pro W6600", "AMD Radeon PRO W6600"},
      {"NVIDIA TITAN RTX", "NVIDIA TITAN RTX"},
      {"RTX_Titan", "NVIDIA TITAN RTX"},
      {"NVIDIA GeForce RTX 3060 Laptop GPU", "NVIDIA GeForce RTX 3060 Laptop GPU"},
      {"RTX_3060_laptop", "NVIDIA GeForce RTX 3060 Laptop GPU"},
      {"MI250X", "AMD Instinct MI250X"},
      {"A4000", "NVIDIA RTX A4000"},
      // Other boards of the same chip: the variant words decide.
      {"NVIDIA A100 PCIe 80GB", "NVIDIA A100 80GB PCIe"},
      {"A100-SXM4-80GB", "NVIDIA A100-SXM4-80GB"},
      {"NVIDIA H100 SXM5 80GB", "NVIDIA H100 80GB HBM3"},
      {"Tesla V100-SXM2-32GB", "Tesla V100-SXM2-32GB"},
      {"GeForce GTX 1060", "NVIDIA GeForce GTX 1060 6GB"},
  };
  for (const auto& [query, expected] : cases) {
    const GpuSpec* found = table.Find(query);
    ASSERT_NE(found, nullptr) << query;
    EXPECT_EQ(found->name, expected) << query;
  }
}

TEST(GpuLookup, NamesCudaRocmAndOpenClDriversReportResolve) {
  const GpuTable& table = Shipped();
  struct Case {
    std::string query, name, architecture;
    int sm_count;
  };
  const std::vector<Case> cases = {
      // CUDA / NVML: the cooling suffix of Kepler Teslas, the board in the name.
      {"Tesla K20m", "Tesla K20", "Kepler", 13},
      {"Tesla K40m", "Tesla K40", "Kepler", 15},
      {"NVIDIA A100-PCIE-40GB", "NVIDIA A100-PCIE-40GB", "Ampere", 108},
      {"Tesla P100-PCIE-12GB", "Tesla P100-PCIE-12GB", "Pascal", 56},
      {"NVIDIA GeForce RTX 2070 with Max-Q Design", "NVIDIA GeForce RTX 2070 Max-Q", "Turing", 36},
      // ROCm / OpenCL.
      {"AMD Instinct MI50", "AMD Radeon Instinct MI50", "GCN 5 (Vega)", 60},
      {"AMD Radeon(TM) RX 6400", "AMD Radeon RX 6400", "RDNA 2", 12},
      // CLBlast's database: run-together words, Mesa's driver suffix, OEM boards.
      {"AMD Radeon RX590 GME", "AMD Radeon RX 590 GME", "GCN 3/4", 36},
      {"AMD Radeon RX 590 GME (radeonsi, polaris10, ACO, D", "AMD Radeon RX 590 GME", "GCN 3/4",
       36},
      {"GeForce GTX 760 Ti OEM", "NVIDIA GeForce GTX 760 Ti", "Kepler", 7},
  };
  for (const Case& c : cases) {
    const GpuSpec* found = table.Find(c.query);
    ASSERT_NE(found, nullptr) << c.query;
    EXPECT_EQ(found->name, c.name) << c.query;
    EXPECT_EQ(found->architecture, c.architecture) << c.query;
    EXPECT_EQ(found->sm_count, c.sm_count) << c.query;
  }
}

TEST(GpuTable, OlderAndLaptopGpusFromTheScrapeHaveSourcedFigures) {
  const GpuTable& table = Shipped();
  // A Kepler and a GCN card that have no hand entry: every figure names where it came from.
  for (const char* name : {"NVIDIA GeForce GT 640", "AMD Radeon R9 290X", "AMD Radeon HD 7970"}) {
    const GpuSpec* gpu = table.Find(name);
    ASSERT_NE(gpu, nullptr) << name;
    for (const char* field :
         {"sm_count", "boost_clock_mhz", "memory_bandwidth_gb_per_s", "memory_bytes", "l2_bytes",
          "fp32_flops", "registers_per_sm", "shared_memory_per_sm_bytes"}) {
      ASSERT_TRUE(gpu->sources.count(field)) << name << " " << field;
      EXPECT_FALSE(gpu->sources.at(field).empty()) << name << " " << field;
    }
  }
  const GpuSpec& hawaii = table.Lookup("AMD Radeon R9 290X");
  EXPECT_EQ(hawaii.architecture, "GCN 2");
  EXPECT_EQ(hawaii.sm_count, 44);
  EXPECT_EQ(hawaii.target, "gfx701");
  EXPECT_EQ(hawaii.l2_bytes, 1 << 20);
  EXPECT_NE(hawaii.sources.at("sm_count").find("Wikipedia"), std::string::npos);
  const GpuSpec& kepler = table.Lookup("Tesla K20");
  EXPECT_EQ(kepler.architecture, "Kepler");
  EXPECT_EQ(kepler.compute_capability, "3.5");

  // Laptop parts of several generations.
  int laptops = 0;
  for (const GpuSpec& gpu : table.gpus()) laptops += gpu.segment == "laptop";
  EXPECT_GE(laptops, 50);
  for (const char* name :
       {"GeForce GT 650M", "Quadro M2000M", "NVIDIA GeForce RTX 4060 Laptop GPU"}) {
    const GpuSpec* gpu = table.Find(name);
    ASSERT_NE(gpu, nullptr) << name;
    EXPECT_EQ(gpu->segment, "laptop") << name;
  }
}

TEST(GpuLookup, NormalisationDropsVendorWordsAndJoinsMemorySizes) {
  EXPECT_EQ(NormalizeGpuName("NVIDIA GeForce RTX 3090"), "rtx 3090");
  EXPECT_EQ(NormalizeGpuName("RTX_3090"), "rtx 3090");
  EXPECT_EQ(NormalizeGpuName("Tesla V100-PCIE-32GB"), "v100 pcie 32gb");
  EXPECT_EQ(NormalizeGpuName("NVIDIA A100 80 GB PCIe"), "a100 80gb pcie");
  EXPECT_EQ(NormalizeGpuName("AMD Radeon PRO W6600"), "w6600");
  EXPECT_EQ(NormalizeGpuName("  AMD  "), "");
  EXPECT_EQ(NormalizeGpuName("AMD Radeon(TM) RX 6400"), "rx 6400");
  EXPECT_EQ(NormalizeGpuName("AMD Radeon RX 590 GME (radeonsi, polaris10, ACO)"), "rx 590 gme");
}

TEST(GpuLookup, UnknownNameListsTheFiveClosest) {
  std::string message = ErrorOf([] { Shipped().Lookup("NVIDIA GeForce RTX 3095"); });
  EXPECT_NE(message.find("unknown GPU 'NVIDIA GeForce RTX 3095'"), std::string::npos) << message;
  EXPECT_NE(message.find("NVIDIA GeForce RTX 3090"), std::string::npos) << message;
  std::vector<std::string> closest = Shipped().ClosestNames("RTX 3095");
  ASSERT_EQ(closest.size(), 5u);
  EXPECT_EQ(closest.front(), "NVIDIA GeForce RTX 3090");
  EXPECT_EQ(std::set<std::string>(closest.begin(), closest.end()).size(), 5u);
  EXPECT_EQ(Shipped().Find("Voodoo 5 6000"), nullptr);
}

TEST(GpuLookup, AmbiguousAndEmptyNamesAreErrors) {
  std::string message = ErrorOf([] { Shipped().Lookup("A100 80GB"); });
  EXPECT_NE(message.find("ambiguous"), std::string::npos) << message;
  EXPECT_NE(message.find("NVIDIA A100 80GB PCIe"), std::string::npos) << message;
  EXPECT_NE(message.find("NVIDIA A100-SXM4-80GB"), std::string::npos) << message;
  EXPECT_NE(ErrorOf([] { Shipped().Lookup(""); }).find("no GPU name"), std::string::npos);
  EXPECT_NE(ErrorOf([] { Shipped().Lookup("NVIDIA"); }).find("only vendor words"),
            std::string::npos);
}

TEST(GpuLookup, RecordedFilesUseDeviceFlagThenReportedNameThenFileName) {
  const GpuTable& table = Shipped();
  EXPECT_EQ(ResolveRecordedGpu(table, "", "", "/x/convolution_milo/MI250X.json.gz").name,
            "AMD Instinct MI250X");
  EXPECT_EQ(ResolveRecordedGpu(table, "", "NVIDIA RTX A6000", "/x/A4000.json.gz").name,
            "NVIDIA RTX A6000");
  EXPECT_EQ(ResolveRecordedGpu(table, "W7800", "NVIDIA RTX A6000", "/x/A4000.json.gz").name,
            "AMD Radeon PRO W7800");
  std::string message =
      ErrorOf([&] { ResolveRecordedGpu(table, "", "", "/x/conv/mystery_board.json"); });
  EXPECT_NE(message.find("mystery_board"), std::string::npos) << message;
  EXPECT_NE(message.find("--device NAME"), std::string::npos) << message;
}

// The device name a Kernel Tuner cache reports ("" when it reports none): it is in the header,
// within the first few hundred bytes.
std::string DeviceNameOf(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (!file) return "";
  std::string head(1 << 16, '\0');
  int got = gzread(file, head.data(), static_cast<unsigned>(head.size()));
  gzclose(file);
  head.resize(got > 0 ? static_cast<size_t>(got) : 0);
  std::smatch match;
  static const std::regex pattern("\"device_name\"\\s*:\\s*\"([^\"]*)\"");
  return std::regex_search(head, match, pattern) ? match[1].str() : "";
}

TEST(GpuLookup, EveryRecordedDatasetGpuResolves) {
  std::vector<std::string> files;
  for (const std::string& root :
       {testing::RepoDataPath("recorded"), testing::SharedDatasetsDir()}) {
    if (root.empty() || !fs::is_directory(root)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      std::string name = entry.path().filename().string();
      if (name.size() > 8 && name.substr(name.size() - 8) == ".json.gz") {
        files.push_back(entry.path().string());
      }
    }
  }
  ASSERT_GE(files.size(), 2u);  // the bundled copies at least
  if (testing::SharedDatasetsDir().empty()) {
    std::cerr << "note: ../shared/datasets not found; checked the bundled recorded spaces only\n";
  }
  for (const std::string& file : files) {
    std::string reported = DeviceNameOf(file);
    const GpuSpec& gpu = ResolveRecordedGpu(Shipped(), "", reported, file);
    // The file name and the reported name agree on the GPU.
    const GpuSpec& by_file = ResolveRecordedGpu(Shipped(), "", "", file);
    EXPECT_EQ(gpu.name, by_file.name) << file;
  }
}

TEST(GpuTable, RefusesOtherVersionsAndDuplicateNames) {
  Json json = Json::parse(std::ifstream(testing::RepoDataPath("hardware/gpus.json")));
  Json other = json;
  other["version"] = kGpuTableVersion + 1;
  std::string message = ErrorOf([&] { GpuTable::FromJson(other, "future.json"); });
  EXPECT_NE(message.find("version"), std::string::npos) << message;
  EXPECT_NE(message.find("future.json"), std::string::npos) << message;

  Json duplicate = json;
  duplicate["gpus"][1]["aliases"].push_back("A100");
  message = ErrorOf([&] { GpuTable::FromJson(duplicate, "dup.json"); });
  EXPECT_NE(message.find("names both"), std::string::npos) << message;

  // A format that is not a string is not this format (found by fuzzing: it threw a JSON type
  // error instead of glimpse's).
  Json numbered = json;
  numbered["format"] = 64;
  message = ErrorOf([&] { GpuTable::FromJson(numbered, "numbered.json"); });
  EXPECT_NE(message.find("'numbered.json' is not a"), std::string::npos) << message;

  Json broken = json;
  broken["gpus"][0]["sm_count"] = "many";
  message = ErrorOf([&] { GpuTable::FromJson(broken, "broken.json"); });
  EXPECT_NE(message.find("sm_count"), std::string::npos) << message;
  EXPECT_NE(message.find(json["gpus"][0]["name"].get<std::string>()), std::string::npos);
}

TEST(GpuTable, SpecJsonRoundTrips) {
  const GpuSpec& original = Shipped().Lookup("AMD Instinct MI300X");
  GpuSpec copy = GpuSpec::FromJson(original.ToJson(), "round trip");
  EXPECT_EQ(copy.ToJson(), original.ToJson());
}

TEST(DataDir, EnvironmentVariableWins) {
  std::string dir = testing::MakeTempDir("glimpse-data");
  fs::create_directories(fs::path(dir) / "hardware");
  fs::copy_file(testing::RepoDataPath("hardware/gpus.json"),
                fs::path(dir) / "hardware" / "gpus.json");
  setenv("GLIMPSE_DATA_DIR", dir.c_str(), 1);
  EXPECT_EQ(GlimpseDataDir(), dir);
  EXPECT_EQ(HardwareDataPath("blueprint.json"), dir + "/hardware/blueprint.json");
  unsetenv("GLIMPSE_DATA_DIR");
  // Without it, the data folder is found from the test binary in the build tree.
  EXPECT_TRUE(fs::exists(HardwareDataPath("gpus.json")));
}

}  // namespace
}  // namespace glimpse
