// What the C++ and the CUDA emitter print alike: indented lines, a tensor access flattened to one
// affine index, and the bounds guard of an access that may leave its tensor. Each emitter derives
// from NestPrinter and keeps the loops it is inside on `stack_`, so that a guard tests only the
// dimensions whose range over those loops may leave the tensor.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
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
  // The range an index takes over the enclosing loops (`stack_`).
  void Range(const AffineExpr& e, int64_t& lo, int64_t& hi) const;
  // The bounds test of a zero_outside access, in the dimensions whose range may leave the tensor
  // ("" when none can).
  std::string Guard(const Access& access) const;
  // `name[flat index]`; a guarded load reads 0 outside the tensor.
  std::string AccessCode(const Access& access, bool load) const;

  const LoopNest& nest_;
  std::ostringstream out_;
  std::vector<const Loop*> stack_;
};

}  // namespace glimpse::codegen
