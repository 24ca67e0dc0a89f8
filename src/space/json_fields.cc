#include "glimpse/json_fields.h"

#include "glimpse/error.h"

namespace glimpse {

const Json& RequireField(const Json& json, const char* name, const std::string& where) {
  if (!json.is_object() || !json.contains(name)) {
    throw Error(where + ": missing field '" + name + "'");
  }
  return json[name];
}

int64_t RequireInteger(const Json& json, const char* name, const std::string& where, int64_t low) {
  const Json& value = RequireField(json, name, where);
  if (!value.is_number_integer() || value.get<int64_t>() < low) {
    throw Error(where + ": field '" + name + "' must be an integer ≥ " + std::to_string(low) +
                ", not " + value.dump());
  }
  return value.get<int64_t>();
}

double RequireNumber(const Json& json, const char* name, const std::string& where) {
  const Json& value = RequireField(json, name, where);
  if (!value.is_number()) {
    throw Error(where + ": field '" + name + "' must be a number, not " + value.dump());
  }
  return value.get<double>();
}

std::string RequireString(const Json& json, const char* name, const std::string& where) {
  const Json& value = RequireField(json, name, where);
  if (!value.is_string() || value.get<std::string>().empty()) {
    throw Error(where + ": field '" + name + "' must be a non-empty string, not " + value.dump());
  }
  return value.get<std::string>();
}

bool RequireBool(const Json& json, const char* name, const std::string& where) {
  const Json& value = RequireField(json, name, where);
  if (!value.is_boolean()) {
    throw Error(where + ": field '" + name + "' must be true or false, not " + value.dump());
  }
  return value.get<bool>();
}

}  // namespace glimpse
