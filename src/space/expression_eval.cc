// The evaluators of restriction expressions: the integer fast path and, when it hands over or
// does not apply, the general stack machine with Python's semantics.
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
#include <cmath>

#include "glimpse/error.h"
#include "space/expression_impl.h"

namespace glimpse {
namespace expression_internal {
namespace {

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

// Python's int floor division, for y != 0. INT64_MIN // -1 wraps like the other int operations.
inline int64_t IntFloorDiv(int64_t x, int64_t y) {
  if (y == -1) return WrapSub(0, x);
  int64_t q = x / y;
  if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
  return q;
}

// Python's int modulo (the sign of the divisor), for y != 0.
inline int64_t IntMod(int64_t x, int64_t y) {
  if (y == -1) return 0;
  int64_t r = x % y;
  if (r != 0 && ((r < 0) != (y < 0))) r += y;
  return r;
}

// x ** y for y >= 0, by squaring; wraps like the other int operations.
inline int64_t IntPow(int64_t x, int64_t y) {
  uint64_t result = 1, base = static_cast<uint64_t>(x), e = static_cast<uint64_t>(y);
  while (e) {
    if (e & 1) result *= base;
    base *= base;
    e >>= 1;
  }
  return static_cast<int64_t>(result);
}

inline int64_t IntAbs(int64_t x) { return x < 0 ? WrapSub(0, x) : x; }

// A comparison of two numbers of one type.
template <typename T>
inline bool CompareAs(uint8_t op, T x, T y) {
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
      case Op::kFloorDiv:
        if (y == 0) return false;
        *out = Scalar::Int(IntFloorDiv(x, y));
        return true;
      case Op::kMod:
        if (y == 0) return false;
        *out = Scalar::Int(IntMod(x, y));
        return true;
      case Op::kPow: {
        if (y >= 0) {
          *out = Scalar::Int(IntPow(x, y));
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
    *result = CompareAs<int64_t>(op, a.i, b.i);
  } else {
    *result = CompareAs<double>(op, a.AsDouble(), b.AsDouble());
  }
  return true;
}

enum class IntRun { kOk, kFail, kBail };

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
            a = IntFloorDiv(a, b);
            break;
          case Op::kMod:
            if (b == 0) return IntRun::kFail;
            a = IntMod(a, b);
            break;
          case Op::kPow:
            if (b < 0) return IntRun::kBail;  // a float result
            a = IntPow(a, b);
            break;
          default:
            return IntRun::kBail;
        }
        break;
      }
      case IOp::kCmp:
        st[sp - 1] = CompareAs<int64_t>(in.sub, st[sp - 1], b);
        break;
      case IOp::kCmpKeep: {
        bool r = CompareAs<int64_t>(in.sub, st[sp - 1], b);
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
          r = IntAbs(r);
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
        *out = Scalar::Int(IntAbs(args[0].i));
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
}  // namespace expression_internal

using expression_internal::Arith;
using expression_internal::Bool;
using expression_internal::CallFunction;
using expression_internal::Compare;
using expression_internal::Instr;
using expression_internal::IntRun;
using expression_internal::IsStr;
using expression_internal::kMaxStack;
using expression_internal::Op;
using expression_internal::RunIntPath;
using expression_internal::WrapAdd;
using expression_internal::WrapMul;
using expression_internal::WrapSub;

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
