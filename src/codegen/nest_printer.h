// What the C++ and the CUDA emitter print alike: indented lines, a tensor access flattened to one
// affine index, and the bounds guard of an access that may leave its tensor. Each emitter derives
// from NestPrinter and keeps the loops it is inside on `stack_`, so that a guard tests only the
// dimensions whose range over those loops may leave the tensor.
#pragma once

#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "glimpse/loop_nest.h"

namespace glimpse::codegen {

// Throws Error unless `symbol` is a C identifier (the generated function's name).
void CheckSymbol(const std::string& symbol);

class NestPrinter {
 protected:
  explicit NestPrinter(const LoopNest& nest) : nest_(nest) {}

  std::ostream& Line(int depth) { return out_ << std::string(2 * depth, ' '); }

  // The access's multi-dimensional index flattened over its tensor's row-major shape.
  AffineExpr Flat(const Access& access) const;
  // Terms by falling |coefficient| (outer loops first, as a reader expects), then the constant.
  static std::string AffineCode(const AffineExpr& e);
  // The iterations [first, last] `loop` runs where the code being printed is: those `narrowed_`
  // says, else all of them.
  std::pair<int64_t, int64_t> Span(const Loop& loop) const;
  // The range an index takes over the enclosing loops (`stack_`).
  void Range(const AffineExpr& e, int64_t& lo, int64_t& hi) const;
  // Whether `e` has one value in each copy of the code the C++ compiler makes: every variable's
  // loop runs one iteration here (a peeled copy, an extent of 1) or is unrolled whole.
  bool DecidedAtCompileTime(const AffineExpr& e) const;

  // One test of a zero_outside access's bounds, and whether DecidedAtCompileTime holds for it.
  struct GuardCondition {
    std::string code;
    bool compile_time = false;
  };
  // The tests, in the dimensions whose range may leave the tensor (none when none can).
  std::vector<GuardCondition> GuardConditions(const Access& access) const;
  static std::string JoinConditions(const std::vector<std::string>& conditions);
  // The bounds test of a zero_outside access ("" when it cannot leave its tensor).
  std::string Guard(const Access& access) const;
  // `name[flat index]`; a guarded load reads 0 outside the tensor. With `decided`, the tests
  // decided at compile time are left out of the load and appended there instead (the caller
  // skips the statement when they fail: a multiply-add by a zero that is never computed).
  std::string AccessCode(const Access& access, bool load,
                         std::vector<std::string>* decided = nullptr) const;

  const LoopNest& nest_;
  std::ostringstream out_;
  std::vector<const Loop*> stack_;
  // Loops the emitter runs over part of their range (Loop::peel_edges): [first, last].
  std::map<const Loop*, std::pair<int64_t, int64_t>> narrowed_;
  // Accesses read through a pointer where the code being printed is (Loop::load_pointers): the
  // pointer's name and the flat index relative to it.
  std::map<const Access*, std::pair<std::string, AffineExpr>> based_;
};

}  // namespace glimpse::codegen
