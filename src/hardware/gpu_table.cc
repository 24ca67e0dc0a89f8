// The GPU table: loading data/hardware/gpus.json and finding a GPU by the names drivers, tools and
// recorded files use for it.
//
//   NormalizeGpuName        the comparable form of a name (vendor and brand words dropped)
//   SplitVariant            a normalised name without its form-factor / memory words, and those
//   GpuTable::FromJson      the file's checks: format, version, one entry per name and alias
//   GpuTable::FindOrExplain exact (normalised) name or alias, then variant matching
//   ClosestNames            edit distance for the error of an unknown name
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <limits>
#include <regex>
#include <set>
#include <sstream>

#include "glimpse/error.h"
#include "glimpse/hardware.h"
#include "hardware/data_file.h"

namespace glimpse {
namespace {

constexpr const char* kTableFormat = "glimpse-gpu-specs";

// Words that say who made or sells a GPU rather than which GPU it is: drivers add or omit them
// ("Tesla V100-PCIE-32GB", "NVIDIA GeForce RTX 3090", "AMD Radeon PRO W6600"), trademark marks
// of OpenCL names ("AMD Radeon(TM) RX 6400"), and filler of CUDA and macOS names ("RTX 2070 with
// Max-Q Design", "Radeon R9 M370X Compute Engine", "GTX 760 Ti OEM").
// scripts/hardware/build_gpu_table.py keeps the same list to keep table names distinct.
const std::set<std::string>& DroppedWords() {
  static const std::set<std::string> words = {
      "nvidia",   "amd", "ati", "geforce", "tesla",  "radeon", "instinct", "pro",   "gpu",
      "graphics", "tm",  "r",   "with",    "design", "oem",    "compute",  "engine"};
  return words;
}

// Mesa's OpenCL names end in the driver's own description: "AMD Radeon RX 590 GME (radeonsi,
// polaris10, ACO, DRM 3.54, ...)". It names the kernel driver, not the GPU.
std::string WithoutDriverSuffix(const std::string& name) {
  static const std::regex mesa(R"(\s*\((radeonsi|amdgpu|nouveau|iris|llvmpipe)\b.*$)",
                               std::regex::icase);
  return std::regex_replace(name, mesa, "");
}

// The normalised name without spaces: OpenCL and CUDA names sometimes run words together
// ("AMD Radeon RX590 GME" for the RX 590 GME).
std::string Compact(const std::string& normalised) {
  std::string out;
  for (char c : normalised) {
    if (c != ' ') out += c;
  }
  return out;
}

// Form factor and memory configuration: one chip sold in several boards ("A100-PCIE-40GB",
// "A100-SXM4-80GB", "H100 80GB HBM3").
bool IsVariantWord(const std::string& word) {
  static const std::set<std::string> words = {"pcie", "sxm",  "sxm2",  "sxm4", "sxm5",
                                              "nvl",  "hbm2", "hbm2e", "hbm3", "hbm3e"};
  if (words.count(word)) return true;
  static const std::regex memory("[0-9]+gb");
  return std::regex_match(word, memory);
}

std::vector<std::string> Words(const std::string& normalised) {
  std::vector<std::string> words;
  std::istringstream in(normalised);
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

struct VariantSplit {
  std::string base;               // the words that name the chip and product
  std::set<std::string> variant;  // the form-factor and memory words
};

VariantSplit SplitVariant(const std::string& normalised) {
  VariantSplit split;
  for (const std::string& word : Words(normalised)) {
    if (IsVariantWord(word)) {
      split.variant.insert(word);
    } else {
      split.base += (split.base.empty() ? "" : " ") + word;
    }
  }
  return split;
}

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

std::string FileStem(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  for (const std::string suffix : {".gz", ".json"}) {
    if (name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      name.resize(name.size() - suffix.size());
    }
  }
  return name;
}

}  // namespace

std::string NormalizeGpuName(const std::string& name) {
  std::string spaced;
  for (char c : WithoutDriverSuffix(name)) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '-' || c == '_' || c == '/' || c == ',' || c == '(' || c == ')' || std::isspace(u)) {
      spaced += ' ';
    } else {
      spaced += static_cast<char>(std::tolower(u));
    }
  }
  std::vector<std::string> words = Words(spaced), kept;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    bool number = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c));
    });
    if (number && i + 1 < words.size() && words[i + 1] == "gb") {  // "80 GB" → "80gb"
      kept.push_back(word + "gb");
      ++i;
      continue;
    }
    if (!DroppedWords().count(word)) kept.push_back(word);
  }
  std::string out;
  for (const std::string& word : kept) out += (out.empty() ? "" : " ") + word;
  return out;
}

GpuTable GpuTable::Load(const std::string& path) {
  return FromJson(hardware::ReadDataFile(path, "GPU table", ""), path);
}

GpuTable GpuTable::FromJson(const Json& json, const std::string& origin) {
  hardware::CheckDataFileHeader(json, origin, "GPU table", kTableFormat, kGpuTableVersion,
                                "rebuild it with scripts/hardware/build_gpu_table.py");
  if (!json.contains("gpus") || !json["gpus"].is_array()) {
    throw Error(fmt::format("GPU table '{}' has no \"gpus\" list", origin));
  }
  GpuTable table;
  table.origin_ = origin;
  table.version_ = kGpuTableVersion;  // the only version the header check lets through
  const Json& gpus = json["gpus"];
  for (size_t i = 0; i < gpus.size(); ++i) {
    table.gpus_.push_back(GpuSpec::FromJson(gpus[i], fmt::format("{}: gpus[{}]", origin, i)));
  }
  for (size_t i = 0; i < table.gpus_.size(); ++i) {
    const GpuSpec& gpu = table.gpus_[i];
    std::vector<std::string> keys = gpu.aliases;
    keys.insert(keys.begin(), gpu.name);
    for (const std::string& key : keys) {
      std::string normalised = NormalizeGpuName(key);
      if (normalised.empty()) {
        throw Error(fmt::format("{}: GPU '{}': name or alias '{}' is empty once normalised", origin,
                                gpu.name, key));
      }
      auto [it, inserted] = table.by_name_.emplace(normalised, i);
      if (!inserted && it->second != i) {
        throw Error(fmt::format("{}: '{}' names both '{}' and '{}'", origin, key,
                                table.gpus_[it->second].name, gpu.name));
      }
      // Spacing alone may not tell two GPUs apart: such a compact name finds neither.
      auto [compact, fresh] = table.by_compact_name_.emplace(Compact(normalised), i);
      if (!fresh && compact->second != i) compact->second = kAmbiguous;
    }
  }
  return table;
}

const GpuTable& GpuTable::Default() {
  return hardware::LoadedOnce<GpuTable>([] { return Load(HardwareDataPath("gpus.json")); });
}

const GpuSpec* GpuTable::FindOrExplain(const std::string& name, std::string* why) const {
  std::string normalised = NormalizeGpuName(name);
  if (normalised.empty()) {
    *why = name.empty() ? "no GPU name given"
                        : fmt::format("'{}' does not name a GPU (only vendor words)", name);
    return nullptr;
  }
  if (auto it = by_name_.find(normalised); it != by_name_.end()) return &gpus_[it->second];
  // Same words, other spacing ("RX590 GME"), when that names one GPU only.
  if (auto it = by_compact_name_.find(Compact(normalised));
      it != by_compact_name_.end() && it->second != kAmbiguous) {
    return &gpus_[it->second];
  }

  // Same product, other board: score each GPU sharing the base name by agreeing minus
  // conflicting variant words.
  VariantSplit query = SplitVariant(normalised);
  std::vector<std::pair<int, size_t>> scored;  // score, index
  for (size_t i = 0; i < gpus_.size(); ++i) {
    std::vector<std::string> keys = gpus_[i].aliases;
    keys.insert(keys.begin(), gpus_[i].name);
    int best = std::numeric_limits<int>::min();
    for (const std::string& key : keys) {
      VariantSplit candidate = SplitVariant(NormalizeGpuName(key));
      if (candidate.base != query.base) continue;
      int score = 0;
      for (const std::string& word : query.variant) score += candidate.variant.count(word) ? 1 : -1;
      best = std::max(best, score);
    }
    if (best != std::numeric_limits<int>::min()) scored.emplace_back(best, i);
  }
  if (!scored.empty()) {
    int top = std::max_element(scored.begin(), scored.end())->first;
    std::vector<std::string> tied;
    const GpuSpec* found = nullptr;
    for (const auto& [score, index] : scored) {
      if (score == top) {
        tied.push_back(gpus_[index].name);
        found = &gpus_[index];
      }
    }
    if (tied.size() == 1) return found;
    *why = fmt::format("GPU name '{}' is ambiguous; it matches: {} (name one of them)", name,
                       JoinNames(tied));
    return nullptr;
  }
  *why = fmt::format("unknown GPU '{}'; closest: {} ('glimpse hw list' shows all)", name,
                     JoinNames(ClosestNames(name)));
  return nullptr;
}

std::vector<GpuSpec> GpuTable::CatalogGpus() const {
  std::vector<GpuSpec> catalog;
  for (const GpuSpec& gpu : gpus_) {
    if (gpu.listing == "catalog") catalog.push_back(gpu);
  }
  return catalog;
}

const GpuSpec* GpuTable::Find(const std::string& name) const {
  std::string why;
  return FindOrExplain(name, &why);
}

const GpuSpec& GpuTable::Lookup(const std::string& name) const {
  std::string why;
  const GpuSpec* spec = FindOrExplain(name, &why);
  if (!spec) throw Error(why);
  return *spec;
}

std::vector<std::string> GpuTable::ClosestNames(const std::string& name, size_t count) const {
  std::string normalised = NormalizeGpuName(name);
  std::vector<std::pair<size_t, size_t>> distances;  // distance, index
  for (size_t i = 0; i < gpus_.size(); ++i) {
    size_t best = EditDistance(normalised, NormalizeGpuName(gpus_[i].name));
    for (const std::string& alias : gpus_[i].aliases) {
      best = std::min(best, EditDistance(normalised, NormalizeGpuName(alias)));
    }
    distances.emplace_back(best, i);
  }
  std::stable_sort(distances.begin(), distances.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> names;
  for (size_t i = 0; i < distances.size() && names.size() < count; ++i) {
    names.push_back(gpus_[distances[i].second].name);
  }
  return names;
}

const GpuSpec& LookupGpu(const std::string& name) { return GpuTable::Default().Lookup(name); }

const GpuSpec& ResolveRecordedGpu(const GpuTable& table, const std::string& explicit_device,
                                  const std::string& reported_name, const std::string& file_path) {
  std::string name, origin;
  if (!explicit_device.empty()) {
    name = explicit_device;
    origin = "--device";
  } else if (!reported_name.empty()) {
    name = reported_name;
    origin = fmt::format("the device name in '{}'", file_path);
  } else {
    name = FileStem(file_path);
    origin = fmt::format("the file name of '{}' (the file names no device)", file_path);
  }
  try {
    return table.Lookup(name);
  } catch (const Error& e) {
    throw Error(fmt::format("{} (from {}; pass --device NAME to name the GPU)", e.what(), origin));
  }
}

}  // namespace glimpse
