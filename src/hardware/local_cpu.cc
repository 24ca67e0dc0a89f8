// The local CPU, from /proc/cpuinfo and the sysfs CPU tree (caches, frequencies).
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

#include "glimpse/error.h"
#include "glimpse/hardware.h"

namespace glimpse {
namespace {

namespace fs = std::filesystem;

std::string Trim(const std::string& text) {
  size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

// The first line of a small sysfs file, "" when absent.
std::string ReadLine(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  if (in) std::getline(in, line);
  return Trim(line);
}

double ReadNumber(const fs::path& path) {
  std::string text = ReadLine(path);
  if (text.empty()) return 0.0;
  try {
    return std::stod(text);
  } catch (const std::exception&) {
    return 0.0;
  }
}

// sysfs cache sizes: "32K", "1024K", "32M".
int64_t ParseCacheSize(const std::string& text) {
  if (text.empty()) return 0;
  int64_t value = 0;
  size_t used = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    return 0;
  }
  std::string unit = text.substr(used);
  if (unit == "K") return value << 10;
  if (unit == "M") return value << 20;
  if (unit == "G") return value << 30;
  return value;
}

// "0-3,8-11" → 8.
int CountCpuList(const std::string& list) {
  int count = 0;
  std::istringstream in(list);
  for (std::string range; std::getline(in, range, ',');) {
    size_t dash = range.find('-');
    try {
      if (dash == std::string::npos) {
        if (!Trim(range).empty()) ++count;
      } else {
        count += std::stoi(range.substr(dash + 1)) - std::stoi(range.substr(0, dash)) + 1;
      }
    } catch (const std::exception&) {
    }
  }
  return count;
}

const std::vector<std::string>& IsaFlagsOfInterest() {
  static const std::vector<std::string> flags = {
      "sse4_2",   "avx",      "avx2",     "fma",         "f16c",        "avx512f",     "avx512dq",
      "avx512cd", "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_tile",
      "amx_bf16", "amx_int8", "asimd",    "asimdhp",     "sve",         "sve2"};
  return flags;
}

}  // namespace

Json CpuDescription::ToJson() const {
  Json caches_json = Json::array();
  for (const CpuCache& cache : caches) {
    caches_json.push_back({{"level", cache.level},
                           {"type", cache.type},
                           {"size_bytes", cache.size_bytes},
                           {"shared_by_cpus", cache.shared_by_cpus}});
  }
  return {{"model_name", model_name},
          {"vendor", vendor},
          {"logical_cpus", logical_cpus},
          {"physical_cores", physical_cores},
          {"sockets", sockets},
          {"base_clock_mhz", base_clock_mhz},
          {"max_clock_mhz", max_clock_mhz},
          {"current_clock_mhz", current_clock_mhz},
          {"caches", caches_json},
          {"isa_flags", isa_flags},
          {"simd_width_bits", simd_width_bits}};
}

CpuDescription DescribeLocalCpu(const std::string& root) {
  fs::path base(root.empty() ? "/" : root);
  fs::path cpuinfo_path = base / "proc" / "cpuinfo";
  std::ifstream cpuinfo(cpuinfo_path);
  if (!cpuinfo) throw Error(fmt::format("cannot read '{}'", cpuinfo_path.string()));

  CpuDescription cpu;
  std::set<std::pair<std::string, std::string>> cores;  // (physical id, core id)
  std::set<std::string> packages, flags;
  std::string physical_id;
  int processors = 0;
  for (std::string line; std::getline(cpuinfo, line);) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = Trim(line.substr(0, colon)), value = Trim(line.substr(colon + 1));
    if (key == "processor") {
      ++processors;
    } else if (key == "model name" && cpu.model_name.empty()) {
      cpu.model_name = value;
    } else if ((key == "vendor_id" || key == "CPU implementer") && cpu.vendor.empty()) {
      cpu.vendor = value;
    } else if (key == "physical id") {
      physical_id = value;
      packages.insert(value);
    } else if (key == "core id") {
      cores.emplace(physical_id, value);
    } else if (key == "cpu MHz" && cpu.current_clock_mhz == 0.0) {
      try {
        cpu.current_clock_mhz = std::stod(value);
      } catch (const std::exception&) {
      }
    } else if ((key == "flags" || key == "Features") && flags.empty()) {
      std::istringstream words(value);
      for (std::string word; words >> word;) flags.insert(word);
    }
  }
  if (cpu.model_name.empty()) cpu.model_name = "unknown";
  cpu.logical_cpus = processors;
  cpu.sockets = packages.empty() ? (processors > 0 ? 1 : 0) : static_cast<int>(packages.size());
  cpu.physical_cores = cores.empty() ? processors : static_cast<int>(cores.size());

  for (const std::string& flag : IsaFlagsOfInterest()) {
    if (flags.count(flag)) cpu.isa_flags.push_back(flag);
  }
  if (flags.count("avx512f")) {
    cpu.simd_width_bits = 512;
  } else if (flags.count("avx")) {
    cpu.simd_width_bits = 256;
  } else if (flags.count("sse4_2") || flags.count("sse2") || flags.count("asimd")) {
    cpu.simd_width_bits = 128;
  }

  fs::path cpu0 = base / "sys" / "devices" / "system" / "cpu" / "cpu0";
  // cpufreq reports kHz.
  cpu.base_clock_mhz = ReadNumber(cpu0 / "cpufreq" / "base_frequency") / 1000.0;
  cpu.max_clock_mhz = ReadNumber(cpu0 / "cpufreq" / "cpuinfo_max_freq") / 1000.0;

  std::error_code error;
  fs::path cache_dir = cpu0 / "cache";
  if (fs::is_directory(cache_dir, error)) {
    for (const fs::directory_entry& entry : fs::directory_iterator(cache_dir, error)) {
      std::string name = entry.path().filename().string();
      if (name.rfind("index", 0) != 0) continue;
      CpuCache cache;
      cache.level = static_cast<int>(ReadNumber(entry.path() / "level"));
      cache.type = ReadLine(entry.path() / "type");
      cache.size_bytes = ParseCacheSize(ReadLine(entry.path() / "size"));
      cache.shared_by_cpus = CountCpuList(ReadLine(entry.path() / "shared_cpu_list"));
      if (cache.level > 0) cpu.caches.push_back(cache);
    }
  }
  std::sort(cpu.caches.begin(), cpu.caches.end(), [](const CpuCache& a, const CpuCache& b) {
    return std::tie(a.level, a.type) < std::tie(b.level, b.type);
  });
  return cpu;
}

}  // namespace glimpse
