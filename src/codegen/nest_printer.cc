#include "codegen/nest_printer.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "glimpse/error.h"

namespace glimpse::codegen {

void CheckSymbol(const std::string& symbol) {
  bool identifier =
      !symbol.empty() && (std::isalpha(static_cast<unsigned char>(symbol[0])) || symbol[0] == '_');
  for (char ch : symbol) {
    identifier = identifier && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_');
  }
  if (!identifier) throw Error("kernel symbol '" + symbol + "' is not a C identifier");
}

AffineExpr NestPrinter::Flat(const Access& access) const {
  const TensorDecl& t = nest_.tensors[access.tensor];
  AffineExpr flat;
  int64_t stride = 1;
  for (size_t d = t.shape.size(); d-- > 0;) {
    flat = flat + access.index[d] * stride;
    stride *= t.shape[d];
  }
  return flat;
}

std::string NestPrinter::AffineCode(const AffineExpr& e) {
  std::ostringstream out;
  bool first = true;
  auto terms = e.terms;
  std::stable_sort(terms.begin(), terms.end(), [](const auto& x, const auto& y) {
    return std::abs(x.second) > std::abs(y.second);
  });
  for (const auto& [loop, c] : terms) {
    if (!first) out << " + ";
    first = false;
    if (c != 1) out << c << " * ";
    out << loop;
  }
  if (first) {
    out << e.constant;
  } else if (e.constant > 0) {
    out << " + " << e.constant;
  } else if (e.constant < 0) {
    out << " - " << -e.constant;
  }
  return out.str();
}

void NestPrinter::Range(const AffineExpr& e, int64_t& lo, int64_t& hi) const {
  lo = hi = e.constant;
  for (const auto& [name, c] : e.terms) {
    for (const Loop* loop : stack_) {
      if (loop->name != name) continue;
      int64_t span = c * (loop->extent - 1);
      (span > 0 ? hi : lo) += span;
    }
  }
}

std::string NestPrinter::Guard(const Access& access) const {
  const TensorDecl& t = nest_.tensors[access.tensor];
  std::string guard;
  for (size_t d = 0; d < t.shape.size(); ++d) {
    int64_t lo = 0, hi = 0;
    Range(access.index[d], lo, hi);
    std::string index = "(" + AffineCode(access.index[d]) + ")";
    if (lo < 0) guard += (guard.empty() ? "" : " && ") + index + " >= 0";
    if (hi >= t.shape[d]) {
      guard += (guard.empty() ? "" : " && ") + index + " < " + std::to_string(t.shape[d]);
    }
  }
  return guard;
}

std::string NestPrinter::AccessCode(const Access& access, bool load) const {
  const TensorDecl& t = nest_.tensors[access.tensor];
  std::string element = t.name + "[" + AffineCode(Flat(access)) + "]";
  if (!load || !access.zero_outside) return element;
  std::string guard = Guard(access);
  return guard.empty() ? element : "(" + guard + " ? " + element + " : 0.0f)";
}

}  // namespace glimpse::codegen
