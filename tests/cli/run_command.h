// Running the glimpse executable from tests: exit code and captured output.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace glimpse::testing {

struct CommandResult {
  int exit_code = -1;  // -1 when killed by a signal
  std::string out;
  std::string err;
};

// Runs `glimpse <args>` to completion in `work_dir` (the current directory when empty).
CommandResult RunGlimpse(const std::vector<std::string>& args, const std::string& work_dir = "");

// Starts `glimpse <args>` in the background, its output discarded; returns its pid.
pid_t SpawnGlimpse(const std::vector<std::string>& args);

}  // namespace glimpse::testing
