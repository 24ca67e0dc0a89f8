// CpuNameFromCpuinfo (glimpse/cpu_identity.h) and CpuDeviceName (glimpse/cpu.h).
#include "glimpse/cpu_identity.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <optional>

#include "glimpse/cpu.h"

namespace glimpse {

namespace {

// "key\t: value" → value, when the line's key is `key` (cpuinfo pads keys with tabs).
std::optional<std::string> FieldValue(const std::string& line, const std::string& key) {
  const size_t colon = line.find(':');
  if (colon == std::string::npos) return std::nullopt;
  std::string name = line.substr(0, colon);
  while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) name.pop_back();
  if (name != key) return std::nullopt;
  const size_t start = line.find_first_not_of(" \t", colon + 1);
  return start == std::string::npos ? std::string() : line.substr(start);
}

}  // namespace

std::string CpuNameFromCpuinfo(std::istream& cpuinfo) {
  std::optional<std::string> name, family, model;
  std::string line;
  // The first processor's block ends at the first empty line.
  while (std::getline(cpuinfo, line) && !line.empty()) {
    if (!name) name = FieldValue(line, "model name");
    if (!family) family = FieldValue(line, "cpu family");
    if (!model) model = FieldValue(line, "model");
  }
  if (!name || name->empty()) return "cpu";
  const bool has_number =
      std::any_of(name->begin(), name->end(), [](unsigned char c) { return std::isdigit(c); });
  if (has_number || (!family && !model)) return *name;
  std::string detail;
  if (family) detail = "family " + *family;
  if (model) detail += (detail.empty() ? "" : ", ") + std::string("model ") + *model;
  return *name + " (" + detail + ")";
}

std::string CpuDeviceName() {
  std::ifstream in("/proc/cpuinfo");
  return CpuNameFromCpuinfo(in);
}

std::string CpuRecordsDevice(bool warm_activations) {
  return CpuDeviceName() + (warm_activations ? kWarmActivationsSuffix : "");
}

}  // namespace glimpse
