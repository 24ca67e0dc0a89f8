// Finding glimpse's data folder (the GPU table, the Blueprint model) from wherever glimpse runs.
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "glimpse/error.h"
#include "glimpse/hardware.h"

#ifndef GLIMPSE_INSTALLED_DATA_DIR
#define GLIMPSE_INSTALLED_DATA_DIR ""
#endif
#ifndef GLIMPSE_DEFAULT_DATA_DIR
#define GLIMPSE_DEFAULT_DATA_DIR ""
#endif

namespace glimpse {
namespace {

namespace fs = std::filesystem;

bool HasTable(const fs::path& dir) {
  std::error_code error;
  return fs::is_regular_file(dir / "hardware" / "gpus.json", error);
}

}  // namespace

std::string GlimpseDataDir() {
  std::vector<std::string> looked;
  if (const char* env = std::getenv("GLIMPSE_DATA_DIR"); env && *env) {
    if (HasTable(env)) return env;
    looked.push_back(fmt::format("$GLIMPSE_DATA_DIR ({})", env));
  } else {
    looked.push_back("$GLIMPSE_DATA_DIR (unset)");
  }
  std::error_code error;
  fs::path exe = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    fs::path dir = exe.parent_path();
    fs::path installed = dir.parent_path() / "share" / "glimpse" / "data";
    if (HasTable(installed)) return installed.string();
    looked.push_back(installed.string());
    // A build folder inside the source tree: build/<name>/glimpse, build/<name>/tests/...
    for (int up = 0; up <= 4 && !dir.empty(); ++up, dir = dir.parent_path()) {
      if (HasTable(dir / "data")) return (dir / "data").string();
      if (dir == dir.root_path()) break;
    }
    looked.push_back(fmt::format("data/ in {} and its parents", exe.parent_path().string()));
  }
  // Where `cmake --install` puts it for the configured prefix (a program linking the installed
  // libraries), then the source tree the libraries were built from.
  for (const std::string built_in : {GLIMPSE_INSTALLED_DATA_DIR, GLIMPSE_DEFAULT_DATA_DIR}) {
    if (built_in.empty()) continue;
    if (HasTable(built_in)) return built_in;
    looked.push_back(built_in);
  }
  std::string list;
  for (const std::string& place : looked) list += (list.empty() ? "" : ", ") + place;
  throw Error(
      fmt::format("glimpse's data folder (with hardware/gpus.json) was not found; looked "
                  "in: {}. Set GLIMPSE_DATA_DIR to the folder that holds hardware/",
                  list));
}

std::string HardwareDataPath(const std::string& file) {
  return (fs::path(GlimpseDataDir()) / "hardware" / file).string();
}

}  // namespace glimpse
