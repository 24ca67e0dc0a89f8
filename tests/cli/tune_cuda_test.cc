// `glimpse tune --target cuda` on a machine without a usable CUDA device (GLIMPSE_CUDA_DRIVER
// points at a missing library, so the tests behave the same with or without a GPU): the clean
// "no CUDA device" error, --build-only (NVRTC compiles and checks candidates, nothing runs, the
// database keeps statuses without times, a rerun resumes), every strategy in build-only mode, and
// the flags that suit other targets refused.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "cli_fixture.h"
#include "glimpse/cuda.h"
#include "glimpse/database.h"

namespace glimpse::testing {
namespace {

namespace fs = std::filesystem;

const char* const kDense = "dense:M=16,N=16,K=16";

class CliCudaTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    // The glimpse child process inherits this: the driver cannot be loaded, whatever the machine.
    setenv("GLIMPSE_CUDA_DRIVER", "/nonexistent/libcuda.so.1", /*overwrite=*/1);
  }
  void TearDown() override { unsetenv("GLIMPSE_CUDA_DRIVER"); }

  static std::vector<std::string> CudaArgs(std::vector<std::string> args) {
    std::vector<std::string> out = {"tune", "--target", "cuda", "--progress", "quiet"};
    out.insert(out.end(), args.begin(), args.end());
    return out;
  }

  void ExpectError(std::vector<std::string> args, const std::string& expected) {
    args.insert(args.end(), {"--db", Db()});
    CommandResult result = RunGlimpse(args);
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_EQ(result.err.rfind("glimpse: error: ", 0), 0u) << result.err;
    EXPECT_NE(result.err.find(expected), std::string::npos)
        << "expected '" << expected << "' in: " << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_TRUE(result.out.empty()) << result.out;
    EXPECT_FALSE(fs::exists(Db())) << "a failed command left a database behind";
  }
};

TEST_F(CliCudaTest, WithoutADeviceTuningIsAOneLineErrorBeforeAnyWork) {
  ExpectError(CudaArgs({"--op", kDense, "--budget", "4"}),
              "glimpse: error: no CUDA device: cannot load the CUDA driver library");
  ExpectError(CudaArgs({"--model", "resnet18", "--global-budget", "100"}), "no CUDA device: ");
}

TEST_F(CliCudaTest, FlagsOfOtherTargetsAreRefused) {
  ExpectError(CudaArgs({"--op", kDense, "--threads", "2"}),
              "--threads needs --target cpu (not understood by --target cuda)");
  ExpectError(CudaArgs({"--op", kDense, "--space", "x.json"}),
              "--space applies to replayed spaces (--space), not to --target cuda");
  ExpectError(CudaArgs({"--op", kDense, "--noise"}), "--noise applies to replayed spaces");
  ExpectError({"tune", "--target", "cpu", "--op", kDense, "--arch", "sm_90"},
              "--arch needs --target cuda (not understood by --target cpu)");
  ExpectError({"tune", "--target", "cpu", "--op", kDense, "--build-only"},
              "--build-only needs --target cuda");
  ExpectError({"tune", "--space", "x.json", "--gpu", "1"}, "--gpu needs --target cuda");
  ExpectError({"tune", "--space", "x.json", "--build-timeout", "5"},
              "--build-timeout needs --target cpu or --target cuda");
  ExpectError(CudaArgs({}), "--target cuda needs --model NAME (known: resnet18");
  ExpectError(CudaArgs({"--op", kDense, "--build-only", "--arch", "sm_1"}),
              "--arch: unknown CUDA architecture 'sm_1'");
  ExpectError(CudaArgs({"--op", kDense, "--build-only", "--gpu", "-1"}),
              "--gpu must be a CUDA device ordinal");
  ExpectError(CudaArgs({"--op", kDense, "--build-only", "--build-timeout", "0"}),
              "--build-timeout must be a positive number");
  // --compile: a model with a graph, and records measured on the GPU.
  ExpectError(CudaArgs({"--model", "resnet18", "--build-only", "--compile", "lib"}),
              "--compile takes measured records, and --build-only measures none");
  ExpectError(CudaArgs({"--op", kDense, "--compile", "lib"}),
              "--compile needs a model with a graph");
  ExpectError({"tune", "--space", "x.json", "--compile", "lib"},
              "--compile needs --target cpu or --target cuda");
}

std::vector<TuningRecord> RecordsOf(const std::string& db, const std::string& key) {
  return Database(db, /*create=*/false).Records(key);
}

TEST_F(CliCudaTest, BuildOnlyCompilesAndChecksWithoutADeviceAndResumes) {
  if (!NvrtcAvailable()) GTEST_SKIP() << "this build has no NVRTC";
  std::vector<std::string> args =
      CudaArgs({"--op", kDense, "--build-only", "--arch", "sm_80", "--tuner", "random", "--budget",
                "8", "--seed", "5", "--build-jobs", "2", "--db", Db(), "--json"});
  CommandResult first = RunGlimpse(args);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  Json report = Json::parse(first.out);
  EXPECT_EQ(report["target"], "cuda");
  EXPECT_EQ(report["arch"], "sm_80");
  EXPECT_EQ(report["build_only"], true);
  EXPECT_TRUE(report["estimated_latency_s"].is_null());
  const Json task = report["tasks"][0];
  EXPECT_EQ(task["status"], "built") << task.dump();
  EXPECT_EQ(task["measurements"], 8);
  EXPECT_TRUE(task["best"].is_null());

  std::vector<TuningRecord> records = RecordsOf(Db(), task["workload_key"]);
  ASSERT_EQ(records.size(), 8u);
  const std::set<MeasureStatus> allowed = {MeasureStatus::kOk, MeasureStatus::kCompileDevice,
                                           MeasureStatus::kInstantiation};
  int64_t ok = 0;
  std::set<std::string> distinct;
  for (const TuningRecord& record : records) {
    EXPECT_EQ(record.device, "build-only sm_80");
    EXPECT_TRUE(allowed.count(record.status)) << StatusName(record.status) << ": " << record.error;
    EXPECT_TRUE(std::isinf(record.time_s)) << "a build-only record has a time";
    EXPECT_TRUE(record.samples_s.empty());
    if (record.status == MeasureStatus::kOk) {
      ++ok;
      EXPECT_GT(record.compile_time_s, 0.0);
    } else {
      EXPECT_FALSE(record.error.empty());
    }
    distinct.insert(record.config_hash);
  }
  EXPECT_GT(ok, 0) << "no candidate of a 16³ dense compiled";
  EXPECT_EQ(distinct.size(), 8u);

  // The table says what happened.
  args.pop_back();  // --json
  CommandResult table = RunGlimpse(args);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("build only: candidates were compiled"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("not run"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("8 (0 new)"), std::string::npos) << "a rerun resumes:\n" << table.out;
  EXPECT_EQ(RecordsOf(Db(), task["workload_key"]).size(), 8u);
}

TEST_F(CliCudaTest, EveryRegisteredTunerRunsInBuildOnlyMode) {
  if (!NvrtcAvailable()) GTEST_SKIP() << "this build has no NVRTC";
  CommandResult list = RunGlimpse({"tune", "--list-tuners"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  std::vector<std::string> tuners;
  std::istringstream lines(list.out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) tuners.push_back(line.substr(0, line.find(' ')));
  }
  ASSERT_GE(tuners.size(), 7u) << list.out;
  const std::map<std::string, std::vector<std::string>> options = {
      {"xgb", {"plan_size=4", "sa_n_iter=40"}},
      {"xgb-reg", {"plan_size=4", "sa_n_iter=40"}},
      {"xgb-rounds", {"plan_size=4", "sa_n_iter=40"}},  // plan_size bounds the paced plan
      {"chameleon", {"plan_size=4", "sa_n_iter=40", "k_min=2"}},
      {"ga", {"population=4", "elite=2"}},
  };
  for (const std::string& tuner : tuners) {
    SCOPED_TRACE(tuner);
    std::string db = Db(tuner + ".db");
    std::vector<std::string> args =
        CudaArgs({"--op", kDense, "--build-only", "--tuner", tuner, "--budget", "6", "--batch", "3",
                  "--seed", "3", "--db", db, "--json"});
    if (auto it = options.find(tuner); it != options.end()) {
      for (const std::string& option : it->second) {
        args.insert(args.end(), {"--tuner-option", option});
      }
    }
    CommandResult result = RunGlimpse(args);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const Json task = Json::parse(result.out)["tasks"][0];
    EXPECT_EQ(task["measurements"], 6) << task.dump();
    std::vector<TuningRecord> records = RecordsOf(db, task["workload_key"]);
    ASSERT_EQ(records.size(), 6u);
    for (const TuningRecord& record : records) EXPECT_EQ(record.strategy, tuner);
  }
}

}  // namespace
}  // namespace glimpse::testing
