#include "test_paths.h"

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

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
  fs::path candidate =
      fs::path(GLIMPSE_SOURCE_DIR).parent_path() / "shared" / "datasets" / "benchmark_hub";
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

CommandRun RunGlimpseCommand(const std::string& args, const std::string& dir) {
  std::string out = dir + "/stdout.txt", err = dir + "/stderr.txt";
  int status = std::system((GlimpseBinary() + " " + args + " >" + out + " 2>" + err).c_str());
  auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

}  // namespace glimpse::testing
