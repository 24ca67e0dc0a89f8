// GpuRunner and its worker: the artifact file, the "no CUDA device" results on a
// machine without one (a missing driver, a fake driver with zero devices), and — on a machine
// with a GPU — a correct kernel measured, a planted out-of-bounds write (runtime-device, then a
// fresh worker runs the next candidate), a planted infinite loop (run-timeout), a wrong answer, a
// prepare kernel, and the dense template end to end. Kernels are compiled with NVRTC through
// GpuBuilder::BuildKernels.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cuda/driver/gpu_artifact.h"
#include "cuda/runner_test_util.h"
#include "glimpse/cuda.h"
#include "glimpse/error.h"
#include "glimpse/random.h"
#include "test_paths.h"

namespace glimpse {
namespace {

using cuda_test::FakeDriver;
using cuda_test::HasPart;
using cuda_test::ScopedEnv;
using cuda_test::StartsWith;

// ---- The artifact file

Json ArtifactJson() {
  return {{"cubin", "k.cubin"},
          {"symbol", "k"},
          {"grid", {4, 2, 1}},
          {"block", {64, 1, 1}},
          {"num_inputs", 2},
          {"has_prepare", true},
          {"prepare_grid", {8, 1, 1}},
          {"prepare_block", {128, 1, 1}},
          {"prepared_floats", 512},
          {"arch", "sm_90"},
          {"registers", 32}};
}

TEST(GpuWorkerProtocolTest, ArtifactIsReadAndItsRelativeCubinResolved) {
  std::string dir = testing::MakeTempDir("glimpse-gpu-artifact");
  std::string path = dir + "/k.json";
  std::ofstream(path) << ArtifactJson().dump();
  cuda::GpuArtifact artifact = cuda::ReadGpuArtifact(path);
  EXPECT_EQ(artifact.cubin, dir + "/k.cubin");
  EXPECT_EQ(artifact.symbol, "k");
  EXPECT_EQ(artifact.grid, (std::array<int64_t, 3>{4, 2, 1}));
  EXPECT_EQ(artifact.block, (std::array<int64_t, 3>{64, 1, 1}));
  EXPECT_EQ(artifact.num_inputs, 2);
  EXPECT_TRUE(artifact.has_prepare);
  EXPECT_EQ(artifact.prepare_grid, (std::array<int64_t, 3>{8, 1, 1}));
  EXPECT_EQ(artifact.prepare_block, (std::array<int64_t, 3>{128, 1, 1}));
  EXPECT_EQ(artifact.prepared_floats, 512);

  Json absolute = ArtifactJson();
  absolute["cubin"] = "/elsewhere/k.cubin";
  absolute["has_prepare"] = false;
  absolute.erase("prepare_grid");  // not needed without a prepare kernel
  std::ofstream(path) << absolute.dump();
  artifact = cuda::ReadGpuArtifact(path);
  EXPECT_EQ(artifact.cubin, "/elsewhere/k.cubin");
  EXPECT_FALSE(artifact.has_prepare);
  std::filesystem::remove_all(dir);
}

TEST(GpuWorkerProtocolTest, BadArtifactsNameTheFileAndField) {
  auto error_of = [](const Json& json) -> std::string {
    try {
      cuda::GpuArtifactFromJson(json, "/w/k7.json");
    } catch (const Error& error) {
      return error.what();
    }
    return "";
  };
  Json no_symbol = ArtifactJson();
  no_symbol.erase("symbol");
  EXPECT_PRED_FORMAT2(StartsWith, error_of(no_symbol), "/w/k7.json: missing field 'symbol'");
  Json zero_block = ArtifactJson();
  zero_block["block"] = {0, 1, 1};
  EXPECT_PRED_FORMAT2(HasPart, error_of(zero_block), "'block' must be [x, y, z]");
  Json short_grid = ArtifactJson();
  short_grid["grid"] = {4, 2};
  EXPECT_PRED_FORMAT2(HasPart, error_of(short_grid), "'grid'");
  Json no_prepare_launch = ArtifactJson();
  no_prepare_launch.erase("prepare_block");
  EXPECT_PRED_FORMAT2(HasPart, error_of(no_prepare_launch), "'prepare_block'");
  EXPECT_THROW(cuda::ReadGpuArtifact("/nonexistent/k.json"), Error);
}

// ---- The runner without a device

Task DenseTask(const std::string& op_text) {
  Task task;
  task.name = op_text;
  task.device = "gpu";
  task.description = OperatorToJson(ParseOperator(op_text));
  task.description["target"] = "cuda";
  return task;
}

TEST(GpuRunnerTest, BadOptionsAreErrors) {
  GpuRunnerOptions options;
  options.min_repeats = 0;
  EXPECT_THROW(GpuRunner{options}, Error);
  options = {};
  options.timeout_s = 0;
  EXPECT_THROW(GpuRunner{options}, Error);
  options = {};
  options.device = -1;
  EXPECT_THROW(GpuRunner{options}, Error);
  options = {};
  options.rtol = 0;
  EXPECT_THROW(GpuRunner{options}, Error);
}

TEST(GpuRunnerTest, WithoutADriverEveryCandidateSaysNoCudaDevice) {
  ScopedEnv env("GLIMPSE_CUDA_DRIVER", cuda_test::kMissingDriver);
  Task task = DenseTask("dense:M=4,N=4,K=4");
  GpuRunner runner;
  std::vector<MeasureInput> inputs(3, MeasureInput{&task, Config{}});
  std::vector<BuildResult> builds(3);
  builds[0].artifact = "/tmp/a.json";
  builds[1].status = MeasureStatus::kCompileDevice;  // a failed build passes through
  builds[1].error = "ptxas: too many resources";
  builds[2].artifact = "/tmp/b.json";
  std::vector<MeasureResult> results = runner.Run(inputs, builds);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].status, MeasureStatus::kRuntimeDevice);
  EXPECT_PRED_FORMAT2(StartsWith, results[0].error, "no CUDA device: cannot load");
  EXPECT_PRED_FORMAT2(HasPart, results[0].error, cuda_test::kMissingDriver);
  EXPECT_EQ(results[1].status, MeasureStatus::kCompileDevice);
  EXPECT_EQ(results[1].error, "ptxas: too many resources");
  EXPECT_EQ(results[2].status, MeasureStatus::kRuntimeDevice);
  EXPECT_EQ(results[2].error, results[0].error);
  EXPECT_FALSE(results[0].ok());
  // The worker said so once; the runner does not start another to hear it again.
  EXPECT_EQ(runner.workers_started(), 1);
  EXPECT_EQ(runner.no_device_reason(), results[0].error);
  EXPECT_EQ(runner.device_name(), "");
}

TEST(GpuRunnerTest, ADriverWithZeroDevicesIsNoCudaDevice) {
  if (FakeDriver().empty()) GTEST_SKIP() << "this build has no fake libcuda";
  ScopedEnv env("GLIMPSE_CUDA_DRIVER", FakeDriver());
  ScopedEnv mode("GLIMPSE_FAKE_CUDA_MODE", "zero-devices");
  Task task = DenseTask("dense:M=4,N=4,K=4");
  GpuRunner runner;
  BuildResult build;
  build.artifact = "/tmp/a.json";
  std::vector<MeasureResult> results = runner.Run({MeasureInput{&task, Config{}}}, {build});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, MeasureStatus::kRuntimeDevice);
  EXPECT_PRED_FORMAT2(HasPart, results[0].error, "no CUDA device: the driver");
  EXPECT_PRED_FORMAT2(HasPart, results[0].error, "reports 0 devices");
}

TEST(GpuRunnerTest, AMissingWorkerIsRuntimeDeviceNamingIt) {
  GpuRunnerOptions options;
  options.worker_path = "/nonexistent/glimpse_gpu_worker";
  GpuRunner runner(options);
  Task task = DenseTask("dense:M=4,N=4,K=4");
  BuildResult build;
  build.artifact = "/tmp/a.json";
  std::vector<MeasureResult> results = runner.Run({MeasureInput{&task, Config{}}}, {build});
  EXPECT_EQ(results[0].status, MeasureStatus::kRuntimeDevice);
  EXPECT_PRED_FORMAT2(HasPart, results[0].error, "/nonexistent/glimpse_gpu_worker");
  EXPECT_THROW(runner.Run({MeasureInput{&task, Config{}}}, {}), Error);
}

// ---- The worker's whole protocol on an emulated device (tests/cuda/fake_driver)

class EmulatedGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda_test::FakeGpu().empty()) GTEST_SKIP() << "this build has no emulating fake libcuda";
    driver_.emplace("GLIMPSE_CUDA_DRIVER", cuda_test::FakeGpu());
    mode_.emplace("GLIMPSE_FAKE_CUDA_MODE", "emulate");
    mnk_.emplace("GLIMPSE_FAKE_DENSE_MNK", "4,8,16");
    dir_ = testing::MakeTempDir("glimpse-gpu-emulated");
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  // An artifact for the fake kernel `symbol` (its name picks what the fake driver does).
  BuildResult Artifact(const std::string& symbol, int num_inputs = 2) {
    std::ofstream(dir_ + "/" + symbol + ".cubin") << "not a real module";
    Json json = {{"cubin", dir_ + "/" + symbol + ".cubin"},
                 {"symbol", symbol},
                 {"grid", {1, 1, 1}},
                 {"block", {32, 1, 1}},
                 {"num_inputs", num_inputs},
                 {"has_prepare", false}};
    std::ofstream(dir_ + "/" + symbol + ".json") << json.dump();
    BuildResult build;
    build.artifact = dir_ + "/" + symbol + ".json";
    build.compile_time_s = 0.5;
    return build;
  }

  static GpuRunnerOptions Options() {
    GpuRunnerOptions options;
    options.min_repeats = 5;
    options.min_time_s = 1.0;  // never reached at 4 µs per run: max_repeats ends the loop
    options.max_repeats = 9;
    options.timeout_s = 10;
    return options;
  }

  std::optional<ScopedEnv> driver_, mode_, mnk_;
  std::string dir_;
  Task task_ = DenseTask("dense:M=4,N=8,K=16");
};

TEST_F(EmulatedGpuTest, CorrectKernelIsTimedAndAFaultGetsAFreshWorker) {
  GpuRunner runner(Options());
  std::vector<MeasureInput> inputs(4, MeasureInput{&task_, Config{}});
  std::vector<MeasureResult> results =
      runner.Run(inputs, {Artifact("fake_dense"), Artifact("fake_fault"), Artifact("fake_dense"),
                          Artifact("fake_dense")});
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0].status, MeasureStatus::kOk) << results[0].error;
  EXPECT_EQ(results[0].samples_s.size(), 9u);
  EXPECT_NEAR(results[0].time_s, 4e-6, 1e-9);  // the fake's float milliseconds
  EXPECT_GE(results[0].cost_s, 0.5);           // the compile time counts
  EXPECT_EQ(runner.device_name(), "Fake GPU");
  EXPECT_EQ(results[1].status, MeasureStatus::kRuntimeDevice);
  EXPECT_PRED_FORMAT2(HasPart, results[1].error, "CUDA_ERROR_ILLEGAL_ADDRESS");
  EXPECT_PRED_FORMAT2(HasPart, results[1].error, "cuCtxSynchronize");
  EXPECT_TRUE(std::isinf(results[1].time_s));
  EXPECT_EQ(results[2].status, MeasureStatus::kOk) << results[2].error;
  EXPECT_EQ(results[3].status, MeasureStatus::kOk) << results[3].error;
  EXPECT_EQ(runner.workers_started(), 2);  // one fault, one replacement
}

TEST_F(EmulatedGpuTest, AHangIsRunTimeoutAndTheWorkerIsReplaced) {
  GpuRunnerOptions options = Options();
  options.timeout_s = 1.5;
  GpuRunner runner(options);
  std::vector<MeasureInput> inputs(2, MeasureInput{&task_, Config{}});
  std::vector<MeasureResult> results =
      runner.Run(inputs, {Artifact("fake_hang"), Artifact("fake_dense")});
  EXPECT_EQ(results[0].status, MeasureStatus::kRunTimeout) << results[0].error;
  EXPECT_GE(results[0].cost_s, 1.5);
  EXPECT_LT(results[0].cost_s, 10.0);
  EXPECT_EQ(results[1].status, MeasureStatus::kOk) << results[1].error;
  EXPECT_EQ(runner.workers_started(), 2);
}

TEST_F(EmulatedGpuTest, WrongAnswersAndBadArtifactsKeepTheWorker) {
  GpuRunner runner(Options());
  std::vector<MeasureInput> inputs(4, MeasureInput{&task_, Config{}});
  BuildResult missing = Artifact("fake_dense");
  missing.artifact = dir_ + "/absent.json";
  std::vector<MeasureResult> results = runner.Run(
      inputs,
      {Artifact("fake_nothing"), missing, Artifact("fake_three", 3), Artifact("fake_dense")});
  EXPECT_EQ(results[0].status, MeasureStatus::kWrongAnswer);
  EXPECT_PRED_FORMAT2(HasPart, results[0].error, "output element 0 is");
  EXPECT_PRED_FORMAT2(HasPart, results[0].error, "nan");  // never written
  EXPECT_EQ(results[1].status, MeasureStatus::kRuntimeDevice);
  EXPECT_PRED_FORMAT2(HasPart, results[1].error, "absent.json");
  EXPECT_EQ(results[2].status, MeasureStatus::kRuntimeDevice);
  EXPECT_PRED_FORMAT2(HasPart, results[2].error, "the kernel takes 3 inputs, the operator has 2");
  EXPECT_EQ(results[3].status, MeasureStatus::kOk) << results[3].error;
  EXPECT_EQ(runner.workers_started(), 1);
}

TEST_F(EmulatedGpuTest, AFailedStartFailsOnlyItsCandidate) {
  GpuRunner runner(Options());
  std::vector<MeasureInput> inputs(2, MeasureInput{&task_, Config{}});
  {
    ScopedEnv fail("GLIMPSE_FAKE_CUDA_CONTEXT_FAILS", "1");
    std::vector<MeasureResult> results = runner.Run({inputs[0]}, {Artifact("fake_dense")});
    EXPECT_EQ(results[0].status, MeasureStatus::kRuntimeDevice);
    EXPECT_PRED_FORMAT2(StartsWith, results[0].error,
                        "cannot start CUDA on device 0 (Fake GPU): cuCtxCreate: ");
    EXPECT_EQ(runner.no_device_reason(), "");
  }
  // The device exists: the next candidate gets a new worker, which starts.
  std::vector<MeasureResult> results = runner.Run({inputs[1]}, {Artifact("fake_dense")});
  EXPECT_EQ(results[0].status, MeasureStatus::kOk) << results[0].error;
  EXPECT_EQ(runner.workers_started(), 2);
}

TEST_F(EmulatedGpuTest, DeviceQueryReadsTheDriver) {
  CudaDeviceInfo info = QueryCudaDevice(0);
  EXPECT_EQ(info.name, "Fake GPU");
  EXPECT_EQ(info.l2_bytes, 1 << 20);
  EXPECT_EQ(info.memory_bytes, int64_t{1} << 30);
  EXPECT_EQ(info.driver_version, 13000);
  EXPECT_EQ(CudaUnavailableReason(), "");
  try {
    QueryCudaDevice(1);
    FAIL() << "device 1 of 1 was queried";
  } catch (const Error& error) {
    EXPECT_PRED_FORMAT2(HasPart, error.what(), "CUDA device 1 does not exist; the driver counts 1");
  }
}

// ---- With a device (skipped where there is none)

// dense:M=256,N=256,K=256 (A[M,K], B[N,K], out[M,N]): one thread per output element, 64 threads
// per block along N, one block row per M. `store` is the statement that writes `acc`.
CudaKernel DenseKernel(const std::string& symbol, const std::string& store,
                       const std::string& before = "") {
  CudaKernel kernel;
  kernel.symbol = symbol;
  kernel.code = "extern \"C\" __global__ void " + symbol +
                "(const float* __restrict__ a, const float* __restrict__ b,\n"
                "    float* __restrict__ out) {\n"
                "  const int m = blockIdx.y, n = blockIdx.x * blockDim.x + threadIdx.x;\n" +
                before +
                "  float acc = 0.0f;\n"
                "  for (int k = 0; k < 256; ++k) acc += a[m * 256 + k] * b[n * 256 + k];\n  " +
                store + "\n}\n";
  kernel.launch.grid = {4, 256, 1};
  kernel.launch.block = {64, 1, 1};
  kernel.num_inputs = 2;
  return kernel;
}

// A prologue that never ends: the inputs are drawn from [-1, 1], so a[0] < 2 always holds, and a
// volatile read of global memory is one the compiler cannot fold. (A loop on a volatile local
// variable was compiled away: on an H200 with CUDA 13's NVRTC that kernel ran to completion.)
constexpr const char* kSpinForever = "  while (*(const volatile float*)a < 2.0f) {}\n";

CudaKernel CorrectKernel(const std::string& symbol) {
  return DenseKernel(symbol, "out[m * 256 + n] = acc;");
}

// The prepare step writes Bᵀ; the kernel reads it (coalesced along n) instead of B.
CudaKernel PreparedKernel(const std::string& symbol) {
  CudaKernel kernel;
  kernel.symbol = symbol;
  kernel.code =
      "extern \"C\" __global__ void " + symbol +
      "_prepare(const float* __restrict__ a,\n"
      "    const float* __restrict__ b, float* __restrict__ bt) {\n"
      "  const int i = blockIdx.x * blockDim.x + threadIdx.x;  // i = k * 256 + n\n"
      "  if (a != nullptr) return;  // activations are hidden from the prepare step\n"
      "  bt[i] = b[(i % 256) * 256 + i / 256];\n}\n"
      "extern \"C\" __global__ void " +
      symbol +
      "(const float* __restrict__ a,\n"
      "    const float* __restrict__ b, const float* __restrict__ bt, float* __restrict__ out) {\n"
      "  const int m = blockIdx.y, n = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  float acc = 0.0f;\n"
      "  for (int k = 0; k < 256; ++k) acc += a[m * 256 + k] * bt[k * 256 + n];\n"
      "  out[m * 256 + n] = acc;\n}\n";
  kernel.launch.grid = {4, 256, 1};
  kernel.launch.block = {64, 1, 1};
  kernel.num_inputs = 2;
  kernel.has_prepare = true;
  kernel.prepare_launch.grid = {256, 1, 1};
  kernel.prepare_launch.block = {256, 1, 1};
  kernel.prepared_floats = 256 * 256;
  return kernel;
}

// Every kernel the device tests plant.
std::vector<CudaKernel> PlantedKernels() {
  return {CorrectKernel("dense_ok"),
          DenseKernel("dense_oob", "out[m * 256 + n + (1ll << 34)] = acc;"),
          DenseKernel("dense_hang", "out[m * 256 + n] = acc;", kSpinForever),
          DenseKernel("dense_wrong", "out[m * 256 + n] = acc * 1.01f;"),
          DenseKernel("dense_hole", "if (n != 77) out[m * 256 + n] = acc;"),
          PreparedKernel("dense_prepared")};
}

// The planted kernels of the device tests below, hand-written CUDA, compile for sm_90 here, so
// that a GPU machine only has to run them.
TEST(GpuRunnerKernelsTest, PlantedKernelsCompileWithoutADevice) {
  if (!NvrtcAvailable()) GTEST_SKIP() << "NVRTC not available in this build";
  std::string dir = testing::MakeTempDir("glimpse-gpu-planted");
  GpuBuilderOptions options;
  options.work_dir = dir;
  options.arch = "sm_90";
  options.parallel_invocations = 2;
  GpuBuilder builder(options);
  std::vector<CudaKernel> kernels = PlantedKernels();
  std::vector<BuildResult> builds = builder.BuildKernels(kernels);
  ASSERT_EQ(builds.size(), kernels.size());
  for (size_t i = 0; i < builds.size(); ++i) {
    EXPECT_EQ(builds[i].status, MeasureStatus::kOk) << kernels[i].symbol << builds[i].error;
    cuda::GpuArtifact artifact = cuda::ReadGpuArtifact(builds[i].artifact);
    EXPECT_EQ(artifact.symbol, kernels[i].symbol);
    EXPECT_EQ(artifact.has_prepare, kernels[i].has_prepare);
    EXPECT_TRUE(std::filesystem::exists(artifact.cubin)) << artifact.cubin;
  }
  std::filesystem::remove_all(dir);
}

class GpuDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string why = CudaUnavailableReason(); !why.empty()) GTEST_SKIP() << why;
    if (!NvrtcAvailable()) GTEST_SKIP() << "NVRTC not available in this build";
    dir_ = testing::MakeTempDir("glimpse-gpu-runner");
    GpuBuilderOptions options;
    options.work_dir = dir_;
    options.arch = QueryCudaDevice(0).Arch();
    options.limits = ToGpuLimits(QueryCudaDevice(0));
    options.parallel_invocations = 2;
    builder_ = std::make_unique<GpuBuilder>(options);
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  std::vector<BuildResult> Build(const std::vector<CudaKernel>& kernels) {
    std::vector<BuildResult> builds = builder_->BuildKernels(kernels);
    for (size_t i = 0; i < builds.size(); ++i) {
      EXPECT_EQ(builds[i].status, MeasureStatus::kOk) << kernels[i].symbol << builds[i].error;
    }
    return builds;
  }

  static GpuRunnerOptions FastOptions() {
    GpuRunnerOptions options;
    options.min_time_s = 0.01;
    options.timeout_s = 30;
    return options;
  }

  std::string dir_;
  std::unique_ptr<GpuBuilder> builder_;
  Task task_ = DenseTask("dense:M=256,N=256,K=256");
};

TEST_F(GpuDeviceTest, CorrectKernelIsMeasuredAndAFaultGetsAFreshWorker) {
  std::vector<BuildResult> builds = Build({
      CorrectKernel("dense_ok"),
      // 2^34 floats past the output: far outside any allocation.
      DenseKernel("dense_oob", "out[m * 256 + n + (1ll << 34)] = acc;"),
      CorrectKernel("dense_ok_again"),
  });
  GpuRunner runner(FastOptions());
  std::vector<MeasureInput> inputs(3, MeasureInput{&task_, Config{}});
  std::vector<MeasureResult> results = runner.Run(inputs, builds);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].status, MeasureStatus::kOk) << results[0].error;
  EXPECT_GE(results[0].samples_s.size(), 3u);
  EXPECT_GT(results[0].time_s, 0.0);
  EXPECT_LT(results[0].time_s, 0.01);  // 33 MFLOP: microseconds on any CUDA GPU
  EXPECT_EQ(results[1].status, MeasureStatus::kRuntimeDevice);
  EXPECT_PRED_FORMAT2(HasPart, results[1].error, "CUDA_ERROR_ILLEGAL_ADDRESS");
  EXPECT_EQ(results[2].status, MeasureStatus::kOk) << results[2].error;
  EXPECT_EQ(runner.workers_started(), 2);
  EXPECT_FALSE(runner.device_name().empty());
  std::cout << runner.device_name() << ": dense 256³ median " << results[0].time_s * 1e6
            << " µs over " << results[0].samples_s.size() << " runs\n";
}

TEST_F(GpuDeviceTest, AnInfiniteLoopIsRunTimeoutAndTheNextCandidateRuns) {
  std::vector<BuildResult> builds = Build({
      DenseKernel("dense_hang", "out[m * 256 + n] = acc;", kSpinForever),
      CorrectKernel("dense_after_hang"),
  });
  GpuRunnerOptions options = FastOptions();
  options.timeout_s = 5;
  GpuRunner runner(options);
  std::vector<MeasureInput> inputs(2, MeasureInput{&task_, Config{}});
  std::vector<MeasureResult> results = runner.Run(inputs, builds);
  EXPECT_EQ(results[0].status, MeasureStatus::kRunTimeout) << results[0].error;
  EXPECT_GE(results[0].cost_s, 5.0);
  EXPECT_EQ(results[1].status, MeasureStatus::kOk) << results[1].error;
  EXPECT_EQ(runner.workers_started(), 2);
}

TEST_F(GpuDeviceTest, WrongAnswersDoNotCountAndPrepareKernelsRunFirst) {
  std::vector<BuildResult> builds = Build({
      DenseKernel("dense_wrong", "out[m * 256 + n] = acc * 1.01f;"),
      DenseKernel("dense_hole", "if (n != 77) out[m * 256 + n] = acc;"),  // one column unwritten
      PreparedKernel("dense_prepared"),
  });
  GpuRunner runner(FastOptions());
  std::vector<MeasureInput> inputs(3, MeasureInput{&task_, Config{}});
  std::vector<MeasureResult> results = runner.Run(inputs, builds);
  EXPECT_EQ(results[0].status, MeasureStatus::kWrongAnswer);
  EXPECT_PRED_FORMAT2(HasPart, results[0].error, "output element");
  EXPECT_EQ(results[1].status, MeasureStatus::kWrongAnswer);
  EXPECT_PRED_FORMAT2(HasPart, results[1].error, "nan");
  EXPECT_EQ(results[2].status, MeasureStatus::kOk) << results[2].error;
  EXPECT_EQ(runner.workers_started(), 1);  // none of these harms the context
}

TEST_F(GpuDeviceTest, DenseTemplateConfigurationsRunCorrectly) {
  const Operator op = ParseOperator("dense:M=64,N=512,K=256,bias=1,relu=1");
  Task task = MakeGpuTask(op, QueryCudaDevice(0).name);
  Rng rng(3);
  std::vector<MeasureInput> inputs;
  for (int i = 0; i < 8; ++i) {
    std::optional<Config> config = task.space.SampleValid(rng);
    ASSERT_TRUE(config.has_value());
    inputs.push_back({&task, *config});
  }
  std::vector<BuildResult> builds = builder_->Build(inputs);
  GpuRunner runner(FastOptions());
  std::vector<MeasureResult> results = runner.Run(inputs, builds);
  int ok = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    // The builder may refuse a configuration the device cannot launch; nothing may run wrong.
    EXPECT_NE(results[i].status, MeasureStatus::kWrongAnswer) << results[i].error;
    EXPECT_NE(results[i].status, MeasureStatus::kRuntimeDevice) << results[i].error;
    ok += results[i].ok();
  }
  EXPECT_GT(ok, 0);
}

}  // namespace
}  // namespace glimpse
