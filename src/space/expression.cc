// Restriction expressions: a recursive-descent parser for the Python subset Kernel Tuner uses,
// compiled straight to a small stack bytecode.
//
// Evaluation failures. Python raises on a division or modulo by zero, on ordering a string
// against a number, on 0 ** -1 and on arithmetic mixing strings and numbers; a restriction that
// raises cannot admit a configuration. Evaluate() therefore aborts at the first failure and
// returns Scalar::Int(0) — falsy — for the whole expression, whatever operators surround the
// failing one (so `not (1 / 0)` is not satisfied either).
//
// Strings compare by interned id: == and != work between any two values (a string never equals a
// number). Where Python would work on the text — 'a' < 'b', 'a' + 'b', 'a' * 2, '%d' % x — glimpse
// reports a failure instead (restrictions compare categorical values for equality only), and
// every string is truthy (Python's '' is falsy). A negative base to a fractional power, complex
// in Python, is a failure too. tests/space/make_python_expressions.py checks the rest against
// CPython on 3000 random expressions.
//
// Ints are 64-bit and wrap on overflow where Python would grow them.
#include "glimpse/expression.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include "glimpse/error.h"

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
// Bytecode.

namespace {

enum class Op : uint8_t {
  kConst,  // push consts[arg]
  kLoad,   // push values[arg] (arg: variable index before Bind, slot after)
  kNeg,
  kPos,
  kNot,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kFloorDiv,
  kMod,
  kPow,
  kCmp,               // sub: CmpOp; pops r, l; pushes l op r
  kCmpKeep,           // sub: CmpOp; pops r, l; pushes r, then l op r (chained comparisons)
  kJumpChain,         // top false: drop the kept operand below it, keep false, jump to arg;
                      // otherwise pop the true result (the kept operand is the next left side)
  kJumpIfTrueOrPop,   // `or`
  kJumpIfFalseOrPop,  // `and`
  kCall,              // sub: Func; arg: argument count
};

enum CmpOp : uint8_t { kLt, kLe, kGt, kGe, kEq, kNe };
enum Func : uint8_t { kMin, kMax, kAbs, kIntFn, kFloatFn };

struct Instr {
  Op op;
  uint8_t sub = 0;
  int32_t arg = 0;
};

constexpr int kMaxStack = 64;
constexpr int kMaxNesting = 100;

inline Scalar Bool(bool b) { return Scalar::Int(b ? 1 : 0); }
inline bool IsStr(const Scalar& s) { return s.kind == Scalar::Kind::kString; }

// Python's float floor division / modulo (Objects/floatobject.c: float_divmod).
inline void FloatDivmod(double vx, double wx, double* floordiv, double* modulo) {
  double mod = std::fmod(vx, wx);
  double div = (vx - mod) / wx;
  if (mod != 0.0) {
    if ((wx < 0) != (mod < 0)) {
      mod += wx;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, wx);
  }
  double fdiv;
  if (div != 0.0) {
    fdiv = std::floor(div);
    if (div - fdiv > 0.5) fdiv += 1.0;
  } else {
    fdiv = std::copysign(0.0, vx / wx);
  }
  *floordiv = fdiv;
  *modulo = mod;
}

inline int64_t WrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t WrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
inline int64_t WrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

// Binary arithmetic. Returns false on an evaluation failure.
inline bool Arith(Op op, const Scalar& a, const Scalar& b, Scalar* out) {
  if (IsStr(a) || IsStr(b)) return false;
  if (a.kind == Scalar::Kind::kInt && b.kind == Scalar::Kind::kInt) {
    int64_t x = a.i, y = b.i;
    switch (op) {
      case Op::kAdd:
        *out = Scalar::Int(WrapAdd(x, y));
        return true;
      case Op::kSub:
        *out = Scalar::Int(WrapSub(x, y));
        return true;
      case Op::kMul:
        *out = Scalar::Int(WrapMul(x, y));
        return true;
      case Op::kDiv:
        if (y == 0) return false;
        *out = Scalar::Float(static_cast<double>(x) / static_cast<double>(y));
        return true;
      case Op::kFloorDiv: {
        if (y == 0) return false;
        if (y == -1) {
          *out = Scalar::Int(WrapSub(0, x));
          return true;
        }
        int64_t q = x / y;
        if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
        *out = Scalar::Int(q);
        return true;
      }
      case Op::kMod: {
        if (y == 0) return false;
        if (y == -1) {
          *out = Scalar::Int(0);
          return true;
        }
        int64_t r = x % y;
        if (r != 0 && ((r < 0) != (y < 0))) r += y;
        *out = Scalar::Int(r);
        return true;
      }
      case Op::kPow: {
        if (y >= 0) {
          uint64_t result = 1, base = static_cast<uint64_t>(x);
          uint64_t e = static_cast<uint64_t>(y);
          while (e) {
            if (e & 1) result *= base;
            base *= base;
            e >>= 1;
          }
          *out = Scalar::Int(static_cast<int64_t>(result));
          return true;
        }
        if (x == 0) return false;  // ZeroDivisionError
        *out = Scalar::Float(std::pow(static_cast<double>(x), static_cast<double>(y)));
        return true;
      }
      default:
        return false;
    }
  }
  double x = a.AsDouble(), y = b.AsDouble();
  switch (op) {
    case Op::kAdd:
      *out = Scalar::Float(x + y);
      return true;
    case Op::kSub:
      *out = Scalar::Float(x - y);
      return true;
    case Op::kMul:
      *out = Scalar::Float(x * y);
      return true;
    case Op::kDiv:
      if (y == 0.0) return false;
      *out = Scalar::Float(x / y);
      return true;
    case Op::kFloorDiv:
    case Op::kMod: {
      if (y == 0.0) return false;
      double fd, md;
      FloatDivmod(x, y, &fd, &md);
      *out = Scalar::Float(op == Op::kMod ? md : fd);
      return true;
    }
    case Op::kPow: {
      if (x == 0.0 && y < 0.0) return false;                                // ZeroDivisionError
      if (x < 0.0 && std::floor(y) != y && std::isfinite(y)) return false;  // complex result
      double r = std::pow(x, y);
      if (std::isinf(r) && std::isfinite(x) && std::isfinite(y)) return false;  // OverflowError
      *out = Scalar::Float(r);
      return true;
    }
    default:
      return false;
  }
}

// Comparison. Returns false on an evaluation failure.
inline bool Compare(uint8_t op, const Scalar& a, const Scalar& b, bool* result) {
  if (IsStr(a) || IsStr(b)) {
    bool same = IsStr(a) && IsStr(b) && a.i == b.i;
    if (op == kEq) {
      *result = same;
      return true;
    }
    if (op == kNe) {
      *result = !same;
      return true;
    }
    return false;
  }
  if (a.kind == Scalar::Kind::kInt && b.kind == Scalar::Kind::kInt) {
    int64_t x = a.i, y = b.i;
    switch (op) {
      case kLt:
        *result = x < y;
        break;
      case kLe:
        *result = x <= y;
        break;
      case kGt:
        *result = x > y;
        break;
      case kGe:
        *result = x >= y;
        break;
      case kEq:
        *result = x == y;
        break;
      default:
        *result = x != y;
        break;
    }
    return true;
  }
  double x = a.AsDouble(), y = b.AsDouble();
  switch (op) {
    case kLt:
      *result = x < y;
      break;
    case kLe:
      *result = x <= y;
      break;
    case kGt:
      *result = x > y;
      break;
    case kGe:
      *result = x >= y;
      break;
    case kEq:
      *result = x == y;
      break;
    default:
      *result = x != y;
      break;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Lexer.

enum class Tok { kEnd, kInt, kFloat, kString, kName, kOp, kLParen, kRParen, kComma };

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;  // the source text (for names, operators and messages)
  int64_t ival = 0;
  double fval = 0.0;
  std::string sval;  // string literal contents
  int column = 1;    // 1-based
};

// The integer fast path. Most restrictions only ever see ints (block sizes, tile factors), so a
// bound expression without true division, float or string literals is also compiled to an
// int64-only form: no kind checks, 8-byte stack entries, and an operand fused into the binary
// operation or comparison that consumes it (`a * 4` is two instructions, not three). It runs
// first; when it meets a value that is not an int, or an int operation whose Python result is not
// an int (a negative power), it hands over to the general evaluator, which starts again.
enum class IOp : uint8_t {
  kSlot,  // push values[arg].i
  kImm,   // push imm
  kNeg,
  kNot,
  kBin,  // sub: Op; operand by mode
  kCmp,  // sub: CmpOp; operand by mode
  kCmpKeep,
  kJumpChain,
  kJumpIfTrueOrPop,
  kJumpIfFalseOrPop,
  kCall,  // sub: Func (min, max, abs); arg: argument count
};
enum IMode : uint8_t { kModeStack, kModeSlot, kModeImm };

struct IInstr {
  IOp op;
  uint8_t sub = 0;
  uint8_t mode = kModeStack;
  int32_t arg = 0;
  int64_t imm = 0;
};

enum class IntRun { kOk, kFail, kBail };

struct Program {
  std::string text;
  std::vector<std::string> variables;
  std::vector<Instr> code;
  std::vector<Scalar> consts;
  std::vector<int32_t> load_var;  // per kLoad instruction position: its variable index
  bool bound = false;
  int max_stack = 0;
  std::vector<IInstr> icode;  // the integer fast path; empty when not applicable
};

bool IsBinary(Op op) {
  return op == Op::kAdd || op == Op::kSub || op == Op::kMul || op == Op::kFloorDiv ||
         op == Op::kMod || op == Op::kPow;
}

// Builds Program::icode from the bound general code, or leaves it empty.
void CompileIntPath(Program* p) {
  p->icode.clear();
  const std::vector<Instr>& code = p->code;
  const size_t n = code.size();
  std::vector<bool> target(n + 1, false);
  for (const Instr& in : code) {
    switch (in.op) {
      case Op::kConst:
        if (p->consts[static_cast<size_t>(in.arg)].kind != Scalar::Kind::kInt) return;
        break;
      case Op::kDiv:
        return;
      case Op::kCall:
        if (in.sub == kFloatFn) return;
        break;
      case Op::kJumpChain:
      case Op::kJumpIfTrueOrPop:
      case Op::kJumpIfFalseOrPop:
        target[static_cast<size_t>(in.arg)] = true;
        break;
      default:
        break;
    }
  }
  std::vector<IInstr> out;
  std::vector<int32_t> new_pos(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    const Instr& in = code[i];
    new_pos[i] = static_cast<int32_t>(out.size());
    const bool operand = in.op == Op::kLoad || in.op == Op::kConst;
    if (operand && i + 1 < n && !target[i + 1]) {
      const Instr& next = code[i + 1];
      IOp fused;
      bool fuse = true;
      if (IsBinary(next.op))
        fused = IOp::kBin;
      else if (next.op == Op::kCmp)
        fused = IOp::kCmp;
      else if (next.op == Op::kCmpKeep)
        fused = IOp::kCmpKeep;
      else
        fuse = false;
      if (fuse) {
        IInstr f{fused, next.op == Op::kCmp || next.op == Op::kCmpKeep
                            ? next.sub
                            : static_cast<uint8_t>(next.op)};
        if (in.op == Op::kLoad) {
          f.mode = kModeSlot;
          f.arg = in.arg;
        } else {
          f.mode = kModeImm;
          f.imm = p->consts[static_cast<size_t>(in.arg)].i;
        }
        out.push_back(f);
        new_pos[i + 1] = new_pos[i];
        ++i;
        continue;
      }
    }
    switch (in.op) {
      case Op::kConst: {
        IInstr x{IOp::kImm};
        x.imm = p->consts[static_cast<size_t>(in.arg)].i;
        out.push_back(x);
        break;
      }
      case Op::kLoad: {
        IInstr x{IOp::kSlot};
        x.arg = in.arg;
        out.push_back(x);
        break;
      }
      case Op::kNeg:
        out.push_back(IInstr{IOp::kNeg});
        break;
      case Op::kPos:
        break;  // no-op on ints
      case Op::kNot:
        out.push_back(IInstr{IOp::kNot});
        break;
      case Op::kCmp:
        out.push_back(IInstr{IOp::kCmp, in.sub});
        break;
      case Op::kCmpKeep:
        out.push_back(IInstr{IOp::kCmpKeep, in.sub});
        break;
      case Op::kJumpChain:
        out.push_back(IInstr{IOp::kJumpChain, 0, 0, in.arg});
        break;
      case Op::kJumpIfTrueOrPop:
        out.push_back(IInstr{IOp::kJumpIfTrueOrPop, 0, 0, in.arg});
        break;
      case Op::kJumpIfFalseOrPop:
        out.push_back(IInstr{IOp::kJumpIfFalseOrPop, 0, 0, in.arg});
        break;
      case Op::kCall:
        if (in.sub == kIntFn) break;  // int(x) of an int is x
        out.push_back(IInstr{IOp::kCall, in.sub, 0, in.arg});
        break;
      default:
        if (IsBinary(in.op)) {
          out.push_back(IInstr{IOp::kBin, static_cast<uint8_t>(in.op)});
          break;
        }
        return;
    }
  }
  new_pos[n] = static_cast<int32_t>(out.size());
  for (IInstr& x : out) {
    if (x.op == IOp::kJumpChain || x.op == IOp::kJumpIfTrueOrPop ||
        x.op == IOp::kJumpIfFalseOrPop) {
      x.arg = new_pos[static_cast<size_t>(x.arg)];
    }
  }
  p->icode = std::move(out);
}

inline bool IntCompare(uint8_t op, int64_t x, int64_t y) {
  switch (op) {
    case kLt:
      return x < y;
    case kLe:
      return x <= y;
    case kGt:
      return x > y;
    case kGe:
      return x >= y;
    case kEq:
      return x == y;
    default:
      return x != y;
  }
}

IntRun RunIntPath(const Program& p, const Scalar* values, int64_t* result) {
  int64_t st[kMaxStack];
  int sp = 0;
  const IInstr* code = p.icode.data();
  const int n = static_cast<int>(p.icode.size());
  for (int pc = 0; pc < n; ++pc) {
    const IInstr& in = code[pc];
    int64_t b = 0;
    if (in.op == IOp::kBin || in.op == IOp::kCmp || in.op == IOp::kCmpKeep) {
      if (in.mode == kModeSlot) {
        const Scalar& v = values[in.arg];
        if (v.kind != Scalar::Kind::kInt) return IntRun::kBail;
        b = v.i;
      } else if (in.mode == kModeImm) {
        b = in.imm;
      } else {
        b = st[--sp];
      }
    }
    switch (in.op) {
      case IOp::kSlot: {
        const Scalar& v = values[in.arg];
        if (v.kind != Scalar::Kind::kInt) return IntRun::kBail;
        st[sp++] = v.i;
        break;
      }
      case IOp::kImm:
        st[sp++] = in.imm;
        break;
      case IOp::kNeg:
        st[sp - 1] = WrapSub(0, st[sp - 1]);
        break;
      case IOp::kNot:
        st[sp - 1] = st[sp - 1] == 0;
        break;
      case IOp::kBin: {
        int64_t& a = st[sp - 1];
        switch (static_cast<Op>(in.sub)) {
          case Op::kAdd:
            a = WrapAdd(a, b);
            break;
          case Op::kSub:
            a = WrapSub(a, b);
            break;
          case Op::kMul:
            a = WrapMul(a, b);
            break;
          case Op::kFloorDiv:
            if (b == 0) return IntRun::kFail;
            if (b == -1) {
              a = WrapSub(0, a);
            } else {
              int64_t q = a / b;
              if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
              a = q;
            }
            break;
          case Op::kMod:
            if (b == 0) return IntRun::kFail;
            if (b == -1) {
              a = 0;
            } else {
              int64_t r = a % b;
              if (r != 0 && ((r < 0) != (b < 0))) r += b;
              a = r;
            }
            break;
          case Op::kPow: {
            if (b < 0) return IntRun::kBail;  // a float result
            uint64_t r = 1, base = static_cast<uint64_t>(a), e = static_cast<uint64_t>(b);
            while (e) {
              if (e & 1) r *= base;
              base *= base;
              e >>= 1;
            }
            a = static_cast<int64_t>(r);
            break;
          }
          default:
            return IntRun::kBail;
        }
        break;
      }
      case IOp::kCmp:
        st[sp - 1] = IntCompare(in.sub, st[sp - 1], b);
        break;
      case IOp::kCmpKeep: {
        bool r = IntCompare(in.sub, st[sp - 1], b);
        st[sp - 1] = b;
        st[sp++] = r;
        break;
      }
      case IOp::kJumpChain:
        if (st[sp - 1] == 0) {
          st[sp - 2] = 0;
          --sp;
          pc = in.arg - 1;
        } else {
          --sp;
        }
        break;
      case IOp::kJumpIfTrueOrPop:
        if (st[sp - 1] != 0)
          pc = in.arg - 1;
        else
          --sp;
        break;
      case IOp::kJumpIfFalseOrPop:
        if (st[sp - 1] == 0)
          pc = in.arg - 1;
        else
          --sp;
        break;
      case IOp::kCall: {
        const int argc = in.arg;
        int64_t* args = &st[sp - argc];
        int64_t r = args[0];
        if (in.sub == kAbs) {
          r = r < 0 ? WrapSub(0, r) : r;
        } else {
          for (int k = 1; k < argc; ++k) {
            if (in.sub == kMin ? args[k] < r : r < args[k]) r = args[k];
          }
        }
        sp -= argc;
        st[sp++] = r;
        break;
      }
    }
  }
  *result = st[0];
  return IntRun::kOk;
}

class Parser {
 public:
  Parser(const std::string& text, Program* impl) : src_(text), impl_(impl) {}

  void Run() {
    Lex();
    pos_ = 0;
    ParseOr();
    if (Peek().kind != Tok::kEnd) Fail(Peek(), "an operator or the end of the expression");
  }

 private:
  [[noreturn]] void FailAt(int column, const std::string& message) {
    throw Error("restriction '" + src_ + "': column " + std::to_string(column) + ": " + message);
  }
  [[noreturn]] void Fail(const Token& found, const std::string& expected) {
    std::string what = found.kind == Tok::kEnd ? "end of expression" : "'" + found.text + "'";
    FailAt(found.column, "expected " + expected + ", found " + what);
  }

  static bool IsNameStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  }
  static bool IsDigit(char c) { return c >= '0' && c <= '9'; }

  void Lex() {
    size_t i = 0, n = src_.size();
    while (true) {
      while (i < n && (src_[i] == ' ' || src_[i] == '\t' || src_[i] == '\n' || src_[i] == '\r'))
        ++i;
      Token t;
      t.column = static_cast<int>(i) + 1;
      if (i >= n) {
        t.kind = Tok::kEnd;
        tokens_.push_back(t);
        return;
      }
      char c = src_[i];
      if (IsNameStart(c)) {
        size_t j = i;
        while (j < n && (IsNameStart(src_[j]) || IsDigit(src_[j]))) ++j;
        t.kind = Tok::kName;
        t.text = src_.substr(i, j - i);
        i = j;
      } else if (IsDigit(c) || (c == '.' && i + 1 < n && IsDigit(src_[i + 1]))) {
        i = LexNumber(i, &t);
      } else if (c == '\'' || c == '"') {
        size_t j = i + 1;
        std::string value;
        bool closed = false;
        while (j < n) {
          char d = src_[j];
          if (d == c) {
            closed = true;
            ++j;
            break;
          }
          if (d == '\\' && j + 1 < n) {
            char e = src_[j + 1];
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
        if (!closed) FailAt(t.column, "unterminated string literal");
        t.kind = Tok::kString;
        t.text = src_.substr(i, j - i);
        t.sval = value;
        i = j;
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
          if (src_.compare(i, len, op) == 0) {
            t.kind = Tok::kOp;
            t.text = op;
            i += len;
            found = true;
            break;
          }
        }
        if (!found) {
          FailAt(t.column, std::string("unexpected character '") + c + "'");
        }
      }
      tokens_.push_back(std::move(t));
    }
  }

  size_t LexNumber(size_t i, Token* t) {
    size_t n = src_.size(), start = i;
    auto digits = [&](size_t j, auto pred) {
      while (j < n && (pred(src_[j]) || (src_[j] == '_' && j + 1 < n && pred(src_[j + 1])))) ++j;
      return j;
    };
    auto dec = [](char ch) { return ch >= '0' && ch <= '9'; };
    std::string clean;
    if (src_[i] == '0' && i + 1 < n &&
        (src_[i + 1] == 'x' || src_[i + 1] == 'X' || src_[i + 1] == 'o' || src_[i + 1] == 'O' ||
         src_[i + 1] == 'b' || src_[i + 1] == 'B')) {
      char p = static_cast<char>(src_[i + 1] | 0x20);
      int base = p == 'x' ? 16 : p == 'o' ? 8 : 2;
      auto pred = [base](char ch) {
        if (base == 16) return std::isxdigit(static_cast<unsigned char>(ch)) != 0;
        if (base == 8) return ch >= '0' && ch <= '7';
        return ch == '0' || ch == '1';
      };
      size_t j = digits(i + 2, pred);
      if (j == i + 2) FailAt(static_cast<int>(start) + 1, "invalid number literal");
      for (size_t k = i + 2; k < j; ++k)
        if (src_[k] != '_') clean += src_[k];
      errno = 0;
      unsigned long long v = std::strtoull(clean.c_str(), nullptr, base);
      if (errno == ERANGE || v > static_cast<unsigned long long>(INT64_MAX))
        FailAt(static_cast<int>(start) + 1, "integer literal out of range (64-bit)");
      t->kind = Tok::kInt;
      t->ival = static_cast<int64_t>(v);
      i = j;
    } else {
      bool is_float = false;
      size_t j = digits(i, dec);
      if (j < n && src_[j] == '.') {
        is_float = true;
        j = digits(j + 1, dec);
      }
      if (j < n && (src_[j] == 'e' || src_[j] == 'E')) {
        size_t k = j + 1;
        if (k < n && (src_[k] == '+' || src_[k] == '-')) ++k;
        if (k < n && dec(src_[k])) {
          is_float = true;
          j = digits(k, dec);
        }
      }
      for (size_t k = i; k < j; ++k)
        if (src_[k] != '_') clean += src_[k];
      if (is_float) {
        t->kind = Tok::kFloat;
        t->fval = std::strtod(clean.c_str(), nullptr);
      } else {
        errno = 0;
        unsigned long long v = std::strtoull(clean.c_str(), nullptr, 10);
        if (errno == ERANGE || v > static_cast<unsigned long long>(INT64_MAX))
          FailAt(static_cast<int>(start) + 1, "integer literal out of range (64-bit)");
        t->kind = Tok::kInt;
        t->ival = static_cast<int64_t>(v);
      }
      i = j;
    }
    if (i < n && (IsNameStart(src_[i]) || IsDigit(src_[i]) || src_[i] == '.'))
      FailAt(static_cast<int>(i) + 1, "invalid number literal");
    t->text = src_.substr(start, i - start);
    return i;
  }

  const Token& Peek() const { return tokens_[pos_]; }
  const Token& Next() { return tokens_[pos_++]; }
  bool PeekOp(const char* op) const { return Peek().kind == Tok::kOp && Peek().text == op; }
  bool PeekKeyword(const char* kw) const { return Peek().kind == Tok::kName && Peek().text == kw; }

  // Emission with static stack-depth tracking.
  int Emit(Op op, int32_t arg = 0, uint8_t sub = 0) {
    impl_->code.push_back(Instr{op, sub, arg});
    return static_cast<int>(impl_->code.size()) - 1;
  }
  void Push(int n = 1) {
    depth_ += n;
    if (depth_ > impl_->max_stack) impl_->max_stack = depth_;
    if (depth_ > kMaxStack)
      FailAt(Peek().column,
             "expression too complex (evaluation stack over " + std::to_string(kMaxStack) + ")");
  }
  void Pop(int n = 1) { depth_ -= n; }
  void Patch(int at) { impl_->code[at].arg = static_cast<int32_t>(impl_->code.size()); }

  struct NestGuard {
    Parser* p;
    explicit NestGuard(Parser* parser) : p(parser) {
      if (++p->nesting_ > kMaxNesting) p->FailAt(p->Peek().column, "expression nested too deeply");
    }
    ~NestGuard() { --p->nesting_; }
  };

  void ParseOr() {
    NestGuard guard(this);
    ParseAnd();
    std::vector<int> jumps;
    while (PeekKeyword("or")) {
      Next();
      jumps.push_back(Emit(Op::kJumpIfTrueOrPop));
      Pop();
      ParseAnd();
    }
    for (int j : jumps) Patch(j);
  }

  void ParseAnd() {
    ParseNot();
    std::vector<int> jumps;
    while (PeekKeyword("and")) {
      Next();
      jumps.push_back(Emit(Op::kJumpIfFalseOrPop));
      Pop();
      ParseNot();
    }
    for (int j : jumps) Patch(j);
  }

  void ParseNot() {
    if (PeekKeyword("not")) {
      Next();
      NestGuard guard(this);
      ParseNot();
      Emit(Op::kNot);
      return;
    }
    ParseComparison();
  }

  bool PeekCmp(uint8_t* op) const {
    if (Peek().kind != Tok::kOp) return false;
    const std::string& s = Peek().text;
    if (s == "<")
      *op = kLt;
    else if (s == "<=")
      *op = kLe;
    else if (s == ">")
      *op = kGt;
    else if (s == ">=")
      *op = kGe;
    else if (s == "==")
      *op = kEq;
    else if (s == "!=")
      *op = kNe;
    else
      return false;
    return true;
  }

  void ParseComparison() {
    ParseArith();
    uint8_t op;
    std::vector<int> jumps;
    while (PeekCmp(&op)) {
      Next();
      ParseArith();
      uint8_t next_op;
      if (PeekCmp(&next_op)) {
        Emit(Op::kCmpKeep, 0, op);  // [l, r] -> [r, l op r]
        jumps.push_back(Emit(Op::kJumpChain));
        Pop();  // fall through: [r]
      } else {
        Emit(Op::kCmp, 0, op);  // [l, r] -> [l op r]
        Pop();
      }
    }
    for (int j : jumps) Patch(j);
  }

  void ParseArith() {
    ParseTerm();
    while (PeekOp("+") || PeekOp("-")) {
      Op op = Next().text == "+" ? Op::kAdd : Op::kSub;
      ParseTerm();
      Emit(op);
      Pop();
    }
  }

  void ParseTerm() {
    ParseUnary();
    while (PeekOp("*") || PeekOp("/") || PeekOp("//") || PeekOp("%")) {
      const std::string& s = Next().text;
      Op op = s == "*" ? Op::kMul : s == "/" ? Op::kDiv : s == "//" ? Op::kFloorDiv : Op::kMod;
      ParseUnary();
      Emit(op);
      Pop();
    }
  }

  void ParseUnary() {
    if (PeekOp("-") || PeekOp("+")) {
      bool neg = Next().text == "-";
      NestGuard guard(this);
      ParseUnary();
      Emit(neg ? Op::kNeg : Op::kPos);
      return;
    }
    ParsePower();
  }

  void ParsePower() {
    ParseAtom();
    if (PeekOp("**")) {
      Next();
      NestGuard guard(this);
      ParseUnary();  // right-associative; the exponent may carry a sign: 2 ** -1
      Emit(Op::kPow);
      Pop();
    }
  }

  void EmitConst(Scalar value) {
    impl_->consts.push_back(value);
    Emit(Op::kConst, static_cast<int32_t>(impl_->consts.size()) - 1);
    Push();
  }

  void ParseAtom() {
    const Token& t = Peek();
    switch (t.kind) {
      case Tok::kInt:
        Next();
        EmitConst(Scalar::Int(t.ival));
        return;
      case Tok::kFloat:
        Next();
        EmitConst(Scalar::Float(t.fval));
        return;
      case Tok::kString: {
        Next();
        Scalar s;
        s.kind = Scalar::Kind::kString;
        s.i = InternString(t.sval);
        EmitConst(s);
        return;
      }
      case Tok::kLParen: {
        Next();
        ParseOr();
        if (Peek().kind != Tok::kRParen) Fail(Peek(), "')'");
        Next();
        return;
      }
      case Tok::kName: {
        const std::string& name = t.text;
        if (name == "True" || name == "False") {
          Next();
          EmitConst(Scalar::Int(name == "True" ? 1 : 0));
          return;
        }
        if (name == "and" || name == "or" || name == "not" || name == "in" || name == "is" ||
            name == "if" || name == "else" || name == "lambda" || name == "None") {
          Fail(t, "a value");
        }
        if (tokens_[pos_ + 1].kind == Tok::kLParen) {
          ParseCall();
          return;
        }
        Next();
        int index = -1;
        for (size_t v = 0; v < impl_->variables.size(); ++v) {
          if (impl_->variables[v] == name) index = static_cast<int>(v);
        }
        if (index < 0) {
          impl_->variables.push_back(name);
          index = static_cast<int>(impl_->variables.size()) - 1;
        }
        Emit(Op::kLoad, index);
        impl_->load_var.push_back(index);
        Push();
        return;
      }
      default:
        Fail(t, "a value");
    }
  }

  void ParseCall() {
    const Token& name_tok = Next();
    std::string name = name_tok.text;
    Func fn;
    int min_args, max_args;
    if (name == "min") {
      fn = kMin;
      min_args = 2;
      max_args = 32;
    } else if (name == "max") {
      fn = kMax;
      min_args = 2;
      max_args = 32;
    } else if (name == "abs") {
      fn = kAbs;
      min_args = 1;
      max_args = 1;
    } else if (name == "int") {
      fn = kIntFn;
      min_args = 1;
      max_args = 1;
    } else if (name == "float") {
      fn = kFloatFn;
      min_args = 1;
      max_args = 1;
    } else
      FailAt(name_tok.column, "unknown function '" + name + "'; known: min, max, abs, int, float");
    Next();  // '('
    int argc = 0;
    if (Peek().kind != Tok::kRParen) {
      while (true) {
        ParseOr();
        ++argc;
        if (Peek().kind == Tok::kComma) {
          Next();
          continue;
        }
        break;
      }
    }
    if (Peek().kind != Tok::kRParen) Fail(Peek(), "',' or ')'");
    Next();
    if (argc < min_args || argc > max_args) {
      FailAt(name_tok.column, name + "() takes " +
                                  (min_args == max_args ? std::to_string(min_args)
                                                        : "at least " + std::to_string(min_args)) +
                                  " argument(s), given " + std::to_string(argc));
    }
    Emit(Op::kCall, argc, fn);
    Pop(argc);
    Push();
  }

  const std::string& src_;
  Program* impl_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
  int nesting_ = 0;
};

bool CallFunction(uint8_t fn, const Scalar* args, int argc, Scalar* out) {
  switch (fn) {
    case kMin:
    case kMax: {
      Scalar best = args[0];
      for (int k = 1; k < argc; ++k) {
        bool less;
        // min keeps the first minimal argument: replace when args[k] < best (max: best < args[k]).
        if (fn == kMin) {
          if (!Compare(kLt, args[k], best, &less)) return false;
        } else {
          if (!Compare(kLt, best, args[k], &less)) return false;
        }
        if (less) best = args[k];
      }
      *out = best;
      return true;
    }
    case kAbs:
      if (IsStr(args[0])) return false;
      if (args[0].kind == Scalar::Kind::kInt)
        *out = Scalar::Int(args[0].i < 0 ? WrapSub(0, args[0].i) : args[0].i);
      else
        *out = Scalar::Float(std::fabs(args[0].f));
      return true;
    case kIntFn:
      if (IsStr(args[0])) return false;
      if (args[0].kind == Scalar::Kind::kInt) {
        *out = args[0];
      } else {
        double v = std::trunc(args[0].f);
        if (!std::isfinite(v) || v >= 9.2233720368547758e18 || v < -9.2233720368547758e18)
          return false;
        *out = Scalar::Int(static_cast<int64_t>(v));
      }
      return true;
    case kFloatFn:
      if (IsStr(args[0])) return false;
      *out = Scalar::Float(args[0].AsDouble());
      return true;
    default:
      return false;
  }
}

}  // namespace

struct Expression::Impl : Program {};

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
  Parser parser(e.impl_->text, e.impl_.get());
  parser.Run();
  e.impl_->bound = e.impl_->variables.empty();
  if (e.impl_->bound) CompileIntPath(e.impl_.get());
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
  for (Instr& instr : impl_->code) {
    if (instr.op == Op::kLoad) instr.arg = slot_of[impl_->load_var[load++]];
  }
  impl_->bound = true;
  CompileIntPath(impl_.get());
}

Scalar Expression::Evaluate(const Scalar* values) const {
  const Impl& impl = *impl_;
  if (!impl.bound) {
    throw Error("restriction '" + impl.text + "' evaluated before its names were bound");
  }
  if (!impl.icode.empty()) {
    int64_t result;
    switch (RunIntPath(impl, values, &result)) {
      case IntRun::kOk:
        return Scalar::Int(result);
      case IntRun::kFail:
        return Scalar::Int(0);
      case IntRun::kBail:
        break;  // start again in general
    }
  }
  // Raw storage: a Scalar array would zero-initialise all kMaxStack entries on every call.
  alignas(Scalar) unsigned char storage[sizeof(Scalar) * kMaxStack];
  Scalar* stack = reinterpret_cast<Scalar*>(storage);
  int sp = 0;  // number of values on the stack
  const Instr* code = impl.code.data();
  const int n = static_cast<int>(impl.code.size());
  const Scalar* consts = impl.consts.data();
  for (int pc = 0; pc < n; ++pc) {
    const Instr& in = code[pc];
    switch (in.op) {
      case Op::kConst:
        stack[sp++] = consts[in.arg];
        break;
      case Op::kLoad:
        stack[sp++] = values[in.arg];
        break;
      case Op::kNeg: {
        Scalar& a = stack[sp - 1];
        if (a.kind == Scalar::Kind::kInt)
          a.i = WrapSub(0, a.i);
        else if (a.kind == Scalar::Kind::kFloat)
          a.f = -a.f;
        else
          return Scalar::Int(0);
        break;
      }
      case Op::kPos:
        if (IsStr(stack[sp - 1])) return Scalar::Int(0);
        break;
      case Op::kNot:
        stack[sp - 1] = Bool(!stack[sp - 1].Truthy());
        break;
      case Op::kAdd:
      case Op::kSub:
      case Op::kMul:
      case Op::kDiv:
      case Op::kFloorDiv:
      case Op::kMod:
      case Op::kPow: {
        Scalar& a = stack[sp - 2];
        const Scalar& b = stack[sp - 1];
        if (a.kind == Scalar::Kind::kInt && b.kind == Scalar::Kind::kInt) {
          // The common cases inline.
          if (in.op == Op::kMul) {
            a.i = WrapMul(a.i, b.i);
            --sp;
            break;
          }
          if (in.op == Op::kAdd) {
            a.i = WrapAdd(a.i, b.i);
            --sp;
            break;
          }
          if (in.op == Op::kSub) {
            a.i = WrapSub(a.i, b.i);
            --sp;
            break;
          }
        }
        Scalar r;
        if (!Arith(in.op, a, b, &r)) return Scalar::Int(0);
        a = r;
        --sp;
        break;
      }
      case Op::kCmp: {
        bool r;
        if (!Compare(in.sub, stack[sp - 2], stack[sp - 1], &r)) return Scalar::Int(0);
        stack[sp - 2] = Bool(r);
        --sp;
        break;
      }
      case Op::kCmpKeep: {
        bool r;
        if (!Compare(in.sub, stack[sp - 2], stack[sp - 1], &r)) return Scalar::Int(0);
        stack[sp - 2] = stack[sp - 1];
        stack[sp - 1] = Bool(r);
        break;
      }
      case Op::kJumpChain:
        if (!stack[sp - 1].Truthy()) {
          stack[sp - 2] = stack[sp - 1];
          --sp;
          pc = in.arg - 1;
        } else {
          --sp;
        }
        break;
      case Op::kJumpIfTrueOrPop:
        if (stack[sp - 1].Truthy())
          pc = in.arg - 1;
        else
          --sp;
        break;
      case Op::kJumpIfFalseOrPop:
        if (!stack[sp - 1].Truthy())
          pc = in.arg - 1;
        else
          --sp;
        break;
      case Op::kCall: {
        Scalar r;
        if (!CallFunction(in.sub, &stack[sp - in.arg], in.arg, &r)) return Scalar::Int(0);
        sp -= in.arg;
        stack[sp++] = r;
        break;
      }
    }
  }
  return stack[0];
}

}  // namespace glimpse
