#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/space.h"

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

// Brute-force number of ordered k-tuples of positive ints with product n that pass `keep`.
uint64_t CountFactorisations(int64_t n, int parts, int position,
                             const std::function<bool(int, int64_t)>& keep) {
  if (position == parts - 1) return keep(position, n) ? 1 : 0;
  uint64_t total = 0;
  for (int64_t d = 1; d <= n; ++d) {
    if (n % d == 0 && keep(position, d))
      total += CountFactorisations(n / d, parts, position + 1, keep);
  }
  return total;
}

const std::vector<int64_t>& Factors(const Knob& knob, size_t i) {
  return std::get<std::vector<int64_t>>(knob.ValueAt(i));
}

TEST(KnobTest, OrderedKeepsOrderAndRejectsDuplicates) {
  Knob k = Knob::Ordered("bx", Ints({32, 8, 16}));
  EXPECT_EQ(k.kind(), KnobKind::kOrdered);
  EXPECT_EQ(k.size(), 3u);
  EXPECT_EQ(std::get<int64_t>(k.ValueAt(0)), 32);
  EXPECT_EQ(k.VariableNames(), std::vector<std::string>{"bx"});
  EXPECT_EQ(*k.IndexOf(KnobValue(int64_t{16})), 2u);
  EXPECT_EQ(*k.IndexOf(KnobValue(16.0)), 2u);  // numeric comparison
  EXPECT_FALSE(k.IndexOf(KnobValue(int64_t{4})));
  EXPECT_FALSE(k.IndexOf(KnobValue(std::string("16"))));
  EXPECT_EQ(*k.IndexOfJson(Json(8)), 1u);
  EXPECT_EQ(*k.IndexOfJson(Json(8.0)), 1u);
  EXPECT_FALSE(k.IndexOfJson(Json(8.5)));
  EXPECT_FALSE(k.IndexOfJson(Json("8")));
  EXPECT_TRUE(Contains(ErrorText([] {
                         Knob::Ordered("x", Ints({1, 2, 1}));
                       }),
                       "knob 'x': duplicate value 1"));
  EXPECT_TRUE(Contains(ErrorText([] { Knob::Ordered("x", {int64_t{2}, 2.0}); }), "duplicate"));
  EXPECT_TRUE(Contains(ErrorText([] {
                         Knob::Ordered("x", {int64_t{2}, std::string("a")});
                       }),
                       "not a number"));
  EXPECT_TRUE(Contains(ErrorText([] { Knob::Ordered("x", {}); }), "no values"));
  // Long lists take the sorted duplicate check.
  std::vector<KnobValue> many;
  for (int64_t i = 0; i < 2000; ++i) many.emplace_back(i);
  EXPECT_EQ(Knob::Ordered("m", many).size(), 2000u);
  many.emplace_back(1999.0);
  EXPECT_TRUE(Contains(ErrorText([&] { Knob::Ordered("m", many); }), "duplicate value"));
}

TEST(KnobTest, OrderedFloatsAndFeatures) {
  Knob k = Knob::Ordered("f", {0.5, 1.0, int64_t{2}});
  double out = 0;
  k.WriteFeatures(0, &out);
  EXPECT_EQ(out, 0.5);
  k.WriteFeatures(2, &out);
  EXPECT_EQ(out, 2.0);
  Scalar s;
  k.WriteVariables(0, &s);
  EXPECT_EQ(s.kind, Scalar::Kind::kFloat);
  k.WriteVariables(2, &s);
  EXPECT_EQ(s.kind, Scalar::Kind::kInt);
  EXPECT_EQ(s.i, 2);
  EXPECT_EQ(KnobValueToString(k.ValueAt(0)), "0.5");
  EXPECT_EQ(KnobValueToString(k.ValueAt(1)), "1.0");
}

TEST(KnobTest, Categorical) {
  Knob k = Knob::Categorical("layout", {std::string("row"), std::string("col"), int64_t{3}});
  EXPECT_EQ(k.kind(), KnobKind::kCategorical);
  double f = -1;
  k.WriteFeatures(1, &f);
  EXPECT_EQ(f, 1.0);  // categorical features are the index
  Scalar s;
  k.WriteVariables(0, &s);
  EXPECT_EQ(s.kind, Scalar::Kind::kString);
  EXPECT_EQ(InternedString(s.i), "row");
  EXPECT_EQ(*k.IndexOfJson(Json("col")), 1u);
  EXPECT_EQ(*k.IndexOfJson(Json(3)), 2u);
  EXPECT_EQ(k.NeighbourIndices(1), (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(k.NeighbourIndices(0), (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(KnobValueToString(k.ValueAt(0)), "\"row\"");
  EXPECT_TRUE(Contains(ErrorText([] {
                         Knob::Categorical("c", {std::string("a"), std::string("a")});
                       }),
                       "duplicate"));
  EXPECT_TRUE(Contains(ErrorText([] {
                         Knob::Categorical("c", {std::vector<int64_t>{1, 2}});
                       }),
                       "is a list"));
}

TEST(KnobTest, OrderedNeighbours) {
  Knob k = Knob::Ordered("bx", Ints({1, 2, 4, 8}));
  EXPECT_EQ(k.NeighbourIndices(0), (std::vector<uint32_t>{1}));
  EXPECT_EQ(k.NeighbourIndices(2), (std::vector<uint32_t>{1, 3}));
  EXPECT_EQ(k.NeighbourIndices(3), (std::vector<uint32_t>{2}));
  EXPECT_TRUE(k.NeighbourIndices(4).empty());
  Knob single = Knob::Ordered("one", Ints({7}));
  EXPECT_TRUE(single.NeighbourIndices(0).empty());
}

TEST(KnobTest, SplitEnumeratesOrderedFactorisationsLexicographically) {
  Knob k = Knob::Split("tile", 8, 2);
  ASSERT_EQ(k.size(), 4u);
  EXPECT_EQ(Factors(k, 0), (std::vector<int64_t>{1, 8}));
  EXPECT_EQ(Factors(k, 1), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(Factors(k, 2), (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(Factors(k, 3), (std::vector<int64_t>{8, 1}));
  EXPECT_EQ(k.VariableNames(), (std::vector<std::string>{"tile_0", "tile_1"}));
  EXPECT_EQ(k.FeatureWidth(), 2);
  Scalar vars[2];
  k.WriteVariables(1, vars);
  EXPECT_EQ(vars[0].i, 2);
  EXPECT_EQ(vars[1].i, 4);
  double f[2];
  k.WriteFeatures(2, f);
  EXPECT_EQ(f[0], 4.0);
  EXPECT_EQ(f[1], 2.0);
  EXPECT_EQ(k.NeighbourIndices(0), (std::vector<uint32_t>{1}));
  EXPECT_EQ(k.NeighbourIndices(1), (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(*k.IndexOf(KnobValue(std::vector<int64_t>{4, 2})), 2u);
  EXPECT_EQ(*k.IndexOfJson(Json::array({8, 1})), 3u);
  EXPECT_EQ(*k.IndexOfJson(Json::array({8.0, 1})), 3u);
  EXPECT_FALSE(k.IndexOf(KnobValue(std::vector<int64_t>{3, 3})));
  EXPECT_FALSE(k.IndexOfJson(Json::array({2, 2, 2})));
  EXPECT_EQ(KnobValueToString(k.ValueAt(1)), "[2,4]");
  // Lexicographic throughout a bigger one.
  Knob big = Knob::Split("t", 360, 3);
  for (size_t i = 1; i < big.size(); ++i) EXPECT_LT(Factors(big, i - 1), Factors(big, i));
}

TEST(KnobTest, SplitCounts) {
  auto all = [](int, int64_t) { return true; };
  // 64 = 2^6 into 4 parts: compositions of the exponent 6 into 4 parts, C(9, 3) = 84.
  EXPECT_EQ(Knob::Split("s", 64, 4).size(), 84u);
  EXPECT_EQ(CountFactorisations(64, 4, 0, all), 84u);
  // All factors of 64 are powers of two: the filter removes nothing.
  EXPECT_EQ(Knob::Split("s", 64, 4, {.power_of_two = true}).size(), 84u);
  // Inner factors ≤ 4 (exponents ≤ 2 for parts 1..3; the outer part takes the rest): 3^3 = 27.
  EXPECT_EQ(Knob::Split("s", 64, 4, {.max_factor = 4}).size(), 27u);
  // 720 = 2^4 3^2 5 into 3 parts: C(6,2) C(4,2) C(3,2) = 15 * 6 * 3 = 270.
  EXPECT_EQ(Knob::Split("s", 720, 3).size(), 270u);
  EXPECT_EQ(CountFactorisations(720, 3, 0, all), 270u);
  // Prime extent: the prime goes in one of the parts.
  Knob prime = Knob::Split("p", 7, 3);
  ASSERT_EQ(prime.size(), 3u);
  EXPECT_EQ(Factors(prime, 0), (std::vector<int64_t>{1, 1, 7}));
  EXPECT_EQ(Factors(prime, 2), (std::vector<int64_t>{7, 1, 1}));
  EXPECT_EQ(Knob::Split("one", 1, 3).size(), 1u);
  EXPECT_EQ(Knob::Split("whole", 12, 1).size(), 1u);
  // 12 with powers of two everywhere has no factorisation; with an unrestricted outer part the
  // inner parts take 1, 2 or 4 with product dividing 4: (1,1) (1,2) (1,4) (2,1) (2,2) (4,1).
  EXPECT_TRUE(Contains(ErrorText([] { Knob::Split("s", 12, 3, {.power_of_two = true}); }),
                       "no factorisation of 12 into 3 parts"));
  Knob outer = Knob::Split("s", 12, 3, {.power_of_two = true, .outer_any = true});
  EXPECT_EQ(outer.size(), 6u);
  EXPECT_EQ(Factors(outer, 0), (std::vector<int64_t>{3, 1, 4}));
  // Brute-force comparison of filters over a range of extents.
  for (int64_t n = 1; n <= 200; ++n) {
    for (int parts = 1; parts <= 4; ++parts) {
      auto pow2_outer = [](int pos, int64_t f) { return pos == 0 || (f & (f - 1)) == 0; };
      auto max3 = [](int pos, int64_t f) { return pos == 0 || f <= 3; };
      ASSERT_EQ(Knob::Split("s", n, parts).size(), CountFactorisations(n, parts, 0, all));
      ASSERT_EQ(Knob::Split("s", n, parts, {.power_of_two = true, .outer_any = true}).size(),
                CountFactorisations(n, parts, 0, pow2_outer));
      ASSERT_EQ(Knob::Split("s", n, parts, {.max_factor = 3}).size(),
                CountFactorisations(n, parts, 0, max3));
    }
  }
  EXPECT_TRUE(Contains(ErrorText([] { Knob::Split("s", 0, 2); }), "extent must be >= 1"));
  EXPECT_TRUE(Contains(ErrorText([] { Knob::Split("s", 4, 0); }), "parts must be in 1..16"));
}

TEST(KnobTest, Permutation) {
  Knob k = Knob::Permutation("order", 4);
  ASSERT_EQ(k.size(), 24u);
  EXPECT_EQ(Factors(k, 0), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(Factors(k, 1), (std::vector<int64_t>{0, 1, 3, 2}));
  EXPECT_EQ(Factors(k, 23), (std::vector<int64_t>{3, 2, 1, 0}));
  for (size_t i = 0; i < k.size(); ++i) EXPECT_EQ(*k.IndexOf(k.ValueAt(i)), i);
  EXPECT_FALSE(k.IndexOf(KnobValue(std::vector<int64_t>{0, 0, 1, 2})));
  EXPECT_FALSE(k.IndexOf(KnobValue(std::vector<int64_t>{0, 1, 2})));
  EXPECT_EQ(k.VariableNames(),
            (std::vector<std::string>{"order_0", "order_1", "order_2", "order_3"}));
  EXPECT_EQ(k.NeighbourIndices(23), (std::vector<uint32_t>{22}));
  EXPECT_EQ(Knob::Permutation("p", 1).size(), 1u);
  EXPECT_EQ(Knob::Permutation("p", 7).size(), 5040u);
  EXPECT_TRUE(Contains(ErrorText([] { Knob::Permutation("p", 11); }), "1..10"));
  EXPECT_TRUE(Contains(ErrorText([] { Knob::Permutation("p", 0); }), "1..10"));
}

TEST(KnobTest, JsonRoundTrip) {
  std::vector<Knob> knobs = {
      Knob::Ordered("bx", {int64_t{1}, 2.5, int64_t{4}}),
      Knob::Categorical("c", {std::string("a"), int64_t{2}}),
      Knob::Split("s", 48, 3, {.power_of_two = true, .outer_any = true, .max_factor = 8}),
      Knob::Permutation("p", 3),
  };
  for (const Knob& k : knobs) {
    Json j = k.ToJson();
    Knob back = Knob::FromJson(j);
    EXPECT_EQ(back.name(), k.name());
    EXPECT_EQ(back.kind(), k.kind());
    EXPECT_EQ(back.values(), k.values());
    EXPECT_EQ(back.ToJson(), j);
  }
  EXPECT_EQ(knobs[2].ToJson()["kind"], "split");
  EXPECT_EQ(std::string(KnobKindName(KnobKind::kPermutation)), "permutation");
}

TEST(KnobTest, JsonErrorsNameTheField) {
  EXPECT_TRUE(Contains(ErrorText([] { Knob::FromJson(Json::array()); }), "expected a JSON object"));
  EXPECT_TRUE(Contains(ErrorText([] {
                         Knob::FromJson(Json{{"kind", "ordered"}});
                       }),
                       "field 'name'"));
  EXPECT_TRUE(Contains(ErrorText([] {
                         Knob::FromJson(Json{{"name", "x"}});
                       }),
                       "knob 'x': missing field 'kind'"));
  EXPECT_TRUE(Contains(ErrorText([] {
                         Knob::FromJson(Json{{"name", "x"}, {"kind", "weird"}});
                       }),
                       "field 'kind' must be one of"));
  EXPECT_TRUE(Contains(ErrorText([] {
                         Knob::FromJson(Json{{"name", "x"}, {"kind", "ordered"}});
                       }),
                       "missing field 'values'"));
  EXPECT_TRUE(Contains(
      ErrorText([] {
        Knob::FromJson(Json{{"name", "x"}, {"kind", "ordered"}, {"values", Json::array({1, "a"})}});
      }),
      "field 'values[1]' is not a number"));
  EXPECT_TRUE(Contains(ErrorText([] {
                         Knob::FromJson(Json{{"name", "x"}, {"kind", "split"}, {"parts", 2}});
                       }),
                       "missing field 'extent'"));
  EXPECT_TRUE(Contains(
      ErrorText([] {
        Knob::FromJson(Json{{"name", "x"}, {"kind", "split"}, {"extent", "8"}, {"parts", 2}});
      }),
      "field 'extent' must be an integer"));
  EXPECT_TRUE(Contains(ErrorText([] {
                         Knob::FromJson(Json{{"name", "x"},
                                             {"kind", "split"},
                                             {"extent", 8},
                                             {"parts", 2},
                                             {"filter", {{"pow2", true}}}});
                       }),
                       "unknown field 'filter.pow2'"));
  EXPECT_TRUE(
      Contains(ErrorText([] {
                 Knob::FromJson(Json{{"name", "x"}, {"kind", "permutation"}, {"length", 12}});
               }),
               "field 'length' must be in 1..10"));
}

TEST(KnobTest, KnobValueText) {
  EXPECT_EQ(KnobValueToString(KnobValue(int64_t{16})), "16");
  EXPECT_EQ(KnobValueToString(KnobValue(0.5)), "0.5");
  EXPECT_EQ(KnobValueToString(KnobValue(std::string("row"))), "\"row\"");
  EXPECT_EQ(KnobValueToString(KnobValue(std::vector<int64_t>{4, 2, 8})), "[4,2,8]");
  EXPECT_EQ(KnobValueToJson(KnobValue(std::vector<int64_t>{4, 2})), Json::array({4, 2}));
  EXPECT_TRUE(KnobValueToJson(KnobValue(2.0)).is_number_float());
  EXPECT_TRUE(KnobValueToJson(KnobValue(int64_t{2})).is_number_integer());
}

}  // namespace
}  // namespace glimpse
