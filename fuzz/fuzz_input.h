// Helpers of the fuzz targets (docs/fuzzing.md): the input as text, as JSON, or as a file for the
// loaders that read a path. A loader's answer to bad input is glimpse::Error; anything else that
// escapes — another exception, a crash, a sanitizer report, a hang — is a finding.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "glimpse/error.h"
#include "glimpse/json.h"

namespace glimpse::fuzz {

inline std::string Text(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// The input as JSON, or nothing when it is not JSON (the parser's own errors are not the
// loader's: nlohmann's parser is fuzzed upstream).
inline std::optional<Json> AsJson(const uint8_t* data, size_t size) {
  Json json = Json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return std::nullopt;
  return json;
}

// Writes the input to a file of this process named `name` (the loaders that take a path; some
// read the name's suffix) and returns its path.
inline std::string AsFile(const uint8_t* data, size_t size, const std::string& name) {
  static const std::filesystem::path dir = [] {
    std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("glimpse-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(path);
    return path;
  }();
  const std::string path = (dir / name).string();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

// Runs `load`; a glimpse::Error is the expected answer to bad input and is swallowed.
template <typename Load>
void Expect(Load&& load) {
  try {
    load();
  } catch (const glimpse::Error&) {
  }
}

}  // namespace glimpse::fuzz
