// LoadRecordedSpace and RecordedSpace's methods: from a parsed file (recorded_file.h) to a space
// with entries by dense index — knobs from the file or a T1 file, restrictions, and the checks
// that every entry uses values the knobs have.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/replay.h"
#include "replay/recorded_file.h"

namespace glimpse {

namespace replay_internal {

KnobValue KnobValueFromJson(const Json& value) {
  if (value.is_number_integer()) return KnobValue(value.get<int64_t>());
  if (value.is_number_float()) return KnobValue(value.get<double>());
  if (value.is_string()) return KnobValue(value.get<std::string>());
  if (value.is_boolean()) return KnobValue(static_cast<int64_t>(value.get<bool>()));
  if (value.is_array()) {
    std::vector<int64_t> list;
    for (const Json& item : value) {
      if (!item.is_number_integer()) break;
      list.push_back(item.get<int64_t>());
    }
    if (list.size() == value.size()) return KnobValue(std::move(list));
  }
  throw Error("value " + value.dump() + " is not a number, a string or a list of integers");
}

Knob KnobFromValues(const std::string& name, const std::vector<Json>& values) {
  bool numeric = true;
  std::vector<KnobValue> knob_values;
  knob_values.reserve(values.size());
  for (const Json& value : values) {
    numeric = numeric && (value.is_number() || value.is_boolean());
    knob_values.push_back(KnobValueFromJson(value));
  }
  return numeric ? Knob::Ordered(name, std::move(knob_values))
                 : Knob::Categorical(name, std::move(knob_values));
}

std::string FileBaseName(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  for (const char* suffix : {".gz", ".json"}) {
    const std::string s(suffix);
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
      name.resize(name.size() - s.size());
    }
  }
  return name;
}

std::string RecordedFailureText(MeasureStatus status) {
  switch (status) {
    case MeasureStatus::kCompileDevice:
      return "recorded as CompilationFailedConfig";
    case MeasureStatus::kRuntimeDevice:
      return "recorded as RuntimeFailedConfig";
    default:
      return std::string("recorded as failed (") + StatusName(status) + ")";
  }
}

}  // namespace replay_internal

namespace {

using replay_internal::RawEntry;
using replay_internal::RawRecordedFile;

std::string AcceptedValues(const Knob& knob) {
  constexpr size_t kShown = 8;
  std::string text;
  for (size_t i = 0; i < knob.size() && i < kShown; ++i) {
    text += (i ? ", " : "") + KnobValueToString(knob.ValueAt(i));
  }
  if (knob.size() > kShown) text += ", … (" + std::to_string(knob.size()) + " values)";
  return text;
}

// The cache key of a Kernel Tuner entry is its knob values joined by ',': a key with another
// number of parts means the entry has a parameter tune_params lacks (or lacks one it has).
void CheckKeyArity(const RawEntry& raw, const std::vector<Knob>& file_knobs,
                   const std::unordered_map<std::string, size_t>& file_positions,
                   const std::string& path) {
  size_t parts = std::count(raw.label.begin(), raw.label.end(), ',') + 1;
  size_t expected = file_knobs.size();
  for (const auto& [name, value] : raw.fields) {
    if (value.is_string() && file_positions.count(name)) {
      const std::string& text = value.get_ref<const std::string&>();
      expected += std::count(text.begin(), text.end(), ',');
    }
  }
  if (parts != expected) {
    std::string names;
    for (const Knob& knob : file_knobs) names += (names.empty() ? "" : ", ") + knob.name();
    throw Error(path + ": cache entry '" + raw.label + "' has " + std::to_string(parts) +
                " parameter values in its key, but tune_params has " +
                std::to_string(file_knobs.size()) + " knobs (" + names +
                "); the entry has a knob tune_params lacks, or lacks one");
  }
}

}  // namespace

RecordedSpace LoadRecordedSpace(const std::string& path, const ReplayLoadOptions& options) {
  RawRecordedFile raw;
  {
    std::string text = ReadMaybeGzipFile(path);
    raw = replay_internal::ParseRecordedText(text, path);
  }
  RecordedSpace recorded;
  recorded.source_path = path;
  recorded.format = raw.format;
  recorded.kernel_name = raw.kernel_name;
  recorded.problem_size = raw.problem_size;
  recorded.device_name = !options.device_name.empty() ? options.device_name
                         : !raw.device_name.empty()   ? raw.device_name
                                                      : replay_internal::FileBaseName(path);

  // Knobs: from the T1 file when given (its order and values), else from the recorded file.
  std::vector<Knob> knobs = raw.knobs;
  std::vector<std::string> restrictions;
  std::string value_source = raw.format == RecordedFormat::kT4 ? "the file" : "tune_params";
  if (!options.t1_path.empty()) {
    T1Space t1 = LoadT1File(options.t1_path);
    for (const Knob& file_knob : raw.knobs) {
      bool known = std::any_of(t1.knobs.begin(), t1.knobs.end(),
                               [&](const Knob& knob) { return knob.name() == file_knob.name(); });
      if (!known) {
        throw Error(path + ": knob '" + file_knob.name() + "' is not a parameter of the T1 file " +
                    options.t1_path);
      }
    }
    knobs = std::move(t1.knobs);
    restrictions = std::move(t1.restrictions);
    value_source = "the T1 file " + options.t1_path;
  }
  try {
    for (Knob& knob : knobs) recorded.space.AddKnob(std::move(knob));
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
  for (const std::string& restriction : restrictions) {
    try {
      recorded.space.AddRestriction(restriction);
    } catch (const Error& e) {
      throw Error(options.t1_path + ": Conditions: " + e.what());
    }
  }
  for (const std::string& restriction : options.restrictions) {
    try {
      recorded.space.AddRestriction(restriction);
    } catch (const Error& e) {
      throw Error(path + ": extra restriction: " + e.what());
    }
  }

  const ConfigSpace& space = recorded.space;
  const std::vector<Knob>& space_knobs = space.knobs();
  std::unordered_map<std::string, size_t> positions;
  for (size_t k = 0; k < space_knobs.size(); ++k) positions.emplace(space_knobs[k].name(), k);
  std::unordered_map<std::string, size_t> file_positions;
  for (size_t k = 0; k < raw.knobs.size(); ++k) file_positions.emplace(raw.knobs[k].name(), k);

  constexpr uint32_t kUnset = std::numeric_limits<uint32_t>::max();
  recorded.entries.reserve(raw.entries.size());
  Config config;
  for (RawEntry& raw_entry : raw.entries) {
    if (raw.check_key_arity) CheckKeyArity(raw_entry, raw.knobs, file_positions, path);
    config.indices.assign(space_knobs.size(), kUnset);
    for (const auto& [name, value] : raw_entry.fields) {
      auto position = positions.find(name);
      if (position == positions.end()) continue;  // a metric (GFLOP/s, timestamp, …)
      const Knob& knob = space_knobs[position->second];
      std::optional<size_t> index = knob.IndexOfJson(value);
      if (!index) {
        throw Error(path + ": entry '" + raw_entry.label + "': knob '" + name + "' has value " +
                    value.dump() + ", which " + value_source +
                    " does not list (accepted: " + AcceptedValues(knob) + ")");
      }
      config.indices[position->second] = static_cast<uint32_t>(*index);
    }
    for (size_t k = 0; k < space_knobs.size(); ++k) {
      if (config.indices[k] == kUnset) {
        throw Error(path + ": entry '" + raw_entry.label + "' has no value for knob '" +
                    space_knobs[k].name() + "'");
      }
    }
    if (!space.IsValid(config)) {
      ++recorded.outside_restrictions;
      continue;
    }
    recorded.entries[space.ToDenseIndex(config)] = std::move(raw_entry.entry);
  }
  return recorded;
}

std::map<MeasureStatus, int64_t> RecordedSpace::CountByStatus() const {
  std::map<MeasureStatus, int64_t> counts;
  for (const auto& [index, entry] : entries) ++counts[entry.status];
  return counts;
}

std::optional<std::pair<uint64_t, RecordedEntry>> RecordedSpace::Best() const {
  std::optional<std::pair<uint64_t, RecordedEntry>> best;
  for (const auto& [index, entry] : entries) {
    if (entry.status != MeasureStatus::kOk) continue;
    // Ties go to the lower index, so the answer does not depend on hash-map order.
    if (!best || entry.time_s < best->second.time_s ||
        (entry.time_s == best->second.time_s && index < best->first)) {
      best.emplace(index, entry);
    }
  }
  return best;
}

double RecordedSpace::MedianCompileTime() const {
  std::vector<double> times;
  times.reserve(entries.size());
  for (const auto& [index, entry] : entries) times.push_back(entry.compile_time_s);
  if (times.empty()) return 0.0;
  const size_t middle = times.size() / 2;
  std::nth_element(times.begin(), times.begin() + middle, times.end());
  if (times.size() % 2 == 1) return times[middle];
  const double lower = *std::max_element(times.begin(), times.begin() + middle);
  return 0.5 * (lower + times[middle]);
}

Task RecordedSpace::MakeTask() const {
  Task task;
  if (!kernel_name.empty()) {
    task.name = problem_size.is_null() ? kernel_name : kernel_name + " " + problem_size.dump();
  } else {
    task.name = replay_internal::FileBaseName(source_path);
  }
  task.device = device_name;
  task.space = space;
  // Neither the path nor the device: the same kernel recorded on two GPUs is one workload.
  task.description =
      Json{{"kernel", kernel_name}, {"problem_size", problem_size}, {"source", "replay"}};
  return task;
}

std::vector<TuningRecord> RecordsFromRecordedSpace(const RecordedSpace& recorded) {
  const std::string workload_key = recorded.MakeTask().WorkloadKey();
  std::vector<uint64_t> indices;
  indices.reserve(recorded.entries.size());
  for (const auto& [index, entry] : recorded.entries) indices.push_back(index);
  std::sort(indices.begin(), indices.end());

  std::vector<TuningRecord> records;
  records.reserve(indices.size());
  for (uint64_t index : indices) {
    const RecordedEntry& entry = recorded.entries.at(index);
    Config config = recorded.space.FromDenseIndex(index);
    TuningRecord record;
    record.workload_key = workload_key;
    record.device = recorded.device_name;
    record.config = recorded.space.ConfigToJson(config);
    record.config_hash = HashToHex(recorded.space.Hash(config));
    record.status = entry.status;
    record.time_s =
        entry.status == MeasureStatus::kOk ? entry.time_s : std::numeric_limits<double>::infinity();
    record.samples_s = entry.samples_s;
    record.compile_time_s = entry.compile_time_s;
    record.cost_s = entry.compile_time_s + entry.benchmark_time_s;
    if (entry.status != MeasureStatus::kOk) {
      record.error = replay_internal::RecordedFailureText(entry.status);
    }
    record.strategy = "import";
    records.push_back(std::move(record));
  }
  return records;
}

}  // namespace glimpse
