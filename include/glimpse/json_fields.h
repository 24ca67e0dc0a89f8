// Reading required fields of a JSON object with errors that name where the object came from, the
// field, what is accepted and what was found: "gpu worker request: field 'rtol' must be a number,
// not \"x\"".
#pragma once

#include <cstdint>
#include <string>

#include "glimpse/json.h"

namespace glimpse {

// Throws Error "<where>: missing field '<name>'" when `json` is not an object or lacks `name`.
const Json& RequireField(const Json& json, const char* name, const std::string& where);
// An integer ≥ `low`.
int64_t RequireInteger(const Json& json, const char* name, const std::string& where, int64_t low);
double RequireNumber(const Json& json, const char* name, const std::string& where);
// A non-empty string.
std::string RequireString(const Json& json, const char* name, const std::string& where);
bool RequireBool(const Json& json, const char* name, const std::string& where);

// The string at `name`, or `fallback` when `json` is not an object, lacks it or holds another
// type there: for fields that only identify (a file's format, who made it), where a number means
// "not this format", never an exception. (Json::value throws a type_error for a wrong type.)
inline std::string StringOr(const Json& json, const char* name, const std::string& fallback = "") {
  if (!json.is_object()) return fallback;
  const auto it = json.find(name);
  return it != json.end() && it->is_string() ? it->get<std::string>() : fallback;
}
// The same for a number.
inline double NumberOr(const Json& json, const char* name, double fallback) {
  if (!json.is_object()) return fallback;
  const auto it = json.find(name);
  return it != json.end() && it->is_number() ? it->get<double>() : fallback;
}

}  // namespace glimpse
