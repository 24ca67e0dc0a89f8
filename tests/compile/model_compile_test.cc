// `CompileModel` end to end on the ONNX test models (tests/data/onnx): each artifact is built with
// its own CMake project and its harness's output equals ONNX Runtime's recorded output; the
// database's best configuration is what gets compiled; the workspace reuses dead tensors; and a
// user's C program (docs/examples/classify) builds against an artifact and runs it.
#include "glimpse/model_compile.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "compile_test_util.h"
#include "glimpse/cpu.h"
#include "glimpse/cpu_seeds.h"
#include "glimpse/error.h"
#include "glimpse/json.h"
#include "glimpse/onnx_import.h"
#include "glimpse/random.h"
#include "graph_builders.h"
#include "test_paths.h"

namespace glimpse {
namespace {

namespace fs = std::filesystem;
using testing::AddTensor;
using testing::Expected;
using testing::Import;
using testing::MakeOp;
using testing::ReadFloats;
using testing::ReadText;
using testing::WriteFloats;

int Shell(const std::string& command) {
  return std::system((command + " > /dev/null 2>&1").c_str());
}

// Builds the artifact in `dir` with CMake; returns the harness's path.
std::string Build(const fs::path& dir, const std::string& name) {
  const fs::path build = dir / "build";
  EXPECT_EQ(Shell("cmake -S " + dir.string() + " -B " + build.string() +
                  " -DCMAKE_BUILD_TYPE=Release && cmake --build " + build.string() + " -j 2"),
            0)
      << "the artifact in " << dir << " does not build";
  return (build / (name + "_run")).string();
}

// Compiles `name` without a database (with activations kept channel-blocked when `blocked`),
// builds it, runs the harness on the recorded inputs and compares every output with ONNX
// Runtime's.
void ExpectCompiledMatchesOnnxRuntime(const std::string& name, bool blocked = false,
                                      CompileModelReport* compiled = nullptr) {
  const ModelGraph graph = Import(name);
  const Json expected = Expected(name);
  const fs::path dir = testing::MakeTempDir("glimpse_compile_" + name);
  CompileModelOptions options;
  options.out_dir = dir.string();
  options.blocked_activations = blocked;
  const CompileModelReport report = CompileModel(graph, options);
  if (compiled) *compiled = report;
  EXPECT_EQ(report.name, name);
  for (const CompiledKernel& kernel : report.kernels) EXPECT_EQ(kernel.origin, "default");
  EXPECT_EQ(report.estimate_complete, report.kernels.empty());  // defaults have no time
  const std::string harness = Build(dir, name);
  std::string args = " --min-repeats 1 --min-time 0 --warmup 0 --flush-bytes 0";
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    const std::string input = graph.tensors[graph.inputs[i]].name;
    const fs::path path = dir / ("in" + std::to_string(i) + ".bin");
    WriteFloats(path, expected["inputs"][input]["data"].get<std::vector<float>>());
    args += " --input " + path.string();
  }
  for (size_t o = 0; o < graph.outputs.size(); ++o) {
    args += " --output " + (dir / ("out" + std::to_string(o) + ".bin")).string();
  }
  ASSERT_EQ(Shell(harness + args), 0) << harness << args;
  for (size_t o = 0; o < graph.outputs.size(); ++o) {
    const auto want =
        expected["outputs"][graph.tensors[graph.outputs[o]].name]["data"].get<std::vector<float>>();
    const auto got = ReadFloats(dir / ("out" + std::to_string(o) + ".bin"));
    ASSERT_EQ(got.size(), want.size()) << name;
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_NEAR(got[i], want[i], 1e-4 * (1.0 + std::fabs(want[i]))) << name << " output " << i;
    }
  }
}

TEST(CompileModel, ResidualBlockMatchesOnnxRuntime) {
  ExpectCompiledMatchesOnnxRuntime("residual_block");
}

TEST(CompileModel, MobileBlocksAndBatchedProductMatchOnnxRuntime) {
  for (const char* name : {"mobile_block_opset9", "mobile_block_opset13", "batched_product"}) {
    ExpectCompiledMatchesOnnxRuntime(name);
  }
}

// Activations kept channel-blocked between the convolutions: the layers become the blocked
// operators and the pools run on blocked planes — and the outputs stay ONNX Runtime's.
TEST(CompileModel, BlockedActivationsMatchOnnxRuntime) {
  for (const char* name : {"residual_block", "mobile_block_opset13", "mobile_block_opset9"}) {
    CompileModelReport report;
    ExpectCompiledMatchesOnnxRuntime(name, true, &report);
    if (HasFatalFailure()) return;
    int blocked = 0;
    for (const CompiledKernel& kernel : report.kernels) {
      blocked += kernel.op_text.find("out_block=") != std::string::npos;
    }
    EXPECT_GT(blocked, 0) << name;
  }
}

// A graph whose blocked activations meet every kind of reader: a max pool and a global average
// pool on blocked planes, a convolution into a graph output (NCHW), and flattens of a blocked
// activation (a reorder to NCHW) — compiled, built and run against the reference interpreter.
TEST(CompileModel, BlockedActivationsPoolAndReorderWhereReadersWantNchw) {
  ModelGraph graph;
  graph.name = "blocked_readers";
  const int x = AddTensor(graph, "x", {1, 16, 6, 6});
  const int w1 = AddTensor(graph, "w1", {32, 16, 1, 1}, true);
  const int b1 = AddTensor(graph, "b1", {32}, true);
  const int w2 = AddTensor(graph, "w2", {16, 32, 3, 3}, true);
  const int y1 = AddTensor(graph, "y1", {1, 32, 6, 6});
  const int pooled = AddTensor(graph, "pooled", {1, 32, 3, 3});
  const int y2 = AddTensor(graph, "y2", {1, 16, 3, 3}), flat = AddTensor(graph, "flat", {1, 1152});
  const int mean = AddTensor(graph, "mean", {1, 32, 1, 1});
  const int vector = AddTensor(graph, "vector", {1, 32});
  GraphOp pool = MakeOp(GraphOpKind::kMaxPool, "pool", {y1}, pooled);
  pool.kernel = {2, 2};
  pool.strides = {2, 2};
  GraphOp c2 = MakeOp(GraphOpKind::kConv, "c2", {pooled, w2}, y2);
  c2.pads = {1, 1, 1, 1};
  graph.ops = {MakeOp(GraphOpKind::kConv, "c1", {x, w1, b1}, y1), pool, c2,
               MakeOp(GraphOpKind::kFlatten, "flatten", {y1}, flat),
               // A name with a quote, a backslash and a line break: the profile keeps it.
               MakeOp(GraphOpKind::kGlobalAveragePool, "gap \"mean\"\\\n", {pooled}, mean),
               MakeOp(GraphOpKind::kFlatten, "flatten2", {mean}, vector)};
  graph.inputs = {x};
  graph.outputs = {y2, flat, vector};

  const fs::path dir = testing::MakeTempDir("glimpse_compile_blocked");
  CompileModelOptions options;
  options.out_dir = dir.string();
  options.blocked_activations = true;
  const CompileModelReport report = CompileModel(graph, options);
  EXPECT_EQ(report.reorders, 1);  // y1 for the flatten
  EXPECT_EQ(report.reorder_floats, 32 * 6 * 6);
  ASSERT_EQ(report.kernels.size(), 2u);
  EXPECT_NE(report.kernels[0].op_text.find("out_block=16"), std::string::npos);
  EXPECT_NE(report.kernels[1].op_text.find("in_block=16"), std::string::npos);
  EXPECT_EQ(report.kernels[1].op_text.find("out_block"), std::string::npos);  // a graph output
  EXPECT_NE(ReadText(dir / "model.cc").find("glimpse_rt::Reorder("), std::string::npos);

  Rng rng(11);
  std::vector<float> input;
  for (int i = 0; i < 16 * 36; ++i) input.push_back(static_cast<float>(UniformUnit(rng) - 0.5));
  WriteFloats(dir / "in0.bin", input);
  const std::string harness = Build(dir, "blocked_readers");
  const fs::path timing = dir / "timing.json";
  std::string args =
      " --min-repeats 1 --min-time 0 --warmup 0 --flush-bytes 0 --profile 2 --json " +
      timing.string() + " --input " + (dir / "in0.bin").string();
  for (int o = 0; o < 3; ++o)
    args += " --output " + (dir / ("out" + std::to_string(o) + ".bin")).string();
  ASSERT_EQ(Shell(harness + args), 0) << harness << args;

  // A count that is not one is refused with a message (exit 2), not an uncaught exception.
  EXPECT_EQ(WEXITSTATUS(Shell(harness + " --profile x")), 2);
  EXPECT_EQ(WEXITSTATUS(Shell(harness + " --profile -1")), 2);

  // The profile names every step in run order, the reorder before the flatten that wants NCHW.
  std::ifstream timing_in(timing);
  const Json profile = Json::parse(timing_in).at("profile");
  EXPECT_EQ(profile.at("runs"), 2);
  const std::vector<std::pair<std::string, std::string>> steps = {
      {"c1: ", "kernel"},  {"pool: ", "op"},
      {"c2: ", "kernel"},  {"y1: channel block 16 -> 0", "reorder"},
      {"flatten: ", "op"}, {"gap \"mean\"\\\n: ", "op"},
      {"flatten2: ", "op"}};
  ASSERT_EQ(profile.at("steps").size(), steps.size()) << profile.dump(1);
  for (size_t s = 0; s < steps.size(); ++s) {
    const Json& step = profile["steps"][s];
    EXPECT_EQ(step.at("name").get<std::string>().rfind(steps[s].first, 0), 0u) << step.dump();
    EXPECT_EQ(step.at("kind"), steps[s].second) << step.dump();
    EXPECT_GT(step.at("median_s").get<double>(), 0.0) << step.dump();
  }

  const std::vector<std::vector<float>> want = RunModelGraphReference(graph, {input});
  for (int o = 0; o < 3; ++o) {
    const std::vector<float> got = ReadFloats(dir / ("out" + std::to_string(o) + ".bin"));
    ASSERT_EQ(got.size(), want[o].size()) << "output " << o;
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_NEAR(got[i], want[o][i], 1e-4 * (1.0 + std::fabs(want[o][i])))
          << "output " << o << " element " << i;
    }
  }
}

// Convolutions no template describes run as the plain direct convolution.
TEST(CompileModel, UntunableConvolutionsRunAsPlainLoops) {
  for (const char* name : {"grouped_conv", "same_upper"}) ExpectCompiledMatchesOnnxRuntime(name);
}

TEST(CompileModel, TakesTheDatabasesBestAndReusesTheWorkspace) {
  const ModelGraph graph = Import("residual_block");
  const std::vector<GraphLayer> layers = GraphLayers(graph);
  const Task task = MakeCpuTask(layers[0].layer.op);
  // Two records of conv1's task: the faster one is compiled.
  const fs::path dir = testing::MakeTempDir("glimpse_compile_db");
  Database database((dir / "tune.db").string(), /*create=*/true);
  database.PutWorkload({task.WorkloadKey(), task.name, task.description, task.space.ToJson()});
  Rng rng(3);
  std::vector<TuningRecord> records;
  for (double time : {2e-3, 1e-3}) {
    TuningRecord record;
    record.workload_key = task.WorkloadKey();
    record.device = CpuDeviceName();
    const Config config = *task.space.SampleValid(rng);
    record.config = task.space.ConfigToJson(config);
    record.config_hash = HashToHex(task.space.Hash(config));
    record.status = MeasureStatus::kOk;
    record.time_s = time;
    record.samples_s = {time};
    record.strategy = "test";
    records.push_back(record);
  }
  // conv2 (relu=0) has no record; its sibling with a fused ReLU has one.
  Operator sibling_op = layers[1].layer.op;
  std::get<Conv2dShape>(sibling_op).relu = true;
  const Task sibling = MakeCpuTask(sibling_op);
  database.PutWorkload(
      {sibling.WorkloadKey(), sibling.name, sibling.description, sibling.space.ToJson()});
  TuningRecord sibling_record = records[0];
  sibling_record.workload_key = sibling.WorkloadKey();
  const Config sibling_config = *sibling.space.SampleValid(rng);
  sibling_record.config = sibling.space.ConfigToJson(sibling_config);
  sibling_record.config_hash = HashToHex(sibling.space.Hash(sibling_config));
  records.push_back(sibling_record);
  database.CommitBatch(records);
  CompileModelOptions options;
  options.out_dir = (dir / "artifact").string();
  options.database = &database;
  const CompileModelReport report = CompileModel(graph, options);
  ASSERT_EQ(report.kernels.size(), 4u);
  EXPECT_EQ(report.kernels[0].origin, "tuned");
  EXPECT_EQ(report.kernels[0].config, records[1].config);
  EXPECT_DOUBLE_EQ(report.kernels[0].best_time_s, 1e-3);
  EXPECT_EQ(report.kernels[1].origin, "sibling");
  EXPECT_EQ(report.kernels[1].config, sibling_record.config);
  EXPECT_EQ(report.kernels[2].origin, "default");
  EXPECT_FALSE(report.estimate_complete);
  EXPECT_EQ(report.warnings.size(), 3u);  // the three tasks without records of their own
  EXPECT_NE(report.warnings[0].find("another epilogue"), std::string::npos);
  EXPECT_NE(report.warnings[1].find("glimpse tune --target cpu --op"), std::string::npos);
  // The projection takes the residual Add and its ReLU (it comes after conv2, whose output is
  // its residual input).
  EXPECT_NE(report.kernels[2].op_text.find("relu=1,residual=1"), std::string::npos);
  // Intermediates of 1152 floats: conv1's, then conv2's and the projection's (the block's
  // output) at once; unfused, the sum and its ReLU would need two more.
  EXPECT_LT(report.workspace_bytes, int64_t{3} * 1152 * 4);
  const Json manifest = Json::parse(ReadText(dir / "artifact" / "glimpse-compile.json"));
  EXPECT_EQ(manifest["kernels"][0]["origin"], "tuned");
  EXPECT_EQ(manifest["kernels"][0]["layers"], Json({"conv1"}));
}

// docs/examples/classify: a C program built by its own CMake project against the artifact.
// A convolution without records gets its first template seed; an operator whose template has
// none, the roofline's pick (a valid configuration of this machine's space).
TEST(CompileModel, TheDefaultOfAConvolutionIsItsFirstTemplateSeed) {
  const Operator conv = ParseOperator("conv2d:N=1,C=64,H=28,W=28,K=64,R=3,S=3,pad=1,bias=1");
  const ConfigSpace space = MakeCpuSpace(conv, HostRegisterTileFloats());
  const std::vector<Config> seeds = CpuTemplateSeeds(
      conv, space, HostVectorRegisters(), static_cast<int>(std::thread::hardware_concurrency()));
  ASSERT_FALSE(seeds.empty());
  EXPECT_EQ(DefaultCpuConfig(conv), space.ConfigToJson(seeds.front()));
  const Operator dense = ParseOperator("dense:M=1,N=64,K=32");
  const ConfigSpace dense_space = MakeCpuSpace(dense, HostRegisterTileFloats());
  EXPECT_TRUE(dense_space.IsValid(dense_space.ConfigFromJson(DefaultCpuConfig(dense))));
}

TEST(CompileModel, AUsersCProgramLinksTheLibrary) {
  const ModelGraph graph = Import("residual_block");
  const fs::path dir = testing::MakeTempDir("glimpse_compile_user");
  CompileModelOptions options;
  options.out_dir = (dir / "residual_block").string();
  CompileModel(graph, options);
  const fs::path example = fs::path(GLIMPSE_SOURCE_DIR) / "docs/examples/classify";
  ASSERT_EQ(Shell("cmake -S " + example.string() + " -B " + (dir / "build").string() +
                  " -DMODEL_DIR=" + options.out_dir + " && cmake --build " +
                  (dir / "build").string() + " -j 2"),
            0);
  const Json expected = Expected("residual_block");
  WriteFloats(dir / "input.bin", expected["inputs"]["input"]["data"].get<std::vector<float>>());
  const fs::path printed = dir / "printed.txt";
  ASSERT_EQ(std::system(((dir / "build" / "classify").string() + " " +
                         (dir / "input.bin").string() + " > " + printed.string())
                            .c_str()),
            0);
  std::istringstream lines(ReadText(printed));
  const auto want = expected["outputs"]["probabilities"]["data"].get<std::vector<float>>();
  for (float w : want) {
    float got = 0;
    ASSERT_TRUE(lines >> got);
    EXPECT_NEAR(got, w, 1e-5);
  }
}

}  // namespace
}  // namespace glimpse
