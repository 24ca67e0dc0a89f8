// Spaces from real tuning data: the four T1 benchmark spaces and CLBlast's GEMM space.
//
// The expected valid counts were computed once with Python by brute force (itertools.product
// over the value lists, `eval` of every restriction under Python semantics), e.g. for GEMM:
//   tp = json.load(gzip.open("gemm/RTX_3090.json.gz"))["tune_params"]
//   sum(all(eval(r, {}, dict(zip(tp, v))) for r in R) for v in itertools.product(*tp.values()))
// which gives 17956 — also the number of entries in that file's "cache". For the T1 spaces the
// same brute force over the files' TuningParameters / Conditions gives convolution 16896 raw /
// 6768 valid, convolution_milo 10240 / 4362, dedispersion_milo 22272 / 11130, pnpoly 4092 / 4092.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/space.h"
#include "test_paths.h"

namespace glimpse {
namespace {

using Params = std::vector<std::pair<std::string, std::vector<int64_t>>>;

ConfigSpace Build(const Params& params, const std::vector<std::string>& restrictions) {
  ConfigSpace space;
  for (const auto& [name, values] : params) {
    space.AddKnob(Knob::Ordered(name, std::vector<KnobValue>(values.begin(), values.end())));
  }
  for (const std::string& r : restrictions) space.AddRestriction(r);
  return space;
}

std::vector<int64_t> Range(int64_t from, int64_t to, int64_t step = 1, int64_t scale = 1) {
  std::vector<int64_t> v;
  for (int64_t i = from; i < to; i += step) v.push_back(i * scale);
  return v;
}

struct RecordedSpace {
  std::string name;
  Params params;
  std::vector<std::string> restrictions;
  uint64_t raw;
  uint64_t valid;
};

std::vector<RecordedSpace> T1Spaces() {
  std::vector<int64_t> tile_size = {1};
  for (int64_t i = 1; i < 11; ++i) tile_size.push_back(2 * i);
  return {
      {"convolution",
       {{"block_size_x", {1, 2, 4, 8, 16, 32, 48, 64, 96, 112, 128}},
        {"block_size_y", {1, 2, 4, 8, 16, 32}},
        {"filter_height", {15}},
        {"filter_width", {15}},
        {"read_only", {0, 1}},
        {"tile_size_x", Range(1, 9)},
        {"tile_size_y", Range(1, 9)},
        {"use_padding", {0, 1}}},
       {"block_size_x*block_size_y>=64", "block_size_x*block_size_y<=1024",
        "tile_size_x*tile_size_y<30"},
       16896,
       6768},
      {"convolution_milo",
       {{"block_size_x", Range(1, 17, 1, 16)},
        {"block_size_y", {1, 2, 4, 8, 16}},
        {"tile_size_x", {1, 2, 3, 4}},
        {"tile_size_y", {1, 2, 3, 4}},
        {"read_only", {0, 1}},
        {"use_padding", {0, 1}},
        {"use_shmem", {0, 1}},
        {"use_cmem", {1}},
        {"filter_height", {15}},
        {"filter_width", {15}}},
       {"use_padding==0 or block_size_x % 32 != 0", "block_size_x*block_size_y<=1024",
        "use_padding==0 or use_shmem != 0",
        "use_shmem == 0 or (((block_size_x*tile_size_x+(filter_width-1)))*((block_size_y*tile_"
        "size_y+(filter_height-1)))) < 12*1024"},
       10240,
       4362},
      {"dedispersion_milo",
       {{"block_size_x", {1, 2, 4, 8, 16, 32}},
        {"block_size_y", Range(4, 33, 1, 8)},
        {"block_size_z", {1}},
        {"tile_size_x", {1, 2, 3, 4}},
        {"tile_size_y", Range(1, 9)},
        {"tile_stride_x", {0, 1}},
        {"tile_stride_y", {0, 1}},
        {"loop_unroll_factor_channel", {0}}},
       {"32 <= block_size_x * block_size_y <= 1024", "tile_size_x > 1 or tile_stride_x == 0",
        "tile_size_y > 1 or tile_stride_y == 0"},
       22272,
       11130},
      {"pnpoly",
       {{"between_method", {0, 1, 2, 3}},
        {"block_size_x", Range(1, 32, 1, 32)},  // [32 * i for i in range(1, 32)]
        {"tile_size", tile_size},               // [1] + [2 * i for i in range(1, 11)]
        {"use_method", {0, 1, 2}}},
       {},
       4092,
       4092},
  };
}

TEST(RecordedSpacesTest, T1ValidCounts) {
  for (const RecordedSpace& rs : T1Spaces()) {
    SCOPED_TRACE(rs.name);
    ConfigSpace space = Build(rs.params, rs.restrictions);
    EXPECT_EQ(space.RawSize(), rs.raw);
    EXPECT_EQ(space.CountValid(), rs.valid);
    EXPECT_EQ(space.ValidIndices().size(), rs.valid);
    // Brute force through IsValid agrees with the pruned enumeration.
    uint64_t brute = 0;
    for (uint64_t i = 0; i < space.RawSize(); ++i) brute += space.IsValid(space.FromDenseIndex(i));
    EXPECT_EQ(brute, rs.valid);
  }
}

// The same spaces read from the shared T1 files (Kernel Tuner's benchmark hub format), when
// present: values are Python list literals (JSON-compatible, except pnpoly's comprehensions).
TEST(RecordedSpacesTest, T1FilesMatchTheHardCodedSpaces) {
  std::string dir = testing::SharedDatasetsDir();
  if (dir.empty()) GTEST_SKIP() << "shared datasets not found (set GLIMPSE_SHARED_DATASETS)";
  const std::map<std::string, std::vector<int64_t>> comprehensions = {
      {"[32 * i for i in range(1, 32)]", Range(1, 32, 1, 32)},
      {"[1] + [2 * i for i in range(1, 11)]", {1, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20}},
  };
  for (const RecordedSpace& rs : T1Spaces()) {
    SCOPED_TRACE(rs.name);
    std::filesystem::path path = std::filesystem::path(dir) / "t1" / (rs.name + ".json");
    if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not found";
    std::ifstream in(path);
    Json file = Json::parse(in);
    const Json& cs = file.at("ConfigurationSpace");
    Params params;
    for (const Json& p : cs.at("TuningParameters")) {
      std::string text = p.at("Values").get<std::string>();
      std::vector<int64_t> values;
      if (auto it = comprehensions.find(text); it != comprehensions.end()) {
        values = it->second;
      } else {
        values = Json::parse(text).get<std::vector<int64_t>>();
      }
      params.emplace_back(p.at("Name").get<std::string>(), values);
    }
    std::vector<std::string> restrictions;
    if (cs.contains("Conditions")) {
      for (const Json& c : cs.at("Conditions")) restrictions.push_back(c.at("Expression"));
    }
    ConfigSpace space = Build(params, restrictions);
    EXPECT_EQ(space.RawSize(), rs.raw);
    EXPECT_EQ(space.CountValid(), rs.valid);
  }
}

// CLBlast's Xgemm space as recorded in gemm/RTX_3090.json.gz ("tune_params").
ConfigSpace GemmSpace() {
  return Build({{"MWG", {16, 32, 64, 128}},
                {"NWG", {16, 32, 64, 128}},
                {"KWG", {32}},
                {"MDIMC", {8, 16, 32}},
                {"NDIMC", {8, 16, 32}},
                {"MDIMA", {8, 16, 32}},
                {"NDIMB", {8, 16, 32}},
                {"KWI", {2}},
                {"VWM", {1, 2, 4, 8}},
                {"VWN", {1, 2, 4, 8}},
                {"STRM", {0}},
                {"STRN", {0}},
                {"SA", {0, 1}},
                {"SB", {0, 1}},
                {"PRECISION", {32}}},
               {"KWG % KWI == 0", "MWG % (MDIMC * VWM) == 0", "NWG % (NDIMC * VWN) == 0",
                "MWG % (MDIMA * VWM) == 0", "NWG % (NDIMB * VWN) == 0",
                "KWG % ((MDIMC * NDIMC)/MDIMA) == 0", "KWG % ((MDIMC * NDIMC)/NDIMB) == 0"});
}

TEST(RecordedSpacesTest, GemmValidCount) {
  ConfigSpace space = GemmSpace();
  EXPECT_EQ(space.RawSize(), 82944u);
  EXPECT_EQ(space.CountValid(), 17956u);  // Python brute force, see the top of this file
  std::vector<uint64_t> valid = space.ValidIndices();
  ASSERT_EQ(valid.size(), 17956u);
  uint64_t brute = 0;
  for (uint64_t i = 0; i < space.RawSize(); ++i) brute += space.IsValid(space.FromDenseIndex(i));
  EXPECT_EQ(brute, 17956u);
  // `/` is true division: (MDIMC * NDIMC) / MDIMA = 8 * 8 / 32 = 2.0, and 32 % 2.0 == 0.0.
  Json config = {{"MWG", 64},   {"NWG", 64},   {"KWG", 32}, {"MDIMC", 8}, {"NDIMC", 8},
                 {"MDIMA", 32}, {"NDIMB", 32}, {"KWI", 2},  {"VWM", 2},   {"VWN", 2},
                 {"STRM", 0},   {"STRN", 0},   {"SA", 0},   {"SB", 1},    {"PRECISION", 32}};
  EXPECT_TRUE(space.IsValid(space.ConfigFromJson(config)));
  config["MDIMC"] = 16;  // 16 * 8 / 32 = 4.0 still divides 32, but MWG % (16 * 2) == 0 too
  EXPECT_TRUE(space.IsValid(space.ConfigFromJson(config)));
  config["VWM"] = 8;  // 64 % (16 * 8) != 0
  EXPECT_FALSE(space.IsValid(space.ConfigFromJson(config)));
}

}  // namespace
}  // namespace glimpse
