// What the prior generator H(Π, Θ) sees and learns from: the features of knobs and their values,
// and the per-knob target distributions of recorded spaces (glimpse/prior_generator.h).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <string_view>
#include <utility>

#include "glimpse/error.h"
#include "glimpse/prior_generator.h"
#include "hwaware/prior_internal.h"

namespace glimpse {
namespace {

// Knob names are hashed as a whole into kKnobNameSlots and by their parts into kKnobTokenSlots;
// the axis parts x, y and z get features of their own (tile_size_x and tile_size_y differ only
// there). Kernel names and their parts share kKernelNameSlots. 64 slots keep the multi-valued
// knobs of each bundled kernel apart.
constexpr int kKnobNameSlots = 64;
constexpr int kKnobTokenSlots = 16;
constexpr int kKernelNameSlots = 16;
static_assert(5 + 3 + kKnobTokenSlots + kKnobNameSlots + kKernelNameSlots + 2 ==
              kPriorKnobFeatures);

std::optional<double> NumericValue(const KnobValue& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&value)) return *d;
  return std::nullopt;
}

// FNV-1a, then a multiplicative mix whose high bits pick the slot, so that slots are the same on
// every machine and build and do not depend on FNV's weak low bits alone.
int Slot(std::string_view text, int slots) {
  uint64_t hash = 1469598103934665603ULL;
  for (char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  return static_cast<int>(((hash * 0x9E3779B97F4A7C15ULL) >> 40) % static_cast<uint64_t>(slots));
}

std::string Lower(const std::string& text) {
  std::string lower;
  for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

// The parts of a lower-cased name between non-alphanumeric characters.
std::vector<std::string> NameParts(const std::string& lower) {
  std::vector<std::string> parts;
  std::string part;
  for (char c : lower + "_") {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      part += c;
    } else if (!part.empty()) {
      parts.push_back(part);
      part.clear();
    }
  }
  return parts;
}

void AddSlots(int slots, std::vector<double>* out, const std::vector<std::string>& tokens) {
  size_t start = out->size();
  out->resize(start + slots, 0.0);
  for (const std::string& token : tokens) (*out)[start + Slot(token, slots)] = 1.0;
}

// x of every value of a knob (see the file comment of prior_generator.h).
std::vector<double> ValueScale(const Knob& knob) {
  std::vector<double> numbers;
  for (const KnobValue& value : knob.values()) {
    std::optional<double> number = NumericValue(value);
    if (!number || !std::isfinite(*number)) {
      numbers.clear();
      break;
    }
    numbers.push_back(*number);
  }
  std::vector<double> x(knob.size());
  if (numbers.empty()) {
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i);
    return x;
  }
  double smallest = *std::min_element(numbers.begin(), numbers.end());
  for (size_t i = 0; i < x.size(); ++i) {
    double v = numbers[i];
    if (smallest > 0) {
      x[i] = std::log2(v);
    } else {
      x[i] = (v < 0 ? -1.0 : 1.0) * std::log2(1.0 + std::fabs(v));
    }
  }
  return x;
}

bool IsNumericKnob(const Knob& knob) {
  return std::all_of(knob.values().begin(), knob.values().end(),
                     [](const KnobValue& v) { return NumericValue(v).has_value(); });
}

}  // namespace

namespace hwaware {

std::vector<double> ProblemSizeNumbers(const Json& size) {
  std::vector<double> numbers;
  if (size.is_number()) {
    numbers.push_back(size.get<double>());
  } else if (size.is_array()) {
    for (const Json& v : size) {
      if (v.is_number()) numbers.push_back(v.get<double>());
    }
  }
  return numbers;
}

}  // namespace hwaware

PriorTask PriorTaskOf(const RecordedSpace& recorded, const std::string& name) {
  PriorTask task;
  task.kernel = name.empty() ? recorded.kernel_name : name;
  task.problem_size = hwaware::ProblemSizeNumbers(recorded.problem_size);
  return task;
}

std::vector<double> PriorKnobFeatures(const Knob& knob, const PriorTask& task) {
  std::vector<double> x = ValueScale(knob);
  auto [low, high] = std::minmax_element(x.begin(), x.end());
  std::vector<double> f;
  f.reserve(kPriorKnobFeatures);
  f.push_back(std::log2(static_cast<double>(knob.size())) / 5.0);
  f.push_back(x.empty() ? 0.0 : *low / 8.0);
  f.push_back(x.empty() ? 0.0 : *high / 8.0);
  f.push_back(IsNumericKnob(knob) ? 1.0 : 0.0);
  f.push_back(knob.size() == 2 ? 1.0 : 0.0);
  std::string name = Lower(knob.name());
  std::vector<std::string> parts = NameParts(name), tokens;
  for (const char* axis : {"x", "y", "z"}) {
    f.push_back(!parts.empty() && parts.back() == axis ? 1.0 : 0.0);
  }
  for (const std::string& part : parts) {
    if (part != name && part != "x" && part != "y" && part != "z") tokens.push_back(part);
  }
  AddSlots(kKnobTokenSlots, &f, tokens);
  AddSlots(kKnobNameSlots, &f, {name});
  std::string kernel = Lower(task.kernel);
  std::vector<std::string> kernel_tokens = NameParts(kernel);
  if (!kernel.empty()) kernel_tokens.push_back(kernel);
  AddSlots(kKernelNameSlots, &f, kernel_tokens);
  double log_elements = 0.0;
  for (double d : task.problem_size) log_elements += std::log2(std::max(1.0, d));
  f.push_back(log_elements / 32.0);
  f.push_back(static_cast<double>(task.problem_size.size()) / 4.0);
  return f;
}

std::vector<std::vector<double>> PriorValueFeatures(const Knob& knob) {
  std::vector<double> x = ValueScale(knob);
  double low = x.empty() ? 0.0 : *std::min_element(x.begin(), x.end());
  double high = x.empty() ? 0.0 : *std::max_element(x.begin(), x.end());
  size_t n = knob.size();
  std::vector<std::vector<double>> rows;
  rows.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    std::optional<double> number = NumericValue(knob.ValueAt(i));
    bool zero = number && *number == 0.0;
    bool power_of_two = false;
    if (number && *number >= 1 && *number == std::floor(*number) && *number < 0x1p62) {
      auto v = static_cast<uint64_t>(*number);
      power_of_two = (v & (v - 1)) == 0;
    }
    rows.push_back({x[i] / 8.0, high > low ? (x[i] - low) / (high - low) : 0.0,
                    n > 1 ? static_cast<double>(i) / static_cast<double>(n - 1) : 0.0,
                    zero ? 1.0 : 0.0, power_of_two ? 1.0 : 0.0, 1.0});
  }
  return rows;
}

PriorDistribution TopConfigurationTargets(const RecordedSpace& recorded, double top_fraction,
                                          int64_t* top_count) {
  if (!(top_fraction > 0.0 && top_fraction <= 1.0)) {
    throw Error(fmt::format("top fraction {:g}: must be in (0, 1]", top_fraction));
  }
  std::vector<std::pair<double, uint64_t>> ok;
  for (const auto& [index, entry] : recorded.entries) {
    if (entry.status == MeasureStatus::kOk) ok.emplace_back(entry.time_s, index);
  }
  if (ok.empty()) throw Error(fmt::format("{}: no ok configuration", recorded.source_path));
  // Ties broken by index, so that the target does not depend on the hash map's order.
  std::sort(ok.begin(), ok.end());
  auto count = static_cast<size_t>(std::ceil(top_fraction * static_cast<double>(ok.size())));
  count = std::clamp<size_t>(count, 1, ok.size());
  const ConfigSpace& space = recorded.space;
  PriorDistribution target(space.NumKnobs());
  for (size_t k = 0; k < space.NumKnobs(); ++k) target[k].assign(space.knobs()[k].size(), 0.0);
  for (size_t i = 0; i < count; ++i) {
    Config config = space.FromDenseIndex(ok[i].second);
    for (size_t k = 0; k < config.indices.size(); ++k) target[k][config.indices[k]] += 1.0;
  }
  for (auto& row : target) {
    for (double& p : row) p /= static_cast<double>(count);
  }
  if (top_count) *top_count = static_cast<int64_t>(count);
  return target;
}

std::vector<PriorTrainingExample> MakePriorExamples(
    const std::vector<ValidityTrainingSpace>& spaces, const Blueprint& blueprint,
    double top_fraction, std::vector<std::string>* skipped) {
  std::vector<PriorTrainingExample> examples;
  for (const ValidityTrainingSpace& s : spaces) {
    const RecordedSpace& recorded = *s.recorded;
    if (recorded.CountByStatus().count(MeasureStatus::kOk) == 0) {
      if (skipped) skipped->push_back(recorded.source_path + ": no ok configuration");
      continue;
    }
    PriorTrainingExample e;
    e.name = s.name.empty() ? recorded.kernel_name : s.name;
    e.gpu = s.gpu.name;
    e.path = recorded.source_path;
    e.space = recorded.space;
    e.task = PriorTaskOf(recorded, e.name);
    e.blueprint = blueprint.Embed(s.gpu);
    e.target = TopConfigurationTargets(recorded, top_fraction, &e.top_count);
    examples.push_back(std::move(e));
  }
  return examples;
}

}  // namespace glimpse
