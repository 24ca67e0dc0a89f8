// `CompileModel` for the CUDA target on the ONNX test models (tests/data/onnx): the artifact's
// files, the database's best GPU configuration compiled (a winograd one with its weights prepared
// at init), the errors for what the target refuses, and every artifact built with nvcc by its own
// CMake project. On a machine with a CUDA device the harness runs and its outputs must equal ONNX
// Runtime's recorded ones; without one it must say so (exit 3) — build-only.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "compile_test_util.h"
#include "glimpse/cuda.h"
#include "glimpse/database.h"
#include "glimpse/error.h"
#include "glimpse/gpu.h"
#include "glimpse/json.h"
#include "glimpse/model_compile.h"
#include "glimpse/onnx_import.h"
#include "glimpse/random.h"
#include "test_errors.h"
#include "test_paths.h"

namespace glimpse {
namespace {

namespace fs = std::filesystem;
using testing::Expected;
using testing::Import;
using testing::ReadFloats;
using testing::ReadText;
using testing::WriteFloats;

constexpr char kGpu[] = "NVIDIA H100 80GB HBM3";

int ExitCode(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

CompileModelOptions CudaOptions(const fs::path& dir) {
  CompileModelOptions options;
  options.out_dir = dir.string();
  options.target = "cuda";
  options.cuda_arch = "sm_90";
  return options;
}

// The recorded inputs of test model `name`, written as raw float32 files `<prefix><i>.bin` in
// `dir`.
std::vector<std::string> WriteRecordedInputs(const fs::path& dir, const std::string& prefix,
                                             const std::string& name, const ModelGraph& graph) {
  const Json expected = Expected(name);
  std::vector<std::string> paths;
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    paths.push_back((dir / (prefix + std::to_string(i) + ".bin")).string());
    WriteFloats(
        paths.back(),
        expected["inputs"][graph.tensors[graph.inputs[i]].name]["data"].get<std::vector<float>>());
  }
  return paths;
}

// Where the outputs of a run go: `<prefix><o>.bin` in `dir`.
std::vector<std::string> OutputPaths(const fs::path& dir, const std::string& prefix,
                                     const ModelGraph& graph) {
  std::vector<std::string> paths;
  for (size_t o = 0; o < graph.outputs.size(); ++o) {
    paths.push_back((dir / (prefix + std::to_string(o) + ".bin")).string());
  }
  return paths;
}

// Each output file holds ONNX Runtime's recorded output of test model `name`, within 1e-4.
void ExpectOnnxRuntimesOutputs(const std::vector<std::string>& outputs, const std::string& name,
                               const ModelGraph& graph) {
  const Json expected = Expected(name);
  for (size_t o = 0; o < graph.outputs.size(); ++o) {
    const auto want =
        expected["outputs"][graph.tensors[graph.outputs[o]].name]["data"].get<std::vector<float>>();
    const auto got = ReadFloats(outputs[o]);
    ASSERT_EQ(got.size(), want.size()) << name;
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_NEAR(got[i], want[i], 1e-4 * (1.0 + std::fabs(want[i]))) << name << " output " << i;
    }
  }
}

// Builds the artifact in `dir` with CMake and nvcc, runs its harness on the recorded inputs and,
// where a CUDA device ran it, compares every output with ONNX Runtime's.
void ExpectBuildsAndRunsWhereAGpuIs(const fs::path& dir, const std::string& name,
                                    const ModelGraph& graph) {
  if (!NvrtcAvailable()) GTEST_SKIP() << "a build without the CUDA toolkit: no nvcc to build with";
  const fs::path build = dir / "build";
  const std::string log = (dir / "build.log").string();
  ASSERT_EQ(ExitCode("cmake -S " + dir.string() + " -B " + build.string() +
                     " -DCMAKE_BUILD_TYPE=Release > " + log + " 2>&1 && cmake --build " +
                     build.string() + " -j 2 >> " + log + " 2>&1"),
            0)
      << "the CUDA artifact in " << dir << " does not build:\n"
      << ReadText(log);
  EXPECT_TRUE(fs::exists(build / ("lib" + name + ".a")));
  EXPECT_TRUE(fs::exists(build / ("lib" + name + ".so")));

  std::string args = " --min-repeats 1 --min-time 0 --warmup 0";
  for (const std::string& input : WriteRecordedInputs(dir, "in", name, graph)) {
    args += " --input " + input;
  }
  const std::vector<std::string> outputs = OutputPaths(dir, "out", graph);
  for (const std::string& output : outputs) args += " --output " + output;
  const fs::path err = dir / "harness.err";
  const int code =
      ExitCode((build / (name + "_run")).string() + args + " > /dev/null 2> " + err.string());
  if (code == 3) {
    EXPECT_NE(ReadText(err).find("no CUDA device"), std::string::npos) << ReadText(err);
    return;  // built, and nothing to run it on
  }
  ASSERT_EQ(code, 0) << ReadText(err);
  ExpectOnnxRuntimesOutputs(outputs, name, graph);
}

// The artifact of `options` (compiled with cuda_host_emulation) built with the C++ compiler, the
// stand-in CUDA runtime and the driver run_model.cc (tests/compile/cuda_host_emulation), run on the
// recorded inputs of `name`; every output must be ONNX Runtime's.
void ExpectHostEmulationMatchesOnnxRuntime(const fs::path& dir, const std::string& name,
                                           const ModelGraph& graph) {
  std::string upper = name;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string kernels;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string file = entry.path().filename().string();
    if (file.rfind("kernel_", 0) == 0) kernels += " " + entry.path().string();
  }
  const fs::path shim = fs::path(GLIMPSE_SOURCE_DIR) / "tests/compile/cuda_host_emulation";
  const fs::path binary = dir / "emulated";
  const std::string log = (dir / "emulated.log").string();
  ASSERT_EQ(
      ExitCode("c++ -std=c++17 -O1 -fopenmp -w -DGLIMPSE_RT_HOST_EMULATION -I" + shim.string() +
               " -I" + dir.string() + " '-D" + upper + "_WEIGHTS_FILE=\"" +
               (dir / "weights.bin").string() + "\"' -DMODEL=" + name + " '-DMODEL_HEADER=\"" +
               name + ".h\"' -x c++ " + (dir / "model.cu").string() + kernels + " -x none " +
               (dir / "weights.cc").string() + " " + (shim / "run_model.cc").string() + " -o " +
               binary.string() + " > " + log + " 2>&1"),
      0)
      << ReadText(log);
  std::string args;
  for (const std::string& input : WriteRecordedInputs(dir, "emulated_in", name, graph)) {
    args += " " + input;
  }
  const std::vector<std::string> outputs = OutputPaths(dir, "emulated_out", graph);
  for (const std::string& output : outputs) args += " " + output;
  ASSERT_EQ(ExitCode(binary.string() + args), 0);
  ExpectOnnxRuntimesOutputs(outputs, name, graph);
}

// Without a GPU, the artifact as a host emulation — its steps, workspace plan, weights and
// launchers, the plain ops' kernels (glimpse_model_ops.cuh) and each GPU nest's arithmetic —
// computes what ONNX Runtime does, on every ONNX test model.
TEST(CudaModelCompile, TheHostEmulationOfEveryTestModelMatchesOnnxRuntime) {
  for (const char* name : {"residual_block", "mobile_block_opset13", "mobile_block_opset9",
                           "batched_product", "grouped_conv", "same_upper", "symbolic_batch"}) {
    SCOPED_TRACE(name);
    const ModelGraph graph = Import(name);
    const fs::path dir = testing::MakeTempDir(std::string("glimpse_cuda_emulated_") + name);
    CompileModelOptions options = CudaOptions(dir);
    options.cuda_host_emulation = true;
    CompileModel(graph, options);
    ExpectHostEmulationMatchesOnnxRuntime(dir, name, graph);
    if (HasFatalFailure()) return;
  }
}

// Every kind of step: fused convolutions with residual adds, depthwise layers and ReLU6, a
// batched product (its transpose), a grouped convolution (the plain direct one), pooling,
// softmax — each artifact built with nvcc and, on a GPU, checked against ONNX Runtime.
TEST(CudaModelCompile, TheOnnxTestModelsBuildWithNvccAndMatchOnnxRuntimeOnAGpu) {
  for (const char* name :
       {"residual_block", "mobile_block_opset13", "batched_product", "grouped_conv"}) {
    SCOPED_TRACE(name);
    const ModelGraph graph = Import(name);
    const fs::path dir = testing::MakeTempDir(std::string("glimpse_cuda_compile_") + name);
    const CompileModelReport report = CompileModel(graph, CudaOptions(dir));
    EXPECT_EQ(report.steps > 0, true);
    for (size_t k = 0; k < report.kernels.size(); ++k) {
      EXPECT_EQ(report.kernels[k].origin, "default");
      const std::string code = ReadText(dir / ("kernel_" + std::to_string(k) + ".cu"));
      EXPECT_NE(code.find("__global__"), std::string::npos);
      EXPECT_NE(code.find(report.kernels[k].symbol + "_launch("), std::string::npos);
    }
    const std::string model = ReadText(dir / "model.cu");
    EXPECT_NE(model.find(name + std::string("_init(void* workspace")), std::string::npos);
    EXPECT_NE(ReadText(dir / "CMakeLists.txt").find("set(CMAKE_CUDA_ARCHITECTURES 90)"),
              std::string::npos);
    const Json manifest = Json::parse(ReadText(dir / "glimpse-compile.json"));
    EXPECT_EQ(manifest["target"], "cuda");
    EXPECT_EQ(manifest["arch"], "sm_90");
    EXPECT_EQ(manifest["kernels"].size(), report.kernels.size());
    ExpectBuildsAndRunsWhereAGpuIs(dir, name, graph);
    if (HasFatalFailure() || IsSkipped()) return;
  }
}

// The GPU's best record is what gets compiled; a winograd record's kernel transforms its weights
// once, in <name>_init, into the workspace after the weights; records of another GPU do not
// count.
TEST(CudaModelCompile, TakesTheGpusBestRecordAndPreparesWinogradWeightsAtInit) {
  const ModelGraph graph = Import("residual_block");
  const std::vector<GraphLayer> layers = GraphLayers(graph);
  int layer = -1;
  for (size_t i = 0; i < layers.size(); ++i) {
    const auto* conv = std::get_if<Conv2dShape>(&layers[i].layer.op);
    if (conv && conv->r == 3 && conv->s == 3 && conv->stride == 1 && conv->dilation == 1)
      layer = static_cast<int>(i);
  }
  ASSERT_GE(layer, 0) << "residual_block has a 3×3 stride-1 convolution";
  const Task task = MakeGpuTask(layers[layer].layer.op, kGpu);
  Rng rng(5);
  std::optional<Config> winograd;
  for (int i = 0; i < 20000 && !winograd; ++i) {
    std::optional<Config> config = task.space.SampleValid(rng);
    if (!config || task.space.ConfigToJson(*config).at("algorithm") != "winograd") continue;
    if (CheckLaunch(GenerateCudaKernel(task, *config, "k"), GpuLimitsForArch("sm_90")).ok()) {
      winograd = config;
    }
  }
  ASSERT_TRUE(winograd.has_value());
  const fs::path dir = testing::MakeTempDir("glimpse_cuda_compile_db");
  Database database((dir / "tune.db").string(), /*create=*/true);
  database.PutWorkload({task.WorkloadKey(), task.name, task.description, task.space.ToJson()});
  TuningRecord record;
  record.workload_key = task.WorkloadKey();
  record.device = kGpu;
  record.config = task.space.ConfigToJson(*winograd);
  record.config_hash = HashToHex(task.space.Hash(*winograd));
  record.status = MeasureStatus::kOk;
  record.time_s = 2e-5;
  record.samples_s = {2e-5};
  record.strategy = "test";
  TuningRecord other = record;  // faster, on another GPU
  other.device = "NVIDIA A100-SXM4-40GB";
  other.time_s = 1e-5;
  other.config = task.space.ConfigToJson(*task.space.SampleValid(rng));
  database.CommitBatch({record, other});

  CompileModelOptions options = CudaOptions(dir / "artifact");
  options.database = &database;
  options.device = kGpu;
  const CompileModelReport report = CompileModel(graph, options);
  int tuned = -1;
  for (size_t k = 0; k < report.kernels.size(); ++k) {
    if (report.kernels[k].origin == "tuned") tuned = static_cast<int>(k);
  }
  ASSERT_GE(tuned, 0);
  EXPECT_EQ(report.kernels[tuned].config, record.config);
  EXPECT_DOUBLE_EQ(report.kernels[tuned].best_time_s, 2e-5);
  const std::string model = ReadText(dir / "artifact" / "model.cu");
  EXPECT_NE(model.find(report.kernels[tuned].symbol + "_launch_prepare(in, P + 0, stream)"),
            std::string::npos);
  EXPECT_EQ(model.find("kPreparedFloats = 0;"), std::string::npos);
  const Json manifest = Json::parse(ReadText(dir / "artifact" / "glimpse-compile.json"));
  EXPECT_EQ(manifest["device"], kGpu);
  // The workspace holds the weights and the prepared weights besides the intermediates.
  EXPECT_GT(
      manifest["workspace_bytes"].get<int64_t>(),
      manifest["intermediate_bytes"].get<int64_t>() + manifest["weight_bytes"].get<int64_t>());
  ExpectBuildsAndRunsWhereAGpuIs(dir / "artifact", "residual_block", graph);
  if (HasFatalFailure()) return;
  // The winograd kernel's prepared weights, in its host emulation: what it computes from them.
  options.out_dir = (dir / "emulated").string();
  options.cuda_host_emulation = true;
  CompileModel(graph, options);
  ExpectHostEmulationMatchesOnnxRuntime(dir / "emulated", "residual_block", graph);
}

// docs/examples/classify_cuda: a C program built by its own CMake project against the CUDA
// artifact; run where a GPU is, its printed outputs are ONNX Runtime's.
TEST(CudaModelCompile, AUsersCProgramLinksTheLibrary) {
  if (!NvrtcAvailable()) GTEST_SKIP() << "a build without the CUDA toolkit: no nvcc to build with";
  const ModelGraph graph = Import("residual_block");
  const fs::path dir = testing::MakeTempDir("glimpse_cuda_compile_user");
  CompileModel(graph, CudaOptions(dir / "residual_block"));
  const fs::path example = fs::path(GLIMPSE_SOURCE_DIR) / "docs/examples/classify_cuda";
  const std::string log = (dir / "build.log").string();
  ASSERT_EQ(
      ExitCode("cmake -S " + example.string() + " -B " + (dir / "build").string() +
               " -DMODEL_DIR=" + (dir / "residual_block").string() + " > " + log +
               " 2>&1 && cmake --build " + (dir / "build").string() + " -j 2 >> " + log + " 2>&1"),
      0)
      << ReadText(log);
  const Json expected = Expected("residual_block");
  WriteFloats(dir / "input.bin", expected["inputs"]["input"]["data"].get<std::vector<float>>());
  const fs::path printed = dir / "printed.txt";
  const int code = ExitCode((dir / "build" / "classify_cuda").string() + " " +
                            (dir / "input.bin").string() + " > " + printed.string());
  if (code == 3) return;  // built; no CUDA device to run it on
  ASSERT_EQ(code, 0);
  std::istringstream lines(ReadText(printed));
  for (float want : expected["outputs"]["probabilities"]["data"].get<std::vector<float>>()) {
    float got = 0;
    ASSERT_TRUE(lines >> got);
    EXPECT_NEAR(got, want, 1e-5);
  }
}

TEST(CudaModelCompile, RefusesWhatTheTargetCannotDo) {
  const ModelGraph graph = Import("residual_block");
  const fs::path dir = testing::MakeTempDir("glimpse_cuda_compile_refused");
  CompileModelOptions options = CudaOptions(dir);
  options.blocked_activations = true;
  auto message = [&] { return testing::ErrorMessageOf([&] { CompileModel(graph, options); }); };
  EXPECT_NE(message().find("keeps activations NCHW"), std::string::npos) << message();
  options.blocked_activations = false;
  options.cuda_arch = "sm_99";
  EXPECT_NE(message().find("sm_90"), std::string::npos) << message();  // names the known ones
  options.target = "rocm";
  EXPECT_NE(message().find("accepted: cpu, cuda"), std::string::npos) << message();
}

// Without a record: a configuration that launches on the architecture, 64 to 256 threads a block
// where the space has such, and (with NVRTC) whose compiled kernel fits the registers.
TEST(CudaModelCompile, TheDefaultLaunchesOnTheArchitecture) {
  for (const char* text :
       {"conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,pad=1,bias=1,relu=1",
        "depthwise_conv2d:N=1,C=32,H=112,W=112,R=3,S=3,pad=1", "dense:M=1,N=1000,K=512,bias=1"}) {
    SCOPED_TRACE(text);
    const Operator op = ParseOperator(text);
    const Task task = MakeGpuTask(op, "");
    const Config config = task.space.ConfigFromJson(DefaultCudaConfig(op, "sm_80"));
    EXPECT_TRUE(task.space.IsValid(config));
    const CudaKernel kernel = GenerateCudaKernel(task, config, "k");
    EXPECT_TRUE(CheckLaunch(kernel, GpuLimitsForArch("sm_80")).ok());
    EXPECT_GE(kernel.launch.ThreadsPerBlock(), 64);
    EXPECT_LE(kernel.launch.ThreadsPerBlock(), 256);
  }
}

}  // namespace
}  // namespace glimpse
