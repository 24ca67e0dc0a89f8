// StartChild's `cpus`: the child and the programs it starts run only on the CPUs given.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "glimpse/build_support.h"
#include "glimpse/error.h"
#include "glimpse/subprocess.h"
#include "test_paths.h"

namespace glimpse::process {
namespace {

// The Cpus_allowed_list line a shell's child (grep) reports when started with `cpus`.
std::string AllowedListOfGrandchild(const std::vector<int>& cpus, const std::string& dir) {
  ChildOptions options;
  options.argv = {"sh", "-c", "grep Cpus_allowed_list /proc/self/status"};
  options.stdout_path = dir + "/out.txt";
  options.cpus = cpus;
  ChildExit exit = WaitChild(StartChild(options).pid, 10.0);
  EXPECT_FALSE(exit.timed_out);
  EXPECT_EQ(exit.code, 0);
  std::ifstream in(options.stdout_path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ChildAffinityTest, TheChildsChildrenInheritTheCpus) {
  const std::vector<int> allowed = AllowedCpus();
  ASSERT_FALSE(allowed.empty());
  const std::string dir = testing::MakeTempDir("glimpse-affinity");
  const int last = allowed.back();
  EXPECT_EQ(AllowedListOfGrandchild({last}, dir),
            "Cpus_allowed_list:\t" + std::to_string(last) + "\n");
  if (allowed.size() >= 2) {
    const std::string all = AllowedListOfGrandchild({}, dir);
    EXPECT_NE(all, "Cpus_allowed_list:\t" + std::to_string(last) + "\n") << all;
  }
  std::filesystem::remove_all(dir);
}

TEST(ChildAffinityTest, ACpuOutOfRangeIsAnError) {
  ChildOptions options;
  options.argv = {"true"};
  options.cpus = {-1};
  EXPECT_THROW(StartChild(options), Error);
}

}  // namespace
}  // namespace glimpse::process
