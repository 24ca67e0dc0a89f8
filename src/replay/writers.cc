// Writing records as a Kernel Tuner cache or T4 results (times s → ms). The status mappings are
// documented in replay.h; LoadRecordedSpace reads both files back.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/replay.h"

namespace glimpse {

namespace {

constexpr double kSToMs = 1e3;

void CheckWritable(const Task& task, const char* format, bool splits_as_text) {
  for (const Knob& knob : task.space.knobs()) {
    if (knob.kind() == KnobKind::kOrdered || knob.kind() == KnobKind::kCategorical) continue;
    if (knob.kind() == KnobKind::kSplit && splits_as_text) continue;
    throw Error(std::string("cannot write task '") + task.name + "' as " + format + ": knob '" +
                knob.name() + "' is a " + KnobKindName(knob.kind()) + " knob; only ordered, " +
                "categorical" + (splits_as_text ? " and split" : "") + " knobs can be written");
  }
}

// A split knob's value as one Kernel Tuner parameter value: its factors joined by 'x' ("1x2x4x8").
Json SplitText(const KnobValue& value) {
  const auto& factors = std::get<std::vector<int64_t>>(value);
  std::string text;
  for (size_t i = 0; i < factors.size(); ++i) text += (i ? "x" : "") + std::to_string(factors[i]);
  return text;
}

// How a knob's value is written: split knobs as SplitText when `splits_as_text`, others as is.
Json WrittenValue(const Knob& knob, const KnobValue& value, bool splits_as_text) {
  if (splits_as_text && knob.kind() == KnobKind::kSplit) return SplitText(value);
  return KnobValueToJson(value);
}

// One record per configuration: its fastest ok record, else its last failure.
std::vector<const TuningRecord*> OnePerConfig(const std::vector<TuningRecord>& records) {
  std::map<std::string, size_t> chosen;  // config text → position in `picked`
  std::vector<const TuningRecord*> picked;
  for (const TuningRecord& record : records) {
    std::string key = record.config.dump();
    auto it = chosen.find(key);
    if (it == chosen.end()) {
      chosen.emplace(key, picked.size());
      picked.push_back(&record);
      continue;
    }
    const TuningRecord*& current = picked[it->second];
    bool record_ok = record.status == MeasureStatus::kOk;
    bool current_ok = current->status == MeasureStatus::kOk;
    if ((record_ok && (!current_ok || record.time_s < current->time_s)) ||
        (!record_ok && !current_ok)) {
      current = &record;
    }
  }
  return picked;
}

// The record's value of every knob, in the space's order, checked against the knob, as written
// (WrittenValue).
std::vector<Json> KnobValues(const Task& task, const TuningRecord& record, bool splits_as_text) {
  std::vector<Json> values;
  for (const Knob& knob : task.space.knobs()) {
    auto it = record.config.find(knob.name());
    if (it == record.config.end()) {
      throw Error("record " + std::to_string(record.id) + " has no value for knob '" + knob.name() +
                  "'");
    }
    std::optional<size_t> index = knob.IndexOfJson(*it);
    if (!index) {
      throw Error("record " + std::to_string(record.id) + ": knob '" + knob.name() +
                  "' has value " + it->dump() + ", which the task's space does not list");
    }
    values.push_back(WrittenValue(knob, knob.ValueAt(*index), splits_as_text));
  }
  return values;
}

// As Python's str() writes a value into a Kernel Tuner cache key.
std::string KeyPart(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "True" : "False";
  return value.dump();
}

std::string Timestamp(double seconds) {
  if (seconds <= 0.0) return "";
  std::time_t whole = static_cast<std::time_t>(seconds);
  std::tm utc{};
  gmtime_r(&whole, &utc);
  char text[64];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S", &utc);
  char micro[16];
  std::snprintf(micro, sizeof(micro), ".%06d+00:00",
                static_cast<int>((seconds - static_cast<double>(whole)) * 1e6));
  return std::string(text) + micro;
}

Json SamplesMs(const TuningRecord& record) {
  Json samples = Json::array();
  for (double sample : record.samples_s) samples.push_back(sample * kSToMs);
  return samples;
}

double BenchmarkTimeS(const TuningRecord& record) {
  return std::max(0.0, record.cost_s - record.compile_time_s);
}

const char* KernelTunerFailure(MeasureStatus status) {
  switch (status) {
    case MeasureStatus::kCompileHost:
    case MeasureStatus::kCompileDevice:
    case MeasureStatus::kBuildTimeout:
      return "CompilationFailedConfig";
    case MeasureStatus::kRuntimeDevice:
    case MeasureStatus::kRunTimeout:
    case MeasureStatus::kWrongAnswer:
      return "RuntimeFailedConfig";
    default:
      return "InvalidConfig";
  }
}

const char* T4Invalidity(MeasureStatus status) {
  switch (status) {
    case MeasureStatus::kOk:
      return "correct";
    case MeasureStatus::kCompileHost:
    case MeasureStatus::kCompileDevice:
      return "compile";
    case MeasureStatus::kWrongAnswer:
      return "correctness";
    case MeasureStatus::kBuildTimeout:
    case MeasureStatus::kRunTimeout:
      return "timeout";
    case MeasureStatus::kInstantiation:
      return "constraints";
    default:
      return "runtime";
  }
}

std::string DeviceOf(const Task& task, const std::vector<TuningRecord>& records) {
  return records.empty() || records.front().device.empty() ? task.device : records.front().device;
}

}  // namespace

void WriteKernelTunerCache(const Task& task, const std::vector<TuningRecord>& records,
                           std::ostream& out) {
  CheckWritable(task, "a Kernel Tuner cache", /*splits_as_text=*/true);
  // ordered_json keeps the members in Kernel Tuner's order.
  using OrderedJson = nlohmann::ordered_json;
  OrderedJson document;
  document["device_name"] = DeviceOf(task, records);
  const Json& kernel = task.description.contains("kernel") ? task.description["kernel"] : Json();
  document["kernel_name"] = kernel.is_string() && !kernel.get<std::string>().empty()
                                ? kernel.get<std::string>()
                                : task.name;
  document["problem_size"] = task.description.contains("problem_size")
                                 ? OrderedJson::parse(task.description["problem_size"].dump())
                                 : OrderedJson();
  OrderedJson keys = OrderedJson::array();
  OrderedJson params = OrderedJson::object();
  for (const Knob& knob : task.space.knobs()) {
    keys.push_back(knob.name());
    OrderedJson values = OrderedJson::array();
    for (const KnobValue& value : knob.values()) {
      values.push_back(OrderedJson::parse(WrittenValue(knob, value, true).dump()));
    }
    params[knob.name()] = std::move(values);
  }
  document["tune_params_keys"] = std::move(keys);
  document["tune_params"] = std::move(params);
  document["objective"] = "time";
  OrderedJson cache = OrderedJson::object();
  for (const TuningRecord* record : OnePerConfig(records)) {
    std::vector<Json> values = KnobValues(task, *record, /*splits_as_text=*/true);
    std::string key;
    OrderedJson entry = OrderedJson::object();
    for (size_t k = 0; k < values.size(); ++k) {
      key += (k ? "," : "") + KeyPart(values[k]);
      entry[task.space.knobs()[k].name()] = OrderedJson::parse(values[k].dump());
    }
    if (record->status == MeasureStatus::kOk) {
      entry["time"] = record->time_s * kSToMs;
      entry["times"] = OrderedJson::parse(SamplesMs(*record).dump());
    } else {
      entry["time"] = KernelTunerFailure(record->status);
    }
    entry["compile_time"] = record->compile_time_s * kSToMs;
    entry["verification_time"] = 0;
    entry["benchmark_time"] = BenchmarkTimeS(*record) * kSToMs;
    entry["strategy_time"] = 0;
    entry["framework_time"] = 0;
    if (std::string stamp = Timestamp(record->finished_at); !stamp.empty()) {
      entry["timestamp"] = stamp;
    }
    cache[key] = std::move(entry);
  }
  document["cache"] = std::move(cache);
  out << document.dump(1) << "\n";
}

void WriteT4Results(const Task& task, const std::vector<TuningRecord>& records, std::ostream& out) {
  CheckWritable(task, "T4 results", /*splits_as_text=*/false);
  using OrderedJson = nlohmann::ordered_json;
  OrderedJson results = OrderedJson::array();
  for (const TuningRecord* record : OnePerConfig(records)) {
    std::vector<Json> values = KnobValues(task, *record, /*splits_as_text=*/false);
    OrderedJson result = OrderedJson::object();
    if (std::string stamp = Timestamp(record->finished_at); !stamp.empty()) {
      result["timestamp"] = stamp;
    }
    OrderedJson configuration = OrderedJson::object();
    for (size_t k = 0; k < values.size(); ++k) {
      configuration[task.space.knobs()[k].name()] = OrderedJson::parse(values[k].dump());
    }
    result["configuration"] = std::move(configuration);
    OrderedJson times = OrderedJson::object();
    times["compilation"] = record->compile_time_s * kSToMs;
    times["benchmark"] = BenchmarkTimeS(*record) * kSToMs;
    if (record->status == MeasureStatus::kOk) {
      times["runtimes"] = OrderedJson::parse(SamplesMs(*record).dump());
    }
    result["times"] = std::move(times);
    result["invalidity"] = T4Invalidity(record->status);
    result["correctness"] = record->status == MeasureStatus::kOk ? 1 : 0;
    OrderedJson measurement = {{"name", "time"}, {"unit", "ms"}};
    if (record->status == MeasureStatus::kOk) {
      measurement["value"] = record->time_s * kSToMs;
    } else {
      measurement["value"] = T4Invalidity(record->status);
    }
    result["measurements"] = OrderedJson::array({measurement});
    result["objectives"] = OrderedJson::array({"time"});
    results.push_back(std::move(result));
  }
  OrderedJson document;
  document["metadata"] = {{"timeunit", "milliseconds"}};
  document["results"] = std::move(results);
  document["schema_version"] = "1.0.0";
  out << document.dump(1) << "\n";
}

}  // namespace glimpse
