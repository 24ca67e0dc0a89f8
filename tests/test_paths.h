// Where tests find their data: the repo's own fixtures, and the recorded spaces in ../shared.
#pragma once

#include <string>

namespace glimpse::testing {

// <repo>/tests/data/<name>
std::string TestDataPath(const std::string& name);
// <repo>/data/<name>
std::string RepoDataPath(const std::string& name);
// The shared recorded datasets (../shared/datasets/benchmark_hub beside the checkout, or
// $GLIMPSE_SHARED_DATASETS). Empty when absent: tests that need them skip with a message.
std::string SharedDatasetsDir();
// The glimpse executable built with the tests.
std::string GlimpseBinary();
// The exit status and output of one glimpse command line.
struct CommandRun {
  int exit_code;  // -1 when it did not exit normally
  std::string out, err;
};
// Runs `glimpse ARGS` (a shell-quoted argument string) with its stdout and stderr captured in
// DIR/stdout.txt and DIR/stderr.txt.
CommandRun RunGlimpseCommand(const std::string& args, const std::string& dir);
// A fresh, empty directory under the system temp dir, removed by nobody (tests are short-lived).
std::string MakeTempDir(const std::string& prefix);

}  // namespace glimpse::testing
