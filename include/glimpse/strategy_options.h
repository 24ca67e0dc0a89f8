// Reading a strategy's options from JSON (the command line's --tuner-option key=value).
//
// Values may be JSON numbers or strings that spell a number exactly ("50", "0.2"), because the
// command line passes text. Every error names the tuner and the option.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "glimpse/json.h"

namespace glimpse::tuner {

// Throws Error unless `options` is an object (or null) whose keys are all in `accepted`:
// "tuner 'ga': unknown option 'popsize'; accepted: elite, mutation_probability, population".
void CheckOptionKeys(const Json& options, const std::string& tuner,
                     const std::vector<std::string>& accepted);

// The option's value, or nullopt when absent. Throws Error on a value of the wrong type.
std::optional<int64_t> IntOption(const Json& options, const std::string& tuner,
                                 const std::string& key);
std::optional<double> NumberOption(const Json& options, const std::string& tuner,
                                   const std::string& key);

}  // namespace glimpse::tuner
