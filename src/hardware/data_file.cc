// Reading the hardware data files (hardware/data_file.h).
#include "hardware/data_file.h"

#include <fmt/format.h>

#include <fstream>

#include "glimpse/error.h"
#include "glimpse/json_fields.h"

namespace glimpse::hardware {

Json ReadDataFile(const std::string& path, const std::string& what, const std::string& open_hint) {
  std::ifstream in(path);
  if (!in) {
    throw Error(fmt::format("cannot open {} '{}'{}", what, path,
                            open_hint.empty() ? "" : " (" + open_hint + ")"));
  }
  Json json;
  try {
    json = Json::parse(in);
    // parse_error, or out_of_range for a number too large for a double
  } catch (const Json::exception& e) {
    throw Error(fmt::format("{} '{}' is not valid JSON: {}", what, path, e.what()));
  }
  return json;
}

void CheckDataFileHeader(const Json& json, const std::string& origin, const std::string& what,
                         const char* format, int version, const std::string& remake) {
  if (!json.is_object() || StringOr(json, "format") != format) {
    throw Error(
        fmt::format("'{}' is not a {} (its \"format\" must be \"{}\")", origin, what, format));
  }
  if (!json.contains("version") || !json["version"].is_number_integer()) {
    throw Error(fmt::format("{} '{}' has no integer \"version\"", what, origin));
  }
  int found = json["version"].get<int>();
  if (found != version) {
    throw Error(fmt::format("{} '{}' has version {}; this glimpse reads version {} ({})", what,
                            origin, found, version, remake));
  }
}

}  // namespace glimpse::hardware
