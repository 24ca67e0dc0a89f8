// The parser of restriction expressions: recursive descent over the lexer's tokens, in Python's
// precedence (see glimpse/expression.h), emitting the general stack bytecode as it goes and
// tracking the stack depth that bytecode will need.
#include "space/expression_impl.h"

namespace glimpse::expression_internal {

namespace {

constexpr int kMaxNesting = 100;

class Parser {
 public:
  Parser(const std::string& text, Program* impl) : src_(text), impl_(impl) {}

  void Run() {
    tokens_ = Lex(src_);
    pos_ = 0;
    ParseOr();
    if (Peek().kind != Tok::kEnd) Fail(Peek(), "an operator or the end of the expression");
  }

 private:
  [[noreturn]] void FailAt(int column, const std::string& message) {
    expression_internal::FailAt(src_, column, message);
  }
  [[noreturn]] void Fail(const Token& found, const std::string& expected) {
    std::string what = found.kind == Tok::kEnd ? "end of expression" : "'" + found.text + "'";
    FailAt(found.column, "expected " + expected + ", found " + what);
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
    ParseShortCircuit("or", Op::kJumpIfTrueOrPop, &Parser::ParseAnd);
  }

  void ParseAnd() { ParseShortCircuit("and", Op::kJumpIfFalseOrPop, &Parser::ParseNot); }

  // Operands joined by `keyword`: each but the last is followed by `jump`, which skips the rest
  // once the result is decided and otherwise drops the operand.
  void ParseShortCircuit(const char* keyword, Op jump, void (Parser::*operand)()) {
    (this->*operand)();
    std::vector<int> jumps;
    while (PeekKeyword(keyword)) {
      Next();
      jumps.push_back(Emit(jump));
      Pop();
      (this->*operand)();
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
    // The functions an expression may call, with the numbers of arguments each takes.
    struct Known {
      const char* name;
      Func fn;
      int min_args, max_args;
    };
    static constexpr Known kKnown[] = {{"min", kMin, 2, 32},
                                       {"max", kMax, 2, 32},
                                       {"abs", kAbs, 1, 1},
                                       {"int", kIntFn, 1, 1},
                                       {"float", kFloatFn, 1, 1}};
    const Known* known = nullptr;
    for (const Known& k : kKnown) {
      if (name == k.name) known = &k;
    }
    if (known == nullptr) {
      FailAt(name_tok.column, "unknown function '" + name + "'; known: min, max, abs, int, float");
    }
    const Func fn = known->fn;
    const int min_args = known->min_args, max_args = known->max_args;
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

}  // namespace

void ParseInto(Program* program) { Parser(program->text, program).Run(); }

}  // namespace glimpse::expression_internal
