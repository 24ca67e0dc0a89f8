// Helpers shared by the hwaware model files (validity ensemble, prior generator, acquisition
// function): required fields with errors that name the file and the field, and their versions.
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

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

// json[key], or null when `json` is not an object or has no such member (Field then reports it as
// missing).
const Json& Member(const Json& json, const char* key);

// The checks every model file starts with, one wording for all three models; each error says how
// to remake the file (`remake`, a command line).
//
// A JSON object whose "format" is `format` and whose "version" is `version`; `what` names the
// model in the version error ("prior generator").
void CheckModelHeader(const Json& json, const std::string& origin, const char* format, int version,
                      const char* what, const char* remake);
// The Blueprint version the file was made with is this glimpse's.
void CheckBlueprintVersion(int version, const std::string& origin, const char* remake);
// The features' version the file was made with is `expected`, the one this glimpse computes;
// `what` names the features ("prior").
void CheckFeatureVersion(int version, int expected, const char* what, const std::string& origin,
                         const char* remake);

// blueprint["training_gpus"] (the GPUs the Blueprint was made from), empty when absent.
std::vector<std::string> BlueprintTrainingGpus(const Json& blueprint, const std::string& where);

}  // namespace hwaware
}  // namespace glimpse
