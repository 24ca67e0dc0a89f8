// glimpse/loop_nest.h — a small loop-nest representation of tensor programs, and the schedule
// transformations applied to it.
//
// A LoopNest is a function body: declared tensors (inputs, one output, temporaries) and a tree of
// nodes, each either a loop (with a body of nodes) or a statement. Statements read and write
// tensor elements through affine index expressions of loop variables. Templates (src/cpu,
// src/cuda) take an operator's statements from its declared computation (glimpse/op_compute.h),
// place them in loops and transform those with SplitLoop / ReorderLoops / SetLoopKind, the way a
// TVM schedule splits, reorders, vectorises and parallelises; the emitters (C++ and CUDA) lower
// the result to source, and feature extractors walk the same tree.
//
// A nest may also have a `prepare` body: work on constant inputs (a model's weights) that a
// deployment does once, ahead of time — re-laying a weight out for the schedule — whose results
// (kPrepared tensors) the main body then reads. Keeping it apart lets a runner exclude it from the
// timed call, the way an inference compiler transforms weights at compile time.
//
// GPU nests. A nest keeps sequential semantics on every target: loops bound to GPU indices
// (LoopKind::kBlock*/kThread*) are still loops over their extent, and a kCooperative loop is a
// serial loop. A GPU emitter maps the bound loops to blockIdx/threadIdx, shares the iterations of
// a cooperative copy among a block's threads between two barriers, and places kShared and kLocal
// temporaries in shared memory and registers. Because the copy into a shared tile depends on no
// thread variable, repeating it in every thread iteration (what the sequential reading does)
// computes the same result as the block doing it once together: so the C++ emitter can run a GPU
// nest on the CPU, which tests a GPU template's index arithmetic without a GPU. The structural
// rules a GPU nest obeys are in glimpse/gpu.h (ValidateGpuNest).
//
// Nothing here knows about C++ or any other target language.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace glimpse {

enum class DType : uint8_t { kFloat32 };

enum class TensorRole : uint8_t {
  kInput,   // read-only, passed to the kernel (inputs[input_index])
  kOutput,  // the single output the kernel writes
  kTemp,    // scratch owned by the kernel: a packed or padded copy, a local accumulator
  // Written by LoopNest::prepare from constant inputs, read-only in LoopNest::body (a weight
  // packed into the schedule's blocked layout). All kPrepared tensors share one buffer.
  kPrepared,
  // A table of constants known when the nest is built (TensorDecl::values): the coefficients of
  // a linear transform (winograd's Bᵀ, G, Aᵀ). Read-only in `body` and `prepare`; emitters write
  // it into the generated source, so a statement whose index into it is constant after unrolling
  // lets the compiler fold the coefficient (a multiply by 1 disappears).
  kLiteral,
};

// Where a GPU emitter places a tensor. CPU emitters ignore it. kShared and kLocal are for kTemp
// tensors only: kShared is one tile per thread block (its scope_loop is the innermost block-bound
// loop), kLocal is private to a thread, held in registers when every access has constant indices
// after unrolling (its scope_loop is a thread-bound loop or a loop inside one).
enum class MemoryScope : uint8_t { kGlobal, kShared, kLocal };
const char* MemoryScopeName(MemoryScope scope);  // "global", "shared", "local"

struct TensorDecl {
  std::string name;
  std::vector<int64_t> shape;  // row-major; the last dimension is contiguous
  std::string layout;          // descriptive ("NCHW", "MK", "NK"); lowering uses `shape` only
  DType dtype = DType::kFloat32;
  TensorRole role = TensorRole::kInput;
  int input_index = -1;  // kInput: position in the kernel's input list
  // kTemp: the loop whose body owns the temporary (it lives for one iteration of that loop, so a
  // temporary under a parallel loop is private to each thread); empty: the whole kernel.
  std::string scope_loop;
  // kInput: a constant of the model (a weight, a bias) rather than an activation; only constant
  // inputs may be read by LoopNest::prepare.
  bool constant = false;
  MemoryScope scope = MemoryScope::kGlobal;  // GPU placement (see MemoryScope)
  // kLiteral: the elements, row-major; exactly NumElements() of them (LoopNest::Validate).
  std::vector<float> values;

  TensorDecl() = default;
  TensorDecl(std::string name, std::vector<int64_t> shape, std::string layout, DType dtype,
             TensorRole role, int input_index = -1, std::string scope_loop = "")
      : name(std::move(name)),
        shape(std::move(shape)),
        layout(std::move(layout)),
        dtype(dtype),
        role(role),
        input_index(input_index),
        scope_loop(std::move(scope_loop)) {}
  int64_t NumElements() const;
};

// constant + Σ coefficient · loop variable. Loop variables are named by their loop's name.
struct AffineExpr {
  int64_t constant = 0;
  std::vector<std::pair<std::string, int64_t>> terms;  // (loop name, coefficient), no zeros

  static AffineExpr Const(int64_t value);
  static AffineExpr Var(const std::string& loop, int64_t coefficient = 1);
  AffineExpr operator+(const AffineExpr& other) const;
  AffineExpr operator*(int64_t factor) const;
  int64_t CoefficientOf(const std::string& loop) const;  // 0 when absent
  bool DependsOn(const std::string& loop) const { return CoefficientOf(loop) != 0; }
  // Replaces `loop` by `replacement` (used by SplitLoop).
  AffineExpr Substitute(const std::string& loop, const AffineExpr& replacement) const;
};

// An element of a tensor: one affine expression per dimension.
struct Access {
  int tensor = -1;  // index into LoopNest::tensors
  std::vector<AffineExpr> index;
  // For loads: elements outside the tensor's bounds read as 0 (implicit zero padding); the
  // emitter guards the load. For a statement's destination: the statement is skipped for
  // elements outside the tensor (a guarded store, e.g. the half of a 2×2 output tile that
  // overhangs an odd output size); a kMultiplyAdd into a guarded destination is skipped whole.
  // Without the flag every index must stay in bounds (LoopNest::Validate).
  bool zero_outside = false;

  Access() = default;
  Access(int tensor, std::vector<AffineExpr> index, bool zero_outside = false)
      : tensor(tensor), index(std::move(index)), zero_outside(zero_outside) {}
};

enum class StmtKind : uint8_t {
  kZero,         // dst = 0
  kMultiplyAdd,  // dst += a · b            (a reduction when dst does not depend on a loop)
  kCopy,         // dst = a [+ bias] [+ residual] [then max(·, 0) when relu, min(max(·, 0), 6)
                 // when relu6]
  // A hint, no value: fetch the cache line of element `a` ahead of its use (for a write when
  // prefetch_write). `dst` is unused. With a.zero_outside, `a` may lie outside its tensor (past
  // the last row, say): the hint then touches a line that is not the tensor's, which no prefetch
  // faults on. CPU nests only; it computes nothing, so the performance models' featurisers and the
  // roofline leave it out (a template adds it by rule, never by a knob).
  kPrefetch,
};

struct Stmt {
  StmtKind kind = StmtKind::kZero;
  Access dst;
  Access a;                        // kMultiplyAdd, kCopy
  Access b;                        // kMultiplyAdd
  std::optional<Access> bias;      // kCopy: epilogue bias add
  std::optional<Access> residual;  // kCopy: epilogue residual add (after the bias)
  bool relu = false;               // kCopy: epilogue ReLU
  bool relu6 = false;              // kCopy: epilogue ReLU6 (not with relu)
  bool prefetch_write = false;     // kPrefetch: the line will be written

  Stmt() = default;
  explicit Stmt(StmtKind kind, Access dst = {}, Access a = {}, Access b = {})
      : kind(kind), dst(std::move(dst)), a(std::move(a)), b(std::move(b)) {}
};

// The accesses a statement reads, in operand order: a (unless kZero), b (kMultiplyAdd), then the
// epilogue's bias and residual. Its destination is not among them, even where it accumulates. A
// kPrefetch reads nothing.
inline std::vector<const Access*> StmtReads(const Stmt& s) {
  std::vector<const Access*> reads;
  if (s.kind == StmtKind::kPrefetch) return reads;  // reads no value
  if (s.kind != StmtKind::kZero) reads.push_back(&s.a);
  if (s.kind == StmtKind::kMultiplyAdd) reads.push_back(&s.b);
  if (s.bias) reads.push_back(&*s.bias);
  if (s.residual) reads.push_back(&*s.residual);
  return reads;
}

// The floating-point operations a kCopy's epilogue does per element: one per addition (bias,
// residual), one for a ReLU, two for a ReLU6.
inline double EpilogueFlops(const Stmt& s) {
  return (s.bias ? 1.0 : 0.0) + (s.residual ? 1.0 : 0.0) + (s.relu ? 1.0 : 0.0) +
         (s.relu6 ? 2.0 : 0.0);
}

enum class LoopKind : uint8_t {
  kSerial,
  kParallel,    // CPU: iterations shared among threads
  kVectorized,  // CPU: SIMD lanes; GPU: one vector load/store where the emitter can, else unrolled
  kUnrolled,
  // GPU: the loop variable is blockIdx.x/y/z (resp. threadIdx.x/y/z). Several loops may bind the
  // same index: they are fused, the outermost slowest-varying (blockIdx.z = f_outer · E + f_inner).
  kBlockX,
  kBlockY,
  kBlockZ,
  kThreadX,
  kThreadY,
  kThreadZ,
  // GPU: a loop of a cooperative copy into a kShared tile — the iterations of a chain of such
  // loops are shared among the block's threads, with a barrier before and after (see the note on
  // GPU nests at the top of this file).
  kCooperative,
};
// "serial", "parallel", "vectorized", "unrolled", "blockIdx.x", …, "threadIdx.z", "cooperative"
const char* LoopKindName(LoopKind kind);
bool IsBlockBinding(LoopKind kind);   // kBlockX/Y/Z
bool IsThreadBinding(LoopKind kind);  // kThreadX/Y/Z
// 0 for x, 1 for y, 2 for z (block or thread binding); -1 for every other kind.
int BindingAxis(LoopKind kind);

struct Loop {
  std::string name;  // unique in the nest; also the loop variable's name
  int64_t extent = 1;
  LoopKind kind = LoopKind::kSerial;
  // The iterations that can change the result, where a template knows them: [useful_begin,
  // useful_end), affine in the enclosing loops' variables, clamped to [0, extent) (either may be
  // absent: 0, extent). The others only multiply-add zeros — the border of a zero-padded copy, or
  // guarded loads outside the input — so a code generator may skip them (the C++ one does, for
  // serial and unrolled loops) and one that runs them computes the same result. A convolution's
  // kernel rows over an output row at the border are the case (oneDNN skips them too).
  std::optional<AffineExpr> useful_begin, useful_end;
  // Serial loops only, without a useful range: the C++ emitter writes the first and the last
  // iteration as copies of the body with the loop variable a constant, and the iterations between
  // as a loop. Guards that only the edges need then vanish from the loop between (the guard
  // analysis sees its narrowed range) and are decided at compile time in the copies, where a
  // multiply-add whose factor is guarded is skipped rather than multiplied by zero. A
  // convolution's column tiles are the case: only the first and the last reach the padding.
  bool peel_edges = false;
  // C++ emitter: each load of an activation (a kInput that is not constant) in this loop's body
  // reads through a pointer set at the top of the body to its element with the inner loops'
  // variables at zero, indexed by those variables' terms only. With one flat index, g++ shares the
  // loads that neighbouring taps make of one element (at stride 2, tap s = 2 of column w and tap
  // s = 0 of column w + 1) as broadcasts held in registers instead of letting each FMA broadcast
  // from memory, which cost MobileNet-v2's first layer 8 % warm (bench/results/cpu_models_64.md,
  // "MobileNet-v2's first layer is not memory-bound"). Code generation only: the program is the
  // same.
  bool load_pointers = false;

  Loop() = default;
  Loop(std::string name, int64_t extent, LoopKind kind = LoopKind::kSerial)
      : name(std::move(name)), extent(extent), kind(kind) {}
};

struct Node {
  bool is_loop = false;
  Loop loop;               // is_loop
  std::vector<Node> body;  // is_loop
  Stmt stmt;               // !is_loop

  static Node MakeLoop(Loop loop, std::vector<Node> body);
  // A loop around one node, moved in. `MakeLoop(loop, {Node::MakeLoop(…)})` picks this one: a
  // braced list of nodes would copy the whole subtree (twice) at every level of a nest. (So an
  // empty body is spelled `MakeLoop(loop, std::vector<Node>{})`: `{}` would fit both.)
  static Node MakeLoop(Loop loop, Node only_child);
  static Node MakeStmt(Stmt stmt);
};

// A body of these nodes, moved in, in order — what a braced list {a, b, c} would copy.
template <typename... Nodes>
std::vector<Node> MoveNodes(Nodes&&... nodes) {
  std::vector<Node> body;
  body.reserve(sizeof...(nodes));
  (body.push_back(std::forward<Nodes>(nodes)), ...);
  return body;
}

// loops[0] { loops[1] { … { body } } }: a perfect nest of `loops` (at least one) around `body`.
Node NestLoops(const std::vector<Loop>& loops, std::vector<Node> body);
// Σ vars[i] · Π extents[i+1..]: the mixed-radix position of the loops named `vars` with those
// extents (vars[0] the most significant), e.g. an element's place in a tile the loops split.
AffineExpr MixedRadix(const std::vector<std::string>& vars, const std::vector<int64_t>& extents);

struct LoopNest {
  std::string name;                 // e.g. "dense"
  std::vector<TensorDecl> tensors;  // inputs (in input_index order), the output, temporaries
  std::vector<Node> body;
  // Run once per set of constant inputs, before any run of `body`: reads constant inputs only,
  // writes kPrepared tensors only. Empty for most nests. Loop names are unique across both bodies.
  std::vector<Node> prepare;

  int AddTensor(TensorDecl tensor);                // returns its index
  int TensorIndex(const std::string& name) const;  // throws Error when unknown
  const TensorDecl& Output() const;                // throws Error when there is none
  // The loop named `name`, in `body` or `prepare` (throws Error naming the known loops when
  // absent).
  Loop& FindLoop(const std::string& name);
  const Loop& FindLoop(const std::string& name) const;
  // The node of that loop: the loop and its body (throws Error as FindLoop does).
  const Node& FindLoopNode(const std::string& name) const;
  bool HasLoop(const std::string& name) const;
  // Loop names from the outermost down along every path, in pre-order: `body`, then `prepare`.
  std::vector<std::string> LoopNames() const;
  bool HasPrepare() const;  // some tensor is kPrepared

  // Floats of the prepared buffer and each kPrepared tensor's offset in it (in declaration order,
  // each rounded up to 16 floats so that every tensor starts 64-byte aligned).
  int64_t PreparedFloats() const;
  int64_t PreparedOffset(int tensor) const;
  // Floats of the kTemp tensors the kernel allocates on the heap for a whole call (those not
  // scoped to a loop): its padded and packed copies.
  int64_t HeapTempFloats() const;
  // 1 + the largest input_index: the number of inputs the kernel is given, before the prepared
  // buffer.
  int NumInputs() const;

  // Structural checks: unique loop names, every variable used inside its loop, every access of
  // the right rank, every unguarded access (load or store) in bounds (checked on the extreme
  // corners, exact for affine expressions with the loop ranges); `body` writes only the output
  // and temporaries, `prepare` reads only constant inputs, literal tables (and prepared tensors)
  // and writes only prepared ones; nothing writes a kLiteral table, whose `values` must hold
  // exactly NumElements() floats.
  // Throws Error describing the first problem.
  void Validate() const;
};

// ---- Schedule transformations, on loops of `body` or `prepare`. Each throws Error on misuse
// (unknown loop, wrong factors).

// Splits loop `name` into loops `names[i]` of extents `factors[i]` (outermost first; their
// product must equal the extent), nested in place of the old loop, and rewrites every access in
// its body: name = Σ names[i] · Π factors[i+1..].
void SplitLoop(LoopNest& nest, const std::string& name, const std::vector<int64_t>& factors,
               const std::vector<std::string>& names);

// Reorders loops that form a perfect chain (each one's body is exactly the next loop, in some
// order) into `order`, outermost first. The innermost loop's body moves with the chain.
void ReorderLoops(LoopNest& nest, const std::vector<std::string>& order);

void SetLoopKind(LoopNest& nest, const std::string& name, LoopKind kind);

// Whether the body or the prepare body holds a kPrefetch statement.
bool HasPrefetch(const LoopNest& nest);
// The nest without its kPrefetch statements (a loop left empty by them goes too): the program
// the performance models' featurisers read, which a prefetch does not change.
LoopNest WithoutPrefetches(const LoopNest& nest);

// A readable dump of the tree (one loop or statement per line, indented), for logs and tests.
std::string NestToString(const LoopNest& nest);

// ---- Validation

// The structural rules of a GPU nest (see the note on GPU nests above); throws
// Error naming the first broken rule:
// - each top-level node of `body` is a chain of block-bound loops (perfect: each one's body is the
//   next), then a chain of thread-bound loops, then anything else; no kParallel loop anywhere;
//   every path binds the same axes with the same extents (one grid, one block shape);
// - a chain of kCooperative loops contains only kCopy statements into kShared tensors, whose
//   indices depend on no thread-bound loop variable; kCooperative loops appear inside the
//   thread-bound loops only;
// - a kShared tensor's scope_loop is the innermost block-bound loop, a kLocal tensor's is a
//   thread-bound loop or a loop inside one; kShared/kLocal are for kTemp tensors only;
// - `prepare`, when present, obeys the same rules with its own grid and block.
void ValidateGpuNest(const LoopNest& nest);

}  // namespace glimpse
