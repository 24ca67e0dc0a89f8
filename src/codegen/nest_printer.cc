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

std::pair<int64_t, int64_t> NestPrinter::Span(const Loop& loop) const {
  auto it = narrowed_.find(&loop);
  return it != narrowed_.end() ? it->second : std::pair<int64_t, int64_t>{0, loop.extent - 1};
}

void NestPrinter::Range(const AffineExpr& e, int64_t& lo, int64_t& hi) const {
  lo = hi = e.constant;
  for (const auto& [name, c] : e.terms) {
    for (const Loop* loop : stack_) {
      if (loop->name != name) continue;
      const auto [first, last] = Span(*loop);
      lo += c * (c > 0 ? first : last);
      hi += c * (c > 0 ? last : first);
    }
  }
}

bool NestPrinter::DecidedAtCompileTime(const AffineExpr& e) const {
  for (const auto& [name, c] : e.terms) {
    const Loop* found = nullptr;
    for (const Loop* loop : stack_) {
      if (loop->name == name) found = loop;
    }
    if (found == nullptr) return false;
    const auto [first, last] = Span(*found);
    // The C++ emitter unrolls a kUnrolled loop whole up to 64 iterations (its pragma).
    const bool unrolled = found->kind == LoopKind::kUnrolled && found->extent <= 64;
    if (first != last && !unrolled) return false;
  }
  return true;
}

std::vector<NestPrinter::GuardCondition> NestPrinter::GuardConditions(const Access& access) const {
  const TensorDecl& t = nest_.tensors[access.tensor];
  std::vector<GuardCondition> conditions;
  for (size_t d = 0; d < t.shape.size(); ++d) {
    int64_t lo = 0, hi = 0;
    Range(access.index[d], lo, hi);
    const std::string index = "(" + AffineCode(access.index[d]) + ")";
    const bool decided = DecidedAtCompileTime(access.index[d]);
    if (lo < 0) conditions.push_back({index + " >= 0", decided});
    if (hi >= t.shape[d])
      conditions.push_back({index + " < " + std::to_string(t.shape[d]), decided});
  }
  return conditions;
}

std::string NestPrinter::JoinConditions(const std::vector<std::string>& conditions) {
  std::string joined;
  for (const std::string& condition : conditions) {
    joined += (joined.empty() ? "" : " && ") + condition;
  }
  return joined;
}

std::string NestPrinter::Guard(const Access& access) const {
  std::vector<std::string> all;
  for (const GuardCondition& condition : GuardConditions(access)) all.push_back(condition.code);
  return JoinConditions(all);
}

std::string NestPrinter::AccessCode(const Access& access, bool load,
                                    std::vector<std::string>* decided) const {
  const TensorDecl& t = nest_.tensors[access.tensor];
  const auto based = based_.find(&access);
  std::string element = based != based_.end()
                            ? based->second.first + "[" + AffineCode(based->second.second) + "]"
                            : t.name + "[" + AffineCode(Flat(access)) + "]";
  if (!load || !access.zero_outside) return element;
  std::vector<std::string> selected;
  for (const GuardCondition& condition : GuardConditions(access)) {
    (decided != nullptr && condition.compile_time ? *decided : selected).push_back(condition.code);
  }
  const std::string guard = JoinConditions(selected);
  return guard.empty() ? element : "(" + guard + " ? " + element + " : 0.0f)";
}

}  // namespace glimpse::codegen
