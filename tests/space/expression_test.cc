#include "glimpse/expression.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/json.h"
#include "test_paths.h"

namespace glimpse {
namespace {

// Evaluates a constant expression or one over the variables a, b, c (values given).
Scalar Eval(const std::string& text, std::vector<Scalar> values = {}) {
  Expression e = Expression::Parse(text);
  std::vector<std::string> names = {"a", "b", "c", "s", "t"};
  e.Bind(names);
  values.resize(5);
  return e.Evaluate(values.data());
}

int64_t EvalInt(const std::string& text, std::vector<Scalar> values = {}) {
  Scalar s = Eval(text, std::move(values));
  EXPECT_EQ(s.kind, Scalar::Kind::kInt) << text;
  return s.i;
}

double EvalFloat(const std::string& text, std::vector<Scalar> values = {}) {
  Scalar s = Eval(text, std::move(values));
  EXPECT_EQ(s.kind, Scalar::Kind::kFloat) << text;
  return s.f;
}

bool Truth(const std::string& text, std::vector<Scalar> values = {}) {
  return Eval(text, std::move(values)).Truthy();
}

std::string ErrorOf(const std::string& text) {
  try {
    Expression::Parse(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

Scalar Str(const std::string& text) {
  Scalar s;
  s.kind = Scalar::Kind::kString;
  s.i = InternString(text);
  return s;
}

TEST(ExpressionTest, Precedence) {
  EXPECT_EQ(EvalInt("1 + 2 * 3"), 7);
  EXPECT_EQ(EvalInt("(1 + 2) * 3"), 9);
  EXPECT_EQ(EvalInt("2 ** 3 ** 2"), 512);
  EXPECT_EQ(EvalInt("(2 ** 3) ** 2"), 64);
  EXPECT_EQ(EvalInt("-2 ** 2"), -4);
  EXPECT_EQ(EvalInt("(-2) ** 2"), 4);
  EXPECT_DOUBLE_EQ(EvalFloat("2 ** -1 ** 2"), 0.5);  // 2 ** -(1 ** 2)
  EXPECT_DOUBLE_EQ(EvalFloat("2 ** -1 ** 2 * 0 + 1"), 1.0);
  EXPECT_DOUBLE_EQ(EvalFloat("2 ** -1"), 0.5);
  EXPECT_EQ(EvalInt("10 - 4 - 3"), 3);
  EXPECT_EQ(EvalInt("100 // 10 // 3"), 3);
  EXPECT_EQ(EvalInt("- - 3"), 3);
  EXPECT_EQ(EvalInt("+3 - -3"), 6);
  EXPECT_EQ(EvalInt("2 * 3 % 4"), 2);  // left to right: (2*3)%4
  EXPECT_EQ(EvalInt("1 + 7 % 4 * 2"), 7);
  // not binds looser than ==: not (a == b).
  EXPECT_TRUE(Truth("not a == b", {Scalar::Int(1), Scalar::Int(2)}));
  EXPECT_FALSE(Truth("not a == b", {Scalar::Int(2), Scalar::Int(2)}));
  // and binds tighter than or: a or (b and c).
  EXPECT_TRUE(Truth("a or b and c", {Scalar::Int(1), Scalar::Int(0), Scalar::Int(0)}));
  EXPECT_FALSE(Truth("(a or b) and c", {Scalar::Int(1), Scalar::Int(0), Scalar::Int(0)}));
  EXPECT_TRUE(Truth("not 0 and 1"));
  EXPECT_FALSE(Truth("not (0 or 1)"));
  EXPECT_TRUE(Truth("not not 1"));
  // Comparisons bind looser than arithmetic.
  EXPECT_TRUE(Truth("1 + 1 == 2"));
  EXPECT_TRUE(Truth("a * b <= 1024", {Scalar::Int(32), Scalar::Int(32)}));
  EXPECT_FALSE(Truth("a * b <= 1024", {Scalar::Int(64), Scalar::Int(32)}));
}

TEST(ExpressionTest, OrAndReturnOperands) {
  // Python: `a or b` is a if a is truthy else b; `a and b` is a if a is falsy else b.
  EXPECT_EQ(EvalInt("0 or 5"), 5);
  EXPECT_EQ(EvalInt("3 or 5"), 3);
  EXPECT_EQ(EvalInt("3 and 5"), 5);
  EXPECT_EQ(EvalInt("0 and 5"), 0);
  EXPECT_EQ(EvalInt("(0 or 2) + 1"), 3);
  // Short-circuit: the failing division is never evaluated.
  EXPECT_TRUE(Truth("1 or 1 / 0"));
  EXPECT_FALSE(Truth("0 and 1 / 0"));
}

TEST(ExpressionTest, ChainedComparisons) {
  auto chain = [](int64_t x) {
    return Truth("32 <= a * b <= 1024", {Scalar::Int(x), Scalar::Int(1)});
  };
  EXPECT_FALSE(chain(16));
  EXPECT_TRUE(chain(32));
  EXPECT_TRUE(chain(1024));
  EXPECT_FALSE(chain(1025));
  EXPECT_TRUE(Truth("1 < 2 < 3 < 4"));
  EXPECT_FALSE(Truth("1 < 2 > 3 < 4"));
  EXPECT_TRUE(Truth("1 < 3 > 2"));  // not (1 < 3) > 2
  EXPECT_FALSE(Truth("3 > 2 > 1 > 1"));
  EXPECT_TRUE(Truth("1 == 1 == 1"));
  EXPECT_FALSE(Truth("(1 == 1) == 2"));
  EXPECT_TRUE(Truth("1 != 2 != 1"));  // (1 != 2) and (2 != 1)
  // A false link short-circuits: 2 < 1 fails before 1 / 0 is reached.
  EXPECT_FALSE(Truth("2 < 1 < 1 / 0"));
  EXPECT_EQ(EvalInt("1 < 2 < 3"), 1);
  EXPECT_EQ(EvalInt("3 < 2 < 1"), 0);
  EXPECT_EQ(EvalInt("(1 < 2 < 3) + 1"), 2);
}

TEST(ExpressionTest, DivisionSemantics) {
  // True division is always a float.
  EXPECT_EQ(Eval("4 / 2").kind, Scalar::Kind::kFloat);
  EXPECT_DOUBLE_EQ(EvalFloat("7 / 2"), 3.5);
  EXPECT_DOUBLE_EQ(EvalFloat("-7 / 2"), -3.5);
  // Floor division floors (towards -inf), for negatives and floats too.
  EXPECT_EQ(EvalInt("7 // 2"), 3);
  EXPECT_EQ(EvalInt("-7 // 2"), -4);
  EXPECT_EQ(EvalInt("7 // -2"), -4);
  EXPECT_EQ(EvalInt("-7 // -2"), 3);
  EXPECT_EQ(EvalInt("-8 // 2"), -4);
  EXPECT_DOUBLE_EQ(EvalFloat("7.5 // 2"), 3.0);
  EXPECT_DOUBLE_EQ(EvalFloat("-7.5 // 2"), -4.0);
  EXPECT_DOUBLE_EQ(EvalFloat("7 // 2.0"), 3.0);
  EXPECT_DOUBLE_EQ(EvalFloat("-1 // 3.0"), -1.0);
  // Modulo takes the sign of the divisor.
  EXPECT_EQ(EvalInt("7 % 3"), 1);
  EXPECT_EQ(EvalInt("-7 % 3"), 2);
  EXPECT_EQ(EvalInt("7 % -3"), -2);
  EXPECT_EQ(EvalInt("-7 % -3"), -1);
  EXPECT_EQ(EvalInt("6 % -3"), 0);
  EXPECT_DOUBLE_EQ(EvalFloat("7.5 % 2"), 1.5);
  EXPECT_DOUBLE_EQ(EvalFloat("-7.5 % 2"), 0.5);
  EXPECT_DOUBLE_EQ(EvalFloat("7.5 % -2"), -0.5);
  EXPECT_DOUBLE_EQ(EvalFloat("-1 % 3.0"), 2.0);
  // Python: 32 % (16 * 8 / 8) == 0.0, and 32 % (32 * 8 / 16) == 0.0, 32 % (8 * 8 / 32) == 0.0.
  EXPECT_TRUE(Truth("32 % ((16 * 8) / 8) == 0"));
  EXPECT_TRUE(Truth("32 % ((8 * 8) / 32) == 0"));
  EXPECT_FALSE(Truth("32 % ((8 * 8) / 3) == 0"));
  // Powers: int ** non-negative int stays an int; negative exponent gives a float.
  EXPECT_EQ(EvalInt("3 ** 0"), 1);
  EXPECT_EQ(EvalInt("2 ** 62"), int64_t{1} << 62);
  EXPECT_DOUBLE_EQ(EvalFloat("4 ** 0.5"), 2.0);
  EXPECT_DOUBLE_EQ(EvalFloat("2.0 ** 3"), 8.0);
}

TEST(ExpressionTest, DivisionByZeroIsNotSatisfied) {
  EXPECT_FALSE(Truth("1 / 0"));
  EXPECT_FALSE(Truth("1 // 0"));
  EXPECT_FALSE(Truth("1 % 0"));
  EXPECT_FALSE(Truth("1.0 % 0.0"));
  EXPECT_FALSE(Truth("0 ** -1"));
  // The failure is for the whole expression, not just the failing operand.
  EXPECT_FALSE(Truth("not (1 / 0)"));
  EXPECT_FALSE(Truth("1 / 0 == 0 or 1"));
  EXPECT_FALSE(Truth("a % b == 0", {Scalar::Int(4), Scalar::Int(0)}));
  EXPECT_TRUE(Truth("a % b == 0", {Scalar::Int(4), Scalar::Int(2)}));
  EXPECT_TRUE(Truth("b == 0 or a % b == 0", {Scalar::Int(4), Scalar::Int(0)}));
}

TEST(ExpressionTest, Literals) {
  EXPECT_DOUBLE_EQ(EvalFloat("1e3"), 1000.0);
  EXPECT_DOUBLE_EQ(EvalFloat("1.5e-1"), 0.15);
  EXPECT_DOUBLE_EQ(EvalFloat(".5"), 0.5);
  EXPECT_DOUBLE_EQ(EvalFloat("2."), 2.0);
  EXPECT_EQ(EvalInt("1_000"), 1000);
  EXPECT_EQ(EvalInt("0x10"), 16);
  EXPECT_EQ(EvalInt("True + True"), 2);
  EXPECT_EQ(EvalInt("False"), 0);
  EXPECT_TRUE(Truth("True"));
  EXPECT_FALSE(Truth("False"));
  EXPECT_TRUE(Truth("a == True", {Scalar::Int(1)}));
  EXPECT_TRUE(Truth("1 == 1.0"));
  EXPECT_TRUE(Truth("3 > 2.5"));
}

TEST(ExpressionTest, Strings) {
  EXPECT_TRUE(Truth("s == 'row'", {{}, {}, {}, Str("row")}));
  EXPECT_TRUE(Truth("s == \"row\"", {{}, {}, {}, Str("row")}));
  EXPECT_FALSE(Truth("s == 'col'", {{}, {}, {}, Str("row")}));
  EXPECT_TRUE(Truth("s != 'col'", {{}, {}, {}, Str("row")}));
  EXPECT_TRUE(Truth("s == t", {{}, {}, {}, Str("x"), Str("x")}));
  // String vs number: == false, != true, ordering fails.
  EXPECT_FALSE(Truth("s == 1", {{}, {}, {}, Str("1")}));
  EXPECT_TRUE(Truth("s != 1", {{}, {}, {}, Str("1")}));
  EXPECT_FALSE(Truth("s < 1", {{}, {}, {}, Str("1")}));
  EXPECT_FALSE(Truth("not (s < 1)", {{}, {}, {}, Str("1")}));
  EXPECT_FALSE(Truth("s + 1 > 0", {{}, {}, {}, Str("1")}));
  EXPECT_EQ(InternedString(InternString("hello")), "hello");
  EXPECT_EQ(InternString("hello"), InternString("hello"));
  EXPECT_LT(InternString("hello"), 0);
}

TEST(ExpressionTest, Functions) {
  EXPECT_EQ(EvalInt("min(3, 1, 2)"), 1);
  EXPECT_EQ(EvalInt("max(3, 1, 2)"), 3);
  EXPECT_EQ(EvalInt("abs(-4)"), 4);
  EXPECT_DOUBLE_EQ(EvalFloat("abs(-4.5)"), 4.5);
  EXPECT_EQ(EvalInt("int(7 / 2)"), 3);
  EXPECT_TRUE(Truth("max(a, b) <= 2 * min(a, b)", {Scalar::Int(3), Scalar::Int(5)}));
  EXPECT_NE(ErrorOf("foo(1)").find("unknown function 'foo'"), std::string::npos);
  EXPECT_NE(ErrorOf("min(1)").find("min() takes at least 2"), std::string::npos);
  EXPECT_NE(ErrorOf("abs(1, 2)").find("abs() takes 1"), std::string::npos);
}

TEST(ExpressionTest, VariablesInOrderOfFirstAppearance) {
  Expression e = Expression::Parse("b * a + b < min(c, a)");
  EXPECT_EQ(e.Variables(), (std::vector<std::string>{"b", "a", "c"}));
  EXPECT_EQ(e.Text(), "b * a + b < min(c, a)");
}

TEST(ExpressionTest, SyntaxErrorsNameColumnExpectedAndFound) {
  EXPECT_EQ(ErrorOf("a < < b"), "restriction 'a < < b': column 5: expected a value, found '<'");
  EXPECT_EQ(ErrorOf("a +"),
            "restriction 'a +': column 4: expected a value, found end of expression");
  EXPECT_EQ(ErrorOf("(a + 1"),
            "restriction '(a + 1': column 7: expected ')', found end of expression");
  EXPECT_EQ(ErrorOf("a b"),
            "restriction 'a b': column 3: expected an operator or the end of the expression, "
            "found 'b'");
  EXPECT_EQ(ErrorOf("a ) "),
            "restriction 'a ) ': column 3: expected an operator or the end of the expression, "
            "found ')'");
  EXPECT_EQ(ErrorOf(""), "restriction '': column 1: expected a value, found end of expression");
  EXPECT_NE(ErrorOf("a == 'x").find("column 6: unterminated string"), std::string::npos);
  EXPECT_NE(ErrorOf("a $ b").find("column 3: unexpected character '$'"), std::string::npos);
  EXPECT_NE(ErrorOf("a and or b").find("column 7: expected a value, found 'or'"),
            std::string::npos);
  EXPECT_NE(ErrorOf("12abc").find("column 3: invalid number"), std::string::npos);
  EXPECT_NE(ErrorOf("99999999999999999999").find("out of range"), std::string::npos);
  EXPECT_NE(ErrorOf("a === b").find("column 5"), std::string::npos);
}

TEST(ExpressionTest, DeepNestingIsAnErrorNotACrash) {
  std::string deep(5000, '(');
  EXPECT_NE(ErrorOf(deep + "1" + std::string(5000, ')')).find("nested too deeply"),
            std::string::npos);
  std::string wide = "1";
  for (int i = 0; i < 200; ++i) wide = "1 + (" + wide + ")";
  EXPECT_NE(ErrorOf(wide).find("column"), std::string::npos);
}

TEST(ExpressionTest, UnknownNameListsKnownNames) {
  Expression e = Expression::Parse("bx * by <= 1024");
  try {
    e.Bind({"bx", "block_size_y"});
    FAIL() << "expected an Error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(),
                 "restriction 'bx * by <= 1024': unknown name 'by'; known: bx, block_size_y");
  }
}

TEST(ExpressionTest, BindMapsSlotsAndCopiesAreIndependent) {
  Expression e = Expression::Parse("x - y");
  e.Bind({"y", "x"});
  Scalar values[2] = {Scalar::Int(1), Scalar::Int(10)};
  EXPECT_EQ(e.Evaluate(values).i, 9);
  Expression copy = e;
  copy.Bind({"x", "y"});
  EXPECT_EQ(copy.Evaluate(values).i, -9);
  EXPECT_EQ(e.Evaluate(values).i, 9);
  Expression moved = std::move(copy);
  EXPECT_EQ(moved.Evaluate(values).i, -9);
  // Evaluating before binding is a usage error.
  Expression unbound = Expression::Parse("x");
  EXPECT_THROW(unbound.Evaluate(values), Error);
}

TEST(ExpressionTest, IntegerOverflowWrapsWithoutUndefinedBehaviour) {
  EXPECT_EQ(EvalInt("9223372036854775807 + 1"), INT64_MIN);
  EXPECT_EQ(EvalInt("(-9223372036854775807 - 1) // -1"), INT64_MIN);
  EXPECT_EQ(EvalInt("(-9223372036854775807 - 1) % -1"), 0);
}

// Random integer expressions evaluated twice: as they are (over int values they take the int64
// fast path) and behind `(z == z) and (...)` with z a float, which sends the same evaluation
// through the general evaluator. Both must agree on kind and value, failures included.
class RandomExpression {
 public:
  explicit RandomExpression(uint64_t seed) : rng_(seed) {}

  std::string Make(int depth) {
    if (depth == 0 || Pick(4) == 0) return Leaf();
    switch (Pick(9)) {
      case 0:
        return "(" + Make(depth - 1) + ")";
      case 1:
        return "-" + Make(depth - 1);
      case 2:
        return "(not " + Make(depth - 1) + ")";
      case 3: {
        static const char* kOps[] = {" + ", " - ", " * ", " // ", " % "};
        return Make(depth - 1) + kOps[Pick(5)] + Make(depth - 1);
      }
      case 4:
        return Make(depth - 1) + " ** " + std::to_string(Pick(4));
      case 5: {
        static const char* kCmp[] = {" < ", " <= ", " > ", " >= ", " == ", " != "};
        std::string text = Make(depth - 1);
        int links = 1 + Pick(3);
        for (int i = 0; i < links; ++i) text += kCmp[Pick(6)] + Make(depth - 1);
        return text;
      }
      case 6:
        return Make(depth - 1) + (Pick(2) ? " and " : " or ") + Make(depth - 1);
      case 7: {
        static const char* kFn[] = {"min", "max"};
        return std::string(kFn[Pick(2)]) + "(" + Make(depth - 1) + ", " + Make(depth - 1) + ")";
      }
      default:
        return "abs(" + Make(depth - 1) + ")";
    }
  }

 private:
  int Pick(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  std::string Leaf() {
    static const char* kVars[] = {"a", "b", "c"};
    if (Pick(2)) return kVars[Pick(3)];
    return std::to_string(Pick(7) - 2);
  }
  std::mt19937_64 rng_;
};

TEST(ExpressionTest, IntFastPathAgreesWithGeneralEvaluator) {
  RandomExpression gen(12345);
  std::mt19937_64 values_rng(7);
  const std::vector<std::string> names = {"a", "b", "c", "z"};
  int failures_seen = 0, checked = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string text = gen.Make(4);
    Expression fast = Expression::Parse(text);
    Expression slow = Expression::Parse("(z == z) and (" + text + ")");
    fast.Bind(names);
    slow.Bind(names);
    for (int trial = 0; trial < 5; ++trial) {
      Scalar values[4];
      for (int v = 0; v < 3; ++v) {
        values[v] = Scalar::Int(static_cast<int64_t>(values_rng() % 9) - 4);
      }
      values[3] = Scalar::Float(1.0);
      Scalar x = fast.Evaluate(values);
      Scalar y = slow.Evaluate(values);
      ASSERT_EQ(x.kind, y.kind) << text;
      if (x.kind == Scalar::Kind::kFloat) {
        ASSERT_TRUE(x.f == y.f || (std::isnan(x.f) && std::isnan(y.f))) << text;
      } else {
        ASSERT_EQ(x.i, y.i) << text;
      }
      ++checked;
      failures_seen += (x.kind == Scalar::Kind::kInt && x.i == 0);
    }
  }
  EXPECT_EQ(checked, 15000);
  EXPECT_GT(failures_seen, 100);  // the generator does produce zeros and failures
}

TEST(ExpressionTest, FusedOperandsAroundJumps) {
  // `a * (b or c)`: the jump of `or` lands on the multiplication, which must then take its right
  // operand from the stack.
  EXPECT_EQ(EvalInt("a * (b or c)", {Scalar::Int(3), Scalar::Int(0), Scalar::Int(5)}), 15);
  EXPECT_EQ(EvalInt("a * (b or c)", {Scalar::Int(3), Scalar::Int(2), Scalar::Int(5)}), 6);
  EXPECT_EQ(EvalInt("a - (b and c)", {Scalar::Int(3), Scalar::Int(0), Scalar::Int(5)}), 3);
  EXPECT_EQ(EvalInt("(a < b < c) * 7", {Scalar::Int(1), Scalar::Int(2), Scalar::Int(3)}), 7);
  EXPECT_EQ(EvalInt("a < (b < c)", {Scalar::Int(0), Scalar::Int(2), Scalar::Int(3)}), 1);
  // Mixed kinds: float values take the general evaluator, same answers.
  EXPECT_DOUBLE_EQ(EvalFloat("a * (b or c)", {Scalar::Float(1.5), Scalar::Int(0), Scalar::Int(4)}),
                   6.0);
  EXPECT_DOUBLE_EQ(EvalFloat("a ** b", {Scalar::Int(2), Scalar::Int(-2)}), 0.25);
}

// 3000 random expressions over ints, floats and strings, with the result CPython gives for them
// (tests/space/make_python_expressions.py wrote the file; an exception there is a failure here).
TEST(ExpressionTest, PythonAgreement) {
  std::ifstream in(testing::TestDataPath("space_python_expressions.json"));
  ASSERT_TRUE(in) << "missing " << testing::TestDataPath("space_python_expressions.json");
  Json data = Json::parse(in);
  const std::vector<std::string> names = {"a", "b", "c", "f", "g", "s", "t"};
  int checked = 0;
  for (const Json& c : data.at("cases")) {
    const std::string text = c.at("text").get<std::string>();
    Expression e = Expression::Parse(text);
    e.Bind(names);
    std::vector<Scalar> values;
    for (const std::string& name : names) {
      const Json& v = c.at("values").at(name);
      if (v.is_string())
        values.push_back(Str(v.get<std::string>()));
      else if (v.is_number_integer())
        values.push_back(Scalar::Int(v.get<int64_t>()));
      else
        values.push_back(Scalar::Float(v.get<double>()));
    }
    Scalar got = e.Evaluate(values.data());
    const Json& want = c.at("expected");
    SCOPED_TRACE(text + "  with " + c.at("values").dump());
    if (want.contains("fail")) {
      ASSERT_EQ(got.kind, Scalar::Kind::kInt);
      ASSERT_EQ(got.i, 0);
    } else if (want.contains("int")) {
      ASSERT_EQ(got.kind, Scalar::Kind::kInt);
      ASSERT_EQ(got.i, want.at("int").get<int64_t>());
    } else if (want.contains("float")) {
      ASSERT_EQ(got.kind, Scalar::Kind::kFloat);
      double w = want.at("float").get<double>();
      ASSERT_NEAR(got.f, w, 1e-12 * std::max(1.0, std::fabs(w)));
    } else {
      ASSERT_EQ(got.kind, Scalar::Kind::kString);
      ASSERT_EQ(InternedString(got.i), want.at("str").get<std::string>());
    }
    ++checked;
  }
  EXPECT_EQ(checked, 3000);
}

}  // namespace
}  // namespace glimpse
