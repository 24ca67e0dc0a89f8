// The lexer of restriction expressions: Python's tokens for the subset the parser accepts
// (numbers with Python's underscores and 0x / 0o / 0b prefixes, quoted strings, names,
// operators, parentheses and commas).
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "glimpse/error.h"
#include "space/expression_impl.h"

namespace glimpse::expression_internal {

namespace {

bool IsNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Lexes the number starting at src[i] into *t; returns the position after it.
size_t LexNumber(const std::string& src, size_t i, Token* t) {
  size_t n = src.size(), start = i;
  auto digits = [&](size_t j, auto pred) {
    while (j < n && (pred(src[j]) || (src[j] == '_' && j + 1 < n && pred(src[j + 1])))) ++j;
    return j;
  };
  auto dec = [](char ch) { return ch >= '0' && ch <= '9'; };
  std::string clean;
  if (src[i] == '0' && i + 1 < n &&
      (src[i + 1] == 'x' || src[i + 1] == 'X' || src[i + 1] == 'o' || src[i + 1] == 'O' ||
       src[i + 1] == 'b' || src[i + 1] == 'B')) {
    char p = static_cast<char>(src[i + 1] | 0x20);
    int base = p == 'x' ? 16 : p == 'o' ? 8 : 2;
    auto pred = [base](char ch) {
      if (base == 16) return std::isxdigit(static_cast<unsigned char>(ch)) != 0;
      if (base == 8) return ch >= '0' && ch <= '7';
      return ch == '0' || ch == '1';
    };
    size_t j = digits(i + 2, pred);
    if (j == i + 2) FailAt(src, static_cast<int>(start) + 1, "invalid number literal");
    for (size_t k = i + 2; k < j; ++k)
      if (src[k] != '_') clean += src[k];
    errno = 0;
    unsigned long long v = std::strtoull(clean.c_str(), nullptr, base);
    if (errno == ERANGE || v > static_cast<unsigned long long>(INT64_MAX))
      FailAt(src, static_cast<int>(start) + 1, "integer literal out of range (64-bit)");
    t->kind = Tok::kInt;
    t->ival = static_cast<int64_t>(v);
    i = j;
  } else {
    bool is_float = false;
    size_t j = digits(i, dec);
    if (j < n && src[j] == '.') {
      is_float = true;
      j = digits(j + 1, dec);
    }
    if (j < n && (src[j] == 'e' || src[j] == 'E')) {
      size_t k = j + 1;
      if (k < n && (src[k] == '+' || src[k] == '-')) ++k;
      if (k < n && dec(src[k])) {
        is_float = true;
        j = digits(k, dec);
      }
    }
    for (size_t k = i; k < j; ++k)
      if (src[k] != '_') clean += src[k];
    if (is_float) {
      t->kind = Tok::kFloat;
      t->fval = std::strtod(clean.c_str(), nullptr);
    } else {
      errno = 0;
      unsigned long long v = std::strtoull(clean.c_str(), nullptr, 10);
      if (errno == ERANGE || v > static_cast<unsigned long long>(INT64_MAX))
        FailAt(src, static_cast<int>(start) + 1, "integer literal out of range (64-bit)");
      t->kind = Tok::kInt;
      t->ival = static_cast<int64_t>(v);
    }
    i = j;
  }
  if (i < n && (IsNameStart(src[i]) || IsDigit(src[i]) || src[i] == '.'))
    FailAt(src, static_cast<int>(i) + 1, "invalid number literal");
  t->text = src.substr(start, i - start);
  return i;
}

// Lexes the string literal whose opening quote is src[i] into *t; returns the position after it.
size_t LexString(const std::string& src, size_t i, Token* t) {
  const size_t n = src.size();
  const char c = src[i];
  size_t j = i + 1;
  std::string value;
  bool closed = false;
  while (j < n) {
    char d = src[j];
    if (d == c) {
      closed = true;
      ++j;
      break;
    }
    if (d == '\\' && j + 1 < n) {
      char e = src[j + 1];
      switch (e) {
        case 'n':
          value += '\n';
          break;
        case 't':
          value += '\t';
          break;
        case '\\':
          value += '\\';
          break;
        case '\'':
          value += '\'';
          break;
        case '"':
          value += '"';
          break;
        default:
          value += '\\';
          value += e;
          break;
      }
      j += 2;
      continue;
    }
    value += d;
    ++j;
  }
  if (!closed) FailAt(src, t->column, "unterminated string literal");
  t->kind = Tok::kString;
  t->text = src.substr(i, j - i);
  t->sval = value;
  return j;
}

}  // namespace

[[noreturn]] void FailAt(const std::string& src, int column, const std::string& message) {
  throw Error("restriction '" + src + "': column " + std::to_string(column) + ": " + message);
}

std::vector<Token> Lex(const std::string& src) {
  std::vector<Token> tokens;
  size_t i = 0, n = src.size();
  while (true) {
    while (i < n && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r')) ++i;
    Token t;
    t.column = static_cast<int>(i) + 1;
    if (i >= n) {
      t.kind = Tok::kEnd;
      tokens.push_back(t);
      return tokens;
    }
    char c = src[i];
    if (IsNameStart(c)) {
      size_t j = i;
      while (j < n && (IsNameStart(src[j]) || IsDigit(src[j]))) ++j;
      t.kind = Tok::kName;
      t.text = src.substr(i, j - i);
      i = j;
    } else if (IsDigit(c) || (c == '.' && i + 1 < n && IsDigit(src[i + 1]))) {
      i = LexNumber(src, i, &t);
    } else if (c == '\'' || c == '"') {
      i = LexString(src, i, &t);
    } else if (c == '(') {
      t.kind = Tok::kLParen;
      t.text = "(";
      ++i;
    } else if (c == ')') {
      t.kind = Tok::kRParen;
      t.text = ")";
      ++i;
    } else if (c == ',') {
      t.kind = Tok::kComma;
      t.text = ",";
      ++i;
    } else {
      static const char* kOps[] = {"**", "//", "<=", ">=", "==", "!=", "<",
                                   ">",  "+",  "-",  "*",  "/",  "%"};
      bool found = false;
      for (const char* op : kOps) {
        size_t len = std::strlen(op);
        if (src.compare(i, len, op) == 0) {
          t.kind = Tok::kOp;
          t.text = op;
          i += len;
          found = true;
          break;
        }
      }
      if (!found) {
        FailAt(src, t.column, std::string("unexpected character '") + c + "'");
      }
    }
    tokens.push_back(std::move(t));
  }
}

}  // namespace glimpse::expression_internal
