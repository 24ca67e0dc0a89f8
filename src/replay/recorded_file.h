// Internal: what the format readers (Kernel Tuner cache, T4 results) hand to the code that turns a
// recorded file into a RecordedSpace (recorded_space.cc). Readers only parse; knob lookup,
// restrictions and T1 checks happen in one place for both formats.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "glimpse/json.h"
#include "glimpse/replay.h"
#include "glimpse/space.h"

namespace glimpse::replay_internal {

// JSON with object keys in file order (parameter order matters for T4 files).
using OrderedJson = nlohmann::ordered_json;

struct RawEntry {
  std::string label;  // the cache key, or "result <n>" for T4 files; for error messages
  // The entry's own fields that may be knob values, by name, in file order.
  std::vector<std::pair<std::string, Json>> fields;
  RecordedEntry entry;
};

struct RawRecordedFile {
  RecordedFormat format = RecordedFormat::kKernelTunerCache;
  std::string device_name;
  std::string kernel_name;
  Json problem_size;        // null when absent
  std::vector<Knob> knobs;  // as the file defines (KT) or implies (T4) them
  std::vector<RawEntry> entries;
  // True when the file was cut short and only its complete entries were read.
  bool truncated = false;
  // KT only: check that each entry's key lists as many values as there are knobs (this is how an
  // entry with a knob that tune_params lacks shows up).
  bool check_key_arity = false;
};

// Parses a Kernel Tuner cache or a T4 result file (already inflated). `path` is for messages.
// Throws Error "<path>: …".
RawRecordedFile ParseRecordedText(const std::string& text, const std::string& path);

// T4 results from their parsed document (called by ParseRecordedText).
RawRecordedFile ParseT4Document(const OrderedJson& document, const std::string& path);

// Knob from a list of values: ordered when every value is a number, categorical otherwise.
// Throws Error (from the space) on duplicates.
Knob KnobFromValues(const std::string& name, const std::vector<Json>& values);
KnobValue KnobValueFromJson(const Json& value);

// "MI250X" for ".../MI250X.json.gz".
std::string FileBaseName(const std::string& path);

// Error text of a recorded failure ("recorded as CompilationFailedConfig", …).
std::string RecordedFailureText(MeasureStatus status);

}  // namespace glimpse::replay_internal
