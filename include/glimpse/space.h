// glimpse/space.h — search spaces: knobs, restrictions, configurations.
//
// A ConfigSpace is the cross product of its knobs' value lists, cut down by restrictions
// (Kernel Tuner expressions, see expression.h). A Config is one point: for every knob, the index
// of its value. Indices, not values, are the currency inside the tuner (fast, hashable, and the
// Manhattan distance of Rieber et al. is measured on them); values appear at the edges (restriction
// evaluation, features, the database, files) and are looked up from the knobs.
//
// Sizes: spaces of 10^8 and more raw points are expected, so nothing here enumerates the whole
// space unless asked to (CountValid, ValidIndices) — sampling is rejection sampling that checks
// each restriction as soon as its knobs are assigned, which stays exactly uniform over the valid
// configurations because every rejected draw restarts from scratch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "glimpse/expression.h"
#include "glimpse/json.h"
#include "glimpse/random.h"

namespace glimpse {

// A knob value as a user sees it: a number, a string, or a list of integers (the factors of a
// split, the loop order of a permutation).
using KnobValue = std::variant<int64_t, double, std::string, std::vector<int64_t>>;

Json KnobValueToJson(const KnobValue& value);
std::string KnobValueToString(const KnobValue& value);  // 16, 0.5, "row", [4,2,8]

enum class KnobKind : uint8_t {
  kOrdered,      // numeric values in a meaningful order; neighbours are the adjacent values
  kCategorical,  // unordered values; every other value is a neighbour
  kSplit,        // factorisations of an extent into k parts (AutoTVM define_split)
  kPermutation,  // orders of n loops (AutoTVM define_reorder), lexicographic
};
const char* KnobKindName(KnobKind kind);  // "ordered", "categorical", "split", "permutation"

// Filters for split knobs, as AutoTVM's define_split policies.
struct SplitFilter {
  bool power_of_two = false;  // every factor a power of two (except possibly the outermost part
                              // when `outer_any` is set)
  bool outer_any = false;
  int64_t max_factor = 0;  // every inner factor ≤ max_factor (0: no limit)
};

class Knob {
 public:
  // Numeric values in the given order (not sorted for you; duplicates are an Error).
  static Knob Ordered(std::string name, std::vector<KnobValue> values);
  static Knob Categorical(std::string name, std::vector<KnobValue> values);
  // All ordered k-tuples of positive integers whose product is `extent`, in lexicographic order,
  // that pass `filter`. extent ≥ 1, parts ≥ 1.
  static Knob Split(std::string name, int64_t extent, int parts, SplitFilter filter = {});
  // All permutations of 0..length-1 in lexicographic order. 1 ≤ length ≤ 10.
  static Knob Permutation(std::string name, int length);

  const std::string& name() const { return name_; }
  KnobKind kind() const { return kind_; }
  size_t size() const { return values_.size(); }
  const KnobValue& ValueAt(size_t index) const { return values_.at(index); }
  const std::vector<KnobValue>& values() const { return values_; }
  // The index of `value` (ints and floats compare numerically), or nullopt.
  std::optional<size_t> IndexOf(const KnobValue& value) const;
  std::optional<size_t> IndexOfJson(const Json& value) const;

  // Names this knob contributes to restriction expressions: ordered/categorical knobs their own
  // name; a split knob "<name>_0".."<name>_{k-1}" (its factors, outermost first); a permutation
  // "<name>_0".. (the loop at each position).
  std::vector<std::string> VariableNames() const;
  // Writes the variables of value `index` (VariableNames().size() scalars) to `out`.
  void WriteVariables(size_t index, Scalar* out) const;

  // Numeric features of value `index` (AutoTVM "knob" features): the number itself for ordered
  // knobs, the value index for categorical ones, the factors of a split, the positions of a
  // permutation. FeatureWidth() doubles are written.
  int FeatureWidth() const;
  void WriteFeatures(size_t index, double* out) const;

  // Indices of the values at distance 1 from `index` (see KnobKind).
  std::vector<uint32_t> NeighbourIndices(uint32_t index) const;

  Json ToJson() const;
  static Knob FromJson(const Json& json);  // throws Error naming the bad field

 private:
  Knob() = default;
  // An ordered or categorical knob of checked `values`, each one evaluation variable.
  static Knob OfValues(std::string name, KnobKind kind, std::vector<KnobValue> values);
  std::string name_;
  KnobKind kind_ = KnobKind::kOrdered;
  std::vector<KnobValue> values_;
  std::vector<std::vector<Scalar>> variables_;  // per value, precomputed for evaluation
  int parts_ = 1;                               // split parts / permutation length
  int64_t extent_ = 0;                          // split extent
  SplitFilter filter_;
};

// One point of a space: the value index of every knob, in the space's knob order.
struct Config {
  std::vector<uint32_t> indices;
  bool operator==(const Config& other) const { return indices == other.indices; }
  bool operator!=(const Config& other) const { return indices != other.indices; }
  bool operator<(const Config& other) const { return indices < other.indices; }
};

struct ConfigHasher {
  size_t operator()(const Config& config) const;
};

enum class FeatureKind : uint8_t {
  kKnobValues,   // Knob::WriteFeatures for each knob
  kKnobIndices,  // the value index of each knob
};

class ConfigSpace {
 public:
  ConfigSpace();
  ~ConfigSpace();
  ConfigSpace(const ConfigSpace&);
  ConfigSpace& operator=(const ConfigSpace&);
  ConfigSpace(ConfigSpace&&) noexcept;
  ConfigSpace& operator=(ConfigSpace&&) noexcept;

  // Building. Knobs first, then restrictions (a restriction may only name existing knobs; the
  // Error lists the known names). Duplicate knob names are an Error.
  void AddKnob(Knob knob);
  void AddRestriction(const std::string& expression);

  const std::vector<Knob>& knobs() const;
  size_t NumKnobs() const;
  const std::vector<std::string>& restrictions() const;
  // Position of a knob by name; throws Error "unknown knob 'x'; known: a, b, c".
  size_t KnobIndex(const std::string& name) const;

  // Raw size: the product of the knobs' sizes. Saturates at UINT64_MAX (see RawSizeLog10 for
  // spaces beyond that).
  uint64_t RawSize() const;
  double RawSizeLog10() const;

  // Dense index ↔ Config (mixed radix, last knob fastest). Requires RawSize() < UINT64_MAX.
  uint64_t ToDenseIndex(const Config& config) const;
  Config FromDenseIndex(uint64_t index) const;

  // True when every index is in range (no restriction check).
  bool InRange(const Config& config) const;
  // True when in range and every restriction is satisfied.
  bool IsValid(const Config& config) const;

  // Uniform sampling over the valid configurations. Returns nullopt when no valid configuration
  // was found within `max_attempts` rejection draws (the space may have none).
  std::optional<Config> SampleValid(Rng& rng, uint64_t max_attempts = 10'000'000) const;
  // Uniform sampling of any in-range configuration (restrictions ignored).
  Config SampleRaw(Rng& rng) const;

  // Exact count / list of valid configurations by enumeration with early pruning on restrictions
  // whose knobs are assigned. Cost grows with the raw size: for spaces a user can enumerate.
  uint64_t CountValid() const;
  std::vector<uint64_t> ValidIndices() const;

  // Valid configurations at Manhattan distance 1 over value indices (one knob moved to a
  // neighbouring value, see Knob::NeighbourIndices). With valid_only=false, in-range ones.
  std::vector<Config> Neighbours(const Config& config, bool valid_only = true) const;
  // A random walk of `steps` moves, each to a uniformly chosen valid neighbour; stops early where
  // a configuration has none.
  Config RandomWalk(const Config& start, int steps, Rng& rng) const;

  // Feature vector of a configuration.
  int FeatureWidth(FeatureKind kind) const;
  std::vector<std::string> FeatureNames(FeatureKind kind) const;
  void WriteFeatures(const Config& config, FeatureKind kind, double* out) const;
  std::vector<double> Features(const Config& config, FeatureKind kind) const;

  // Stable 64-bit hash of a configuration from knob names and values (not indices), so it is the
  // same across processes, machines and spaces that list values in another order.
  uint64_t Hash(const Config& config) const;
  // Stable hash of the space's definition (knobs in order, values, restrictions).
  uint64_t Fingerprint() const;

  // A configuration by knob name: {"block_size_x": 16, "tile": [4, 2, 8], ...}.
  Json ConfigToJson(const Config& config) const;
  // Inverse of ConfigToJson. Throws Error naming an unknown knob, a missing knob, or a value the
  // knob does not have (listing a few it does).
  Config ConfigFromJson(const Json& json) const;
  std::string ConfigToString(const Config& config) const;  // "block_size_x=16, tile=[4,2,8]"

  // The whole definition, for files and the database.
  Json ToJson() const;
  static ConfigSpace FromJson(const Json& json);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Hex form of a 64-bit hash, 16 lower-case digits.
std::string HashToHex(uint64_t hash);

// ---- Reading a configuration

// A configuration of a space read by knob name, as a schedule template reads its knobs. Throws
// Error when `config` does not belong to `space` (out of range) or a knob is read as the wrong
// kind.
class ConfigView {
 public:
  // Throws Error when `config` does not belong to `space` (out of range).
  ConfigView(const ConfigSpace& space, const Config& config);
  // The factors of a split, the order of a permutation.
  std::vector<int64_t> List(const std::string& knob) const;
  int64_t Int(const std::string& knob) const;
  std::string Text(const std::string& knob) const;
  bool Has(const std::string& knob) const;

 private:
  const KnobValue& Value(const std::string& knob) const;
  const ConfigSpace& space_;
  const Config& config_;
};

// The product of a split's factors (1 for none).
inline int64_t Product(const std::vector<int64_t>& factors) {
  int64_t p = 1;
  for (int64_t f : factors) p *= f;
  return p;
}

}  // namespace glimpse
