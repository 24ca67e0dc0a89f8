// Shared model-file helpers (hwaware/model_file_fields.h).
#include "hwaware/model_file_fields.h"

#include "glimpse/hardware.h"
#include "glimpse/json_fields.h"

namespace glimpse {
namespace hwaware {

int VersionOf(const Json& json, const char* key) {
  return json.is_object() && json.contains(key) && json.at(key).is_number_integer()
             ? json.at(key).get<int>()
             : -1;
}

const Json& Member(const Json& json, const char* key) {
  static const Json kNull;
  return json.is_object() && json.contains(key) ? json.at(key) : kNull;
}

void CheckModelHeader(const Json& json, const std::string& origin, const char* format, int version,
                      const char* what, const char* remake) {
  if (!json.is_object()) throw Error(origin + ": not a JSON object");
  std::string found_format = StringOr(json, "format");
  if (found_format != format) {
    throw Error(fmt::format("{}: format '{}', expected '{}' (remake it with '{}')", origin,
                            found_format, format, remake));
  }
  int found_version = VersionOf(json, "version");
  if (found_version != version) {
    throw Error(
        fmt::format("{}: {} version {}; this glimpse reads version {} (remake it with '{}')",
                    origin, what, found_version, version, remake));
  }
}

void CheckBlueprintVersion(int version, const std::string& origin, const char* remake) {
  if (version != kBlueprintVersion) {
    throw Error(
        fmt::format("{}: made with Blueprint version {}; this glimpse's Blueprint is version {} "
                    "(remake it with '{}')",
                    origin, version, kBlueprintVersion, remake));
  }
}

void CheckFeatureVersion(int version, int expected, const char* what, const std::string& origin,
                         const char* remake) {
  if (version != expected) {
    throw Error(
        fmt::format("{}: {} features version {}; this glimpse computes version {} (remake it "
                    "with '{}')",
                    origin, what, version, expected, remake));
  }
}

std::vector<std::string> BlueprintTrainingGpus(const Json& blueprint, const std::string& where) {
  if (!blueprint.contains("training_gpus")) return {};
  return Field<std::vector<std::string>>(blueprint, "training_gpus", where);
}

}  // namespace hwaware
}  // namespace glimpse
