// Helpers shared by the replay tests.
#pragma once

#include <fstream>
#include <string>

#include "test_errors.h"
#include "test_paths.h"

namespace glimpse::testing {

// Writes `text` to <dir>/<name> and returns the path.
inline std::string WriteTextFile(const std::string& dir, const std::string& name,
                                 const std::string& text) {
  std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace glimpse::testing
