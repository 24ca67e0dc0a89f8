// Helpers shared by the hwaware model files (validity ensemble, prior generator, acquisition
// function): required fields with errors that name the file and the field, and their versions.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/json.h"

namespace glimpse {
namespace hwaware {

// A number of type T from a JSON number, refused (Error naming the field) when T cannot hold it:
// converting an out-of-range or fractional double to an integer, or a double beyond float's range
// to float, is undefined behaviour, and a model file is input like any other.
template <typename T>
T CheckedNumber(const Json& value, const char* key, const std::string& where) {
  auto refuse = [&] {
    return Error(fmt::format("{}: field '{}' is out of range ({})", where, key, value.dump()));
  };
  if constexpr (std::is_integral_v<T>) {
    using Limits = std::numeric_limits<T>;
    if (value.is_number_unsigned()) {
      if (value.get<uint64_t>() > static_cast<uint64_t>(Limits::max())) throw refuse();
      return static_cast<T>(value.get<uint64_t>());
    }
    if (value.is_number_integer()) {
      const int64_t number = value.get<int64_t>();
      if constexpr (Limits::is_signed) {
        if (number < static_cast<int64_t>(Limits::min()) ||
            number > static_cast<int64_t>(Limits::max())) {
          throw refuse();
        }
      } else if (number < 0) {
        throw refuse();
      }
      return static_cast<T>(number);
    }
    const double number = value.get<double>();
    // 2^digits is exactly representable and is the first value past T's range.
    const double past_max = std::ldexp(1.0, Limits::digits);
    if (!(number == std::floor(number)) || number >= past_max ||
        number < static_cast<double>(Limits::min())) {
      throw refuse();
    }
    return static_cast<T>(number);
  } else {
    const double number = value.get<double>();
    if (std::isfinite(number) &&
        std::fabs(number) > static_cast<double>(std::numeric_limits<T>::max())) {
      throw refuse();
    }
    return static_cast<T>(number);
  }
}

// json[key] as T; an Error naming `where` and the key when it is missing, of another type, or a
// number T cannot hold.
template <typename T>
T Field(const Json& json, const char* key, const std::string& where) {
  if (!json.is_object() || !json.contains(key)) {
    throw Error(fmt::format("{}: missing field '{}'", where, key));
  }
  const Json& value = json.at(key);
  if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
    if (!value.is_number()) {
      throw Error(fmt::format("{}: field '{}' has the wrong type ({})", where, key, value.dump()));
    }
    return CheckedNumber<T>(value, key, where);
  } else {
    try {
      return value.get<T>();
    } catch (const Json::exception&) {
      throw Error(fmt::format("{}: field '{}' has the wrong type ({})", where, key, value.dump()));
    }
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
