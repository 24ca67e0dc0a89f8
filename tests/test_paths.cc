#include "test_paths.h"

#include <cstdlib>
#include <filesystem>
#include <random>

namespace glimpse::testing {

namespace fs = std::filesystem;

std::string TestDataPath(const std::string& name) {
  return (fs::path(GLIMPSE_SOURCE_DIR) / "tests" / "data" / name).string();
}

std::string RepoDataPath(const std::string& name) {
  return (fs::path(GLIMPSE_SOURCE_DIR) / "data" / name).string();
}

std::string SharedDatasetsDir() {
  if (const char* env = std::getenv("GLIMPSE_SHARED_DATASETS"); env && *env) return env;
  fs::path candidate = fs::path(GLIMPSE_SOURCE_DIR).parent_path() / "shared" / "datasets" /
                       "benchmark_hub";
  return fs::is_directory(candidate) ? candidate.string() : std::string();
}

std::string GlimpseBinary() { return GLIMPSE_BINARY; }

std::string MakeTempDir(const std::string& prefix) {
  std::random_device device;
  for (int attempt = 0; attempt < 100; ++attempt) {
    fs::path dir = fs::temp_directory_path() / (prefix + "-" + std::to_string(device()));
    if (fs::create_directory(dir)) return dir.string();
  }
  return (fs::temp_directory_path() / prefix).string();
}

}  // namespace glimpse::testing
