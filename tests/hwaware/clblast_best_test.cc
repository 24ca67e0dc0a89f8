// CLBlast's best configurations as prior examples: a small clblast_best file of known, unknown,
// excluded, duplicate and non-fitting records becomes one smoothed target per fitting GPU, and
// malformed files are refused with the record and field named.
#include "glimpse/clblast_best.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "glimpse/error.h"
#include "test_paths.h"

namespace glimpse {
namespace {

Json Record(const std::string& kernel, const std::string& device, Json params) {
  return {{"kernel", kernel},           {"precision", "fp32"},  {"device_type", "GPU"},
          {"vendor", "NVIDIA"},         {"architecture", "SM"}, {"device", device},
          {"params", std::move(params)}};
}

class ClblastBestTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeTempDir("glimpse-clblast-test"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const Json& json) {
    const std::string path = dir_ + "/clblast_best.json";
    std::ofstream(path) << json.dump();
    return path;
  }

  // MWG ∈ {16, 32, 64}, VWM ∈ {1, 2}, KWG ∈ {32}: two knobs of several values, one of one.
  static ConfigSpace GemmLikeSpace() {
    ConfigSpace space;
    space.AddKnob(Knob::Ordered("MWG", {int64_t{16}, int64_t{32}, int64_t{64}}));
    space.AddKnob(Knob::Ordered("VWM", {int64_t{1}, int64_t{2}}));
    space.AddKnob(Knob::Ordered("KWG", {int64_t{32}}));
    return space;
  }

  std::string dir_;
};

TEST_F(ClblastBestTest, FittingRecordsOfKnownGpusBecomeSmoothedTargets) {
  const std::string path =
      Write({{"records",
              {Record("Xgemm", "NVIDIA GeForce RTX 3090", {{"MWG", 64}, {"VWM", 2}, {"KWG", 16}}),
               Record("Xgemv", "NVIDIA GeForce RTX 3090", {{"WGS1", 64}}),  // another kernel
               Record("Xgemm", "NVIDIA GeForce RTX 2080 Ti", {{"MWG", 16}, {"VWM", 1}}),
               Record("Xgemm", "NVIDIA GeForce RTX 3090", {{"MWG", 32}, {"VWM", 1}}),  // again
               Record("Xgemm", "Mali-G71", {{"MWG", 32}, {"VWM", 1}}),           // not in the table
               Record("Xgemm", "NVIDIA TITAN RTX", {{"MWG", 128}, {"VWM", 1}}),  // 128 ∉ MWG
               Record("Xgemm", "NVIDIA RTX A4000", {{"MWG", 32}})}}});           // no VWM
  const std::vector<ClblastRecord> records = LoadClblastBest(path);
  ASSERT_EQ(records.size(), 7u);
  EXPECT_EQ(records[0].device, "NVIDIA GeForce RTX 3090");
  EXPECT_EQ(records[0].params.at("MWG"), 64);

  const ConfigSpace space = GemmLikeSpace();
  std::vector<std::string> skipped;
  ClblastPriorOptions options;
  options.smoothing = 0.4;
  const std::vector<PriorTrainingExample> examples =
      MakeClblastPriorExamples(records, space, "gemm", Blueprint::Default(), GpuTable::Default(),
                               nullptr, options, &skipped);
  ASSERT_EQ(examples.size(), 2u);
  const PriorTrainingExample& ampere = examples[0];
  EXPECT_EQ(ampere.name, "gemm");
  EXPECT_EQ(ampere.gpu, GpuTable::Default().Lookup("RTX 3090").name);
  EXPECT_EQ(ampere.task.kernel, "gemm");
  EXPECT_EQ(ampere.task.problem_size, (std::vector<double>{1024, 1024}));
  EXPECT_EQ(ampere.blueprint,
            Blueprint::Default().Embed(GpuTable::Default().Lookup("NVIDIA GeForce RTX 3090")));
  ASSERT_EQ(ampere.target.size(), 3u);
  const double spread = 0.4 / 3;
  EXPECT_DOUBLE_EQ(ampere.target[0][0], spread);
  EXPECT_DOUBLE_EQ(ampere.target[0][2], spread + 0.6);      // MWG = 64
  EXPECT_DOUBLE_EQ(ampere.target[1][1], 0.2 + 0.6);         // VWM = 2
  EXPECT_EQ(ampere.target[2], (std::vector<double>{1.0}));  // KWG: its only value, whatever 16 says
  EXPECT_DOUBLE_EQ(examples[1].target[0][0], spread + 0.6);  // the 2080 Ti's MWG = 16

  ASSERT_EQ(skipped.size(), 4u);
  EXPECT_NE(skipped[0].find("already has a record"), std::string::npos) << skipped[0];
  EXPECT_NE(skipped[1].find("Mali-G71: not in the GPU table"), std::string::npos) << skipped[1];
  EXPECT_NE(skipped[2].find("MWG = 128 is not one of the knob's values"), std::string::npos)
      << skipped[2];
  EXPECT_NE(skipped[3].find("no value for knob VWM"), std::string::npos) << skipped[3];
}

TEST_F(ClblastBestTest, HeldOutGpusGiveNoExample) {
  const std::vector<ClblastRecord> records = LoadClblastBest(
      Write({{"records",
              {Record("Xgemm", "NVIDIA GeForce RTX 3090", {{"MWG", 64}, {"VWM", 2}}),
               Record("Xgemm", "NVIDIA GeForce RTX 2080 Ti", {{"MWG", 16}, {"VWM", 1}})}}}));
  std::vector<std::string> skipped;
  const std::vector<PriorTrainingExample> examples = MakeClblastPriorExamples(
      records, GemmLikeSpace(), "gemm", Blueprint::Default(), GpuTable::Default(),
      [](const GpuSpec& gpu) { return gpu.architecture != "Ampere"; }, {}, &skipped);
  ASSERT_EQ(examples.size(), 1u);
  EXPECT_EQ(examples[0].gpu, GpuTable::Default().Lookup("RTX 2080 Ti").name);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].find("is excluded"), std::string::npos) << skipped[0];

  ClblastPriorOptions bad;
  bad.smoothing = 1.5;
  EXPECT_THROW(MakeClblastPriorExamples(records, GemmLikeSpace(), "gemm", Blueprint::Default(),
                                        GpuTable::Default(), nullptr, bad),
               Error);
}

TEST_F(ClblastBestTest, MalformedFilesAreRefusedWithTheRecordNamed) {
  auto message = [&](const std::string& text) {
    const std::string path = dir_ + "/bad.json";
    std::ofstream(path) << text;
    try {
      LoadClblastBest(path);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(message("{").find("not JSON"), std::string::npos);
  EXPECT_NE(message("{\"rows\": []}").find("no \"records\" list"), std::string::npos);
  Json missing = Record("Xgemm", "NVIDIA GeForce RTX 3090", {{"MWG", 64}});
  missing.erase("vendor");
  EXPECT_NE(message(Json{{"records", {Record("Xgemm", "x", Json::object()), missing}}}.dump())
                .find("records[1]: missing field 'vendor'"),
            std::string::npos);
  Json no_params = Record("Xgemm", "x", Json::object());
  no_params["params"] = 3;
  EXPECT_NE(message(Json{{"records", {no_params}}}.dump())
                .find("records[0]: field 'params' must be an object"),
            std::string::npos);
  EXPECT_THROW(LoadClblastBest(dir_ + "/absent.json"), Error);
}

}  // namespace
}  // namespace glimpse
