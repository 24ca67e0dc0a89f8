// `glimpse hw`: the commands docs/hardware.md shows.
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli_fixture.h"
#include "glimpse/json.h"

namespace glimpse::testing {
namespace {

TEST_F(CliTest, HwListFiltersByVendor) {
  CommandResult all = RunGlimpse({"hw", "list"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_NE(all.out.find("NVIDIA A100-PCIE-40GB"), std::string::npos);
  EXPECT_NE(all.out.find("AMD Instinct MI250X"), std::string::npos);
  CommandResult amd = RunGlimpse({"hw", "list", "--vendor", "amd", "--json"});
  ASSERT_EQ(amd.exit_code, 0) << amd.err;
  Json gpus = Json::parse(amd.out);
  ASSERT_GE(gpus.size(), 15u);
  for (const Json& gpu : gpus) EXPECT_EQ(gpu["vendor"], "amd");
  // Oldest architecture first: GCN before CDNA / RDNA.
  EXPECT_EQ(gpus.front()["architecture"].get<std::string>().rfind("GCN", 0), 0u) << gpus.front();
  CommandResult nvidia = RunGlimpse({"hw", "list", "--vendor", "nvidia", "--json"});
  ASSERT_EQ(nvidia.exit_code, 0) << nvidia.err;
  int previous = 0;
  for (const Json& gpu : Json::parse(nvidia.out)) {
    const int sm = std::stoi(gpu["target"].get<std::string>().substr(3));  // "sm_86"
    EXPECT_LE(previous, sm) << gpu["name"];
    previous = sm;
  }
  CommandResult bad = RunGlimpse({"hw", "list", "--vendor", "intel"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("known: nvidia, amd"), std::string::npos) << bad.err;
}

TEST_F(CliTest, HwShowPrintsFiguresWithSources) {
  CommandResult show = RunGlimpse({"hw", "show", "Tesla V100-PCIE-32GB"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("sm_count"), std::string::npos);
  EXPECT_NE(show.out.find("Volta whitepaper"), std::string::npos) << show.out;
  CommandResult json = RunGlimpse({"hw", "show", "RTX_3090", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  Json spec = Json::parse(json.out);
  EXPECT_EQ(spec["name"], "NVIDIA GeForce RTX 3090");
  EXPECT_EQ(spec["sm_count"], 82);
  EXPECT_TRUE(spec["source"].contains("l2_bytes"));
  CommandResult unknown = RunGlimpse({"hw", "show", "RTX 3095"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("closest: NVIDIA GeForce RTX 3090"), std::string::npos) << unknown.err;
}

TEST_F(CliTest, HwFindsTheGpuOfARecordedSpace) {
  CommandResult named =
      RunGlimpse({"hw", "show", "--space", RepoDataPath("recorded/convolution_milo/A100.json.gz")});
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_EQ(named.out.rfind("NVIDIA A100-PCIE-40GB", 0), 0u) << named.out;

  // A cache that names no device, under a file name that is no GPU's: --device names it.
  std::ifstream in(TestDataPath("pnpoly_small.json"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string field = "\"device_name\": \"NVIDIA GeForce RTX 3090\"";
  ASSERT_NE(text.find(field), std::string::npos);
  text.replace(text.find(field), field.size(), "\"device_name\": \"\"");
  std::string path = dir_ + "/mystery.json";
  std::ofstream(path) << text;
  CommandResult unnamed = RunGlimpse({"hw", "show", "--space", path});
  EXPECT_EQ(unnamed.exit_code, 2);
  EXPECT_NE(unnamed.err.find("mystery"), std::string::npos) << unnamed.err;
  EXPECT_NE(unnamed.err.find("--device NAME"), std::string::npos) << unnamed.err;
  CommandResult device =
      RunGlimpse({"hw", "embed", "--space", path, "--device", "W6600", "--json"});
  ASSERT_EQ(device.exit_code, 0) << device.err;
  EXPECT_EQ(Json::parse(device.out)["embeddings"][0]["name"], "AMD Radeon PRO W6600");
}

TEST_F(CliTest, HwShowDescribesThisMachine) {
  CommandResult cpu = RunGlimpse({"hw", "show", "local-cpu", "--json"});
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  EXPECT_GE(Json::parse(cpu.out)["logical_cpus"].get<int>(), 1);

  // A fake nvidia-smi first on PATH stands for a machine with an A100.
  std::string bin = dir_ + "/bin";
  std::filesystem::create_directories(bin);
  std::ofstream(bin + "/nvidia-smi")
      << "#!/bin/sh\necho '0, NVIDIA A100-PCIE-40GB, 40960, 1410, 1215, 535.104.05, 8.0'\n";
  chmod((bin + "/nvidia-smi").c_str(), 0755);
  std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  setenv("PATH", (bin + ":" + old_path).c_str(), 1);
  CommandResult gpu = RunGlimpse({"hw", "show", "local-gpu"});
  CommandResult embed = RunGlimpse({"hw", "embed", "local-gpu", "--json"});
  setenv("PATH", old_path.c_str(), 1);
  ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
  EXPECT_NE(gpu.out.find("GPU 0: NVIDIA A100-PCIE-40GB"), std::string::npos) << gpu.out;
  EXPECT_NE(gpu.out.find("table entry:"), std::string::npos) << gpu.out;
  ASSERT_EQ(embed.exit_code, 0) << embed.err;
  EXPECT_EQ(Json::parse(embed.out)["embeddings"][0]["name"], "NVIDIA A100-PCIE-40GB");
}

TEST_F(CliTest, HwFitThenEmbedNamedAndUnseenGpus) {
  std::string model = dir_ + "/blueprint.json";
  CommandResult fit = RunGlimpse(
      {"hw", "fit", "--out", model, "--criterion", "variance", "--min-variance", "0.95"});
  ASSERT_EQ(fit.exit_code, 0) << fit.err;
  EXPECT_NE(fit.out.find("first with variance"), std::string::npos) << fit.out;
  Json fitted = Json::parse(std::ifstream(model));
  int k = fitted["components"].get<int>();
  EXPECT_LT(k, static_cast<int>(fitted["features"].size()));

  CommandResult embed = RunGlimpse({"hw", "embed", "A100", "MI250X", "--model", model, "--json"});
  ASSERT_EQ(embed.exit_code, 0) << embed.err;
  Json out = Json::parse(embed.out);
  ASSERT_EQ(out["embeddings"].size(), 2u);
  EXPECT_EQ(out["embeddings"][0]["blueprint"].size(), static_cast<size_t>(k));

  // A GPU the table does not have, described in a file.
  CommandResult shown = RunGlimpse({"hw", "show", "NVIDIA L4", "--json"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  Json spec = Json::parse(shown.out);
  spec["name"] = "Imaginary L5";
  spec["aliases"] = Json::array();
  spec["sm_count"] = 72;
  std::ofstream(dir_ + "/l5.json") << spec.dump();
  CommandResult unseen = RunGlimpse({"hw", "embed", "--spec", dir_ + "/l5.json", "--model", model});
  ASSERT_EQ(unseen.exit_code, 0) << unseen.err;
  EXPECT_NE(unseen.out.find("Imaginary L5"), std::string::npos) << unseen.out;

  // A model of another version is refused.
  fitted["version"] = 99;
  std::ofstream(model) << fitted.dump();
  CommandResult old = RunGlimpse({"hw", "embed", "A100", "--model", model});
  EXPECT_EQ(old.exit_code, 2);
  EXPECT_NE(old.err.find("version 99"), std::string::npos) << old.err;
}

}  // namespace
}  // namespace glimpse::testing
