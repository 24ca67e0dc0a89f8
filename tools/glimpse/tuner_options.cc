#include "tuner_options.h"

#include "glimpse/error.h"

namespace glimpse::cli {

Json ParseTunerOptions(const std::vector<std::string>& pairs) {
  Json options = Json::object();
  for (const std::string& pair : pairs) {
    size_t equals = pair.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw Error("--tuner-option '" + pair + "': expected key=value, e.g. population=50");
    }
    std::string key = pair.substr(0, equals);
    std::string value = pair.substr(equals + 1);
    if (value == "true" || value == "false") {
      options[key] = value == "true";
      continue;
    }
    // A value that parses completely as JSON number is a number; everything else a string.
    Json parsed = Json::parse(value, nullptr, /*allow_exceptions=*/false);
    options[key] = parsed.is_number() ? parsed : Json(value);
  }
  return options;
}

}  // namespace glimpse::cli
