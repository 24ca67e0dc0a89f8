// ConfigSpace: knobs × restrictions; indexing, validity, sampling, enumeration, features, JSON.
//
// The sources, by concept:
//
//   config_space.cc            the core: adding knobs and restrictions, the dense index,
//                              validity, features, hashing, JSON
//   config_space_plan.cc       the plan every check follows: slots, assignment order, the
//                              restrictions checked at each level, truth tables
//   config_space_sample.cc     SampleValid, SampleRaw, Neighbours, RandomWalk
//   config_space_enumerate.cc  CountValid, ValidIndices, the valid-index cache of small spaces
//   config_space_impl.h        ConfigSpace::Impl and the per-configuration checks, inline
#include <algorithm>
#include <cmath>

#include "glimpse/error.h"
#include "space/config_space_impl.h"
#include "space/space_internal.h"

namespace glimpse {

Scalar* space_internal::ThreadLocalSlots(int slots) {
  thread_local std::vector<Scalar> heap;
  if (heap.size() < static_cast<size_t>(slots)) heap.resize(static_cast<size_t>(slots));
  return heap.data();
}

namespace {

using space_internal::Fnv1a;
using space_internal::SlotBuffer;

// Above this many scalars a knob's variables are not tabulated (10! permutations); they are then
// written by Knob::WriteVariables on demand.
constexpr size_t kMaxTableScalars = size_t{1} << 22;

std::string JoinNames(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += (text.empty() ? "" : ", ") + n;
  return text.empty() ? "(none)" : text;
}

std::string ListSomeValues(const Knob& knob, size_t limit = 8) {
  std::string text;
  for (size_t i = 0; i < knob.size() && i < limit; ++i) {
    text += (i ? ", " : "") + KnobValueToString(knob.ValueAt(i));
  }
  if (knob.size() > limit) text += ", ... (" + std::to_string(knob.size()) + " values)";
  return text;
}

}  // namespace

ConfigSpace::ConfigSpace() : impl_(std::make_unique<Impl>()) {}
ConfigSpace::~ConfigSpace() = default;
ConfigSpace::ConfigSpace(const ConfigSpace& other) : impl_(std::make_unique<Impl>(*other.impl_)) {}
ConfigSpace& ConfigSpace::operator=(const ConfigSpace& other) {
  if (this != &other) impl_ = std::make_unique<Impl>(*other.impl_);
  return *this;
}
ConfigSpace::ConfigSpace(ConfigSpace&&) noexcept = default;
ConfigSpace& ConfigSpace::operator=(ConfigSpace&&) noexcept = default;

void ConfigSpace::AddKnob(Knob knob) {
  Impl& s = *impl_;
  for (const Knob& existing : s.knobs) {
    if (existing.name() == knob.name()) {
      throw Error("duplicate knob '" + knob.name() + "'");
    }
  }
  std::vector<std::string> names = knob.VariableNames();
  for (const std::string& name : names) {
    if (std::find(s.slot_names.begin(), s.slot_names.end(), name) != s.slot_names.end()) {
      throw Error("knob '" + knob.name() + "': restriction name '" + name +
                  "' is already used by another knob");
    }
  }
  int count = static_cast<int>(names.size());
  s.slot_offset.push_back(s.total_slots);
  s.slot_count.push_back(count);
  s.total_slots += count;
  s.slot_names.insert(s.slot_names.end(), names.begin(), names.end());
  std::vector<Scalar> table;
  if (knob.size() * static_cast<size_t>(count) <= kMaxTableScalars) {
    table.resize(knob.size() * static_cast<size_t>(count));
    for (size_t i = 0; i < knob.size(); ++i)
      knob.WriteVariables(i, table.data() + i * static_cast<size_t>(count));
  }
  s.tables.push_back(std::move(table));
  s.knobs.push_back(std::move(knob));
  s.Rebuild();
}

void ConfigSpace::AddRestriction(const std::string& expression) {
  Expression e = Expression::Parse(expression);
  e.Bind(impl_->slot_names);
  impl_->restriction_texts.push_back(expression);
  impl_->exprs.push_back(std::move(e));
  impl_->Rebuild();
  impl_->BuildTable(static_cast<uint32_t>(impl_->exprs.size() - 1));
  impl_->OrderChecks();
}

const std::vector<Knob>& ConfigSpace::knobs() const { return impl_->knobs; }
size_t ConfigSpace::NumKnobs() const { return impl_->knobs.size(); }
const std::vector<std::string>& ConfigSpace::restrictions() const {
  return impl_->restriction_texts;
}

size_t ConfigSpace::KnobIndex(const std::string& name) const {
  const auto& knobs = impl_->knobs;
  for (size_t k = 0; k < knobs.size(); ++k) {
    if (knobs[k].name() == name) return k;
  }
  std::vector<std::string> names;
  names.reserve(knobs.size());
  for (const Knob& knob : knobs) names.push_back(knob.name());
  throw Error("unknown knob '" + name + "'; known: " + JoinNames(names));
}

uint64_t ConfigSpace::RawSize() const { return impl_->raw_size; }

double ConfigSpace::RawSizeLog10() const {
  double total = 0.0;
  for (const Knob& knob : impl_->knobs) total += std::log10(static_cast<double>(knob.size()));
  return total;
}

uint64_t ConfigSpace::ToDenseIndex(const Config& config) const {
  const Impl& s = *impl_;
  if (s.raw_saturated) throw Error("dense index: the space has more than 2^64 raw configurations");
  if (!s.InRange(config)) throw Error("dense index: configuration out of range");
  return s.DenseOf(config);
}

Config ConfigSpace::FromDenseIndex(uint64_t index) const {
  const Impl& s = *impl_;
  if (s.raw_saturated) throw Error("dense index: the space has more than 2^64 raw configurations");
  if (index >= s.raw_size) {
    throw Error("dense index " + std::to_string(index) + " out of range (raw size " +
                std::to_string(s.raw_size) + ")");
  }
  return s.ConfigOf(index);
}

bool ConfigSpace::InRange(const Config& config) const { return impl_->InRange(config); }

bool ConfigSpace::IsValid(const Config& config) const {
  const Impl& s = *impl_;
  if (!s.InRange(config)) return false;
  SlotBuffer buffer(s.total_slots);
  return s.ValidInRange(config, buffer.Data());
}

int ConfigSpace::FeatureWidth(FeatureKind kind) const {
  if (kind == FeatureKind::kKnobIndices) return static_cast<int>(impl_->knobs.size());
  int width = 0;
  for (const Knob& knob : impl_->knobs) width += knob.FeatureWidth();
  return width;
}

std::vector<std::string> ConfigSpace::FeatureNames(FeatureKind kind) const {
  std::vector<std::string> names;
  for (const Knob& knob : impl_->knobs) {
    if (kind == FeatureKind::kKnobIndices) {
      names.push_back(knob.name());
    } else {
      std::vector<std::string> vars = knob.VariableNames();
      names.insert(names.end(), vars.begin(), vars.end());
    }
  }
  return names;
}

void ConfigSpace::WriteFeatures(const Config& config, FeatureKind kind, double* out) const {
  const Impl& s = *impl_;
  if (!s.InRange(config)) throw Error("features: configuration out of range");
  for (size_t k = 0; k < s.knobs.size(); ++k) {
    if (kind == FeatureKind::kKnobIndices) {
      *out++ = static_cast<double>(config.indices[k]);
    } else {
      s.knobs[k].WriteFeatures(config.indices[k], out);
      out += s.knobs[k].FeatureWidth();
    }
  }
}

std::vector<double> ConfigSpace::Features(const Config& config, FeatureKind kind) const {
  std::vector<double> features(static_cast<size_t>(FeatureWidth(kind)));
  WriteFeatures(config, kind, features.data());
  return features;
}

uint64_t ConfigSpace::Hash(const Config& config) const {
  const Impl& s = *impl_;
  if (!s.InRange(config)) throw Error("hash: configuration out of range");
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (size_t k : s.by_name) {
    hash = Fnv1a(s.knobs[k].name(), hash);
    hash = Fnv1a("=", hash);
    hash = Fnv1a(space_internal::CanonicalValueText(s.knobs[k].ValueAt(config.indices[k])), hash);
    hash = Fnv1a(";", hash);
  }
  return hash;
}

uint64_t ConfigSpace::Fingerprint() const { return Fnv1a(ToJson().dump()); }

Json ConfigSpace::ConfigToJson(const Config& config) const {
  const Impl& s = *impl_;
  if (!s.InRange(config)) throw Error("configuration out of range for this space");
  Json json = Json::object();
  for (size_t k = 0; k < s.knobs.size(); ++k) {
    json[s.knobs[k].name()] = KnobValueToJson(s.knobs[k].ValueAt(config.indices[k]));
  }
  return json;
}

Config ConfigSpace::ConfigFromJson(const Json& json) const {
  const Impl& s = *impl_;
  if (!json.is_object()) {
    throw Error("configuration: expected a JSON object of knob values, found " + json.dump());
  }
  Config config;
  config.indices.assign(s.knobs.size(), UINT32_MAX);
  for (const auto& [name, value] : json.items()) {
    size_t k;
    try {
      k = KnobIndex(name);
    } catch (const Error& e) {
      throw Error(std::string("configuration: ") + e.what());
    }
    std::optional<size_t> index = s.knobs[k].IndexOfJson(value);
    if (!index) {
      throw Error("configuration: knob '" + name + "' has no value " + value.dump() +
                  "; its values: " + ListSomeValues(s.knobs[k]));
    }
    config.indices[k] = static_cast<uint32_t>(*index);
  }
  for (size_t k = 0; k < s.knobs.size(); ++k) {
    if (config.indices[k] == UINT32_MAX) {
      throw Error("configuration: missing knob '" + s.knobs[k].name() + "'");
    }
  }
  return config;
}

std::string ConfigSpace::ConfigToString(const Config& config) const {
  const Impl& s = *impl_;
  if (!s.InRange(config)) throw Error("configuration out of range for this space");
  std::string text;
  for (size_t k = 0; k < s.knobs.size(); ++k) {
    if (k) text += ", ";
    text += s.knobs[k].name() + "=" + KnobValueToString(s.knobs[k].ValueAt(config.indices[k]));
  }
  return text;
}

Json ConfigSpace::ToJson() const {
  Json knobs = Json::array();
  for (const Knob& knob : impl_->knobs) knobs.push_back(knob.ToJson());
  Json restrictions = Json::array();
  for (const std::string& r : impl_->restriction_texts) restrictions.push_back(r);
  return Json{{"knobs", std::move(knobs)}, {"restrictions", std::move(restrictions)}};
}

ConfigSpace ConfigSpace::FromJson(const Json& json) {
  if (!json.is_object()) throw Error("space: expected a JSON object, found " + json.dump());
  auto knobs_it = json.find("knobs");
  if (knobs_it == json.end() || !knobs_it->is_array()) {
    throw Error("space: field 'knobs' missing or not an array");
  }
  ConfigSpace space;
  for (size_t i = 0; i < knobs_it->size(); ++i) {
    try {
      space.AddKnob(Knob::FromJson((*knobs_it)[i]));
    } catch (const Error& e) {
      throw Error("space: knobs[" + std::to_string(i) + "]: " + e.what());
    }
  }
  auto restrictions_it = json.find("restrictions");
  if (restrictions_it != json.end()) {
    if (!restrictions_it->is_array()) throw Error("space: field 'restrictions' must be an array");
    for (size_t i = 0; i < restrictions_it->size(); ++i) {
      const Json& r = (*restrictions_it)[i];
      if (!r.is_string()) {
        throw Error("space: restrictions[" + std::to_string(i) + "] must be a string, found " +
                    r.dump());
      }
      try {
        space.AddRestriction(r.get<std::string>());
      } catch (const Error& e) {
        throw Error("space: restrictions[" + std::to_string(i) + "]: " + e.what());
      }
    }
  }
  return space;
}

size_t ConfigHasher::operator()(const Config& config) const {
  uint64_t hash = 0x9e3779b97f4a7c15ULL ^ config.indices.size();
  for (uint32_t v : config.indices) {
    hash ^= v + 0x9e3779b97f4a7c15ULL + (hash << 6) + (hash >> 2);
  }
  return static_cast<size_t>(hash);
}

std::string HashToHex(uint64_t hash) {
  static const char kDigits[] = "0123456789abcdef";
  std::string text(16, '0');
  for (int i = 15; i >= 0; --i) {
    text[static_cast<size_t>(i)] = kDigits[hash & 0xf];
    hash >>= 4;
  }
  return text;
}

}  // namespace glimpse
