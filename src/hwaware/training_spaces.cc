// Finding the recorded spaces to train the validity ensemble on, and the GPU of each.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "glimpse/error.h"
#include "glimpse/validity_ensemble.h"

namespace glimpse {
namespace {

std::string Stem(const std::string& path) {
  std::string stem = std::filesystem::path(path).filename().string();
  for (const std::string suffix : {".gz", ".json"}) {
    if (stem.size() > suffix.size() && stem.ends_with(suffix)) {
      stem.resize(stem.size() - suffix.size());
    }
  }
  return stem;
}

bool IsJsonFile(const std::filesystem::path& path) {
  std::string name = path.filename().string();
  return name.ends_with(".json") || name.ends_with(".json.gz");
}

}  // namespace

const GpuSpec& GpuOfRecordedSpace(const GpuTable& table, const RecordedSpace& recorded,
                                  const std::string& explicit_device) {
  // LoadRecordedSpace falls back on the file name itself; only a name in the file is "reported".
  const std::string& path = recorded.source_path;
  std::string reported = recorded.device_name == Stem(path) ? "" : recorded.device_name;
  return ResolveRecordedGpu(table, explicit_device, reported, path);
}

LoadedTrainingSpaces LoadValidityTrainingSpaces(const std::vector<std::string>& paths,
                                                const std::vector<std::string>& exclude_devices,
                                                const GpuTable& table) {
  std::set<std::string> excluded;
  for (const std::string& name : exclude_devices) excluded.insert(table.Lookup(name).name);

  LoadedTrainingSpaces out;
  // (folder, GPU) → index in out.spaces, to keep one space per GPU of a folder.
  std::map<std::pair<std::string, std::string>, size_t> seen;
  auto add = [&](const std::string& path, bool named) {
    std::shared_ptr<RecordedSpace> recorded;
    try {
      recorded = std::make_shared<RecordedSpace>(LoadRecordedSpace(path));
    } catch (const Error& e) {
      if (named) throw;
      out.skipped.push_back(fmt::format("{}: not a recorded space ({})", path, e.what()));
      return;
    }
    const GpuSpec& gpu = GpuOfRecordedSpace(table, *recorded);
    if (excluded.count(gpu.name)) {
      out.skipped.push_back(fmt::format("{}: {} is excluded", path, gpu.name));
      return;
    }
    std::string folder =
        std::filesystem::absolute(path).lexically_normal().parent_path().filename().string();
    auto key = std::make_pair(folder, gpu.name);
    auto it = seen.find(key);
    if (it != seen.end()) {
      ValidityTrainingSpace& kept = out.spaces[it->second];
      bool replace = kept.recorded->format != RecordedFormat::kKernelTunerCache &&
                     recorded->format == RecordedFormat::kKernelTunerCache;
      std::string dropped = replace ? kept.recorded->source_path : path;
      std::string other = replace ? path : kept.recorded->source_path;
      out.skipped.push_back(
          fmt::format("{}: {} of '{}' is already given by {}", dropped, gpu.name, folder, other));
      if (replace) kept.recorded = recorded;
      return;
    }
    seen[key] = out.spaces.size();
    out.spaces.push_back({recorded, gpu, folder});
  };

  for (const std::string& path : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      std::vector<std::string> files;
      for (const auto& entry : std::filesystem::recursive_directory_iterator(path)) {
        if (entry.is_regular_file() && IsJsonFile(entry.path())) {
          files.push_back(entry.path().string());
        }
      }
      std::sort(files.begin(), files.end());
      for (const std::string& file : files) add(file, false);
    } else if (std::filesystem::exists(path, ec)) {
      add(path, true);
    } else {
      throw Error(fmt::format("--spaces: '{}' is neither a file nor a folder", path));
    }
  }
  if (out.spaces.empty()) {
    throw Error(
        "--spaces: no recorded spaces found (Kernel Tuner caches or T4 files, "
        "*.json or *.json.gz)");
  }
  return out;
}

}  // namespace glimpse
