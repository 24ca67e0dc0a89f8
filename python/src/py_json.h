// Python objects ⇄ glimpse's JSON (nlohmann): the currency between Python's dicts and lists and the
// C++ API, which takes configurations, options and descriptions as JSON.
#pragma once

#include <nanobind/nanobind.h>

#include <string>

#include "glimpse/json.h"

namespace glimpse::python {

// None, bool, int, float, str, list/tuple and dict with str keys (and numpy scalars, through
// their int/float conversions). Anything else is a TypeError naming `where` and the type.
Json ToJson(nanobind::handle object, const std::string& where);
nanobind::object ToPython(const Json& json);

}  // namespace glimpse::python
