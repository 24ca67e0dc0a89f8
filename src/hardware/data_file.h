// Reading the hardware data files (the GPU table, the Blueprint model): a JSON document with a
// "format" and a "version", and errors that name the file by what it is.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "glimpse/error.h"
#include "glimpse/json.h"

namespace glimpse::hardware {

// The JSON document in the file at `path`; `what` ("GPU table") names it in the errors, and
// `open_hint` (empty: none) follows the error for a file that cannot be opened.
Json ReadDataFile(const std::string& path, const std::string& what, const std::string& open_hint);

// Checks that `json` is an object whose "format" is `format` and whose "version" is the integer
// `version`; `remake` ends the version error ("remake it with: …").
void CheckDataFileHeader(const Json& json, const std::string& origin, const std::string& what,
                         const char* format, int version, const std::string& remake);

// What `load` returns, loaded on the first call from one call site and kept for the process (the
// shipped table and model behind Default()); where that load failed, every call throws its Error.
template <typename T, typename Load>
const T& LoadedOnce(Load load) {
  static std::once_flag once;
  static std::unique_ptr<T> loaded;
  static std::string error;
  std::call_once(once, [&] {
    try {
      loaded = std::make_unique<T>(load());
    } catch (const Error& e) {
      error = e.what();
    }
  });
  if (!loaded) throw Error(error);
  return *loaded;
}

}  // namespace glimpse::hardware
