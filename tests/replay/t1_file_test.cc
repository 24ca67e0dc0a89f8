// T1 input files: parameters (JSON lists and Python list expressions) and conditions, and their
// use as the knobs and restrictions of a recorded space.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "glimpse/replay.h"
#include "replay_test_util.h"

namespace glimpse {
namespace {

using testing::ErrorMessageOf;
using testing::MakeTempDir;
using testing::RepoDataPath;
using testing::TestDataPath;
using testing::WriteTextFile;

std::vector<int64_t> IntValues(const Knob& knob) {
  std::vector<int64_t> values;
  for (const KnobValue& value : knob.values()) values.push_back(std::get<int64_t>(value));
  return values;
}

TEST(T1File, ReadsComprehensionsAndSumsOfLists) {
  T1Space t1 = LoadT1File(RepoDataPath("recorded/t1/pnpoly.json"));
  EXPECT_EQ(t1.benchmark_name, "pnpoly");
  ASSERT_EQ(t1.knobs.size(), 4u);
  EXPECT_EQ(t1.knobs[0].name(), "between_method");
  EXPECT_EQ(IntValues(t1.knobs[0]), (std::vector<int64_t>{0, 1, 2, 3}));
  // "[32 * i for i in range(1, 32)]"
  std::vector<int64_t> block;
  for (int64_t i = 1; i < 32; ++i) block.push_back(32 * i);
  EXPECT_EQ(IntValues(t1.knobs[1]), block);
  // "[1] + [2 * i for i in range(1, 11)]"
  EXPECT_EQ(IntValues(t1.knobs[2]), (std::vector<int64_t>{1, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20}));
  EXPECT_TRUE(t1.restrictions.empty());
}

TEST(T1File, ReadsConditions) {
  T1Space t1 = LoadT1File(RepoDataPath("recorded/t1/convolution_milo.json"));
  ASSERT_EQ(t1.knobs.size(), 10u);
  EXPECT_EQ(t1.knobs[0].name(), "block_size_x");
  EXPECT_EQ(t1.knobs[0].size(), 16u);
  ASSERT_EQ(t1.restrictions.size(), 4u);
  EXPECT_EQ(t1.restrictions[1], "block_size_x*block_size_y<=1024");
}

TEST(T1File, ValueFormsAndTypes) {
  std::string dir = MakeTempDir("glimpse-t1");
  std::string path = WriteTextFile(dir, "forms.json", R"({
    "General": {"BenchmarkName": "forms"},
    "ConfigurationSpace": {
      "TuningParameters": [
        {"Name": "json_list", "Type": "int", "Values": [3, 1, 2]},
        {"Name": "strided", "Type": "int", "Values": "[i for i in range(10, 0, -4)]"},
        {"Name": "layout", "Type": "string", "Values": "['row', \"col\"]"},
        {"Name": "ratio", "Type": "float", "Values": "[1, 0.5, 1 / 4,]"},
        {"Name": "flag", "Type": "int", "Values": "[False, True]"}
      ],
      "Conditions": [{"Expression": "json_list != strided"}]}})");
  T1Space t1 = LoadT1File(path);
  ASSERT_EQ(t1.knobs.size(), 5u);
  EXPECT_EQ(IntValues(t1.knobs[0]), (std::vector<int64_t>{3, 1, 2}));  // order kept
  EXPECT_EQ(IntValues(t1.knobs[1]), (std::vector<int64_t>{10, 6, 2}));
  EXPECT_EQ(t1.knobs[2].kind(), KnobKind::kCategorical);
  EXPECT_EQ(std::get<std::string>(t1.knobs[2].ValueAt(1)), "col");
  EXPECT_EQ(t1.knobs[3].kind(), KnobKind::kOrdered);
  ASSERT_EQ(t1.knobs[3].size(), 3u);
  EXPECT_DOUBLE_EQ(std::get<double>(t1.knobs[3].ValueAt(0)), 1.0);
  EXPECT_DOUBLE_EQ(std::get<double>(t1.knobs[3].ValueAt(2)), 0.25);
  EXPECT_EQ(IntValues(t1.knobs[4]), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(t1.restrictions, (std::vector<std::string>{"json_list != strided"}));
}

TEST(T1File, MalformedFilesNameThePathAndField) {
  std::string dir = MakeTempDir("glimpse-t1-bad");
  struct Case {
    const char* name;
    const char* text;
    const char* says;
  };
  const Case cases[] = {
      {"not_json.json", "{", "not valid JSON"},
      {"huge_number.json", "99999e999", "not valid JSON"},  // found by the t1 fuzz target
      {"no_space.json", R"({"General": {}})", "ConfigurationSpace"},
      {"no_values.json", R"({"ConfigurationSpace": {"TuningParameters": [{"Name": "a"}]}})",
       "TuningParameters[0] 'a' has no \"Values\""},
      {"bad_values.json",
       R"x({"ConfigurationSpace": {"TuningParameters": [{"Name": "a", "Values": "range(4)"}]}})x",
       "'a': Values"},
      {"bad_condition.json",
       R"({"ConfigurationSpace": {"TuningParameters": [{"Name": "a", "Values": [1]}],
           "Conditions": [{"Parameters": ["a"]}]}})",
       "Conditions[0]"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::string path = WriteTextFile(dir, c.name, c.text);
    std::string message = ErrorMessageOf([&] { LoadT1File(path); });
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find(c.says), std::string::npos) << message;
  }
}

TEST(T1File, GivesTheRecordedSpaceItsKnobsAndRestrictions) {
  ReplayLoadOptions options;
  options.t1_path = RepoDataPath("recorded/t1/pnpoly.json");
  RecordedSpace recorded = LoadRecordedSpace(TestDataPath("pnpoly_small.json"), options);
  EXPECT_EQ(recorded.entries.size(), 6u);
  EXPECT_EQ(recorded.space.RawSize(), 4u * 31u * 11u * 3u);

  options.restrictions = {"tile_size > 1"};
  RecordedSpace restricted = LoadRecordedSpace(TestDataPath("pnpoly_small.json"), options);
  EXPECT_EQ(restricted.entries.size(), 3u);
  EXPECT_EQ(restricted.outside_restrictions, 3);
  ASSERT_EQ(restricted.space.restrictions().size(), 1u);
}

TEST(T1File, RecordedValueTheT1LacksIsAnError) {
  std::string dir = MakeTempDir("glimpse-t1-mismatch");
  std::string t1 = WriteTextFile(dir, "t1.json", R"({"ConfigurationSpace": {"TuningParameters": [
      {"Name": "between_method", "Values": "[0, 1, 2, 3]"},
      {"Name": "block_size_x", "Values": "[32, 64]"},
      {"Name": "tile_size", "Values": "[1, 2, 4]"},
      {"Name": "use_method", "Values": "[0, 1, 2]"}]}})");
  ReplayLoadOptions options;
  options.t1_path = t1;
  std::string path = TestDataPath("pnpoly_small.json");
  std::string message = ErrorMessageOf([&] { LoadRecordedSpace(path, options); });
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("knob 'block_size_x' has value 544"), std::string::npos) << message;
  EXPECT_NE(message.find(t1), std::string::npos) << message;

  std::string fewer = WriteTextFile(dir, "fewer.json", R"({"ConfigurationSpace": {
      "TuningParameters": [{"Name": "between_method", "Values": "[0, 1, 2, 3]"}]}})");
  options.t1_path = fewer;
  message = ErrorMessageOf([&] { LoadRecordedSpace(path, options); });
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("'block_size_x'"), std::string::npos) << message;
}

}  // namespace
}  // namespace glimpse
