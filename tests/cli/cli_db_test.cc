// `glimpse db …`, `glimpse space show` on real files, and `glimpse space code`.
#include <fstream>

#include "cli_fixture.h"
#include "glimpse/database.h"

namespace glimpse::testing {
namespace {

TEST_F(CliTest, SpaceShowCountsTheBundledSpace) {
  std::vector<std::string> args = {"space",
                                   "show",
                                   RepoDataPath("recorded/convolution_milo/A100.json.gz"),
                                   "--t1",
                                   RepoDataPath("recorded/t1/convolution_milo.json"),
                                   "--json"};
  CommandResult result = RunGlimpse(args);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  Json shown = Json::parse(result.out);
  EXPECT_EQ(shown["raw_size"], 10240);
  EXPECT_EQ(shown["valid_size"], 4362);
  EXPECT_EQ(shown["recorded"], 4362);
  EXPECT_EQ(shown["missing_valid"], 0);
  EXPECT_EQ(shown["by_status"]["ok"], 4201);
  EXPECT_EQ(shown["by_status"]["runtime-device"], 155);
  EXPECT_EQ(shown["by_status"]["compile-device"], 6);
  EXPECT_EQ(shown["knobs"].size(), 10u);
  EXPECT_EQ(shown["restrictions"].size(), 4u);

  args.pop_back();
  CommandResult human = RunGlimpse(args);
  ASSERT_EQ(human.exit_code, 0) << human.err;
  EXPECT_NE(human.out.find("block_size_x"), std::string::npos);
  EXPECT_NE(human.out.find("4,362"), std::string::npos) << human.out;
}

TEST_F(CliTest, DatabaseListBestAndJsonLinesRoundTrip) {
  ASSERT_EQ(RunGlimpse(TuneArgs({"--budget", "50", "--db", Db()})).exit_code, 0);

  CommandResult list = RunGlimpse({"db", "list", "--db", Db(), "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  Json rows = Json::parse(list.out);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["records"], 50);
  std::string key = rows[0]["workload_key"];

  CommandResult best = RunGlimpse({"db", "best", "--db", Db(), "-k", "3", "--json"});
  ASSERT_EQ(best.exit_code, 0) << best.err;
  Json top = Json::parse(best.out);
  ASSERT_EQ(top[0]["best"].size(), 3u);
  EXPECT_LE(top[0]["best"][0]["time_s"].get<double>(), top[0]["best"][1]["time_s"].get<double>());
  EXPECT_DOUBLE_EQ(top[0]["best"][0]["time_s"].get<double>(), rows[0]["best_time_s"].get<double>());

  std::string jsonl = dir_ + "/records.jsonl";
  CommandResult exported = RunGlimpse({"db", "export", "--db", Db(), "-o", jsonl, "--json"});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_EQ(Json::parse(exported.out)["exported"], 50);
  CommandResult import = RunGlimpse({"db", "import", jsonl, "--db", Db("copy.db")});
  ASSERT_EQ(import.exit_code, 0) << import.err;
  Database original(Db(), false), copy(Db("copy.db"), false);
  auto a = original.Records(key), b = copy.Records(key);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].config, b[i].config);
    EXPECT_EQ(a[i].status, b[i].status);
    EXPECT_EQ(a[i].samples_s, b[i].samples_s);
  }
}

TEST_F(CliTest, SpaceCodePrintsTheKernelOfAConfiguration) {
  // A 3-channel first layer, its plain input read in place by one-block tiles: it prefetches.
  const std::string op = "conv2d:N=1,C=3,H=13,W=13,K=32,R=3,S=3,stride=2,pad=1,bias=1";
  const std::string config =
      R"({"layout":"NCHWc","tile_k":[1,2,16],"tile_oh":[7,1],"tile_ow":[1,1,7],)"
      R"("tile_c":[3,1],"order":[0,2,3,4,1],"parallel":"oh","vectorize":1,"unroll":1,)"
      R"("padding":"guard"})";
  CommandResult code = RunGlimpse({"space", "code", "--op", op, "--config", config});
  ASSERT_EQ(code.exit_code, 0) << code.err;
  EXPECT_NE(code.out.find("extern \"C\" void kernel(const float* const* inputs, float* output)"),
            std::string::npos)
      << code.out;
  EXPECT_NE(code.out.find("__builtin_prefetch(&I["), std::string::npos) << code.out;
  CommandResult nest = RunGlimpse({"space", "code", "--op", op, "--config", config, "--nest"});
  ASSERT_EQ(nest.exit_code, 0) << nest.err;
  EXPECT_NE(nest.out.find("for "), std::string::npos) << nest.out;
  EXPECT_EQ(nest.out.find("extern"), std::string::npos) << nest.out;
  // Not JSON, and a knob the space lacks: refused, naming what is wrong.
  CommandResult bad = RunGlimpse({"space", "code", "--op", op, "--config", "tile_m=4"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("--config"), std::string::npos) << bad.err;
  CommandResult unknown =
      RunGlimpse({"space", "code", "--op", op, "--config", R"({"tile_q":[1]})"});
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_FALSE(unknown.err.empty());
}

TEST_F(CliTest, KernelTunerCacheExportIsReadableAsARecordedSpace) {
  ASSERT_EQ(RunGlimpse(TuneArgs({"--budget", "64", "--db", Db()})).exit_code, 0);
  std::string cache = dir_ + "/ours.json";
  CommandResult exported =
      RunGlimpse({"db", "export", "--db", Db(), "--format", "kt-cache", "-o", cache});
  // Without --workload, the one workload the database holds is exported.
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  CommandResult shown = RunGlimpse({"space", "show", cache, "--json"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  Json space = Json::parse(shown.out);
  EXPECT_EQ(space["recorded"], 64);
  EXPECT_EQ(space["device"], "NVIDIA A100-PCIE-40GB");
}

TEST_F(CliTest, ImportingARecordedFileTwiceAddsNothingTheSecondTime) {
  std::vector<std::string> args = {
      "db",   "import", RepoDataPath("recorded/pnpoly/RTX_3090.json.gz"), "--format", "recorded",
      "--db", Db()};
  CommandResult first = RunGlimpse(args);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("imported 4092 records"), std::string::npos) << first.out;
  args.push_back("--json");
  CommandResult second = RunGlimpse(args);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(Json::parse(second.out)["imported"], 0) << second.out;
}

}  // namespace
}  // namespace glimpse::testing
