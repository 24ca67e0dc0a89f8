// glimpse/json.h — the JSON type used across the public interfaces (nlohmann::json).
#pragma once

#include <nlohmann/json.hpp>

namespace glimpse {
using Json = nlohmann::json;
}  // namespace glimpse
