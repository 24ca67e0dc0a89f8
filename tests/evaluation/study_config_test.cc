// Study files: the shipped studies parse, and every mistake is one Error naming the study file and
// the field.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "glimpse/error.h"
#include "glimpse/evaluation.h"
#include "glimpse/model_tuner.h"
#include "glimpse/tuner.h"
#include "test_paths.h"

namespace glimpse {
namespace {

std::string SourcePath(const std::string& relative) {
  return std::string(GLIMPSE_SOURCE_DIR) + "/" + relative;
}

// A valid study on the bundled spaces, as JSON to break in each test.
Json ValidStudy() {
  return Json::parse(R"({
    "root": ")" + testing::RepoDataPath("recorded") +
                     R"(",
    "groups": [{"name": "pnpoly", "files": ["pnpoly/RTX_3090.json.gz"], "t1": "t1/pnpoly.json"}],
    "strategies": [{"name": "random"}, {"name": "tl", "tuner": "xgb",
                                        "transfer": "leave-one-device-out"}],
    "seeds": 2, "max_measurements": 30
  })");
}

// The message of the Error that parsing `json` throws ("" when none).
std::string ErrorOf(const Json& json, const std::string& root_override = "") {
  try {
    ParseStudyConfig(json, "study.json", root_override);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(StudyConfigTest, QuickStudyParsesWithItsDefaults) {
  StudyConfig study = LoadStudyConfig(SourcePath("bench/configs/quick.json"));
  ASSERT_EQ(study.groups.size(), 2u);
  EXPECT_EQ(study.groups[0].name, "convolution_milo");
  EXPECT_TRUE(std::filesystem::is_regular_file(study.Resolve(study.groups[1].files[0])));
  EXPECT_TRUE(std::filesystem::is_regular_file(study.Resolve(study.groups[1].t1)));
  EXPECT_EQ(study.seeds, 3);
  EXPECT_EQ(study.max_measurements, 100);
  EXPECT_EQ(study.max_seconds, 0.0);
  EXPECT_EQ(study.first_batch, 64);
  RegisterModelTuners();
  for (const StudyStrategy& strategy : study.strategies) {
    EXPECT_EQ(strategy.tuner, strategy.name);  // tuner defaults to the name
    // The quick study runs on every build: each of its strategies is registered.
    EXPECT_NO_THROW(MakeTuner(strategy.tuner)) << strategy.tuner;
  }
}

TEST(StudyConfigTest, FullStudyCoversEverySharedSpace) {
  if (testing::SharedDatasetsDir().empty()) {
    GTEST_SKIP() << "../shared/datasets/benchmark_hub is not beside the checkout";
  }
  StudyConfig study =
      LoadStudyConfig(SourcePath("bench/configs/full.json"), testing::SharedDatasetsDir());
  size_t files = 0;
  for (const StudyGroup& group : study.groups) files += group.files.size();
  EXPECT_EQ(study.groups.size(), 5u);
  EXPECT_EQ(files, 6u + 6u + 4u + 4u + 3u);
  EXPECT_EQ(study.seeds, 25);
  EXPECT_EQ(study.max_measurements, 400);
  bool transfer = false;
  for (const StudyStrategy& strategy : study.strategies) transfer |= !strategy.transfer.empty();
  EXPECT_TRUE(transfer);
}

TEST(StudyConfigTest, RootDefaultsToTheStudysDirectoryAndCanBeOverridden) {
  const std::string dir = testing::MakeTempDir("glimpse-study");
  std::filesystem::copy(testing::RepoDataPath("recorded/pnpoly/RTX_3090.json.gz"),
                        dir + "/space.json.gz");
  Json json = {{"groups", {{{"name", "g"}, {"files", {"space.json.gz"}}}}},
               {"strategies", {{{"name", "random"}}}}};
  {
    std::ofstream out(dir + "/study.json");
    out << json.dump();
  }
  StudyConfig study = LoadStudyConfig(dir + "/study.json");
  EXPECT_EQ(study.root, dir);
  // An override that lacks the file: the error names the field and the --root.
  try {
    LoadStudyConfig(dir + "/study.json", testing::RepoDataPath("recorded"));
    FAIL() << "expected an Error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("groups[0].files[0]"), std::string::npos)
        << error.what();
  }
}

TEST(StudyConfigTest, ErrorsNameTheStudyAndTheField) {
  struct Case {
    const char* what;
    std::function<void(Json&)> edit;
    const char* expected;  // part of the message
  };
  const std::vector<Case> cases = {
      {"unknown top-level key", [](Json& j) { j["seed"] = 3; }, "study.json: seed: unknown key"},
      {"unknown group key", [](Json& j) { j["groups"][0]["device"] = "x"; },
       "groups[0].device: unknown key"},
      {"missing file", [](Json& j) { j["groups"][0]["files"].push_back("pnpoly/none.json"); },
       "groups[0].files[1]: no such file"},
      {"missing t1", [](Json& j) { j["groups"][0]["t1"] = "t1/none.json"; }, "groups[0].t1"},
      {"empty files", [](Json& j) { j["groups"][0]["files"] = Json::array(); },
       "groups[0].files: expected a non-empty array"},
      {"duplicate group", [](Json& j) { j["groups"].push_back(j["groups"][0]); },
       "groups[1].name: duplicate"},
      {"bad transfer", [](Json& j) { j["strategies"][1]["transfer"] = "all"; },
       "strategies[1].transfer: unknown mode 'all'"},
      {"transfer without xgb", [](Json& j) { j["strategies"][1]["tuner"] = "ga"; },
       "strategies[1].transfer: transfer learning needs a strategy that learns from history; 'ga' "
       "does not"},
      {"duplicate strategy", [](Json& j) { j["strategies"][1]["name"] = "random"; },
       "strategies[1].name: duplicate"},
      {"options not an object", [](Json& j) { j["strategies"][0]["options"] = 3; },
       "strategies[0].options"},
      {"zero seeds", [](Json& j) { j["seeds"] = 0; }, "seeds: expected an integer"},
      {"no budget", [](Json& j) { j["max_measurements"] = nullptr; }, "max_measurements"},
      {"fraction out of range",
       [](Json& j) {
         j["fractions"] = {0.5, 1.5};
       },
       "fractions[1]"},
      {"checkpoint not a number", [](Json& j) { j["checkpoints"] = {"25"}; }, "checkpoints[0]"},
      {"no strategies", [](Json& j) { j.erase("strategies"); }, "strategies: missing"},
      {"not an object", [](Json& j) { j = Json::array(); }, "top level: expected an object"},
  };
  EXPECT_EQ(ErrorOf(ValidStudy()), "");
  for (const Case& c : cases) {
    Json json = ValidStudy();
    c.edit(json);
    std::string message = ErrorOf(json);
    EXPECT_NE(message.find(c.expected), std::string::npos) << c.what << ": got '" << message << "'";
    EXPECT_EQ(message.rfind("study.json: ", 0), 0u) << c.what << ": " << message;
  }
  EXPECT_NE(ErrorOf(ValidStudy(), "/no/such/dir").find("--root"), std::string::npos);
}

TEST(StudyConfigTest, SelectKeepsOneGroupOrStrategyAndListsTheKnownOnes) {
  StudyConfig study = ParseStudyConfig(ValidStudy(), "study.json");
  study.Select("", "tl");
  ASSERT_EQ(study.strategies.size(), 1u);
  EXPECT_EQ(study.strategies[0].name, "tl");
  EXPECT_EQ(study.groups.size(), 1u);
  try {
    study.Select("gemm", "");
    FAIL() << "expected an Error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("known: pnpoly"), std::string::npos);
  }
}

}  // namespace
}  // namespace glimpse
