// The loop-nest representation, its schedule transformations and the C++ emitter.
#include "glimpse/loop_nest.h"

#include <gtest/gtest.h>

#include <string>

#include "glimpse/codegen.h"
#include "glimpse/error.h"
#include "test_errors.h"

namespace glimpse {
namespace {

using E = AffineExpr;

// out[i, j] = in[i, j] over a 4 × 8 iteration space.
LoopNest CopyNest() {
  LoopNest nest;
  nest.name = "copy";
  int in = nest.AddTensor({"X", {4, 8}, "IJ", DType::kFloat32, TensorRole::kInput, 0});
  int out = nest.AddTensor({"Y", {4, 8}, "IJ", DType::kFloat32, TensorRole::kOutput});
  Stmt copy{StmtKind::kCopy, {out, {E::Var("i"), E::Var("j")}}, {in, {E::Var("i"), E::Var("j")}}};
  nest.body.push_back(Node::MakeLoop({"i", 4}, {Node::MakeLoop({"j", 8}, {Node::MakeStmt(copy)})}));
  return nest;
}

TEST(AffineExpr, SubstituteAndCombine) {
  E e = E::Var("i", 3) + E::Var("j") + E::Const(2);
  E s = e.Substitute("i", E::Var("i0", 4) + E::Var("i1"));
  EXPECT_EQ(s.CoefficientOf("i"), 0);
  EXPECT_EQ(s.CoefficientOf("i0"), 12);
  EXPECT_EQ(s.CoefficientOf("i1"), 3);
  EXPECT_EQ(s.CoefficientOf("j"), 1);
  EXPECT_EQ(s.constant, 2);
  EXPECT_TRUE((E::Var("i") + E::Var("i", -1)).terms.empty());
}

TEST(LoopNest, SplitRewritesAccesses) {
  LoopNest nest = CopyNest();
  SplitLoop(nest, "j", {2, 4}, {"j0", "j1"});
  EXPECT_EQ(nest.LoopNames(), (std::vector<std::string>{"i", "j0", "j1"}));
  EXPECT_EQ(nest.FindLoop("j0").extent, 2);
  EXPECT_EQ(nest.FindLoop("j1").extent, 4);
  const Stmt& stmt = nest.body[0].body[0].body[0].body[0].stmt;
  EXPECT_EQ(stmt.dst.index[1].CoefficientOf("j0"), 4);
  EXPECT_EQ(stmt.dst.index[1].CoefficientOf("j1"), 1);
  EXPECT_NO_THROW(nest.Validate());
  EXPECT_THROW(SplitLoop(nest, "i", {3, 2}, {"a", "b"}), Error);  // 6 ≠ 4
  EXPECT_THROW(SplitLoop(nest, "nope", {4}, {"x"}), Error);
}

TEST(LoopNest, ReorderNeedsAPerfectChain) {
  LoopNest nest = CopyNest();
  SplitLoop(nest, "j", {2, 4}, {"j0", "j1"});
  ReorderLoops(nest, {"j1", "i", "j0"});
  EXPECT_EQ(nest.LoopNames(), (std::vector<std::string>{"j1", "i", "j0"}));
  EXPECT_NO_THROW(nest.Validate());
  EXPECT_THROW(ReorderLoops(nest, {"i", "i"}), Error);
  EXPECT_THROW(ReorderLoops(nest, {"j1", "zz"}), Error);
}

TEST(LoopNest, ValidateCatchesOutOfBoundsAndStrayVariables) {
  LoopNest nest = CopyNest();
  nest.FindLoop("j").extent = 9;
  EXPECT_THROW(nest.Validate(), Error);
  LoopNest stray = CopyNest();
  stray.body[0].body[0].body[0].stmt.a.index[0] = E::Var("q");
  EXPECT_THROW(stray.Validate(), Error);
}

TEST(EmitCpp, LoopsAppearInScheduledOrderWithPragmas) {
  LoopNest nest = CopyNest();
  SplitLoop(nest, "j", {2, 4}, {"j0", "j1"});
  ReorderLoops(nest, {"j0", "i", "j1"});
  SetLoopKind(nest, "j0", LoopKind::kParallel);
  SetLoopKind(nest, "j1", LoopKind::kVectorized);
  SetLoopKind(nest, "i", LoopKind::kUnrolled);
  std::string code = EmitCpp(nest, "tiny_kernel");
  EXPECT_NE(code.find("extern \"C\" void tiny_kernel(const float* const* inputs, float* output)"),
            std::string::npos);
  size_t j0 = code.find("for (int64_t j0 = 0; j0 < 2;");
  size_t i = code.find("for (int64_t i = 0; i < 4;");
  size_t j1 = code.find("for (int64_t j1 = 0; j1 < 4;");
  ASSERT_NE(j0, std::string::npos);
  ASSERT_NE(i, std::string::npos);
  ASSERT_NE(j1, std::string::npos);
  EXPECT_LT(j0, i);
  EXPECT_LT(i, j1);
  EXPECT_LT(code.find("#pragma omp parallel for"), j0);
  EXPECT_LT(code.find("#pragma GCC unroll 4"), i);
  EXPECT_LT(code.find("#pragma omp simd"), j1);
  EXPECT_GT(code.find("#pragma omp simd"), i);
  // Y[i][4·j0 + j1] flattened with row length 8.
  EXPECT_NE(code.find("Y[8 * i + 4 * j0 + j1] = X[8 * i + 4 * j0 + j1];"), std::string::npos)
      << code;
  EXPECT_THROW(EmitCpp(nest, "9bad"), Error);
}

// A loop's useful range (Loop::useful_begin) names loops around it, follows a split of them, and
// becomes the bounds of the C++ loop, clamped to [0, extent).
TEST(LoopNest, AUsefulRangeFollowsSplitsAndBoundsTheEmittedLoop) {
  LoopNest nest = CopyNest();
  Loop& j = nest.FindLoop("j");
  j.useful_begin = E::Const(1) + E::Var("i", -1);  // j ≥ 1 − i
  j.useful_end = E::Const(10) + E::Var("i", -2);   // j < 10 − 2i
  nest.Validate();
  SplitLoop(nest, "i", {2, 2}, {"i0", "i1"});
  const Loop& split = nest.FindLoop("j");
  ASSERT_TRUE(split.useful_begin && split.useful_end);
  EXPECT_EQ(split.useful_begin->CoefficientOf("i0"), -2);
  EXPECT_EQ(split.useful_begin->CoefficientOf("i1"), -1);
  EXPECT_EQ(split.useful_end->CoefficientOf("i0"), -4);
  EXPECT_EQ(split.useful_end->constant, 10);
  EXPECT_NE(NestToString(nest).find("for j in 0..8 useful [-1*i1 + -2*i0 + 1, -2*i1 + -4*i0 + 10)"),
            std::string::npos)
      << NestToString(nest);
  const std::string code = EmitCpp(nest, "ranged");
  EXPECT_NE(code.find("const int64_t j_from_ = -2 * i0 + -1 * i1 + 1;"), std::string::npos) << code;
  EXPECT_NE(code.find("for (int64_t j = j_from_ > 0 ? j_from_ : 0; j < (j_to_ < 8 ? j_to_ : 8);"),
            std::string::npos)
      << code;
  // A vectorised loop runs whole: its range is a hint the emitter may ignore.
  SetLoopKind(nest, "j", LoopKind::kVectorized);
  EXPECT_EQ(EmitCpp(nest, "ranged").find("j_from_"), std::string::npos);

  // A range that names a loop inside it, or none around it, is refused.
  LoopNest inner = CopyNest();
  inner.FindLoop("i").useful_end = E::Var("j");
  EXPECT_THROW(inner.Validate(), Error);
}

// Prefetch statements: a hint the C++ emitter writes unguarded, that LoopNest::Validate accepts on
// any tensor of the body but a literal, that the CUDA emitter refuses, and that WithoutPrefetches
// removes with the loops that held only it.
TEST(EmitCpp, PrefetchesAreUnguardedHintsAndStripOut) {
  LoopNest nest = CopyNest();  // Y[i, j] = X[i, j], i < 4, j < 8
  Stmt next_row{StmtKind::kPrefetch};
  next_row.a = {0, {E::Var("i") + E::Const(1), E::Var("k", 4)}, true};  // past X at i = 3
  Stmt output{StmtKind::kPrefetch};
  output.a = {1, {E::Var("i"), E::Const(0)}};
  output.prefetch_write = true;
  std::vector<Node>& row = nest.body[0].body;
  row.insert(row.begin(), Node::MakeStmt(output));
  row.insert(row.begin(),
             Node::MakeLoop({"k", 2, LoopKind::kUnrolled}, {Node::MakeStmt(next_row)}));
  nest.Validate();
  EXPECT_TRUE(HasPrefetch(nest));
  const std::string code = EmitCpp(nest, "hinted");
  EXPECT_NE(code.find("__builtin_prefetch(&X[8 * i + 4 * k + 8], 0, 3);"), std::string::npos)
      << code;
  EXPECT_NE(code.find("__builtin_prefetch(&Y[8 * i], 1, 3);"), std::string::npos) << code;
  EXPECT_EQ(code.find("if ("), std::string::npos) << code;
  EXPECT_NE(NestToString(nest).find("prefetch for write Y["), std::string::npos)
      << NestToString(nest);

  const LoopNest stripped = WithoutPrefetches(nest);
  EXPECT_FALSE(HasPrefetch(stripped));
  EXPECT_EQ(NestToString(stripped), NestToString(CopyNest()));

  // Out of bounds without zero_outside, in prepare, or of a literal: refused.
  LoopNest outside = nest;
  outside.body[0].body[0].body[0].stmt.a.zero_outside = false;
  EXPECT_THROW(outside.Validate(), Error);
  LoopNest in_prepare = CopyNest();
  in_prepare.prepare.push_back(Node::MakeStmt(output));
  EXPECT_THROW(in_prepare.Validate(), Error);
  LoopNest literal = CopyNest();
  TensorDecl table{"T", {2}, "I", DType::kFloat32, TensorRole::kLiteral};
  table.values = {1.0f, 2.0f};
  Stmt of_literal{StmtKind::kPrefetch};
  of_literal.a = {literal.AddTensor(table), {E::Const(0)}};
  literal.body.push_back(Node::MakeStmt(of_literal));
  EXPECT_THROW(literal.Validate(), Error);
  EXPECT_NE(testing::ErrorMessageOf([&] { EmitCuda(nest, "hinted"); }).find("prefetch"),
            std::string::npos);
}

// Loop::load_pointers: each activation load in the loop's body reads through a pointer set at the
// top of the body; the weights keep their flat index.
TEST(EmitCpp, LoadPointersIndexActivationsByTheInnerLoopsOnly) {
  LoopNest nest;
  nest.name = "taps";
  int x = nest.AddTensor({"X", {4, 20}, "HW", DType::kFloat32, TensorRole::kInput, 0});
  int w = nest.AddTensor({"W", {4, 3}, "RS", DType::kFloat32, TensorRole::kInput, 1});
  nest.tensors[w].constant = true;
  int y = nest.AddTensor({"Y", {8}, "W", DType::kFloat32, TensorRole::kOutput});
  Stmt mac{StmtKind::kMultiplyAdd,
           {y, {E::Var("o")}},
           {x, {E::Var("r"), E::Var("o", 2) + E::Var("s")}},
           {w, {E::Var("r"), E::Var("s")}}};
  Loop s{"s", 3, LoopKind::kUnrolled};
  s.load_pointers = true;
  nest.body.push_back(Node::MakeLoop(
      {"r", 4},
      Node::MakeLoop(s, Node::MakeLoop({"o", 8, LoopKind::kUnrolled}, {Node::MakeStmt(mac)}))));
  const std::string code = EmitCpp(nest, "taps");
  const size_t pointer = code.find("const float* __restrict X_at0_ = X + 20 * r + s;");
  ASSERT_NE(pointer, std::string::npos) << code;
  EXPECT_GT(code.find("Y[o] += X_at0_[2 * o] * W[3 * r + s];"), pointer) << code;
  EXPECT_NE(NestToString(nest).find("for s in 0..3 (unrolled) load pointers"), std::string::npos)
      << NestToString(nest);
}

TEST(EmitCpp, GuardsOnlyLoadsThatMayLeaveTheirTensor) {
  LoopNest nest;
  nest.name = "shift";
  int in = nest.AddTensor({"X", {8}, "I", DType::kFloat32, TensorRole::kInput, 0});
  int out = nest.AddTensor({"Y", {8}, "I", DType::kFloat32, TensorRole::kOutput});
  Stmt copy{StmtKind::kCopy, {out, {E::Var("i")}}, {in, {E::Var("i") + E::Const(-1)}, true}};
  copy.relu = true;
  nest.body.push_back(Node::MakeLoop({"i", 8}, {Node::MakeStmt(copy)}));
  std::string code = EmitCpp(nest, "k");
  EXPECT_NE(code.find("(i - 1) >= 0 ? X[i - 1] : 0.0f"), std::string::npos) << code;
  EXPECT_EQ(code.find("< 8 ?"), std::string::npos) << code;  // the upper bound cannot be passed
  EXPECT_NE(code.find("Y[i] = __builtin_bit_cast(float, b_ > 0 ? b_ : 0);"), std::string::npos)
      << code;
}

TEST(EmitCpp, VectorisedReductionUsesAScalarSum) {
  LoopNest nest;
  nest.name = "dot";
  int a = nest.AddTensor({"A", {16}, "K", DType::kFloat32, TensorRole::kInput, 0});
  int b = nest.AddTensor({"B", {16}, "K", DType::kFloat32, TensorRole::kInput, 1});
  int out = nest.AddTensor({"Y", {1}, "1", DType::kFloat32, TensorRole::kOutput});
  Stmt mac{StmtKind::kMultiplyAdd, {out, {E::Const(0)}}, {a, {E::Var("k")}}, {b, {E::Var("k")}}};
  nest.body.push_back(Node::MakeLoop({"k", 16, LoopKind::kVectorized}, {Node::MakeStmt(mac)}));
  std::string code = EmitCpp(nest, "dot");
  EXPECT_NE(code.find("#pragma omp simd reduction(+ : sum_)"), std::string::npos) << code;
  EXPECT_NE(code.find("Y[0] = sum_;"), std::string::npos) << code;
}

// Y[i] = Σ_j X[j] · Wp[i][j], with Wp = Wᵀ made by the prepare body from the constant W[j][i].
LoopNest PreparedNest() {
  LoopNest nest;
  nest.name = "matvec";
  int x = nest.AddTensor({"X", {8}, "J", DType::kFloat32, TensorRole::kInput, 0});
  int w = nest.AddTensor({"W", {8, 4}, "JI", DType::kFloat32, TensorRole::kInput, 1});
  nest.tensors[w].constant = true;
  int y = nest.AddTensor({"Y", {4}, "I", DType::kFloat32, TensorRole::kOutput});
  int other = nest.AddTensor({"Q", {3}, "Q", DType::kFloat32, TensorRole::kPrepared});
  int wp = nest.AddTensor({"Wp", {4, 8}, "IJ", DType::kFloat32, TensorRole::kPrepared});
  nest.prepare.push_back(Node::MakeLoop(
      {"qi", 4},
      {Node::MakeLoop({"qj", 8}, {Node::MakeStmt(Stmt{StmtKind::kCopy,
                                                      {wp, {E::Var("qi"), E::Var("qj")}},
                                                      {w, {E::Var("qj"), E::Var("qi")}}})})}));
  nest.prepare.push_back(
      Node::MakeLoop({"qq", 3}, {Node::MakeStmt(Stmt{StmtKind::kZero, {other, {E::Var("qq")}}})}));
  Stmt zero{StmtKind::kZero, {y, {E::Var("i")}}};
  Stmt mac{StmtKind::kMultiplyAdd,
           {y, {E::Var("i")}},
           {x, {E::Var("j")}},
           {wp, {E::Var("i"), E::Var("j")}}};
  nest.body.push_back(Node::MakeLoop(
      {"i", 4}, {Node::MakeStmt(zero), Node::MakeLoop({"j", 8}, {Node::MakeStmt(mac)})}));
  return nest;
}

TEST(LoopNest, PrepareBodyReadsConstantsAndWritesPreparedTensors) {
  LoopNest nest = PreparedNest();
  EXPECT_NO_THROW(nest.Validate());
  EXPECT_TRUE(nest.HasPrepare());
  EXPECT_EQ(nest.NumInputs(), 2);
  // Q takes 3 floats rounded up to 16, so Wp starts 64-byte aligned after it.
  EXPECT_EQ(nest.PreparedOffset(nest.TensorIndex("Q")), 0);
  EXPECT_EQ(nest.PreparedOffset(nest.TensorIndex("Wp")), 16);
  EXPECT_EQ(nest.PreparedFloats(), 16 + 32);
  EXPECT_THROW(nest.PreparedOffset(nest.TensorIndex("X")), Error);
  // Transformations and lookups reach the prepare body too; names stay unique across both.
  SplitLoop(nest, "qj", {2, 4}, {"qj0", "qj1"});
  EXPECT_EQ(nest.FindLoop("qj1").extent, 4);
  EXPECT_EQ(nest.LoopNames().back(), "qq");
  EXPECT_NO_THROW(nest.Validate());
  EXPECT_NE(NestToString(nest).find("prepare:"), std::string::npos);

  LoopNest reads_activation = PreparedNest();
  reads_activation.prepare[0].body[0].body[0].stmt.a = {0, {E::Var("qj")}};
  EXPECT_THROW(reads_activation.Validate(), Error);
  LoopNest not_constant = PreparedNest();
  not_constant.tensors[1].constant = false;
  EXPECT_THROW(not_constant.Validate(), Error);
  LoopNest body_writes_prepared = PreparedNest();
  body_writes_prepared.body[0].body[0].stmt.dst = {4, {E::Var("i")}};
  EXPECT_THROW(body_writes_prepared.Validate(), Error);
  LoopNest duplicate = PreparedNest();
  duplicate.prepare[1].loop.name = "i";
  EXPECT_THROW(duplicate.Validate(), Error);
}

TEST(EmitCpp, PreparedTensorsFollowTheInputs) {
  std::string code = EmitCpp(PreparedNest(), "mv");
  EXPECT_NE(code.find("extern \"C\" int64_t mv_prepared_size() { return 48; }"), std::string::npos)
      << code;
  EXPECT_NE(code.find("extern \"C\" void mv_prepare(const float* const* inputs, float* prepared)"),
            std::string::npos);
  // In the prepare function: the constant input and the prepared tensors, writable.
  size_t prepare = code.find("mv_prepare(");
  size_t kernel = code.find("void mv(");
  ASSERT_LT(prepare, kernel);
  std::string prepare_code = code.substr(prepare, kernel - prepare);
  EXPECT_NE(prepare_code.find("const float* __restrict W = inputs[1];"), std::string::npos);
  EXPECT_EQ(prepare_code.find("inputs[0]"), std::string::npos);  // activations are not visible
  EXPECT_NE(prepare_code.find("float* __restrict Wp = prepared + 16;"), std::string::npos);
  // In the kernel: read-only, from the pointer after the two inputs.
  EXPECT_NE(code.find("const float* __restrict Wp = inputs[2] + 16;", kernel), std::string::npos)
      << code;
  // A nest without prepared tensors keeps the plain ABI.
  EXPECT_EQ(EmitCpp(CopyNest(), "plain").find("_prepare"), std::string::npos);
}

// Y[o] += X[o + t − 1] · W[t]: a 1-D convolution over 16 outputs with one column of zero padding
// each side, o split into 4 tiles (o0) of 4 unrolled columns (o1), the 3 taps t unrolled.
LoopNest PaddedConvolution(LoopKind tap_kind) {
  LoopNest nest;
  nest.name = "conv1d";
  int x = nest.AddTensor({"X", {16}, "W", DType::kFloat32, TensorRole::kInput, 0});
  int w = nest.AddTensor({"W", {3}, "S", DType::kFloat32, TensorRole::kInput, 1});
  int y = nest.AddTensor({"Y", {16}, "W", DType::kFloat32, TensorRole::kOutput});
  const E o = E::Var("o0", 4) + E::Var("o1");
  Stmt mac{StmtKind::kMultiplyAdd,
           {y, {o}},
           {x, {o + E::Var("t") + E::Const(-1)}, true},
           {w, {E::Var("t")}}};
  Loop o0{"o0", 4};
  o0.peel_edges = true;
  nest.body.push_back(Node::MakeLoop(
      std::move(o0),
      Node::MakeLoop({"t", 3, tap_kind},
                     Node::MakeLoop({"o1", 4, LoopKind::kUnrolled}, {Node::MakeStmt(mac)}))));
  return nest;
}

// A loop marked peel_edges is written as its first iteration, the iterations between and its
// last: the tile between has no guard; in the edge tiles the test that only they need is decided
// at compile time (every variable in it is constant or unrolled), so the multiply-add is skipped
// there instead of multiplying a zero.
TEST(EmitCpp, PeeledEdgesSkipTheirPaddingTapsAndTheMiddleHasNoGuard) {
  LoopNest nest = PaddedConvolution(LoopKind::kUnrolled);
  EXPECT_NE(NestToString(nest).find("for o0 in 0..4 peel edges"), std::string::npos)
      << NestToString(nest);
  const std::string code = EmitCpp(nest, "conv1d");
  const size_t first = code.find("{  // o0 = 0 of 0..4");
  const size_t middle = code.find("for (int64_t o0 = 1; o0 < 3; ++o0) {");
  const size_t last = code.find("{  // o0 = 3 of 0..4");
  ASSERT_NE(first, std::string::npos) << code;
  ASSERT_NE(middle, std::string::npos) << code;
  ASSERT_NE(last, std::string::npos) << code;
  ASSERT_TRUE(first < middle && middle < last) << code;
  EXPECT_NE(code.find("const int64_t o0 = 0;", first), std::string::npos) << code;
  EXPECT_NE(code.find("const int64_t o0 = 3;", last), std::string::npos) << code;
  const std::string unguarded = "Y[4 * o0 + o1] += X[4 * o0 + o1 + t - 1] * W[t];";
  // First tile: only the left edge can be left; the statement is skipped there.
  const std::string left = "if ((4 * o0 + o1 + t - 1) >= 0) { " + unguarded + " }";
  const std::string right = "if ((4 * o0 + o1 + t - 1) < 16) { " + unguarded + " }";
  EXPECT_EQ(code.find(left), code.find(left, first)) << code;
  EXPECT_LT(code.find(left, first), middle) << code;
  EXPECT_GT(code.find(right), last) << code;
  // The middle tile reads without any guard.
  const size_t plain = code.find(unguarded, middle);
  ASSERT_NE(plain, std::string::npos) << code;
  EXPECT_LT(plain, last) << code;
  EXPECT_EQ(code.substr(middle, plain - middle).find("if ("), std::string::npos) << code;
  EXPECT_EQ(code.find("? X["), std::string::npos) << "no select left anywhere:\n" << code;
}

// A test that depends on a loop the compiler does not unroll is not decided at compile time: it
// stays a select in the load (a branch per tap would cost more than the multiply). Without the
// peel, the tile loop's variable keeps every test a select.
TEST(EmitCpp, TestsDecidedAtRunTimeStaySelects) {
  const std::string serial_taps = EmitCpp(PaddedConvolution(LoopKind::kSerial), "conv1d");
  EXPECT_EQ(serial_taps.find("if ("), std::string::npos) << serial_taps;
  EXPECT_NE(serial_taps.find("(4 * o0 + o1 + t - 1) >= 0 ? X[4 * o0 + o1 + t - 1] : 0.0f"),
            std::string::npos)
      << serial_taps;

  LoopNest unpeeled = PaddedConvolution(LoopKind::kUnrolled);
  unpeeled.FindLoop("o0").peel_edges = false;
  const std::string code = EmitCpp(unpeeled, "conv1d");
  EXPECT_EQ(code.find("if ("), std::string::npos) << code;
  EXPECT_EQ(code.find("const int64_t o0"), std::string::npos) << code;
  EXPECT_NE(code.find("(4 * o0 + o1 + t - 1) >= 0 && (4 * o0 + o1 + t - 1) < 16 ? X["),
            std::string::npos)
      << code;
  // A peel asked of a loop that is not serial is ignored.
  LoopNest parallel = PaddedConvolution(LoopKind::kUnrolled);
  SetLoopKind(parallel, "o0", LoopKind::kParallel);
  EXPECT_EQ(EmitCpp(parallel, "conv1d").find("const int64_t o0"), std::string::npos);
}

}  // namespace
}  // namespace glimpse
