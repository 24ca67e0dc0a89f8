// Internals of restriction expressions shared between their sources (see expression.cc for the
// map): the two bytecodes, the compiled program that holds them, and the tokens the parser reads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "glimpse/expression.h"

namespace glimpse {
namespace expression_internal {

// ---------------------------------------------------------------------------------------------
// The general bytecode: a stack machine over Scalars, with Python's semantics.

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

// The parser refuses expressions that would need a deeper evaluation stack, so that both
// evaluators can keep theirs in a fixed array.
constexpr int kMaxStack = 64;

// ---------------------------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------------------------
// A parsed expression.

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

// Parses program->text into its general code, constants and variables (expression_parser.cc).
// Throws Error naming the column and what was expected.
void ParseInto(Program* program);

// Builds Program::icode from the bound general code, or leaves it empty (expression_int_path.cc).
void CompileIntPath(Program* program);

// ---------------------------------------------------------------------------------------------
// Tokens (expression_lexer.cc).

enum class Tok { kEnd, kInt, kFloat, kString, kName, kOp, kLParen, kRParen, kComma };

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;  // the source text (for names, operators and messages)
  int64_t ival = 0;
  double fval = 0.0;
  std::string sval;  // string literal contents
  int column = 1;    // 1-based
};

// The tokens of `src`, ending with one of kind kEnd. Throws Error on a malformed literal or an
// unexpected character.
std::vector<Token> Lex(const std::string& src);

// Throws the Error for a syntax error at a 1-based column of `src`.
[[noreturn]] void FailAt(const std::string& src, int column, const std::string& message);

}  // namespace expression_internal

struct Expression::Impl : expression_internal::Program {};

}  // namespace glimpse
