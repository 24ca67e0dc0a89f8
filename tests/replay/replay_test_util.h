// Helpers shared by the replay tests.
#pragma once

#include <fstream>
#include <string>

#include "glimpse/error.h"
#include "test_paths.h"

namespace glimpse::testing {

// Writes `text` to <dir>/<name> and returns the path.
inline std::string WriteTextFile(const std::string& dir, const std::string& name,
                                 const std::string& text) {
  std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The message of the glimpse::Error that `body` throws, or "<no error>".
template <typename Body>
std::string ErrorMessageOf(Body&& body) {
  try {
    body();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace glimpse::testing
