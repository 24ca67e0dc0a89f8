// Shared set-up of the command-line tests: the bundled recorded space and a scratch directory.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "run_command.h"
#include "test_paths.h"

namespace glimpse::testing {

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir("glimpse-cli"); }

  std::string Db(const std::string& name = "tune.db") const { return dir_ + "/" + name; }

  // The main job's space: convolution on the A100, restricted by its T1 file.
  static std::vector<std::string> SpaceArgs() {
    return {"--space", RepoDataPath("recorded/convolution_milo/A100.json.gz"), "--t1",
            RepoDataPath("recorded/t1/convolution_milo.json")};
  }

  std::vector<std::string> TuneArgs(std::vector<std::string> extra) const {
    std::vector<std::string> args = {"tune"};
    for (const std::string& a : SpaceArgs()) args.push_back(a);
    args.insert(args.end(), {"--progress", "quiet"});
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  std::string dir_;
};

}  // namespace glimpse::testing
