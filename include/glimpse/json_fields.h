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

}  // namespace glimpse
