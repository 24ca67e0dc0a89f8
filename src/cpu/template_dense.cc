// The dense template: C[M,N] = A[M,K] · B[N,K]ᵀ (+ bias[N]) (then ReLU), and the matmul nest it
// shares with batch_matmul (template_batch_matmul.cc), which adds an outer batch loop b.
//
// Schedule (an x86 register/cache tiling in the spirit of AutoTVM's dense_pack):
//   [pack_b: Bp[(B)][N/n2][K][n2] = B, parallel over the first loop(s)]
//   [for b]                           batch_matmul only
//   for m0, n0                        outer tiles; `parallel` picks m0, n0 or both (collapsed)
//     acc[m1·m2][n1·n2]               per-tile accumulator on the stack, private to a thread
//     acc = 0
//     for <order of k0 m1 n1 k1 m2 n2, innermost = n2 or k1 by `inner_axis`>
//       acc[m][n] += A[m][k] · B[n][k]     (B from Bp when packed: n2 contiguous)
//     C = acc (+ bias) (ReLU)        the epilogue, vectorised along n with `vectorize`
// The innermost loop is vectorised with `vectorize` (a simd reduction when it is k1) and the one
// around it unrolled with `unroll`.
#include <algorithm>
#include <optional>
#include <string>

#include "cpu/template_util.h"
#include "glimpse/error.h"
#include "glimpse/op_compute.h"

namespace glimpse::cpu {

namespace {
constexpr int64_t kMaxAccumulator = 4096;  // floats: 16 KiB of stack per thread
}  // namespace

ConfigSpace MakeMatmulSpace(const MatmulDims& dims, const std::vector<std::string>& parallel) {
  ConfigSpace space;
  space.AddKnob(Knob::Split("tile_m", dims.m, 3));
  space.AddKnob(Knob::Split("tile_n", dims.n, 3));
  space.AddKnob(Knob::Split("tile_k", dims.k, 2));
  space.AddKnob(Knob::Categorical("inner_axis", {std::string("n"), std::string("k")}));
  space.AddKnob(Knob::Permutation("order", 5));
  std::vector<KnobValue> parallel_values(parallel.begin(), parallel.end());
  space.AddKnob(Knob::Categorical("parallel", parallel_values));
  space.AddKnob(Knob::Ordered("vectorize", {int64_t{0}, int64_t{1}}));
  space.AddKnob(Knob::Ordered("unroll", {int64_t{0}, int64_t{1}}));
  space.AddKnob(Knob::Ordered("pack_b", {int64_t{0}, int64_t{1}}));
  space.AddRestriction("tile_m_1 * tile_m_2 * tile_n_1 * tile_n_2 <= " +
                       std::to_string(kMaxAccumulator));
  return space;
}

ConfigSpace MakeDenseSpace(const DenseShape& shape) {
  return MakeMatmulSpace(MatmulDimsOf(shape), {"m", "n", "mn", "none"});
}

LoopNest MakeMatmulNest(const MatmulDims& dims, const ConfigView& config) {
  std::vector<int64_t> tm = config.List("tile_m"), tn = config.List("tile_n"),
                       tk = config.List("tile_k");
  const int64_t m_tile = tm[1] * tm[2], n_tile = tn[1] * tn[2];
  if (m_tile * n_tile > kMaxAccumulator) {
    throw Error(dims.name + ": accumulator tile of " + std::to_string(m_tile * n_tile) + " floats");
  }
  const bool pack = config.Int("pack_b") != 0;
  const bool vectorize = config.Int("vectorize") != 0;
  const bool batched = dims.batch > 0;
  using E = AffineExpr;

  LoopNest nest;
  nest.name = dims.name;
  const OperatorCompute compute = DeclareMatmulCompute(nest, dims);
  int acc = AddAccumulator(nest, {m_tile, n_tile}, "MN", "n0");
  // The output element an accumulator position (mi, ni) of the tile stands for.
  auto tile_element = [&](const E& mi, const E& ni) {
    AxisBinding at = {{"m", E::Var("m0", m_tile) + mi}, {"n", E::Var("n0", n_tile) + ni}};
    if (batched) at["b"] = E::Var("b");
    return at;
  };

  // pack_b: B in column blocks of n2, Bp[(b)][N/n2][K][n2], so that n2 is contiguous.
  std::optional<OperandCopy> packed_b;
  if (pack) {
    Relayout layout =
        compute.LayoutOf(Operand::kWeight).Split(batched ? 1 : 0, tn[2], batched ? 3 : 2);
    const int bp =
        nest.AddTensor({"Bp", layout.shape(), "N/n2,K,n2", DType::kFloat32, TensorRole::kTemp});
    packed_b = OperandCopy{bp, layout};
    std::vector<E> index = {E::Var("pj"), E::Var("pk"), E::Var("pv")};
    if (batched) index.insert(index.begin(), E::Var("pb"));
    Node pack_nest = Node::MakeLoop(
        {"pj", dims.n / tn[2], LoopKind::kParallel},
        {Node::MakeLoop(
            {"pk", dims.k},
            {Node::MakeLoop({"pv", tn[2]},
                            {Node::MakeStmt(compute.Fill(Operand::kWeight, *packed_b, index))})})});
    if (batched) {
      pack_nest = Node::MakeLoop({"pb", dims.batch, LoopKind::kParallel}, {std::move(pack_nest)});
    }
    nest.body.push_back(std::move(pack_nest));
  }

  Stmt zero{StmtKind::kZero, {acc, {E::Var("zm"), E::Var("zn")}}};
  Node zero_nest =
      Node::MakeLoop({"zm", m_tile}, {Node::MakeLoop({"zn", n_tile}, {Node::MakeStmt(zero)})});

  const E n_in_tile = E::Var("n1", tn[2]) + E::Var("n2");
  AxisBinding at = tile_element(E::Var("mi"), n_in_tile);
  at["k"] = E::Var("k");
  Stmt mac = compute.MultiplyAdd({acc, {E::Var("mi"), n_in_tile}}, at, nullptr,
                                 packed_b ? &*packed_b : nullptr);
  Node reduction = Node::MakeLoop(
      {"k", dims.k},
      {Node::MakeLoop({"mi", m_tile},
                      {Node::MakeLoop({"n1", tn[1]},
                                      {Node::MakeLoop({"n2", tn[2]}, {Node::MakeStmt(mac)})})})});

  Stmt store =
      compute.Store(tile_element(E::Var("wm"), E::Var("wn")), {acc, {E::Var("wm"), E::Var("wn")}});
  Node store_nest =
      Node::MakeLoop({"wm", m_tile}, {Node::MakeLoop({"wn", n_tile}, {Node::MakeStmt(store)})});

  Node tiles = Node::MakeLoop(
      {"m0", tm[0]},
      {Node::MakeLoop({"n0", tn[0]}, MoveNodes(std::move(zero_nest), std::move(reduction),
                                               std::move(store_nest)))});
  if (batched) tiles = Node::MakeLoop({"b", dims.batch}, {std::move(tiles)});
  nest.body.push_back(std::move(tiles));

  SplitLoop(nest, "k", tk, {"k0", "k1"});
  SplitLoop(nest, "mi", {tm[1], tm[2]}, {"m1", "m2"});

  const std::string inner = config.Text("inner_axis") == "k" ? "k1" : "n2";
  std::vector<std::string> others;
  for (const char* name : {"k0", "m1", "n1", "k1", "m2", "n2"}) {
    if (name != inner) others.emplace_back(name);
  }
  std::vector<std::string> order;
  for (int64_t position : config.List("order")) order.push_back(others.at(position));
  order.push_back(inner);
  ReorderLoops(nest, order);

  if (vectorize) {
    SetLoopKind(nest, inner, LoopKind::kVectorized);
    SetLoopKind(nest, "zn", LoopKind::kVectorized);
    SetLoopKind(nest, "wn", LoopKind::kVectorized);
  }
  if (config.Int("unroll") != 0) SetLoopKind(nest, order[order.size() - 2], LoopKind::kUnrolled);
  // "b", "m", "n", "mn" (dense), "bm" (batch_matmul): the named outer loops run in parallel;
  // two directly nested parallel loops are collapsed by the emitter.
  const std::string parallel = config.Text("parallel");
  auto parallel_over = [&](char axis) {
    return parallel != "none" && parallel.find(axis) != std::string::npos;
  };
  if (parallel_over('b')) SetLoopKind(nest, "b", LoopKind::kParallel);
  if (parallel_over('m')) SetLoopKind(nest, "m0", LoopKind::kParallel);
  if (parallel_over('n')) SetLoopKind(nest, "n0", LoopKind::kParallel);
  return nest;
}

LoopNest MakeDenseNest(const DenseShape& shape, const ConfigView& config) {
  return MakeMatmulNest(MatmulDimsOf(shape), config);
}

}  // namespace glimpse::cpu
