#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "glimpse/error.h"
#include "glimpse/strategy_options.h"
#include "glimpse/whole_number.h"

namespace glimpse::tuner {

namespace {

std::string Prefix(const std::string& tuner, const std::string& key) {
  return "tuner '" + tuner + "': option '" + key + "'";
}

std::string Shown(const Json& value) {
  std::string text = value.dump();
  return text.size() > 40 ? text.substr(0, 37) + "..." : text;
}

}  // namespace

void CheckOptionKeys(const Json& options, const std::string& tuner,
                     const std::vector<std::string>& accepted) {
  if (options.is_null()) return;
  if (!options.is_object()) {
    throw Error("tuner '" + tuner + "': options must be a JSON object of key/value pairs (got " +
                Shown(options) + ")");
  }
  for (const auto& [key, value] : options.items()) {
    bool known = false;
    for (const std::string& name : accepted) known = known || name == key;
    if (known) continue;
    std::string list;
    for (const std::string& name : accepted) list += (list.empty() ? "" : ", ") + name;
    throw Error("tuner '" + tuner + "': unknown option '" + key +
                "'; accepted: " + (list.empty() ? "none" : list));
  }
}

namespace {

// The option `key` as `read` reads it (nullopt: not of the option's kind), nullopt when the
// options do not give it; an Error that says the option must be `kind` when `read` refuses it.
template <typename T, typename Read>
std::optional<T> ReadOption(const Json& options, const std::string& tuner, const std::string& key,
                            const char* kind, Read read) {
  if (!options.is_object() || !options.contains(key)) return std::nullopt;
  const Json& value = options.at(key);
  if (std::optional<T> number = read(value)) return number;
  throw Error(Prefix(tuner, key) + " must be " + kind + " (got " + Shown(value) + ")");
}

}  // namespace

std::optional<int64_t> IntOption(const Json& options, const std::string& tuner,
                                 const std::string& key) {
  return ReadOption<int64_t>(
      options, tuner, key, "an integer", [](const Json& value) -> std::optional<int64_t> {
        if (value.is_number_integer()) return value.get<int64_t>();
        if (value.is_number_float()) {
          double number = value.get<double>();
          if (std::isfinite(number) && number == std::floor(number) && std::abs(number) < 9.0e15) {
            return static_cast<int64_t>(number);
          }
        }
        if (value.is_string()) return WholeNumber<int64_t>(value.get_ref<const std::string&>());
        return std::nullopt;
      });
}

std::optional<double> NumberOption(const Json& options, const std::string& tuner,
                                   const std::string& key) {
  return ReadOption<double>(
      options, tuner, key, "a number", [](const Json& value) -> std::optional<double> {
        if (value.is_number()) return value.get<double>();
        if (!value.is_string()) return std::nullopt;
        std::optional<double> number = WholeNumber<double>(value.get_ref<const std::string&>());
        if (number && std::isfinite(*number)) return number;
        return std::nullopt;
      });
}

}  // namespace glimpse::tuner
