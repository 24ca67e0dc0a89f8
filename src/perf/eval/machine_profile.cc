// The roofline's machine profile file (glimpse/perf_predictor.h).
#include <fstream>

#include "glimpse/error.h"
#include "glimpse/hardware.h"
#include "glimpse/json_fields.h"
#include "glimpse/perf_predictor.h"

namespace glimpse {

namespace {

constexpr const char* kFormat = "glimpse-machine-profile";
constexpr int kVersion = 1;

double PositiveNumber(const Json& json, const std::string& field, const std::string& where,
                      bool zero_ok = false) {
  if (!json.contains(field) || !json[field].is_number()) {
    throw Error(where + ": missing or non-numeric field '" + field + "'");
  }
  const double value = json[field].get<double>();
  if (!(value > 0.0 || (zero_ok && value == 0.0))) {
    throw Error(where + ": field '" + field + "' must be " + (zero_ok ? "≥ 0" : "> 0") + ", got " +
                std::to_string(value));
  }
  return value;
}

// A positive count that an int holds (a larger one would not convert).
int SmallCount(const Json& json, const std::string& field, const std::string& where) {
  const double value = PositiveNumber(json, field, where);
  if (value > 1 << 20) {
    throw Error(where + ": field '" + field + "' must be at most 2^20, got " +
                std::to_string(value));
  }
  return static_cast<int>(value);
}

}  // namespace

MachineProfile MachineProfileFromJson(const Json& json, const std::string& where) {
  if (!json.is_object() || StringOr(json, "format") != kFormat) {
    throw Error(where + ": not a " + std::string(kFormat) + " file");
  }
  const Json version = json.contains("version") ? json["version"] : Json(nullptr);
  if (!version.is_number_integer() || version.get<int64_t>() != kVersion) {
    throw Error(where + ": machine profile version " + version.dump() +
                "; this glimpse reads version " + std::to_string(kVersion));
  }
  MachineProfile profile;
  profile.name = StringOr(json, "name");
  profile.peak_gflops = PositiveNumber(json, "peak_gflops", where);
  profile.threads = SmallCount(json, "threads", where);
  profile.vector_lanes = SmallCount(json, "vector_lanes", where);
  profile.register_bytes = PositiveNumber(json, "register_bytes", where);
  if (!json.contains("levels") || !json["levels"].is_array() || json["levels"].empty()) {
    throw Error(where + ": field 'levels' must be a non-empty array (L1 … main memory)");
  }
  for (size_t i = 0; i < json["levels"].size(); ++i) {
    const Json& level = json["levels"][i];
    const std::string at = where + ": levels[" + std::to_string(i) + "]";
    if (!level.is_object() || !level.contains("name") || !level["name"].is_string()) {
      throw Error(at + ": needs a string field 'name'");
    }
    profile.levels.push_back({level["name"].get<std::string>(),
                              PositiveNumber(level, "size_bytes", at, /*zero_ok=*/true),
                              PositiveNumber(level, "bandwidth_gbs", at)});
  }
  profile.sources = json.value("sources", Json::object());
  return profile;
}

Json MachineProfileToJson(const MachineProfile& profile) {
  Json levels = Json::array();
  for (const MemoryLevel& level : profile.levels) {
    levels.push_back({{"name", level.name},
                      {"size_bytes", level.size_bytes},
                      {"bandwidth_gbs", level.bandwidth_gbs}});
  }
  return {{"format", kFormat},
          {"version", kVersion},
          {"name", profile.name},
          {"peak_gflops", profile.peak_gflops},
          {"threads", profile.threads},
          {"vector_lanes", profile.vector_lanes},
          {"register_bytes", profile.register_bytes},
          {"levels", levels},
          {"sources", profile.sources}};
}

MachineProfile LoadMachineProfile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot open the machine profile");
  Json json;
  try {
    json = Json::parse(in);
  } catch (const Json::exception& error) {
    throw Error(path + ": not JSON: " + error.what());
  }
  return MachineProfileFromJson(json, path);
}

std::string DefaultMachineProfilePath() { return HardwareDataPath("cpu_machine_profile.json"); }

}  // namespace glimpse
