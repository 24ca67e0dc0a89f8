// glimpse/expression.h — restriction expressions in Kernel Tuner's (Python) syntax.
//
// Grammar, loosest binding first (Python's precedence):
//   or  →  and  →  not  →  comparison (chained: a < b <= c means a < b and b <= c)
//   →  + -  →  * / // %  →  unary + -  →  ** (right-assoc, binds tighter than unary minus on its
//   left: -2**2 == -4)  →  atoms: integer / float literals, 'string' or "string" literals,
//   identifiers (knob names or other variables), parentheses, True / False.
// Semantics follow Python: `/` is true division (always a float), `//` floors, `%` takes the sign
// of the divisor, ints stay 64-bit ints under + - * // % and ** with a non-negative exponent.
// Division or modulo by zero evaluates to "not satisfied" for the whole expression (Kernel Tuner
// would raise; a restriction that cannot be evaluated cannot admit the config).
//
// Parse once, evaluate many times: Compile() resolves identifiers to slot numbers, and Evaluate()
// reads values from a flat array indexed by slot — no strings, no allocation on the hot path.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace glimpse {

// A number as Python would hold it: an int (exact, 64-bit) or a float. Strings only appear as
// literals and categorical knob values; they are interned to negative ids so that == and != work
// on them without touching text during evaluation.
struct Scalar {
  enum class Kind : uint8_t { kInt, kFloat, kString };
  Kind kind = Kind::kInt;
  int64_t i = 0;   // kInt value, or the interned id for kString
  double f = 0.0;  // kFloat value

  static Scalar Int(int64_t v) { return Scalar{Kind::kInt, v, 0.0}; }
  static Scalar Float(double v) { return Scalar{Kind::kFloat, 0, v}; }
  double AsDouble() const { return kind == Kind::kFloat ? f : static_cast<double>(i); }
  bool Truthy() const { return kind == Kind::kFloat ? f != 0.0 : i != 0; }
};

class Expression {
 public:
  // Parses `text`. Throws glimpse::Error on a syntax error, naming the 1-based column and what was
  // expected, e.g. "restriction 'a < < b': column 5: expected a value, found '<'".
  static Expression Parse(const std::string& text);

  // The identifiers the expression mentions, in order of first appearance.
  const std::vector<std::string>& Variables() const;
  const std::string& Text() const;

  // Binds every identifier to a slot of the value array Evaluate() reads: the slot of a name is
  // its position in `slot_names`. An unknown name throws Error, e.g.
  // "restriction 'bx * by <= 1024': unknown name 'by'; known: bx, block_size_y".
  void Bind(const std::vector<std::string>& slot_names);

  // Evaluates a bound expression. `values[slot]` holds each variable's value.
  Scalar Evaluate(const Scalar* values) const;
  bool Satisfied(const Scalar* values) const { return Evaluate(values).Truthy(); }

  Expression();
  ~Expression();
  Expression(const Expression&);
  Expression& operator=(const Expression&);
  Expression(Expression&&) noexcept;
  Expression& operator=(Expression&&) noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The process-wide string interning used for categorical values and string literals.
int64_t InternString(const std::string& text);
const std::string& InternedString(int64_t id);

}  // namespace glimpse
