// --tuner-option key=value pairs → the JSON options a strategy's factory takes.
#pragma once

#include <string>
#include <vector>

#include "glimpse/json.h"

namespace glimpse::cli {

// "population=50" → {"population": 50}; numbers become numbers, true/false booleans, anything
// else a string. A pair without '=' is an Error naming it.
Json ParseTunerOptions(const std::vector<std::string>& pairs);

}  // namespace glimpse::cli
