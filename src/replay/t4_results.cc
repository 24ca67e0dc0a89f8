// T4 ("FAIR auto-tuning results") files: {"metadata": {"timeunit": …}, "results": [{
//   "configuration": {name: value}, "times": {"compilation", "benchmark", "runtimes": []},
//   "invalidity": "correct" | "compile" | "runtime" | …, "measurements": [{"name", "value"}]}]}.
// The knobs are not listed in the file: they are inferred from all configurations.
#include <algorithm>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/json_fields.h"
#include "replay/recorded_file.h"

namespace glimpse::replay_internal {

namespace {

constexpr double kMsToS = 1e-3;

MeasureStatus StatusFromInvalidity(const std::string& invalidity) {
  if (invalidity == "correct") return MeasureStatus::kOk;
  if (invalidity == "compile") return MeasureStatus::kCompileDevice;
  if (invalidity == "runtime") return MeasureStatus::kRuntimeDevice;
  if (invalidity == "correctness") return MeasureStatus::kWrongAnswer;
  if (invalidity == "timeout") return MeasureStatus::kRunTimeout;
  if (invalidity == "constraints") return MeasureStatus::kInstantiation;
  return MeasureStatus::kUnknown;
}

// Numbers before strings; numbers by value, strings by text.
bool ValueLess(const Json& a, const Json& b) {
  if (a.is_number() != b.is_number()) return a.is_number();
  if (a.is_number()) return a.get<double>() < b.get<double>();
  return a.dump() < b.dump();
}

bool ValueEqual(const Json& a, const Json& b) {
  if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
  return a == b;
}

double NumberOr(const OrderedJson& object, const char* name, double fallback) {
  auto it = object.find(name);
  return it != object.end() && it->is_number() ? it->get<double>() : fallback;
}

}  // namespace

RawRecordedFile ParseT4Document(const OrderedJson& document, const std::string& path) {
  if (auto metadata = document.find("metadata"); metadata != document.end()) {
    if (auto unit = metadata->find("timeunit"); unit != metadata->end()) {
      std::string text = unit->is_string() ? unit->get<std::string>() : unit->dump();
      // "miliseconds" is how the T4 files written by Kernel Tuner spell it.
      if (text != "miliseconds" && text != "milliseconds" && text != "ms") {
        throw Error(path + ": metadata.timeunit '" + text +
                    "' is not supported; accepted: milliseconds, miliseconds, ms");
      }
    }
  }
  const OrderedJson& results = document.at("results");
  RawRecordedFile raw;
  raw.format = RecordedFormat::kT4;
  raw.problem_size = Json();
  raw.entries.reserve(results.size());

  std::vector<std::string> names;         // parameter order of the first configuration
  std::vector<std::vector<Json>> values;  // every value seen, per parameter
  for (std::size_t i = 0; i < results.size(); ++i) {
    const OrderedJson& result = results[i];
    const std::string where = path + ": results[" + std::to_string(i) + "]";
    if (!result.is_object()) throw Error(where + " is not an object");
    auto configuration = result.find("configuration");
    if (configuration == result.end() || !configuration->is_object()) {
      throw Error(where + " has no \"configuration\" object");
    }
    RawEntry raw_entry;
    raw_entry.label = "results[" + std::to_string(i) + "]";
    for (const auto& item : configuration->items()) {
      Json value(item.value());
      auto position = std::find(names.begin(), names.end(), item.key());
      if (position == names.end()) {
        if (i > 0) {
          throw Error(where + ": parameter '" + item.key() +
                      "' is not in the first configuration; every configuration must name the "
                      "same parameters");
        }
        names.push_back(item.key());
        values.emplace_back();
        position = names.end() - 1;
      }
      values[position - names.begin()].push_back(value);
      raw_entry.fields.emplace_back(item.key(), std::move(value));
    }

    RecordedEntry& entry = raw_entry.entry;
    auto invalidity = result.find("invalidity");
    if (invalidity == result.end() || !invalidity->is_string()) {
      throw Error(where + " has no \"invalidity\" string (correct, compile, runtime, …)");
    }
    entry.status = StatusFromInvalidity(invalidity->get<std::string>());
    if (auto times = result.find("times"); times != result.end() && times->is_object()) {
      entry.compile_time_s = NumberOr(*times, "compilation", 0.0) * kMsToS;
      entry.benchmark_time_s = NumberOr(*times, "benchmark", 0.0) * kMsToS;
      if (auto runtimes = times->find("runtimes"); runtimes != times->end()) {
        if (!runtimes->is_array())
          throw Error(where + ": times.runtimes must be a list of numbers");
        for (const auto& runtime : *runtimes) {
          if (!runtime.is_number()) {
            throw Error(where + ": times.runtimes must be a list of numbers");
          }
          entry.samples_s.push_back(runtime.get<double>() * kMsToS);
        }
      }
    }
    entry.time_s = std::numeric_limits<double>::infinity();
    if (entry.status == MeasureStatus::kOk) {
      bool found = false;
      if (auto measurements = result.find("measurements");
          measurements != result.end() && measurements->is_array()) {
        for (const auto& measurement : *measurements) {
          if (measurement.is_object() && StringOr(measurement, "name") == "time" &&
              measurement.contains("value") && measurement["value"].is_number()) {
            entry.time_s = measurement["value"].get<double>() * kMsToS;
            found = true;
            break;
          }
        }
      }
      if (!found) {
        if (entry.samples_s.empty()) {
          throw Error(where + " is correct but has neither a \"time\" measurement nor runtimes");
        }
        entry.time_s = std::accumulate(entry.samples_s.begin(), entry.samples_s.end(), 0.0) /
                       static_cast<double>(entry.samples_s.size());
      }
    }
    raw.entries.push_back(std::move(raw_entry));
  }

  for (std::size_t k = 0; k < names.size(); ++k) {
    std::vector<Json>& list = values[k];
    std::sort(list.begin(), list.end(), ValueLess);
    list.erase(std::unique(list.begin(), list.end(), ValueEqual), list.end());
    try {
      raw.knobs.push_back(KnobFromValues(names[k], list));
    } catch (const Error& e) {
      throw Error(path + ": parameter '" + names[k] + "': " + e.what());
    }
  }
  return raw;
}

}  // namespace glimpse::replay_internal
