// Reading a recorded file's text: one SAX pass that serves both formats.
//
// Map:
//   ValueBuilder     — assembles ordinary JSON values (everything but the cache entries) from SAX
//                      events, keeping object keys in file order.
//   RecordedSax      — the SAX handler. The "cache" object of a Kernel Tuner file is read entry by
//                      entry straight into RawEntry (no DOM: the largest caches are ~30 MB of JSON
//                      and a DOM of them costs most of the load time); all other top-level members
//                      go through ValueBuilder.
//   ParseRecordedText — runs the pass, accepts a cache cut short at the end of the text (the
//                      complete entries before the cut are kept: the same as cutting back to the
//                      last complete entry and closing the braces), and dispatches on the content:
//                      "cache" → Kernel Tuner cache, "results" → T4.
#include <cctype>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "glimpse/error.h"
#include "replay/recorded_file.h"

namespace glimpse::replay_internal {

namespace {

constexpr double kMsToS = 1e-3;

// Builds one JSON value from SAX events.
class ValueBuilder {
 public:
  bool Busy() const { return !stack_.empty(); }
  // Each call returns true when it completed a whole value (then Take() it).
  bool Scalar(OrderedJson value) { return Insert(std::move(value)); }
  void StartObject() {
    stack_.emplace_back(OrderedJson::object());
    keys_.emplace_back();
  }
  void StartArray() {
    stack_.emplace_back(OrderedJson::array());
    keys_.emplace_back();
  }
  void Key(std::string key) { keys_.back() = std::move(key); }
  bool End() {
    OrderedJson value = std::move(stack_.back());
    stack_.pop_back();
    keys_.pop_back();
    return Insert(std::move(value));
  }
  OrderedJson Take() { return std::move(done_); }

 private:
  bool Insert(OrderedJson value) {
    if (stack_.empty()) {
      done_ = std::move(value);
      return true;
    }
    OrderedJson& top = stack_.back();
    if (top.is_object()) {
      top[keys_.back()] = std::move(value);
    } else {
      top.push_back(std::move(value));
    }
    return false;
  }
  std::vector<OrderedJson> stack_;
  std::vector<std::string> keys_;
  OrderedJson done_;
};

class RecordedSax {
 public:
  using NumberInteger = OrderedJson::number_integer_t;
  using NumberUnsigned = OrderedJson::number_unsigned_t;
  using NumberFloat = OrderedJson::number_float_t;
  using String = OrderedJson::string_t;
  using Binary = OrderedJson::binary_t;

  OrderedJson header = OrderedJson::object();  // every top-level member except "cache"
  std::vector<RawEntry> entries;
  bool saw_cache = false;
  std::string error;  // set when this handler stopped the parse
  std::size_t error_position = 0;
  std::string parse_message;  // set when the parser found malformed JSON

  bool null() { return Scalar(OrderedJson(nullptr)); }
  bool boolean(bool value) { return Scalar(OrderedJson(value)); }
  bool number_integer(NumberInteger value) {
    if (state_ == State::kSamples) return Sample(static_cast<double>(value));
    return Scalar(OrderedJson(value));
  }
  bool number_unsigned(NumberUnsigned value) {
    if (state_ == State::kSamples) return Sample(static_cast<double>(value));
    return Scalar(OrderedJson(value));
  }
  bool number_float(NumberFloat value, const String& /*text*/) {
    if (state_ == State::kSamples) return Sample(value);
    return Scalar(OrderedJson(value));
  }
  bool string(String& value) { return Scalar(OrderedJson(std::move(value))); }
  bool binary(Binary& /*value*/) { return Fail("binary values are not JSON"); }

  bool start_object(std::size_t /*elements*/) {
    if (builder_.Busy()) {
      builder_.StartObject();
      return true;
    }
    switch (state_) {
      case State::kBeforeRoot:
        state_ = State::kTop;
        return true;
      case State::kTopValue:
        if (top_key_ == "cache") {
          saw_cache = true;
          state_ = State::kCache;
          return true;
        }
        builder_.StartObject();
        return true;
      case State::kEntryStart:
        state_ = State::kEntry;
        return true;
      case State::kEntryValue:
        builder_.StartObject();
        return true;
      default:
        return Fail("unexpected object");
    }
  }

  bool start_array(std::size_t /*elements*/) {
    if (builder_.Busy()) {
      builder_.StartArray();
      return true;
    }
    switch (state_) {
      case State::kBeforeRoot:
        return Fail("the top level is an array; expected an object with \"cache\" or \"results\"");
      case State::kTopValue:
        if (top_key_ == "cache") return Fail("\"cache\" is an array; expected an object");
        builder_.StartArray();
        return true;
      case State::kEntryValue:
        if (field_ == "times") {
          entry_.entry.samples_s.clear();
          state_ = State::kSamples;
          return true;
        }
        builder_.StartArray();
        return true;
      default:
        return Fail("unexpected array");
    }
  }

  bool key(String& key) {
    if (builder_.Busy()) {
      builder_.Key(std::move(key));
      return true;
    }
    switch (state_) {
      case State::kTop:
        top_key_ = std::move(key);
        state_ = State::kTopValue;
        return true;
      case State::kCache:
        entry_ = RawEntry{};
        entry_.label = std::move(key);
        has_time_ = false;
        state_ = State::kEntryStart;
        return true;
      case State::kEntry:
        field_ = std::move(key);
        state_ = State::kEntryValue;
        return true;
      default:
        return Fail("unexpected key");
    }
  }

  bool end_object() {
    if (builder_.Busy()) return Built(builder_.End());
    switch (state_) {
      case State::kTop:
        state_ = State::kDone;
        return true;
      case State::kCache:
        state_ = State::kTop;
        return true;
      case State::kEntry:
        if (!has_time_) return Fail("cache entry '" + entry_.label + "' has no \"time\"");
        entries.push_back(std::move(entry_));
        state_ = State::kCache;
        return true;
      default:
        return Fail("unexpected end of object");
    }
  }

  bool end_array() {
    if (builder_.Busy()) return Built(builder_.End());
    if (state_ == State::kSamples) {
      state_ = State::kEntry;
      return true;
    }
    return Fail("unexpected end of array");
  }

  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& ex) {
    if (error.empty()) {
      parse_message = ex.what();
      error_position = position;
    }
    return false;
  }

  // True when the text ended after the cache began and before the root closed (a cache being
  // written when it was copied).
  bool CutShortInCache() const { return saw_cache && state_ != State::kDone; }

 private:
  enum class State {
    kBeforeRoot,
    kTop,
    kTopValue,
    kCache,
    kEntryStart,
    kEntry,
    kEntryValue,
    kSamples,
    kDone
  };

  bool Fail(const std::string& message) {
    if (error.empty()) error = message;
    return false;
  }

  bool Sample(double value_ms) {
    entry_.entry.samples_s.push_back(value_ms * kMsToS);
    return true;
  }

  bool Scalar(OrderedJson value) {
    if (builder_.Busy()) return Built(builder_.Scalar(std::move(value)));
    switch (state_) {
      case State::kTopValue:
        if (top_key_ == "cache") return Fail("\"cache\" is not an object");
        return Built(builder_.Scalar(std::move(value)));
      case State::kEntryStart:
        return Fail("cache entry '" + entry_.label + "' is not an object");
      case State::kEntryValue:
        return EntryField(std::move(value));
      case State::kSamples:
        return Fail("cache entry '" + entry_.label + "': \"times\" must hold numbers only");
      default:
        return Fail("unexpected value");
    }
  }

  // A completed value from the builder goes where the state says.
  bool Built(bool complete) {
    if (!complete) return true;
    if (state_ == State::kTopValue) {
      header[top_key_] = builder_.Take();
      state_ = State::kTop;
      return true;
    }
    if (state_ == State::kEntryValue) return EntryField(builder_.Take());
    return Fail("unexpected value");
  }

  bool EntryField(OrderedJson value) {
    state_ = State::kEntry;
    RecordedEntry& entry = entry_.entry;
    if (field_ == "time") {
      has_time_ = true;
      if (value.is_number()) {
        entry.status = MeasureStatus::kOk;
        entry.time_s = value.get<double>() * kMsToS;
      } else {
        const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
        entry.status = text == "CompilationFailedConfig" ? MeasureStatus::kCompileDevice
                       : text == "RuntimeFailedConfig"   ? MeasureStatus::kRuntimeDevice
                                                         : MeasureStatus::kUnknown;
        entry.time_s = std::numeric_limits<double>::infinity();
      }
    } else if (field_ == "compile_time") {
      if (value.is_number()) entry.compile_time_s = value.get<double>() * kMsToS;
    } else if (field_ == "benchmark_time") {
      if (value.is_number()) entry.benchmark_time_s = value.get<double>() * kMsToS;
    } else if (field_ == "times") {
      if (!value.is_null()) {
        return Fail("cache entry '" + entry_.label + "': \"times\" must be a list of numbers");
      }
    } else {
      entry_.fields.emplace_back(std::move(field_), Json(std::move(value)));
    }
    return true;
  }

  State state_ = State::kBeforeRoot;
  ValueBuilder builder_;
  std::string top_key_;
  std::string field_;
  RawEntry entry_;
  bool has_time_ = false;
};

bool OnlySpaceFrom(const std::string& text, std::size_t position) {
  for (std::size_t i = position; i < text.size(); ++i) {
    if (!std::isspace(static_cast<unsigned char>(text[i]))) return false;
  }
  return true;
}

std::string StringField(const OrderedJson& header, const char* name, const std::string& path) {
  auto it = header.find(name);
  if (it == header.end() || it->is_null()) return "";
  if (!it->is_string()) throw Error(path + ": \"" + name + "\" must be a string");
  return it->get<std::string>();
}

// Knobs of a Kernel Tuner cache: "tune_params" in "tune_params_keys" order.
std::vector<Knob> KernelTunerKnobs(const OrderedJson& header, const std::string& path) {
  auto params = header.find("tune_params");
  if (params == header.end() || !params->is_object()) {
    throw Error(path + ": Kernel Tuner cache without a \"tune_params\" object");
  }
  std::vector<std::string> names;
  auto keys = header.find("tune_params_keys");
  if (keys != header.end()) {
    if (!keys->is_array()) throw Error(path + ": \"tune_params_keys\" must be a list of names");
    for (const auto& key : *keys) {
      if (!key.is_string()) throw Error(path + ": \"tune_params_keys\" must be a list of names");
      names.push_back(key.get<std::string>());
    }
  } else {
    for (const auto& item : params->items()) names.push_back(item.key());
  }
  std::vector<Knob> knobs;
  for (const std::string& name : names) {
    auto values = params->find(name);
    if (values == params->end()) {
      throw Error(path + ": \"tune_params_keys\" names '" + name +
                  "', which \"tune_params\" lacks");
    }
    if (!values->is_array() || values->empty()) {
      throw Error(path + ": tune_params '" + name + "' must be a non-empty list of values");
    }
    std::vector<Json> list;
    for (const auto& value : *values) list.emplace_back(Json(value));
    try {
      knobs.push_back(KnobFromValues(name, list));
    } catch (const Error& e) {
      throw Error(path + ": tune_params '" + name + "': " + e.what());
    }
  }
  if (params->size() != names.size()) {
    for (const auto& item : params->items()) {
      bool listed = false;
      for (const std::string& name : names) listed = listed || name == item.key();
      if (!listed) {
        throw Error(path + ": tune_params has '" + item.key() +
                    "', which \"tune_params_keys\" does not list");
      }
    }
  }
  return knobs;
}

}  // namespace

RawRecordedFile ParseRecordedText(const std::string& text, const std::string& path) {
  RecordedSax sax;
  bool parsed = OrderedJson::sax_parse(text.begin(), text.end(), &sax,
                                       nlohmann::detail::input_format_t::json, true);
  bool truncated = false;
  if (!parsed) {
    if (!sax.error.empty()) throw Error(path + ": " + sax.error);
    // A Kernel Tuner cache being written has no closing braces and may end in a partial entry or
    // a trailing comma: the error is then at the end of the text, inside the cache.
    bool at_end = sax.error_position + 1 >= text.size() ||
                  OnlySpaceFrom(text, sax.error_position > 0 ? sax.error_position - 1 : 0);
    if (!(at_end && sax.CutShortInCache())) {
      if (text.empty() || OnlySpaceFrom(text, 0)) throw Error(path + ": empty file; expected JSON");
      throw Error(path + ": not valid JSON at byte " + std::to_string(sax.error_position) + ": " +
                  sax.parse_message);
    }
    truncated = true;
  }

  RawRecordedFile raw;
  raw.truncated = truncated;
  if (sax.saw_cache) {
    raw.format = RecordedFormat::kKernelTunerCache;
    raw.device_name = StringField(sax.header, "device_name", path);
    raw.kernel_name = StringField(sax.header, "kernel_name", path);
    if (auto it = sax.header.find("problem_size"); it != sax.header.end()) {
      raw.problem_size = Json(*it);
    }
    raw.knobs = KernelTunerKnobs(sax.header, path);
    raw.entries = std::move(sax.entries);
    raw.check_key_arity = true;
    return raw;
  }
  auto results = sax.header.find("results");
  if (results != sax.header.end() && results->is_array()) {
    return ParseT4Document(sax.header, path);
  }
  throw Error(path +
              ": neither a Kernel Tuner cache (no \"cache\" object) nor T4 results (no "
              "\"results\" list)");
}

}  // namespace glimpse::replay_internal
