#include "glimpse/space.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "glimpse/error.h"
#include "space/space_internal.h"

namespace glimpse {
namespace {

std::vector<KnobValue> Ints(std::initializer_list<int64_t> values) {
  return std::vector<KnobValue>(values.begin(), values.end());
}

std::string ErrorText(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Brute force over the raw space through IsValid.
uint64_t BruteCount(const ConfigSpace& space) {
  uint64_t count = 0;
  for (uint64_t i = 0; i < space.RawSize(); ++i) count += space.IsValid(space.FromDenseIndex(i));
  return count;
}

// Forces SampleValid onto the rejection sampler (or the enumerated list) for a scope.
class ScopedEnumerationThreshold {
 public:
  explicit ScopedEnumerationThreshold(uint64_t t) : old_(space_internal::EnumerationThreshold()) {
    space_internal::SetEnumerationThreshold(t);
  }
  ~ScopedEnumerationThreshold() { space_internal::SetEnumerationThreshold(old_); }

 private:
  uint64_t old_;
};

ConfigSpace SmallSpace() {
  ConfigSpace space;
  space.AddKnob(Knob::Ordered("bx", Ints({1, 2, 4, 8, 16, 32})));
  space.AddKnob(Knob::Ordered("by", Ints({1, 2, 4, 8})));
  space.AddKnob(Knob::Categorical("layout", {std::string("row"), std::string("col")}));
  space.AddKnob(Knob::Split("tile", 16, 2));
  space.AddRestriction("bx * by <= 64");
  space.AddRestriction("layout == 'row' or tile_1 >= 4");
  return space;
}

// A conv2d-like space with split and permutation knobs, several restrictions across groups of
// knobs, and a free knob: 302 400 raw points, small enough to brute-force in a test.
ConfigSpace MediumSpace() {
  ConfigSpace space;
  space.AddKnob(Knob::Split("tile_x", 64, 3));  // 28
  space.AddKnob(Knob::Split("tile_y", 32, 2));  // 6
  space.AddKnob(Knob::Ordered("unroll", Ints({0, 1, 2, 4, 8})));
  space.AddKnob(Knob::Categorical(
      "cache", {std::string("none"), std::string("shared"), std::string("texture")}));
  space.AddKnob(Knob::Permutation("order", 3));  // 6
  space.AddKnob(Knob::Ordered("vec", Ints({1, 2, 4, 8})));
  space.AddKnob(Knob::Ordered("free", Ints({0, 1, 2, 3, 4})));
  space.AddRestriction("tile_x_1 * tile_y_1 <= 256");
  space.AddRestriction("32 <= tile_x_1 * tile_y_1");
  space.AddRestriction("tile_x_2 % vec == 0");
  space.AddRestriction("cache != 'texture' or unroll <= 2");
  space.AddRestriction("order_0 != 2 or unroll > 0");
  return space;
}

TEST(ConfigSpaceTest, SizesAndDenseIndices) {
  ConfigSpace space = SmallSpace();
  EXPECT_EQ(space.NumKnobs(), 4u);
  EXPECT_EQ(space.RawSize(), 6u * 4u * 2u * 5u);
  EXPECT_NEAR(space.RawSizeLog10(), std::log10(240.0), 1e-12);
  EXPECT_EQ(space.KnobIndex("layout"), 2u);
  EXPECT_EQ(ErrorText([&] { space.KnobIndex("x"); }),
            "unknown knob 'x'; known: bx, by, layout, tile");
  for (uint64_t i = 0; i < space.RawSize(); ++i) {
    Config c = space.FromDenseIndex(i);
    EXPECT_EQ(space.ToDenseIndex(c), i);
  }
  // Last knob fastest.
  EXPECT_EQ(space.FromDenseIndex(1).indices, (std::vector<uint32_t>{0, 0, 0, 1}));
  EXPECT_EQ(space.FromDenseIndex(5).indices, (std::vector<uint32_t>{0, 0, 1, 0}));
  EXPECT_EQ(space.FromDenseIndex(239).indices, (std::vector<uint32_t>{5, 3, 1, 4}));
  EXPECT_THROW(space.FromDenseIndex(240), Error);
  EXPECT_THROW(space.ToDenseIndex(Config{{0, 0, 2, 0}}), Error);
  EXPECT_FALSE(space.InRange(Config{{0, 0, 2, 0}}));
  EXPECT_FALSE(space.InRange(Config{{0, 0, 0}}));
  EXPECT_TRUE(space.InRange(Config{{5, 3, 1, 4}}));
  EXPECT_FALSE(space.IsValid(Config{{0, 0, 0}}));
}

TEST(ConfigSpaceTest, DenseIndexRoundTripOnRandomConfigsOfALargeSpace) {
  ConfigSpace space;
  for (int k = 0; k < 8; ++k) {
    std::vector<KnobValue> values;
    for (int64_t v = 0; v < 37 + k * 5; ++v) values.emplace_back(v);
    space.AddKnob(Knob::Ordered("k" + std::to_string(k), values));
  }
  space.AddKnob(Knob::Permutation("p", 6));
  EXPECT_GT(space.RawSizeLog10(), 16.0);
  EXPECT_LT(space.RawSize(), UINT64_MAX);
  Rng rng(7);
  for (int i = 0; i < 10000; ++i) {
    Config c = space.SampleRaw(rng);
    ASSERT_TRUE(space.InRange(c));
    uint64_t dense = space.ToDenseIndex(c);
    ASSERT_LT(dense, space.RawSize());
    ASSERT_EQ(space.FromDenseIndex(dense), c);
    uint64_t d = UniformIndex(rng, space.RawSize());
    ASSERT_EQ(space.ToDenseIndex(space.FromDenseIndex(d)), d);
  }
}

TEST(ConfigSpaceTest, RawSizeSaturates) {
  ConfigSpace space;
  std::vector<KnobValue> values;
  for (int64_t v = 0; v < 1000; ++v) values.emplace_back(v);
  for (int k = 0; k < 25; ++k) space.AddKnob(Knob::Ordered("k" + std::to_string(k), values));
  EXPECT_EQ(space.RawSize(), UINT64_MAX);
  EXPECT_NEAR(space.RawSizeLog10(), 75.0, 1e-9);
  EXPECT_THROW(space.FromDenseIndex(0), Error);
  space.AddRestriction("k0 < k1");
  Rng rng(3);
  auto c = space.SampleValid(rng);
  ASSERT_TRUE(c);
  EXPECT_TRUE(space.IsValid(*c));
  EXPECT_LT(c->indices[0], c->indices[1]);
}

TEST(ConfigSpaceTest, EmptyAndConstantSpaces) {
  ConfigSpace empty;
  EXPECT_EQ(empty.RawSize(), 1u);
  EXPECT_EQ(empty.CountValid(), 1u);
  EXPECT_TRUE(empty.IsValid(Config{}));
  Rng rng(1);
  EXPECT_TRUE(empty.SampleValid(rng));

  ConfigSpace impossible;
  impossible.AddKnob(Knob::Ordered("a", Ints({1, 2, 3})));
  impossible.AddRestriction("1 > 2");
  EXPECT_EQ(impossible.CountValid(), 0u);
  EXPECT_TRUE(impossible.ValidIndices().empty());
  EXPECT_FALSE(impossible.SampleValid(rng));
  EXPECT_FALSE(impossible.IsValid(Config{{0}}));

  ConfigSpace none_valid;
  none_valid.AddKnob(Knob::Ordered("a", Ints({1, 2, 3})));
  none_valid.AddKnob(Knob::Ordered("b", Ints({1, 2, 3})));
  none_valid.AddRestriction("a + b > 100");
  {
    ScopedEnumerationThreshold rejection(0);
    EXPECT_FALSE(none_valid.SampleValid(rng, 1000));
  }
  EXPECT_FALSE(none_valid.SampleValid(rng));
  EXPECT_EQ(none_valid.CountValid(), 0u);
}

TEST(ConfigSpaceTest, BuildingErrors) {
  ConfigSpace space;
  space.AddKnob(Knob::Ordered("bx", Ints({1, 2})));
  space.AddKnob(Knob::Split("tile", 8, 2));
  EXPECT_TRUE(Contains(ErrorText([&] { space.AddKnob(Knob::Ordered("bx", Ints({3}))); }),
                       "duplicate knob 'bx'"));
  EXPECT_TRUE(Contains(ErrorText([&] { space.AddKnob(Knob::Ordered("tile_1", Ints({3}))); }),
                       "'tile_1' is already used"));
  EXPECT_EQ(ErrorText([&] { space.AddRestriction("bx * by <= 1024"); }),
            "restriction 'bx * by <= 1024': unknown name 'by'; known: bx, tile_0, tile_1");
  EXPECT_TRUE(Contains(ErrorText([&] { space.AddRestriction("bx <"); }), "column 5"));
  // A failed restriction leaves the space unchanged.
  EXPECT_TRUE(space.restrictions().empty());
  EXPECT_EQ(space.CountValid(), 8u);
}

TEST(ConfigSpaceTest, CountAndListMatchBruteForce) {
  ConfigSpace small = SmallSpace();
  EXPECT_EQ(small.CountValid(), BruteCount(small));
  ConfigSpace space = MediumSpace();
  EXPECT_EQ(space.RawSize(), 28u * 6u * 5u * 3u * 6u * 4u * 5u);
  uint64_t brute = BruteCount(space);
  EXPECT_GT(brute, 0u);
  EXPECT_LT(brute, space.RawSize());
  EXPECT_EQ(space.CountValid(), brute);
  std::vector<uint64_t> valid = space.ValidIndices();
  ASSERT_EQ(valid.size(), brute);
  EXPECT_TRUE(std::is_sorted(valid.begin(), valid.end()));
  EXPECT_TRUE(std::adjacent_find(valid.begin(), valid.end()) == valid.end());
  for (size_t i = 0; i < valid.size(); i += 97) {
    EXPECT_TRUE(space.IsValid(space.FromDenseIndex(valid[i])));
  }
}

TEST(ConfigSpaceTest, SamplesAreValidOnBothPaths) {
  for (uint64_t threshold : {uint64_t{0}, uint64_t{1} << 22}) {
    ScopedEnumerationThreshold scope(threshold);
    ConfigSpace space = MediumSpace();
    Rng rng(11);
    for (int i = 0; i < 2000; ++i) {
      auto c = space.SampleValid(rng);
      ASSERT_TRUE(c);
      ASSERT_TRUE(space.IsValid(*c));
    }
    for (int i = 0; i < 100; ++i) EXPECT_TRUE(space.InRange(space.SampleRaw(rng)));
  }
}

TEST(ConfigSpaceTest, SamplingIsReproducible) {
  for (uint64_t threshold : {uint64_t{0}, uint64_t{1} << 22}) {
    ScopedEnumerationThreshold scope(threshold);
    ConfigSpace space = MediumSpace();
    Rng a(5), b(5);
    for (int i = 0; i < 200; ++i) EXPECT_EQ(*space.SampleValid(a), *space.SampleValid(b));
  }
}

// Pearson's chi-square of observed counts against equal expectations.
double ChiSquare(const std::map<uint64_t, uint64_t>& counts, size_t cells, uint64_t n) {
  double expected = static_cast<double>(n) / static_cast<double>(cells);
  double chi = 0;
  size_t seen = 0;
  for (const auto& [cell, count] : counts) {
    double d = static_cast<double>(count) - expected;
    chi += d * d / expected;
    ++seen;
  }
  chi += static_cast<double>(cells - seen) * expected;  // cells never drawn
  return chi;
}

// The valid configurations of a ≤ b over 1..4 × 1..4 (10 cells) are drawn equally often. A
// sampler that assigns knobs greedily (a uniformly, then b uniformly among the values still
// valid) would give (4, 4) a quarter of the draws instead of a tenth. With 200 000 draws and 9
// degrees of freedom the chi-square of a uniform sampler exceeds 40 with probability ~5e-6; the
// seed is fixed, so the check is deterministic, and the greedy sampler scores in the thousands.
TEST(ConfigSpaceTest, SampleValidIsUniform) {
  ConfigSpace space;
  space.AddKnob(Knob::Ordered("a", Ints({1, 2, 3, 4})));
  space.AddKnob(Knob::Ordered("b", Ints({1, 2, 3, 4})));
  space.AddKnob(Knob::Ordered("c", Ints({1, 2})));
  space.AddRestriction("a <= b");
  space.AddRestriction("c == 1 or a == b");
  const uint64_t cells = space.CountValid();
  ASSERT_EQ(cells, 14u);  // 10 (a ≤ b) with c = 1, plus 4 (a == b) with c = 2
  const uint64_t n = 200000;
  for (uint64_t threshold : {uint64_t{0}, uint64_t{1} << 22}) {
    ScopedEnumerationThreshold scope(threshold);
    Rng rng(2024);
    std::map<uint64_t, uint64_t> counts;
    for (uint64_t i = 0; i < n; ++i) ++counts[space.ToDenseIndex(*space.SampleValid(rng))];
    EXPECT_EQ(counts.size(), cells);
    EXPECT_LT(ChiSquare(counts, cells, n), 40.0) << "threshold " << threshold;
  }
  // The same statistic on a greedy sampler is far above the bound.
  Rng rng(2024);
  std::map<uint64_t, uint64_t> greedy;
  for (uint64_t i = 0; i < n; ++i) {
    uint32_t a = static_cast<uint32_t>(UniformIndex(rng, 4));
    uint32_t b = a + static_cast<uint32_t>(UniformIndex(rng, 4 - a));
    uint32_t c = a == b ? static_cast<uint32_t>(UniformIndex(rng, 2)) : 0;
    ++greedy[space.ToDenseIndex(Config{{a, b, c}})];
  }
  EXPECT_GT(ChiSquare(greedy, cells, n), 1000.0);
}

// Uniformity on a bigger space with splits through the rejection sampler: every valid config is
// a cell; the chi-square against its degrees of freedom (mean df, sd sqrt(2 df)) stays within 6
// standard deviations at this seed.
TEST(ConfigSpaceTest, RejectionSamplerIsUniformOverSplits) {
  ScopedEnumerationThreshold rejection(0);
  ConfigSpace space;
  space.AddKnob(Knob::Split("t", 24, 3));
  space.AddKnob(Knob::Ordered("v", Ints({1, 2, 3, 4, 6})));
  space.AddRestriction("t_2 % v == 0");
  space.AddRestriction("t_0 * t_1 >= 4");
  const uint64_t cells = space.CountValid();
  ASSERT_EQ(cells, BruteCount(space));
  const uint64_t n = cells * 400;
  Rng rng(99);
  std::map<uint64_t, uint64_t> counts;
  for (uint64_t i = 0; i < n; ++i) ++counts[space.ToDenseIndex(*space.SampleValid(rng))];
  double df = static_cast<double>(cells - 1);
  EXPECT_LT(ChiSquare(counts, cells, n), df + 6 * std::sqrt(2 * df));
}

TEST(ConfigSpaceTest, Neighbours) {
  ConfigSpace space;
  space.AddKnob(Knob::Ordered("a", Ints({1, 2, 4, 8})));
  space.AddKnob(Knob::Categorical("c", {std::string("x"), std::string("y"), std::string("z")}));
  space.AddKnob(Knob::Split("s", 8, 2));  // [1,8] [2,4] [4,2] [8,1]
  space.AddRestriction("a * s_0 <= 8");
  space.AddRestriction("c != 'z' or a == 1");
  Config c{{1, 0, 1}};  // a=2, c=x, s=[2,4]
  ASSERT_TRUE(space.IsValid(c));
  std::vector<Config> all = space.Neighbours(c, false);
  // a: 0, 2; c: 1, 2; s: 0, 2.
  std::vector<Config> expected_all = {Config{{0, 0, 1}}, Config{{2, 0, 1}}, Config{{1, 1, 1}},
                                      Config{{1, 2, 1}}, Config{{1, 0, 0}}, Config{{1, 0, 2}}};
  EXPECT_EQ(all, expected_all);
  std::vector<Config> valid = space.Neighbours(c);
  // a=4 with s_0=2: 8 ok; c=z needs a == 1: invalid; s=[4,2] with a=2: 8 ok.
  std::vector<Config> expected_valid = {Config{{0, 0, 1}}, Config{{2, 0, 1}}, Config{{1, 1, 1}},
                                        Config{{1, 0, 0}}, Config{{1, 0, 2}}};
  EXPECT_EQ(valid, expected_valid);
  for (const Config& n : all) {
    int distance = 0;
    for (size_t k = 0; k < 3; ++k) distance += n.indices[k] != c.indices[k];
    EXPECT_EQ(distance, 1);
  }
  // Ends of an ordered knob have one neighbour along it.
  EXPECT_EQ(space.Neighbours(Config{{0, 0, 0}}, false).size(), 1u + 2u + 1u);
  EXPECT_TRUE(space.Neighbours(Config{{9, 0, 0}}).empty());

  // A random walk stays valid and moves one step at a time.
  Rng rng(4);
  Config walk = c;
  for (int i = 0; i < 200; ++i) {
    Config next = space.RandomWalk(walk, 1, rng);
    ASSERT_TRUE(space.IsValid(next));
    int distance = 0;
    for (size_t k = 0; k < 3; ++k) distance += next.indices[k] != walk.indices[k];
    ASSERT_EQ(distance, 1);
    walk = next;
  }
  EXPECT_TRUE(space.IsValid(space.RandomWalk(c, 50, rng)));
  // No valid neighbour: the walk stops where it is.
  ConfigSpace isolated;
  isolated.AddKnob(Knob::Ordered("a", Ints({1, 2, 3})));
  isolated.AddRestriction("a == 2");
  EXPECT_EQ(isolated.RandomWalk(Config{{1}}, 10, rng), Config{{1}});
}

TEST(ConfigSpaceTest, Features) {
  ConfigSpace space;
  space.AddKnob(Knob::Ordered("a", {int64_t{16}, 0.5}));
  space.AddKnob(Knob::Categorical("c", {std::string("x"), std::string("y")}));
  space.AddKnob(Knob::Split("s", 8, 2));
  space.AddKnob(Knob::Permutation("p", 3));
  EXPECT_EQ(space.FeatureWidth(FeatureKind::kKnobValues), 1 + 1 + 2 + 3);
  EXPECT_EQ(space.FeatureWidth(FeatureKind::kKnobIndices), 4);
  EXPECT_EQ(space.FeatureNames(FeatureKind::kKnobValues),
            (std::vector<std::string>{"a", "c", "s_0", "s_1", "p_0", "p_1", "p_2"}));
  EXPECT_EQ(space.FeatureNames(FeatureKind::kKnobIndices),
            (std::vector<std::string>{"a", "c", "s", "p"}));
  Config c{{1, 1, 2, 3}};  // a=0.5, c=y, s=[4,2], p=[1,2,0]
  EXPECT_EQ(space.Features(c, FeatureKind::kKnobValues),
            (std::vector<double>{0.5, 1, 4, 2, 1, 2, 0}));
  EXPECT_EQ(space.Features(c, FeatureKind::kKnobIndices), (std::vector<double>{1, 1, 2, 3}));
  std::vector<double> out(7, -1);
  space.WriteFeatures(c, FeatureKind::kKnobValues, out.data());
  EXPECT_EQ(out, space.Features(c, FeatureKind::kKnobValues));
}

TEST(ConfigSpaceTest, ConfigJsonRoundTripAndErrors) {
  ConfigSpace space = SmallSpace();
  for (uint64_t i = 0; i < space.RawSize(); ++i) {
    Config c = space.FromDenseIndex(i);
    ASSERT_EQ(space.ConfigFromJson(space.ConfigToJson(c)), c);
  }
  Config c = space.FromDenseIndex(37);  // 37 = 0*40 + 3*10 + 1*5 + 2
  Json j = space.ConfigToJson(c);
  EXPECT_EQ(j, Json::parse(R"({"bx": 1, "by": 8, "layout": "col", "tile": [4, 4]})"));
  EXPECT_EQ(space.ConfigToString(c), "bx=1, by=8, layout=\"col\", tile=[4,4]");
  // Ints and floats match numerically.
  Json floats = j;
  floats["bx"] = 1.0;
  floats["tile"] = Json::array({4.0, 4});
  EXPECT_EQ(space.ConfigFromJson(floats), c);
  Json unknown = j;
  unknown["bz"] = 1;
  EXPECT_EQ(ErrorText([&] { space.ConfigFromJson(unknown); }),
            "configuration: unknown knob 'bz'; known: bx, by, layout, tile");
  Json missing = j;
  missing.erase("by");
  EXPECT_EQ(ErrorText([&] { space.ConfigFromJson(missing); }), "configuration: missing knob 'by'");
  Json bad = j;
  bad["bx"] = 3;
  EXPECT_EQ(ErrorText([&] { space.ConfigFromJson(bad); }),
            "configuration: knob 'bx' has no value 3; its values: 1, 2, 4, 8, 16, 32");
  bad = j;
  bad["tile"] = Json::array({3, 5});
  EXPECT_TRUE(Contains(ErrorText([&] { space.ConfigFromJson(bad); }),
                       "knob 'tile' has no value [3,5]; its values: [1,16], [2,8]"));
  EXPECT_TRUE(
      Contains(ErrorText([&] { space.ConfigFromJson(Json::array()); }), "expected a JSON object"));
  // Long value lists are abbreviated.
  ConfigSpace wide;
  std::vector<KnobValue> values;
  for (int64_t v = 0; v < 100; ++v) values.emplace_back(v);
  wide.AddKnob(Knob::Ordered("w", values));
  EXPECT_EQ(ErrorText([&] {
              wide.ConfigFromJson(Json{{"w", 500}});
            }),
            "configuration: knob 'w' has no value 500; its values: 0, 1, 2, 3, 4, 5, 6, 7, ... "
            "(100 values)");
}

TEST(ConfigSpaceTest, HashIsByNamesAndValues) {
  ConfigSpace a;
  a.AddKnob(Knob::Ordered("bx", Ints({1, 2, 4})));
  a.AddKnob(Knob::Categorical("layout", {std::string("row"), std::string("col")}));
  a.AddKnob(Knob::Split("tile", 8, 2));
  ConfigSpace b;  // same knobs, values listed in another order, knobs in another order
  b.AddKnob(Knob::Split("tile", 8, 2));
  b.AddKnob(Knob::Categorical("layout", {std::string("col"), std::string("row")}));
  b.AddKnob(Knob::Ordered("bx", {4.0, int64_t{1}, int64_t{2}}));
  std::set<uint64_t> distinct;
  for (uint64_t i = 0; i < a.RawSize(); ++i) {
    Config ca = a.FromDenseIndex(i);
    Config cb = b.ConfigFromJson(a.ConfigToJson(ca));
    EXPECT_NE(ca, cb);                  // different indices...
    EXPECT_EQ(a.Hash(ca), b.Hash(cb));  // ...same hash
    distinct.insert(a.Hash(ca));
  }
  EXPECT_EQ(distinct.size(), a.RawSize());
  // Regression guard: FNV-1a over "bx=1;layout=\"row\";tile=[1,8];".
  EXPECT_EQ(HashToHex(a.Hash(Config{{0, 0, 0}})),
            HashToHex(space_internal::Fnv1a("bx=1;layout=\"row\";tile=[1,8];")));
  EXPECT_EQ(HashToHex(a.Hash(Config{{0, 0, 0}})), "956d85fa5ec36ab1");
  EXPECT_THROW(a.Hash(Config{{0, 0}}), Error);
}

TEST(ConfigSpaceTest, HexAndConfigHasher) {
  EXPECT_EQ(HashToHex(0), "0000000000000000");
  EXPECT_EQ(HashToHex(0x1234), "0000000000001234");
  EXPECT_EQ(HashToHex(UINT64_MAX), "ffffffffffffffff");
  EXPECT_EQ(HashToHex(0xdeadbeefcafef00dULL), "deadbeefcafef00d");
  ConfigHasher hasher;
  std::unordered_set<Config, ConfigHasher> set;
  ConfigSpace space = MediumSpace();
  for (uint64_t i = 0; i < 5000; ++i) set.insert(space.FromDenseIndex(i * 60));
  EXPECT_EQ(set.size(), 5000u);
  EXPECT_EQ(hasher(Config{{1, 2}}), hasher(Config{{1, 2}}));
  EXPECT_NE(hasher(Config{{1, 2}}), hasher(Config{{2, 1}}));
}

TEST(ConfigSpaceTest, SpaceJsonRoundTripPreservesFingerprint) {
  ConfigSpace space = MediumSpace();
  Json j = space.ToJson();
  ConfigSpace back = ConfigSpace::FromJson(j);
  EXPECT_EQ(back.Fingerprint(), space.Fingerprint());
  EXPECT_EQ(back.ToJson(), j);
  EXPECT_EQ(back.restrictions(), space.restrictions());
  EXPECT_EQ(back.CountValid(), space.CountValid());
  // Through text too.
  EXPECT_EQ(ConfigSpace::FromJson(Json::parse(j.dump())).Fingerprint(), space.Fingerprint());
  // The fingerprint sees knob values, their order, and restrictions.
  ConfigSpace other = MediumSpace();
  other.AddRestriction("unroll != 8");
  EXPECT_NE(other.Fingerprint(), space.Fingerprint());
  ConfigSpace reordered;
  reordered.AddKnob(Knob::Ordered("a", Ints({2, 1})));
  ConfigSpace ordered;
  ordered.AddKnob(Knob::Ordered("a", Ints({1, 2})));
  EXPECT_NE(reordered.Fingerprint(), ordered.Fingerprint());
  EXPECT_EQ(ordered.Fingerprint(), ConfigSpace(ordered).Fingerprint());
}

TEST(ConfigSpaceTest, SpaceJsonErrors) {
  EXPECT_TRUE(
      Contains(ErrorText([] { ConfigSpace::FromJson(Json::array()); }), "expected a JSON object"));
  EXPECT_TRUE(
      Contains(ErrorText([] { ConfigSpace::FromJson(Json::object()); }), "field 'knobs' missing"));
  EXPECT_TRUE(Contains(ErrorText([] {
                         ConfigSpace::FromJson(Json{{"knobs", Json::array({Json{{"name", "a"}}})}});
                       }),
                       "space: knobs[0]: knob 'a': missing field 'kind'"));
  Json ok = Json{{"knobs", Json::array({Knob::Ordered("a", Ints({1, 2})).ToJson()})}};
  Json bad = ok;
  bad["restrictions"] = Json::array({"a < 2", 5});
  EXPECT_TRUE(Contains(ErrorText([&] { ConfigSpace::FromJson(bad); }),
                       "space: restrictions[1] must be a string"));
  bad["restrictions"] = Json::array({"a < 2", "b < 2"});
  EXPECT_TRUE(Contains(ErrorText([&] { ConfigSpace::FromJson(bad); }),
                       "space: restrictions[1]: restriction 'b < 2': unknown name 'b'"));
  EXPECT_EQ(ConfigSpace::FromJson(ok).CountValid(), 2u);
}

TEST(ConfigSpaceTest, CopiesAreIndependent) {
  ConfigSpace space = SmallSpace();
  Rng rng(1);
  ASSERT_TRUE(space.SampleValid(rng));  // builds the sampling cache
  ConfigSpace copy = space;
  copy.AddRestriction("bx == 1");
  EXPECT_EQ(space.CountValid(), BruteCount(space));
  EXPECT_EQ(copy.CountValid(), BruteCount(copy));
  EXPECT_LT(copy.CountValid(), space.CountValid());
  for (int i = 0; i < 100; ++i) EXPECT_EQ(copy.SampleValid(rng)->indices[0], 0u);
  ConfigSpace assigned;
  assigned = copy;
  EXPECT_EQ(assigned.Fingerprint(), copy.Fingerprint());
  ConfigSpace moved = std::move(assigned);
  EXPECT_EQ(moved.CountValid(), copy.CountValid());
  // Adding a knob after restrictions keeps them working.
  copy.AddKnob(Knob::Ordered("z", Ints({1, 2})));
  copy.AddRestriction("z == by");
  EXPECT_EQ(copy.CountValid(), BruteCount(copy));
}

TEST(ConfigSpaceTest, ConcurrentUse) {
  ConfigSpace space = MediumSpace();
  std::vector<uint64_t> valid = space.ValidIndices();
  std::atomic<uint64_t> total{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      uint64_t count = 0;
      for (uint64_t i = static_cast<uint64_t>(t); i < space.RawSize(); i += 4)
        count += space.IsValid(space.FromDenseIndex(i));
      Rng rng(static_cast<uint64_t>(t));
      for (int i = 0; i < 500; ++i) {
        auto c = space.SampleValid(rng);  // the first calls race to build the cache
        if (!c || !space.IsValid(*c)) count += 1'000'000'000;
      }
      total += count;
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(total.load(), valid.size());
}

// An AutoTVM-style conv2d space of 4.5·10^7 raw points (the benchmark's, on a smaller problem):
// too big to brute-force, so the pruned, multi-threaded enumeration is checked against IsValid on
// random raw points.
TEST(ConfigSpaceTest, LargeSpaceEnumerationAgreesWithIsValid) {
  ConfigSpace space;
  space.AddKnob(Knob::Split("tile_f", 32, 4));
  space.AddKnob(Knob::Split("tile_y", 28, 4));
  space.AddKnob(Knob::Split("tile_x", 28, 4));
  space.AddKnob(Knob::Split("tile_rc", 64, 2));
  space.AddKnob(Knob::Split("tile_ry", 3, 2));
  space.AddKnob(Knob::Split("tile_rx", 3, 2));
  space.AddKnob(Knob::Ordered("auto_unroll_max_step", Ints({0, 512, 1500})));
  space.AddKnob(Knob::Ordered("unroll_explicit", Ints({0, 1})));
  space.AddKnob(Knob::Ordered("vec", Ints({1, 2, 4})));
  space.AddRestriction("32 <= tile_f_2 * tile_y_2 * tile_x_2 <= 1024");
  space.AddRestriction("tile_f_1 * tile_y_1 * tile_x_1 <= 16");
  space.AddRestriction(
      "4 * (tile_f_1 * tile_f_2 * tile_f_3 * tile_rc_1 * tile_ry_1 * tile_rx_1"
      " + tile_rc_1 * (tile_y_1 * tile_y_2 * tile_y_3 + tile_ry_1 - 1)"
      " * (tile_x_1 * tile_x_2 * tile_x_3 + tile_rx_1 - 1)) <= 48 * 1024");
  space.AddRestriction("tile_x_3 % vec == 0");
  space.AddRestriction("unroll_explicit == 0 or auto_unroll_max_step > 0");
  ASSERT_EQ(space.RawSize(), 56u * 40u * 40u * 7u * 2u * 2u * 3u * 2u * 3u);
  const uint64_t count = space.CountValid();
  std::vector<uint64_t> valid = space.ValidIndices();
  ASSERT_EQ(valid.size(), count);
  EXPECT_TRUE(std::is_sorted(valid.begin(), valid.end()));
  EXPECT_TRUE(std::adjacent_find(valid.begin(), valid.end()) == valid.end());
  // The unrolling knobs form their own group: 5 of their 6 combinations are valid.
  EXPECT_EQ(count % 5, 0u);
  Rng rng(8);
  int valid_seen = 0;
  for (int i = 0; i < 20000; ++i) {
    Config c = space.SampleRaw(rng);
    bool listed = std::binary_search(valid.begin(), valid.end(), space.ToDenseIndex(c));
    ASSERT_EQ(space.IsValid(c), listed) << space.ConfigToString(c);
    valid_seen += listed;
  }
  EXPECT_GT(valid_seen, 0);
  for (int i = 0; i < 2000; ++i) {
    Config c = *space.SampleValid(rng);  // rejection: the space is above the enumeration threshold
    ASSERT_TRUE(std::binary_search(valid.begin(), valid.end(), space.ToDenseIndex(c)));
  }
}

// More restriction variables than the on-stack scratch holds (256): the thread-local path.
TEST(ConfigSpaceTest, ManyVariables) {
  ConfigSpace space;
  for (int k = 0; k < 40; ++k) space.AddKnob(Knob::Split("s" + std::to_string(k), 8, 8));
  space.AddRestriction("s0_0 * s39_7 <= 4");
  space.AddRestriction("s1_1 + s38_6 + s20_3 < 8");
  Rng rng(1);
  for (int i = 0; i < 200; ++i) {
    auto c = space.SampleValid(rng);
    ASSERT_TRUE(c);
    ASSERT_TRUE(space.IsValid(*c));
  }
  // Restrictions span few knobs: count from the groups, times the free knobs' sizes.
  ConfigSpace small;
  small.AddKnob(Knob::Split("a", 8, 8));
  small.AddKnob(Knob::Split("b", 8, 8));
  small.AddKnob(Knob::Split("c", 8, 8));
  small.AddRestriction("a_0 * b_7 <= 4");
  small.AddRestriction("c_3 < 8");
  EXPECT_EQ(small.CountValid(), BruteCount(small));
}

}  // namespace
}  // namespace glimpse
