// Restriction expressions: a recursive-descent parser for the Python subset Kernel Tuner uses,
// compiled straight to a small stack bytecode. The sources, in the order an expression meets them:
//
//   expression.cc           string interning; Expression itself: Parse, Bind, copies
//   expression_lexer.cc     the source text to tokens
//   expression_parser.cc    tokens to the general bytecode (Python's precedence)
//   expression_int_path.cc  the bound general bytecode to the int64-only fast path
//   expression_eval.cc      Evaluate: the fast path, then the general stack machine; the
//                           evaluation semantics and where they depart from Python
//   expression_impl.h       what they share: both bytecodes, Program, Token
#include "glimpse/expression.h"

#include <deque>
#include <mutex>
#include <unordered_map>

#include "glimpse/error.h"
#include "space/expression_impl.h"

namespace glimpse {

// ---------------------------------------------------------------------------------------------
// String interning: ids -1, -2, ... in order of first use; references stay valid (std::deque).

namespace {
struct InternTable {
  std::mutex mutex;
  std::unordered_map<std::string, int64_t> ids;
  std::deque<std::string> texts;
};
InternTable& Interns() {
  static InternTable* table = new InternTable();  // never destroyed: usable during shutdown
  return *table;
}
}  // namespace

int64_t InternString(const std::string& text) {
  InternTable& table = Interns();
  std::lock_guard<std::mutex> lock(table.mutex);
  auto it = table.ids.find(text);
  if (it != table.ids.end()) return it->second;
  table.texts.push_back(text);
  int64_t id = -static_cast<int64_t>(table.texts.size());
  table.ids.emplace(text, id);
  return id;
}

const std::string& InternedString(int64_t id) {
  InternTable& table = Interns();
  std::lock_guard<std::mutex> lock(table.mutex);
  if (id >= 0 || static_cast<size_t>(-id) > table.texts.size()) {
    throw Error("no interned string with id " + std::to_string(id));
  }
  return table.texts[static_cast<size_t>(-id - 1)];
}

// ---------------------------------------------------------------------------------------------
// Expression.

Expression::Expression() : impl_(std::make_unique<Impl>()) {}
Expression::~Expression() = default;
Expression::Expression(const Expression& other) : impl_(std::make_unique<Impl>(*other.impl_)) {}
Expression& Expression::operator=(const Expression& other) {
  if (this != &other) impl_ = std::make_unique<Impl>(*other.impl_);
  return *this;
}
Expression::Expression(Expression&&) noexcept = default;
Expression& Expression::operator=(Expression&&) noexcept = default;

Expression Expression::Parse(const std::string& text) {
  Expression e;
  e.impl_->text = text;
  expression_internal::ParseInto(e.impl_.get());
  e.impl_->bound = e.impl_->variables.empty();
  if (e.impl_->bound) expression_internal::CompileIntPath(e.impl_.get());
  return e;
}

const std::vector<std::string>& Expression::Variables() const { return impl_->variables; }
const std::string& Expression::Text() const { return impl_->text; }

void Expression::Bind(const std::vector<std::string>& slot_names) {
  std::vector<int32_t> slot_of(impl_->variables.size(), -1);
  for (size_t v = 0; v < impl_->variables.size(); ++v) {
    for (size_t s = 0; s < slot_names.size(); ++s) {
      if (slot_names[s] == impl_->variables[v]) {
        slot_of[v] = static_cast<int32_t>(s);
        break;
      }
    }
    if (slot_of[v] < 0) {
      std::string known;
      for (const std::string& name : slot_names) known += (known.empty() ? "" : ", ") + name;
      if (known.empty()) known = "(none)";
      throw Error("restriction '" + impl_->text + "': unknown name '" + impl_->variables[v] +
                  "'; known: " + known);
    }
  }
  size_t load = 0;
  for (expression_internal::Instr& instr : impl_->code) {
    if (instr.op == expression_internal::Op::kLoad) instr.arg = slot_of[impl_->load_var[load++]];
  }
  impl_->bound = true;
  expression_internal::CompileIntPath(impl_.get());
}

}  // namespace glimpse
