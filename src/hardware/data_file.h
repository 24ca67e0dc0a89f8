// Reading the hardware data files (the GPU table, the Blueprint model): a JSON document with a
// "format" and a "version", and errors that name the file by what it is.
#pragma once

#include <string>

#include "glimpse/json.h"

namespace glimpse::hardware {

// The JSON document in the file at `path`; `what` ("GPU table") names it in the errors, and
// `open_hint` (empty: none) follows the error for a file that cannot be opened.
Json ReadDataFile(const std::string& path, const std::string& what, const std::string& open_hint);

// Checks that `json` is an object whose "format" is `format` and whose "version" is the integer
// `version`; `remake` ends the version error ("remake it with: …").
void CheckDataFileHeader(const Json& json, const std::string& origin, const std::string& what,
                         const char* format, int version, const std::string& remake);

}  // namespace glimpse::hardware
