// Knobs: value lists, the variables they expose to restrictions, features, neighbours, JSON.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <numeric>

#include "glimpse/enum_name.h"
#include "glimpse/error.h"
#include "glimpse/space.h"
#include "space/space_internal.h"

namespace glimpse {

namespace space_internal {

std::string FormatDouble(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof(buf), value);
  std::string text(buf, result.ptr);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string CanonicalValueText(const KnobValue& value) {
  if (const auto* d = std::get_if<double>(&value)) {
    if (std::isfinite(*d) && std::floor(*d) == *d && std::fabs(*d) < 9.0e15) {
      return std::to_string(static_cast<int64_t>(*d));
    }
    return FormatDouble(*d);
  }
  if (const auto* s = std::get_if<std::string>(&value)) return Json(*s).dump();
  return KnobValueToString(value);
}

}  // namespace space_internal

namespace {

using space_internal::FormatDouble;

bool IsNumber(const KnobValue& v) {
  return std::holds_alternative<int64_t>(v) || std::holds_alternative<double>(v);
}

double NumberOf(const KnobValue& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  return std::get<double>(v);
}

// Ints and floats compare numerically; other kinds only with their own kind.
bool ValuesMatch(const KnobValue& a, const KnobValue& b) {
  if (IsNumber(a) && IsNumber(b)) {
    if (std::holds_alternative<int64_t>(a) && std::holds_alternative<int64_t>(b))
      return std::get<int64_t>(a) == std::get<int64_t>(b);
    return NumberOf(a) == NumberOf(b);
  }
  return a == b;
}

Scalar ScalarOf(const KnobValue& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return Scalar::Int(*i);
  if (const auto* d = std::get_if<double>(&v)) return Scalar::Float(*d);
  Scalar s;
  s.kind = Scalar::Kind::kString;
  s.i = InternString(std::get<std::string>(v));
  return s;
}

void CheckName(const std::string& name, const char* what) {
  if (name.empty()) throw Error(std::string(what) + " knob: empty name");
}

void CheckDuplicates(const std::string& name, const std::vector<KnobValue>& values) {
  // Quadratic for the usual short lists; sorted for long ones.
  if (values.size() <= 512) {
    for (size_t i = 0; i < values.size(); ++i)
      for (size_t j = i + 1; j < values.size(); ++j)
        if (ValuesMatch(values[i], values[j]))
          throw Error("knob '" + name + "': duplicate value " + KnobValueToString(values[j]) +
                      " (positions " + std::to_string(i) + " and " + std::to_string(j) + ")");
    return;
  }
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), size_t{0});
  auto key_less = [&](size_t x, size_t y) {
    const KnobValue& a = values[x];
    const KnobValue& b = values[y];
    bool na = IsNumber(a), nb = IsNumber(b);
    if (na != nb) return na;
    if (na) return NumberOf(a) < NumberOf(b);
    return a < b;
  };
  std::sort(order.begin(), order.end(), key_less);
  for (size_t k = 0; k + 1 < order.size(); ++k) {
    // Equal doubles are adjacent after sorting; int64 beyond 2^53 may share a double, so compare
    // a small window exactly.
    for (size_t m = k + 1; m < order.size() && m < k + 8; ++m) {
      if (ValuesMatch(values[order[k]], values[order[m]])) {
        throw Error("knob '" + name + "': duplicate value " + KnobValueToString(values[order[m]]));
      }
    }
  }
}

bool IsPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

constexpr size_t kMaxKnobValues = 10'000'000;

}  // namespace

Json KnobValueToJson(const KnobValue& value) {
  return std::visit([](const auto& v) { return Json(v); }, value);
}

std::string KnobValueToString(const KnobValue& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&value)) return FormatDouble(*d);
  if (const auto* s = std::get_if<std::string>(&value)) return Json(*s).dump();
  const auto& list = std::get<std::vector<int64_t>>(value);
  std::string text = "[";
  for (size_t i = 0; i < list.size(); ++i) text += (i ? "," : "") + std::to_string(list[i]);
  return text + "]";
}

const char* KnobKindName(KnobKind kind) {
  static constexpr const char* kNames[] = {"ordered", "categorical", "split", "permutation"};
  static_assert(std::size(kNames) == static_cast<size_t>(KnobKind::kPermutation) + 1);
  return EnumName(kind, kNames, "unknown");
}

Knob Knob::OfValues(std::string name, KnobKind kind, std::vector<KnobValue> values) {
  CheckDuplicates(name, values);
  Knob knob;
  knob.name_ = std::move(name);
  knob.kind_ = kind;
  knob.values_ = std::move(values);
  knob.variables_.reserve(knob.values_.size());
  for (const KnobValue& v : knob.values_) knob.variables_.push_back({ScalarOf(v)});
  return knob;
}

Knob Knob::Ordered(std::string name, std::vector<KnobValue> values) {
  CheckName(name, "ordered");
  if (values.empty()) throw Error("ordered knob '" + name + "': no values");
  for (const KnobValue& v : values) {
    if (!IsNumber(v)) {
      throw Error("ordered knob '" + name + "': value " + KnobValueToString(v) +
                  " is not a number (use a categorical knob)");
    }
  }
  return OfValues(std::move(name), KnobKind::kOrdered, std::move(values));
}

Knob Knob::Categorical(std::string name, std::vector<KnobValue> values) {
  CheckName(name, "categorical");
  if (values.empty()) throw Error("categorical knob '" + name + "': no values");
  for (const KnobValue& v : values) {
    if (std::holds_alternative<std::vector<int64_t>>(v)) {
      throw Error("categorical knob '" + name + "': value " + KnobValueToString(v) +
                  " is a list; values must be numbers or strings");
    }
  }
  return OfValues(std::move(name), KnobKind::kCategorical, std::move(values));
}

Knob Knob::Split(std::string name, int64_t extent, int parts, SplitFilter filter) {
  CheckName(name, "split");
  if (extent < 1) {
    throw Error("split knob '" + name + "': extent must be >= 1, got " + std::to_string(extent));
  }
  if (parts < 1 || parts > 16) {
    throw Error("split knob '" + name + "': parts must be in 1..16, got " + std::to_string(parts));
  }
  if (filter.max_factor < 0) {
    throw Error("split knob '" + name + "': max_factor must be >= 0, got " +
                std::to_string(filter.max_factor));
  }
  // Divisors of the extent, ascending; the divisors of any remaining quotient are among them.
  std::vector<int64_t> small, large;
  for (int64_t d = 1; d <= extent / d; ++d) {
    if (extent % d == 0) {
      small.push_back(d);
      if (d != extent / d) large.push_back(extent / d);
    }
  }
  std::vector<int64_t> divisors(small);
  divisors.insert(divisors.end(), large.rbegin(), large.rend());

  auto passes = [&](int position, int64_t factor) {
    bool outer = position == 0;
    if (filter.power_of_two && !(outer && filter.outer_any) && !IsPowerOfTwo(factor)) return false;
    if (filter.max_factor > 0 && !outer && factor > filter.max_factor) return false;
    return true;
  };

  Knob knob;
  knob.name_ = std::move(name);
  knob.kind_ = KnobKind::kSplit;
  knob.parts_ = parts;
  knob.extent_ = extent;
  knob.filter_ = filter;
  std::vector<int64_t> current(static_cast<size_t>(parts));
  // Depth-first over positions with ascending factors: lexicographic order.
  auto recurse = [&](auto&& self, int position, int64_t remaining) -> void {
    if (position == parts - 1) {
      if (!passes(position, remaining)) return;
      current[static_cast<size_t>(position)] = remaining;
      if (knob.values_.size() >= kMaxKnobValues) {
        throw Error("split knob '" + knob.name_ + "': more than " + std::to_string(kMaxKnobValues) +
                    " factorisations");
      }
      knob.values_.emplace_back(current);
      return;
    }
    for (int64_t d : divisors) {
      if (d > remaining) break;
      if (remaining % d != 0 || !passes(position, d)) continue;
      current[static_cast<size_t>(position)] = d;
      self(self, position + 1, remaining / d);
    }
  };
  recurse(recurse, 0, extent);
  if (knob.values_.empty()) {
    throw Error("split knob '" + knob.name_ + "': no factorisation of " + std::to_string(extent) +
                " into " + std::to_string(parts) + " parts passes the filter");
  }
  return knob;
}

Knob Knob::Permutation(std::string name, int length) {
  CheckName(name, "permutation");
  if (length < 1 || length > 10) {
    throw Error("permutation knob '" + name + "': length must be in 1..10, got " +
                std::to_string(length));
  }
  Knob knob;
  knob.name_ = std::move(name);
  knob.kind_ = KnobKind::kPermutation;
  knob.parts_ = length;
  std::vector<int64_t> perm(static_cast<size_t>(length));
  std::iota(perm.begin(), perm.end(), int64_t{0});
  size_t count = 1;
  for (int i = 2; i <= length; ++i) count *= static_cast<size_t>(i);
  knob.values_.reserve(count);
  do {
    knob.values_.emplace_back(perm);
  } while (std::next_permutation(perm.begin(), perm.end()));
  return knob;
}

std::optional<size_t> Knob::IndexOf(const KnobValue& value) const {
  if (kind_ == KnobKind::kSplit) {
    const auto* list = std::get_if<std::vector<int64_t>>(&value);
    if (!list) return std::nullopt;
    KnobValue key = *list;
    auto it = std::lower_bound(values_.begin(), values_.end(), key);
    if (it != values_.end() && *it == key) return static_cast<size_t>(it - values_.begin());
    return std::nullopt;
  }
  if (kind_ == KnobKind::kPermutation) {
    const auto* list = std::get_if<std::vector<int64_t>>(&value);
    if (!list || list->size() != static_cast<size_t>(parts_)) return std::nullopt;
    // Lexicographic rank (Lehmer code).
    std::vector<bool> used(static_cast<size_t>(parts_), false);
    size_t rank = 0;
    for (int i = 0; i < parts_; ++i) {
      int64_t v = (*list)[static_cast<size_t>(i)];
      if (v < 0 || v >= parts_ || used[static_cast<size_t>(v)]) return std::nullopt;
      size_t smaller = 0;
      for (int64_t u = 0; u < v; ++u) smaller += used[static_cast<size_t>(u)] ? 0 : 1;
      used[static_cast<size_t>(v)] = true;
      rank = rank * static_cast<size_t>(parts_ - i) + smaller;
    }
    return rank;
  }
  for (size_t i = 0; i < values_.size(); ++i) {
    if (ValuesMatch(values_[i], value)) return i;
  }
  return std::nullopt;
}

std::optional<size_t> Knob::IndexOfJson(const Json& value) const {
  if (value.is_boolean()) return IndexOf(KnobValue(int64_t{value.get<bool>() ? 1 : 0}));
  if (value.is_number_unsigned()) {
    uint64_t u = value.get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) return IndexOf(KnobValue(static_cast<double>(u)));
    return IndexOf(KnobValue(static_cast<int64_t>(u)));
  }
  if (value.is_number_integer()) return IndexOf(KnobValue(value.get<int64_t>()));
  if (value.is_number_float()) return IndexOf(KnobValue(value.get<double>()));
  if (value.is_string()) return IndexOf(KnobValue(value.get<std::string>()));
  if (value.is_array()) {
    std::vector<int64_t> list;
    list.reserve(value.size());
    for (const Json& element : value) {
      if (element.is_number_integer()) {
        list.push_back(element.get<int64_t>());
      } else if (element.is_number_float()) {
        double d = element.get<double>();
        if (std::floor(d) != d || std::fabs(d) > 9.0e15) return std::nullopt;
        list.push_back(static_cast<int64_t>(d));
      } else {
        return std::nullopt;
      }
    }
    return IndexOf(KnobValue(std::move(list)));
  }
  return std::nullopt;
}

std::vector<std::string> Knob::VariableNames() const {
  if (kind_ == KnobKind::kOrdered || kind_ == KnobKind::kCategorical) return {name_};
  std::vector<std::string> names;
  names.reserve(static_cast<size_t>(parts_));
  for (int i = 0; i < parts_; ++i) names.push_back(name_ + "_" + std::to_string(i));
  return names;
}

void Knob::WriteVariables(size_t index, Scalar* out) const {
  if (kind_ == KnobKind::kOrdered || kind_ == KnobKind::kCategorical) {
    out[0] = variables_[index][0];
    return;
  }
  const auto& list = std::get<std::vector<int64_t>>(values_[index]);
  for (size_t i = 0; i < list.size(); ++i) out[i] = Scalar::Int(list[i]);
}

int Knob::FeatureWidth() const {
  return (kind_ == KnobKind::kOrdered || kind_ == KnobKind::kCategorical) ? 1 : parts_;
}

void Knob::WriteFeatures(size_t index, double* out) const {
  switch (kind_) {
    case KnobKind::kOrdered:
      out[0] = NumberOf(values_[index]);
      return;
    case KnobKind::kCategorical:
      out[0] = static_cast<double>(index);
      return;
    case KnobKind::kSplit:
    case KnobKind::kPermutation: {
      const auto& list = std::get<std::vector<int64_t>>(values_[index]);
      for (size_t i = 0; i < list.size(); ++i) out[i] = static_cast<double>(list[i]);
      return;
    }
  }
}

std::vector<uint32_t> Knob::NeighbourIndices(uint32_t index) const {
  std::vector<uint32_t> result;
  size_t n = values_.size();
  if (index >= n) return result;
  if (kind_ == KnobKind::kCategorical) {
    result.reserve(n - 1);
    for (uint32_t i = 0; i < n; ++i)
      if (i != index) result.push_back(i);
    return result;
  }
  if (index > 0) result.push_back(index - 1);
  if (index + 1 < n) result.push_back(index + 1);
  return result;
}

Json Knob::ToJson() const {
  Json json = Json::object();
  json["name"] = name_;
  json["kind"] = KnobKindName(kind_);
  switch (kind_) {
    case KnobKind::kOrdered:
    case KnobKind::kCategorical: {
      Json values = Json::array();
      for (const KnobValue& v : values_) values.push_back(KnobValueToJson(v));
      json["values"] = std::move(values);
      break;
    }
    case KnobKind::kSplit:
      json["extent"] = extent_;
      json["parts"] = parts_;
      json["filter"] = Json{{"power_of_two", filter_.power_of_two},
                            {"outer_any", filter_.outer_any},
                            {"max_factor", filter_.max_factor}};
      break;
    case KnobKind::kPermutation:
      json["length"] = parts_;
      break;
  }
  return json;
}

Knob Knob::FromJson(const Json& json) {
  if (!json.is_object()) throw Error("knob: expected a JSON object, found " + json.dump());
  auto name_it = json.find("name");
  if (name_it == json.end() || !name_it->is_string()) {
    throw Error("knob: field 'name' missing or not a string");
  }
  std::string name = name_it->get<std::string>();
  auto field = [&](const char* key) -> const Json& {
    auto it = json.find(key);
    if (it == json.end()) throw Error("knob '" + name + "': missing field '" + key + "'");
    return *it;
  };
  auto int_field = [&](const Json& holder, const char* key, const std::string& where) {
    auto it = holder.find(key);
    if (it == holder.end()) throw Error("knob '" + name + "': missing field '" + where + "'");
    if (!it->is_number_integer()) {
      throw Error("knob '" + name + "': field '" + where + "' must be an integer, found " +
                  it->dump());
    }
    return it->get<int64_t>();
  };
  const Json& kind_json = field("kind");
  std::string kind = kind_json.is_string() ? kind_json.get<std::string>() : kind_json.dump();
  if (kind == "ordered" || kind == "categorical") {
    const Json& values_json = field("values");
    if (!values_json.is_array() || values_json.empty()) {
      throw Error("knob '" + name + "': field 'values' must be a non-empty array");
    }
    std::vector<KnobValue> values;
    for (size_t i = 0; i < values_json.size(); ++i) {
      const Json& v = values_json[i];
      if (v.is_boolean())
        values.emplace_back(int64_t{v.get<bool>() ? 1 : 0});
      else if (v.is_number_integer())
        values.emplace_back(v.get<int64_t>());
      else if (v.is_number_float())
        values.emplace_back(v.get<double>());
      else if (v.is_string() && kind == "categorical")
        values.emplace_back(v.get<std::string>());
      else {
        throw Error("knob '" + name + "': field 'values[" + std::to_string(i) + "]' is not a " +
                    (kind == "ordered" ? "number" : "number or string") + ": " + v.dump());
      }
    }
    return kind == "ordered" ? Ordered(name, std::move(values))
                             : Categorical(name, std::move(values));
  }
  if (kind == "split") {
    int64_t extent = int_field(json, "extent", "extent");
    int64_t parts = int_field(json, "parts", "parts");
    if (parts < 1 || parts > 16) {
      throw Error("knob '" + name + "': field 'parts' must be in 1..16, found " +
                  std::to_string(parts));
    }
    SplitFilter filter;
    auto it = json.find("filter");
    if (it != json.end()) {
      if (!it->is_object()) throw Error("knob '" + name + "': field 'filter' must be an object");
      for (const auto& [key, v] : it->items()) {
        if (key == "power_of_two" || key == "outer_any") {
          if (!v.is_boolean()) {
            throw Error("knob '" + name + "': field 'filter." + std::string(key) +
                        "' must be a boolean");
          }
          (key == "power_of_two" ? filter.power_of_two : filter.outer_any) = v.get<bool>();
        } else if (key == "max_factor") {
          filter.max_factor = int_field(*it, "max_factor", "filter.max_factor");
        } else {
          std::string message = "knob '" + name + "': unknown field 'filter.";
          message += key;
          message += "'; known: power_of_two, outer_any, max_factor";
          throw Error(message);
        }
      }
    }
    return Split(name, extent, static_cast<int>(parts), filter);
  }
  if (kind == "permutation") {
    int64_t length = int_field(json, "length", "length");
    if (length < 1 || length > 10) {
      throw Error("knob '" + name + "': field 'length' must be in 1..10, found " +
                  std::to_string(length));
    }
    return Permutation(name, static_cast<int>(length));
  }
  throw Error("knob '" + name +
              "': field 'kind' must be one of ordered, categorical, split, "
              "permutation; found " +
              kind_json.dump());
}

}  // namespace glimpse
