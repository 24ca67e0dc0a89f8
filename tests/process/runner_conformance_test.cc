// One conformance suite for every runner that measures in a worker process (the CPU runner, and the
// GPU runner on the emulated device of tests/cuda/fake_driver): each must turn a correct kernel, a
// kernel that crashes its worker, one that hangs, one that computes a wrong answer, one whose
// worker answers something unreadable, and one whose answer has a status no runner knows into the
// same statuses, replace the worker where it can no longer be trusted, and measure the next
// candidate correctly.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cpu/cpu_fixtures.h"
#include "cuda/runner_test_util.h"
#include "glimpse/cpu.h"
#include "glimpse/cuda.h"
#include "glimpse/random.h"
#include "test_paths.h"

namespace glimpse {
namespace {

using cuda_test::HasPart;
using cuda_test::ScopedEnv;

enum class Kernel { kCorrect, kCrash, kHang, kWrong, kUnreadable, kUnknownStatus };

// What one target contributes: its runner, and a built candidate that behaves as asked.
class RunnerUnderTest {
 public:
  virtual ~RunnerUnderTest() = default;
  virtual Runner& runner() = 0;
  virtual int workers_started() const = 0;
  virtual BuildResult Build(Kernel kernel) = 0;
  const Task& task() const { return task_; }

 protected:
  // M, N, K as the emulated GPU's dense kernel computes them.
  Task task_ = MakeCpuTask(ParseOperator("dense:M=4,N=8,K=16"));
};

class CpuRunnerUnderTest : public RunnerUnderTest {
 public:
  CpuRunnerUnderTest(const std::string& dir, double timeout_s)
      : builder_(testing::FastBuild(dir)), runner_([&] {
          CpuRunnerOptions options = testing::FastRun();
          options.timeout_s = timeout_s;
          return options;
        }()) {
    Rng rng(5);
    config_ = *task_.space.SampleValid(rng);
  }
  Runner& runner() override { return runner_; }
  int workers_started() const override { return runner_.workers_started(); }

  BuildResult Build(Kernel kernel) override {
    const std::string symbol = "conformance_" + std::to_string(built_++);
    const std::string signature =
        "extern \"C\" void " + symbol + "(const float* const* inputs, float* output)";
    // The real kernel under another name, for the cases that compute the right answer.
    const std::string real = GenerateCpuKernel(task_, config_, symbol + "_real");
    auto say_once = [&](const std::string& line) {
      return "#include <cstdio>\n" + real + signature + " { static bool said = false; " +
             "if (!said) { said = true; std::fputs(\"" + line + "\\n\", stdout); " +
             "std::fflush(stdout); } " + symbol + "_real(inputs, output); }\n";
    };
    std::string code;
    switch (kernel) {
      case Kernel::kCorrect:
        code = GenerateCpuKernel(task_, config_, symbol);
        break;
      case Kernel::kCrash:
        code = signature + " { volatile float* p = nullptr; *p = inputs[0][0]; }\n";
        break;
      case Kernel::kHang:
        code = signature + " { for (;;) asm volatile(\"\"); }\n";
        break;
      case Kernel::kWrong:
        code = real + signature + " { " + symbol + "_real(inputs, output); output[0] += 1.0f; }\n";
        break;
      case Kernel::kUnreadable:
        code = say_once("}garbage{");
        break;
      case Kernel::kUnknownStatus:
        code = say_once("{\\\"status\\\": \\\"melted\\\"}");
        break;
    }
    std::vector<BuildResult> built = builder_.BuildSources({{code, symbol}});
    EXPECT_EQ(built[0].status, MeasureStatus::kOk) << built[0].error;
    return built[0];
  }

 private:
  CpuBuilder builder_;
  CpuRunner runner_;
  Config config_;
  int built_ = 0;
};

// The GPU runner and its real worker on the emulating fake libcuda: the kernel's symbol picks
// what the fake device does.
class EmulatedGpuRunnerUnderTest : public RunnerUnderTest {
 public:
  EmulatedGpuRunnerUnderTest(const std::string& dir, double timeout_s)
      : dir_(dir),
        driver_("GLIMPSE_CUDA_DRIVER", cuda_test::FakeGpu()),
        mode_("GLIMPSE_FAKE_CUDA_MODE", "emulate"),
        mnk_("GLIMPSE_FAKE_DENSE_MNK", "4,8,16"),
        runner_([&] {
          GpuRunnerOptions options;
          options.min_repeats = 3;
          options.max_repeats = 5;
          options.timeout_s = timeout_s;
          return options;
        }()) {}
  Runner& runner() override { return runner_; }
  int workers_started() const override { return runner_.workers_started(); }

  BuildResult Build(Kernel kernel) override {
    const char* symbol = "fake_dense";
    switch (kernel) {
      case Kernel::kCorrect:
        symbol = "fake_dense";
        break;
      case Kernel::kCrash:
        symbol = "fake_crash";
        break;
      case Kernel::kHang:
        symbol = "fake_hang";
        break;
      case Kernel::kWrong:
        symbol = "fake_nothing";
        break;
      case Kernel::kUnreadable:
        symbol = "fake_garbage";
        break;
      case Kernel::kUnknownStatus:
        symbol = "fake_melted";
        break;
    }
    const std::string stem = dir_ + "/" + symbol + std::to_string(built_++);
    std::ofstream(stem + ".cubin") << "not a real module";
    Json artifact = {{"cubin", stem + ".cubin"}, {"symbol", symbol}, {"grid", {1, 1, 1}},
                     {"block", {32, 1, 1}},      {"num_inputs", 2},  {"has_prepare", false}};
    std::ofstream(stem + ".json") << artifact.dump();
    BuildResult build;
    build.artifact = stem + ".json";
    return build;
  }

 private:
  std::string dir_;
  ScopedEnv driver_, mode_, mnk_;
  GpuRunner runner_;
  int built_ = 0;
};

class RunnerConformanceTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "emulated_gpu" && cuda_test::FakeGpu().empty()) {
      GTEST_SKIP() << "this build has no emulating fake libcuda";
    }
    dir_ = testing::MakeTempDir("glimpse-conformance");
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  std::unique_ptr<RunnerUnderTest> Make(double timeout_s = 10.0) {
    if (GetParam() == "cpu") return std::make_unique<CpuRunnerUnderTest>(dir_, timeout_s);
    return std::make_unique<EmulatedGpuRunnerUnderTest>(dir_, timeout_s);
  }

  // Runs `kernels` as one batch and expects the last (a correct kernel) to be measured.
  std::vector<MeasureResult> RunThenCorrect(RunnerUnderTest& target, std::vector<Kernel> kernels) {
    kernels.push_back(Kernel::kCorrect);
    std::vector<MeasureInput> inputs(kernels.size(), MeasureInput{&target.task(), Config{}});
    std::vector<BuildResult> builds;
    for (Kernel kernel : kernels) builds.push_back(target.Build(kernel));
    std::vector<MeasureResult> results = target.runner().Run(inputs, builds);
    EXPECT_EQ(results.size(), kernels.size());
    if (results.empty()) return results;
    const MeasureResult& last = results.back();
    EXPECT_EQ(last.status, MeasureStatus::kOk) << last.error;
    EXPECT_FALSE(last.samples_s.empty());
    EXPECT_GT(last.time_s, 0.0);
    return results;
  }

  std::string dir_;
};

TEST_P(RunnerConformanceTest, ACorrectKernelIsMeasuredAndAFailedBuildPassesThrough) {
  std::unique_ptr<RunnerUnderTest> target = Make();
  BuildResult failed;
  failed.status = MeasureStatus::kCompileHost;
  failed.error = "error: expected ';'";
  failed.compile_time_s = 0.25;
  std::vector<MeasureInput> inputs(2, MeasureInput{&target->task(), Config{}});
  std::vector<MeasureResult> results =
      target->runner().Run(inputs, {failed, target->Build(Kernel::kCorrect)});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, MeasureStatus::kCompileHost);
  EXPECT_EQ(results[0].error, failed.error);
  EXPECT_GE(results[0].cost_s, 0.25);
  EXPECT_EQ(results[1].status, MeasureStatus::kOk) << results[1].error;
  EXPECT_GE(results[1].samples_s.size(), 3u);
  EXPECT_EQ(target->workers_started(), 1);
}

TEST_P(RunnerConformanceTest, ACrashIsRuntimeDeviceAndTheNextCandidateGetsAFreshWorker) {
  std::unique_ptr<RunnerUnderTest> target = Make();
  std::vector<MeasureResult> results = RunThenCorrect(*target, {Kernel::kCrash});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, MeasureStatus::kRuntimeDevice);
  EXPECT_PRED_FORMAT2(HasPart, results[0].error, "died: signal 11");
  EXPECT_EQ(target->workers_started(), 2);
}

TEST_P(RunnerConformanceTest, AHangIsRunTimeoutWithinItsDeadline) {
  std::unique_ptr<RunnerUnderTest> target = Make(1.5);
  std::vector<MeasureResult> results = RunThenCorrect(*target, {Kernel::kHang});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, MeasureStatus::kRunTimeout) << results[0].error;
  EXPECT_GE(results[0].cost_s, 1.5);
  EXPECT_LT(results[0].cost_s, 10.0);
  EXPECT_EQ(target->workers_started(), 2);
}

TEST_P(RunnerConformanceTest, AWrongAnswerIsWrongAnswerAndKeepsTheWorker) {
  std::unique_ptr<RunnerUnderTest> target = Make();
  std::vector<MeasureResult> results = RunThenCorrect(*target, {Kernel::kWrong});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, MeasureStatus::kWrongAnswer);
  EXPECT_PRED_FORMAT2(HasPart, results[0].error, "output element 0 is");
  EXPECT_TRUE(results[0].samples_s.empty());
  EXPECT_EQ(target->workers_started(), 1);
}

TEST_P(RunnerConformanceTest, AnUnreadableAnswerIsUnknownAndTheWorkerIsReplaced) {
  std::unique_ptr<RunnerUnderTest> target = Make();
  std::vector<MeasureResult> results = RunThenCorrect(*target, {Kernel::kUnreadable});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, MeasureStatus::kUnknown);
  EXPECT_PRED_FORMAT2(HasPart, results[0].error, "unreadable worker answer '}garbage{'");
  EXPECT_EQ(target->workers_started(), 2);
}

TEST_P(RunnerConformanceTest, AnUnknownStatusIsUnknownNotAnException) {
  std::unique_ptr<RunnerUnderTest> target = Make();
  std::vector<MeasureResult> results;
  EXPECT_NO_THROW(results = RunThenCorrect(*target, {Kernel::kUnknownStatus}));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, MeasureStatus::kUnknown);
  EXPECT_PRED_FORMAT2(HasPart, results[0].error, "melted");
  EXPECT_EQ(target->workers_started(), 2);
}

INSTANTIATE_TEST_SUITE_P(Runners, RunnerConformanceTest, ::testing::Values("cpu", "emulated_gpu"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace glimpse
