// Bad input gives one clear line naming what is wrong, a non-zero exit, and no database.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "cli_fixture.h"

namespace glimpse::testing {
namespace {

namespace fs = std::filesystem;

class CliErrorTest : public CliTest {
 protected:
  // Runs a command that must fail: exit 2, one "glimpse: error:" line containing `expected`, and
  // no database file left behind.
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

TEST_F(CliErrorTest, MissingSpaceFileIsNamed) {
  ExpectError({"tune", "--space", dir_ + "/nope.json.gz"}, dir_ + "/nope.json.gz");
}

TEST_F(CliErrorTest, CorruptSpaceFileIsNamed) {
  std::string path = dir_ + "/corrupt.json";
  std::ofstream(path) << "this is not json";
  ExpectError({"tune", "--space", path}, path);
}

TEST_F(CliErrorTest, UnknownTunerListsKnownOnes) {
  ExpectError(TuneArgs({"--tuner", "xgbb"}), "unknown tuner 'xgbb'; known:");
  ExpectError(TuneArgs({"--tuner", "xgbb"}), "random");
}

TEST_F(CliErrorTest, MalformedRestrictionNamesColumn) {
  ExpectError(TuneArgs({"--restrict", "block_size_x < < 4"}), "column");
}

TEST_F(CliErrorTest, RestrictionWithUnknownKnobListsKnobs) {
  ExpectError(TuneArgs({"--restrict", "block_size_q > 4"}), "block_size_q");
  ExpectError(TuneArgs({"--restrict", "block_size_q > 4"}), "block_size_x");
}

TEST_F(CliErrorTest, NonPositiveBudgetIsRefused) {
  ExpectError(TuneArgs({"--budget", "0"}), "budget");
  ExpectError(TuneArgs({"--budget", "-5"}), "budget");
  ExpectError(TuneArgs({"--time-budget", "-1"}), "time-budget");
}

TEST_F(CliErrorTest, BadTunerOptionIsNamed) {
  ExpectError(TuneArgs({"--tuner", "ga", "--tuner-option", "populaton=5"}), "populaton");
  ExpectError(TuneArgs({"--tuner-option", "novalue"}), "key=value");
}

TEST_F(CliErrorTest, BadProgressModeIsNamed) {
  ExpectError(TuneArgs({"--progress", "loud"}), "--progress");
}

TEST_F(CliErrorTest, UnknownFlagIsAParseError) {
  ExpectError(TuneArgs({"--budgett", "5"}), "--budgett");
}

TEST_F(CliErrorTest, DatabaseCommandsRefuseMissingDatabase) {
  CommandResult result = RunGlimpse({"db", "list", "--db", Db("absent.db")});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("absent.db"), std::string::npos) << result.err;
  EXPECT_FALSE(fs::exists(Db("absent.db")));
}

TEST_F(CliErrorTest, NotADatabaseIsRefused) {
  std::string path = Db("garbage.db");
  std::ofstream(path) << "garbage garbage garbage garbage garbage garbage garbage";
  CommandResult result = RunGlimpse({"db", "list", "--db", path});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find(path), std::string::npos) << result.err;
}

TEST_F(CliErrorTest, RestrictionsThatLeaveNothingAreRefused) {
  ExpectError({"tune", "--space", RepoDataPath("recorded/convolution_milo/A100.json.gz"),
               "--restrict", "block_size_x > 100000", "--budget", "10"},
              "recorded configurations break the restrictions ('block_size_x > 100000'): "
              "nothing is left to tune");
}

TEST_F(CliErrorTest, ReplayNeedsASpace) {
  ExpectError({"tune", "--budget", "5"}, "--space is required");
  ExpectError({"tune", "--budget", "5"}, "--target cpu");
}

TEST_F(CliErrorTest, UnknownTargetListsTheKnownOnes) {
  ExpectError({"tune", "--target", "gpu", "--op", "dense:M=1,N=2,K=3"},
              "--target: unknown target 'gpu'; known: cpu, cuda, replay");
}

TEST_F(CliErrorTest, CpuFlagsNeedTargetCpu) {
  ExpectError({"tune", "--model", "resnet18"}, "--model needs --target cpu");
  ExpectError({"tune", "--op", "dense:M=1,N=2,K=3"}, "--op needs --target cpu");
  ExpectError(TuneArgs({"--global-budget", "10"}), "--global-budget needs --target cpu");
  ExpectError(TuneArgs({"--threads", "1"}), "--threads needs --target cpu");
  ExpectError(TuneArgs({"--overlap-builds"}), "--overlap-builds needs --target cpu");
  ExpectError(TuneArgs({"--warm-activations"}), "--warm-activations needs --target cpu");
  ExpectError({"tune", "--target", "cuda", "--op", "dense:M=1,N=2,K=3", "--warm-activations"},
              "--warm-activations needs --target cpu");
}

TEST_F(CliErrorTest, ReplayFlagsAreRefusedWithTargetCpu) {
  ExpectError({"tune", "--target", "cpu", "--op", "dense:M=1,N=2,K=3", "--space", "x.json"},
              "--space applies to replayed spaces");
  ExpectError({"tune", "--target", "cpu", "--op", "dense:M=1,N=2,K=3", "--noise"}, "--noise");
}

TEST_F(CliErrorTest, TargetCpuNeedsModelOrOp) {
  ExpectError({"tune", "--target", "cpu"}, "--target cpu needs --model NAME (known: resnet18");
  ExpectError({"tune", "--target", "cpu", "--model", "resnet18", "--op", "dense:M=1,N=2,K=3"},
              "--model and --op exclude each other");
}

TEST_F(CliErrorTest, UnknownModelListsTheKnownOnes) {
  ExpectError({"tune", "--target", "cpu", "--model", "resnet19"},
              "--model: unknown model 'resnet19'; known: resnet18, resnet50, vgg16, alexnet, "
              "mobilenet_v2, bert_base_layer");
  CommandResult shown = RunGlimpse({"model", "show", "resnet19"});
  EXPECT_EQ(shown.exit_code, 2);
  EXPECT_EQ(shown.err,
            "glimpse: error: unknown model 'resnet19'; known: resnet18, resnet50, vgg16, "
            "alexnet, mobilenet_v2, bert_base_layer (or an ONNX file FILE.onnx)\n");
}

TEST_F(CliErrorTest, BadOpNamesTheFieldAndTheAcceptedOnes) {
  ExpectError({"tune", "--target", "cpu", "--op", "dense:M=4,N=8"},
              "--op 'dense:M=4,N=8': dense: missing field 'K'; required: M, N, K");
  ExpectError({"tune", "--target", "cpu", "--op", "conv2d:N=1,C=3,H=8,W=8,K=4,R=3,S=3,strid=2"},
              "unknown field 'strid'; accepted: N, C, H, W, K, R, S, stride, pad");
  ExpectError({"tune", "--target", "cpu", "--op", "dense:M=4,N=x,K=2"},
              "field 'N' has value 'x'; accepted: an integer");
  ExpectError({"tune", "--target", "cpu", "--op", "gemm:M=4,N=4,K=4"},
              "unknown operator 'gemm'; known:");
}

TEST_F(CliErrorTest, AnOperatorTooLargeForTheMachineIsRefusedBeforeAnythingIsBuilt) {
  // 4 TiB of input: more than any machine this runs on, said with both sizes.
  ExpectError({"tune", "--target", "cpu", "--op", "conv2d:N=1024,C=1024,H=1024,W=1024,K=1,R=1,S=1",
               "--budget", "3"},
              "its tensors take 4.0 TiB (inputs 4.0 TiB, output 4.0 GiB), more than the ");
  // Fields within their bounds (at most 2^20 each) whose product no index can hold.
  ExpectError(
      {"tune", "--target", "cpu", "--op", "conv2d:N=100000,C=100000,H=100000,W=100000,K=1,R=1,S=1"},
      "conv2d: a tensor of 1e+20 elements; accepted: shapes whose tensors have fewer "
      "than 2^62 elements");
}

TEST_F(CliErrorTest, CpuBudgetsAndMachineFlagsAreChecked) {
  const std::vector<std::string> model = {"tune", "--target", "cpu", "--model", "resnet18"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = model;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  ExpectError(with({"--budget", "5", "--global-budget", "100"}),
              "--budget (per task) and --global-budget (shared by the tasks) exclude each other");
  ExpectError(with({"--global-budget", "11"}),
              "--global-budget (total measurements) must be at least the number of tasks (19)");
  ExpectError(with({"--global-budget", "0"}), "--global-budget must be a positive number");
  ExpectError(with({"--budget", "0"}), "--budget");
  ExpectError(with({"--threads", "-1"}), "--threads must be 0");
  ExpectError(with({"--run-timeout", "0"}), "--run-timeout must be a positive number");
  ExpectError(with({"--build-timeout", "-1"}), "--build-timeout must be a positive number");
  ExpectError(with({"--build-jobs", "-2"}), "--build-jobs must be 0");
  // No CPU would be left to the compiler.
  ExpectError(with({"--overlap-builds", "--threads", "4096"}),
              "--overlap-builds: overlapping builds with measurements");
  ExpectError(with({"--tuner", "xgbb"}), "unknown tuner 'xgbb'; known:");
  ExpectError(with({"--tuner", "ga", "--tuner-option", "populaton=5"}), "populaton");
}

TEST_F(CliErrorTest, HelpWorksForEveryCommand) {
  for (std::vector<std::string> args : {std::vector<std::string>{"--help"},
                                        {"tune", "--help"},
                                        {"db", "--help"},
                                        {"db", "list", "--help"},
                                        {"db", "best", "--help"},
                                        {"db", "export", "--help"},
                                        {"db", "import", "--help"},
                                        {"space", "show", "--help"},
                                        {"model", "--help"},
                                        {"model", "list", "--help"},
                                        {"model", "show", "--help"}}) {
    CommandResult result = RunGlimpse(args);
    EXPECT_EQ(result.exit_code, 0) << args[0];
    EXPECT_NE(result.out.find("Usage"), std::string::npos) << result.out;
  }
}

}  // namespace
}  // namespace glimpse::testing
