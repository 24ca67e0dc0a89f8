// The compiler of the integer fast path (see expression_impl.h): rewrites a bound expression's
// general bytecode into the int64-only form, fusing each operand into the operation that
// consumes it, or gives up when the expression can produce a non-int.
#include "space/expression_impl.h"

namespace glimpse::expression_internal {

namespace {

bool IsBinary(Op op) {
  return op == Op::kAdd || op == Op::kSub || op == Op::kMul || op == Op::kFloorDiv ||
         op == Op::kMod || op == Op::kPow;
}

}  // namespace

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

}  // namespace glimpse::expression_internal
