// Helpers shared by the hwaware model files (validity ensemble, prior generator, acquisition
// function): required fields with errors that name the file and the field, and their versions.
#pragma once

#include <fmt/format.h>

#include <string>

#include "glimpse/error.h"
#include "glimpse/json.h"

namespace glimpse {
namespace hwaware {

// json[key] as T; an Error naming `where` and the key when it is missing or of another type.
template <typename T>
T Field(const Json& json, const char* key, const std::string& where) {
  if (!json.is_object() || !json.contains(key)) {
    throw Error(fmt::format("{}: missing field '{}'", where, key));
  }
  try {
    return json.at(key).get<T>();
  } catch (const Json::exception&) {
    throw Error(
        fmt::format("{}: field '{}' has the wrong type ({})", where, key, json.at(key).dump()));
  }
}

// json[key] when it is an integer, else -1 (a version no file has), so that the caller's
// "version N, expected M" message covers a missing or malformed version too.
int VersionOf(const Json& json, const char* key);

}  // namespace hwaware
}  // namespace glimpse
