// GpuSpec: its numeric-field table and its JSON form.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "glimpse/error.h"
#include "glimpse/hardware.h"

namespace glimpse {
namespace {

// One accessor pair per member; integral members round-trip through double exactly.
#define GLIMPSE_INT_FIELD(member, unit, text)                                                  \
  GpuNumericField {                                                                            \
#member, unit, text, true, [](const GpuSpec& s) { return static_cast<double>(s.member); },   \
        [](GpuSpec& s, double v) { s.member = static_cast<int64_t>(std::llround(v)); } \
  }
#define GLIMPSE_REAL_FIELD(member, unit, text)                                                 \
  GpuNumericField {                                                                            \
#member, unit, text, false,                                                                \
        [](const GpuSpec& s) { return s.member; }, [](GpuSpec & s, double v) { s.member = v; } \
  }

const std::vector<GpuNumericField>& Fields() {
  static const std::vector<GpuNumericField> fields = {
      GLIMPSE_INT_FIELD(sm_count, "count", "streaming multiprocessors / compute units"),
      GLIMPSE_INT_FIELD(cores_per_sm, "count", "FP32 lanes per SM"),
      GLIMPSE_REAL_FIELD(base_clock_mhz, "MHz", "base core clock"),
      GLIMPSE_REAL_FIELD(boost_clock_mhz, "MHz", "boost core clock"),
      GLIMPSE_INT_FIELD(memory_bus_width_bits, "bits", "memory interface width"),
      GLIMPSE_REAL_FIELD(memory_bandwidth_gb_per_s, "GB/s", "peak memory bandwidth"),
      GLIMPSE_INT_FIELD(memory_bytes, "bytes", "device memory"),
      GLIMPSE_INT_FIELD(l1_shared_per_sm_bytes, "bytes", "L1 data cache + shared memory per SM"),
      GLIMPSE_INT_FIELD(shared_memory_per_sm_bytes, "bytes", "max shared memory per SM"),
      GLIMPSE_INT_FIELD(shared_memory_per_block_bytes, "bytes", "max shared memory per block"),
      GLIMPSE_INT_FIELD(l2_bytes, "bytes", "L2 cache"),
      GLIMPSE_INT_FIELD(l3_bytes, "bytes", "cache behind L2 (AMD Infinity Cache)"),
      GLIMPSE_INT_FIELD(registers_per_sm, "count", "32-bit registers per SM"),
      GLIMPSE_INT_FIELD(max_threads_per_sm, "count", "resident threads per SM"),
      GLIMPSE_INT_FIELD(max_threads_per_block, "count", "threads per block"),
      GLIMPSE_INT_FIELD(warp_size, "count", "threads per warp / wavefront"),
      GLIMPSE_REAL_FIELD(fp32_flops, "FLOP/s", "peak FP32 vector throughput"),
      GLIMPSE_REAL_FIELD(fp16_flops, "FLOP/s", "peak FP16 vector throughput"),
  };
  return fields;
}

#undef GLIMPSE_INT_FIELD
#undef GLIMPSE_REAL_FIELD

// String members, in table order.
struct StringField {
  const char* name;
  std::string GpuSpec::*member;
};
const std::vector<StringField>& StringFields() {
  static const std::vector<StringField> fields = {
      {"architecture", &GpuSpec::architecture},
      {"chip", &GpuSpec::chip},
      {"target", &GpuSpec::target},
      {"compute_capability", &GpuSpec::compute_capability},
      {"memory_type", &GpuSpec::memory_type},
  };
  return fields;
}

const Json& Member(const Json& json, const char* key, const std::string& where) {
  auto it = json.find(key);
  if (it == json.end()) throw Error(fmt::format("{}: missing field '{}'", where, key));
  return *it;
}

std::string StringMember(const Json& json, const char* key, const std::string& where) {
  const Json& value = Member(json, key, where);
  if (!value.is_string()) throw Error(fmt::format("{}: field '{}' must be a string", where, key));
  return value.get<std::string>();
}

}  // namespace

const char* GpuVendorName(GpuVendor vendor) {
  return vendor == GpuVendor::kNvidia ? "nvidia" : "amd";
}

GpuVendor ParseGpuVendor(const std::string& text) {
  std::string lower;
  for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "nvidia") return GpuVendor::kNvidia;
  if (lower == "amd") return GpuVendor::kAmd;
  throw Error(fmt::format("unknown GPU vendor '{}'; known: nvidia, amd", text));
}

const std::vector<GpuNumericField>& GpuNumericFields() { return Fields(); }

const GpuNumericField& GpuNumericFieldByName(const std::string& name) {
  for (const GpuNumericField& field : Fields()) {
    if (name == field.name) return field;
  }
  std::string known;
  for (const GpuNumericField& field : Fields())
    known += (known.empty() ? "" : ", ") + std::string(field.name);
  throw Error(fmt::format("unknown GPU spec field '{}'; known: {}", name, known));
}

Json GpuSpec::ToJson() const {
  Json json = Json::object();
  json["name"] = name;
  json["vendor"] = GpuVendorName(vendor);
  json["segment"] = segment;
  json["listing"] = listing;
  json["aliases"] = aliases;
  json["devices_per_board"] = devices_per_board;
  for (const StringField& field : StringFields()) json[field.name] = this->*field.member;
  for (const GpuNumericField& field : Fields()) {
    double value = field.get(*this);
    if (field.integral) {
      json[field.name] = static_cast<int64_t>(value);
    } else {
      json[field.name] = value;
    }
  }
  json["source"] = sources;
  return json;
}

GpuSpec GpuSpec::FromJson(const Json& json, const std::string& where) {
  if (!json.is_object()) throw Error(fmt::format("{}: a GPU must be a JSON object", where));
  GpuSpec spec;
  spec.name = StringMember(json, "name", where);
  const std::string at = fmt::format("{}, GPU '{}'", where, spec.name);
  spec.vendor = ParseGpuVendor(StringMember(json, "vendor", at));
  if (json.contains("segment")) spec.segment = StringMember(json, "segment", at);
  if (json.contains("listing")) {
    spec.listing = StringMember(json, "listing", at);
    if (spec.listing != "catalog" && spec.listing != "wikipedia") {
      throw Error(at + ": \"listing\" must be \"catalog\" or \"wikipedia\" (got \"" + spec.listing +
                  "\")");
    }
  }
  if (json.contains("aliases")) {
    const Json& aliases = json["aliases"];
    if (!aliases.is_array()) throw Error(fmt::format("{}: 'aliases' must be a list", at));
    for (const Json& alias : aliases) {
      if (!alias.is_string()) throw Error(fmt::format("{}: 'aliases' must hold strings", at));
      spec.aliases.push_back(alias.get<std::string>());
    }
  }
  if (json.contains("devices_per_board")) {
    const Json& value = json["devices_per_board"];
    if (!value.is_number_integer() || value.get<int64_t>() < 1) {
      throw Error(fmt::format("{}: 'devices_per_board' must be a positive integer", at));
    }
    spec.devices_per_board = value.get<int64_t>();
  }
  for (const StringField& field : StringFields()) {
    spec.*field.member = StringMember(json, field.name, at);
  }
  for (const GpuNumericField& field : Fields()) {
    const Json& value = Member(json, field.name, at);
    if (!value.is_number()) {
      throw Error(fmt::format("{}: field '{}' must be a number ({})", at, field.name, field.unit));
    }
    double number = value.get<double>();
    if (!std::isfinite(number) || number < 0) {
      throw Error(fmt::format("{}: field '{}' must be a finite number ≥ 0, not {}", at, field.name,
                              number));
    }
    field.set(spec, number);
  }
  if (json.contains("source")) {
    const Json& sources = json["source"];
    if (!sources.is_object()) throw Error(fmt::format("{}: 'source' must be an object", at));
    for (const auto& [key, value] : sources.items()) {
      if (!value.is_string()) {
        throw Error(fmt::format("{}: source of '{}' must be a string", at, key));
      }
      spec.sources[key] = value.get<std::string>();
    }
  }
  return spec;
}

}  // namespace glimpse
