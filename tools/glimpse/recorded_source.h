// The command-line flags that name a recorded space (--space, --t1, --restrict, --device),
// shared by `glimpse tune`, `glimpse space show` and `glimpse db import`.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "glimpse/replay.h"

namespace glimpse::cli {

struct RecordedSourceFlags {
  std::string path;
  std::string t1_path;
  std::vector<std::string> restrictions;
  std::string device;

  // Adds the flags to `command`. With `positional`, the file is the first positional argument
  // (required) instead of --space (optional here; Load refuses an empty path).
  void AddTo(CLI::App* command, bool positional);
  // Loads the file; glimpse::Error on any problem, naming --space when no file was given.
  RecordedSpace Load() const;
};

}  // namespace glimpse::cli
