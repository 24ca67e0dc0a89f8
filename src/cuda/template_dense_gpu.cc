// The dense and batch_matmul GPU templates: C[(b),M,N] = A[(b),M,K] · B[(b),N,K]ᵀ (+ bias[N])
// (then ReLU), one output tile per thread block, a register tile per thread (knobs in
// docs/gpu-tuning.md).
//
// Schedule (AutoTVM's dense/batch_matmul CUDA templates in spirit):
//   [b  blockIdx.z]                        batch_matmul only
//   bm blockIdx.y, bn blockIdx.x           tile_m_0 × tile_n_0 blocks
//     tm threadIdx.y, tn threadIdx.x       tile_m_2 × tile_n_2 threads
//       acc[tile_m_1·tile_m_3][tile_n_1·tile_n_3] = 0          registers (local, unrolled)
//       for k0 < tile_k_0
//         [As[k1][MT] = A tile, Bs[k1][NT] = B tile]          `cache`: cooperative copies into
//                                                              shared memory, k contiguous in
//                                                              global (`vector_load` wide)
//         for k1 < tile_k_1, vm, mi, vn, ni                   `auto_unroll_max_step` decides k1
//           acc[vm·m3 + mi][vn·n3 + ni] += A(row) · B(col)    from the tiles or from global
//       C[row][col] = acc (+ bias) (ReLU)                      ni vectorised with `vectorize`
// where row = bm·MT + vm·(m2·m3) + tm·m3 + mi (MT = m1·m2·m3) and col likewise: the vthread level
// (m1, n1) spreads a thread's elements m2·m3 apart, so that neighbouring threads touch
// neighbouring elements (coalesced stores, conflict-free shared reads).
#include <string>
#include <vector>

#include "cuda/template_util.h"
#include "glimpse/error.h"
#include "glimpse/op_compute.h"

namespace glimpse::gpu {

namespace {

// Accumulators per thread: with the operands of one step they must fit the 255 registers a
// thread may have, or the kernel spills.
constexpr int64_t kMaxAccumulators = 128;

ConfigSpace MakeMatmulGpuSpace(const MatmulDims& dims) {
  ConfigSpace space;
  space.AddKnob(Knob::Split("tile_m", dims.m, 4));  // block, vthread, thread, inner
  space.AddKnob(Knob::Split("tile_n", dims.n, 4));
  space.AddKnob(Knob::Split("tile_k", dims.k, 2));  // outer (serial), inner (unrolled)
  space.AddKnob(Knob::Ordered("cache", {int64_t{0}, int64_t{1}}));
  space.AddKnob(Knob::Ordered("vector_load", {int64_t{1}, int64_t{2}, int64_t{4}}));
  space.AddKnob(Knob::Ordered("vectorize", {int64_t{0}, int64_t{1}}));
  space.AddKnob(Knob::Ordered("auto_unroll_max_step", AutoUnrollValues()));
  space.AddRestriction("tile_m_2 * tile_n_2 <= " + std::to_string(kMaxThreadsPerBlock));
  space.AddRestriction("tile_m_1 * tile_m_3 * tile_n_1 * tile_n_3 <= " +
                       std::to_string(kMaxAccumulators));
  space.AddRestriction(
      "cache == 0 or 4 * tile_k_1 * (tile_m_1 * tile_m_2 * tile_m_3 + "
      "tile_n_1 * tile_n_2 * tile_n_3) <= " +
      std::to_string(kMaxSharedBytesPerBlock));
  space.AddRestriction("tile_m_0 <= " + std::to_string(kMaxGridY));
  // Vector loads are of the shared-memory copies only, and split their k loop.
  space.AddRestriction("vector_load == 1 or (cache == 1 and tile_k_1 % vector_load == 0)");
  // The vectorised loop is the thread's innermost n run: float2/float4 need an even length.
  space.AddRestriction("vectorize == 0 or tile_n_3 % 2 == 0");
  return space;
}

LoopNest MakeMatmulGpuNest(const MatmulDims& dims, const ConfigView& config) {
  const std::vector<int64_t> tm = config.List("tile_m"), tn = config.List("tile_n"),
                             tk = config.List("tile_k");
  const bool cache = config.Int("cache") != 0;
  const int64_t vector_load = config.Int("vector_load");
  const bool vectorize = config.Int("vectorize") != 0;
  const int64_t mt = tm[1] * tm[2] * tm[3], nt = tn[1] * tn[2] * tn[3];  // block tile
  const int64_t acc_m = tm[1] * tm[3], acc_n = tn[1] * tn[3];            // thread tile
  const bool batched = dims.batch > 0;

  CudaLaunch launch;
  launch.grid = {tn[0], tm[0], batched ? dims.batch : 1};
  launch.block = {tn[2], tm[2], 1};
  CheckLaunchLimits(dims.name, launch, cache ? 4 * tk[1] * (mt + nt) : 0);
  if (acc_m * acc_n > kMaxAccumulators) {
    throw Error(dims.name + ": " + std::to_string(acc_m * acc_n) +
                " accumulators per thread, at most " + std::to_string(kMaxAccumulators));
  }
  if (vector_load > 1 && (!cache || tk[1] % vector_load != 0)) {
    throw Error(dims.name + ": vector_load " + std::to_string(vector_load) +
                " needs cache=1 and tile_k_1 divisible by it");
  }

  using E = AffineExpr;

  LoopNest nest;
  nest.name = dims.name;
  const OperatorCompute compute = DeclareMatmulCompute(nest, dims);
  const int acc =
      nest.AddTensor({"acc", {acc_m, acc_n}, "MN", DType::kFloat32, TensorRole::kTemp, -1, "tn"});
  nest.tensors[acc].scope = MemoryScope::kLocal;

  // Position of a thread's element in the block tile, and in the output.
  auto tile_row = [&](const std::string& v, const std::string& i) {
    return E::Var(v, tm[2] * tm[3]) + E::Var("tm", tm[3]) + E::Var(i);
  };
  auto tile_col = [&](const std::string& v, const std::string& i) {
    return E::Var(v, tn[2] * tn[3]) + E::Var("tn", tn[3]) + E::Var(i);
  };
  // The output element of a thread's accumulator position (vm, mi, vn, ni).
  auto element = [&](const std::string& vm, const std::string& mi, const std::string& vn,
                     const std::string& ni) {
    AxisBinding at = {{"m", E::Var("bm", mt) + tile_row(vm, mi)},
                      {"n", E::Var("bn", nt) + tile_col(vn, ni)}};
    if (batched) at["b"] = E::Var("b");
    return at;
  };
  auto acc_at = [&](const std::string& vm, const std::string& mi, const std::string& vn,
                    const std::string& ni) {
    return Access{acc, {E::Var(vm, tm[3]) + E::Var(mi), E::Var(vn, tn[3]) + E::Var(ni)}};
  };
  // The accumulator loops vm, mi, vn, ni (prefixed), unrolled so that acc stays in registers;
  // ni vectorised when asked.
  auto thread_tile = [&](const std::string& p, Stmt stmt) {
    return Node::MakeLoop(
        {p + "vm", tm[1], LoopKind::kUnrolled},
        {Node::MakeLoop({p + "mi", tm[3], LoopKind::kUnrolled},
                        {Node::MakeLoop({p + "vn", tn[1], LoopKind::kUnrolled},
                                        {Node::MakeLoop({p + "ni", tn[3],
                                                         vectorize ? LoopKind::kVectorized
                                                                   : LoopKind::kUnrolled},
                                                        {Node::MakeStmt(std::move(stmt))})})})});
  };

  std::vector<Node> thread_body;
  thread_body.push_back(
      thread_tile("z", Stmt{StmtKind::kZero, acc_at("zvm", "zmi", "zvn", "zni")}));

  // The reduction: k = k0 · tile_k_1 + k1.
  const E k_base = E::Var("k0", tk[1]);
  std::vector<Node> k0_body;
  AxisBinding at = element("vm", "mi", "vn", "ni");
  at["k"] = k_base + E::Var("k1");
  Stmt mac;
  if (cache) {
    const int as =
        nest.AddTensor({"As", {tk[1], mt}, "KM", DType::kFloat32, TensorRole::kTemp, -1, "bn"});
    const int bs =
        nest.AddTensor({"Bs", {tk[1], nt}, "KN", DType::kFloat32, TensorRole::kTemp, -1, "bn"});
    nest.tensors[as].scope = MemoryScope::kShared;
    nest.tensors[bs].scope = MemoryScope::kShared;
    // The block's tile of an operand, k-major: rows from `origin` on × this step's k.
    AxisBinding origin = {{"m", E::Var("bm", mt)}, {"n", E::Var("bn", nt)}, {"k", k_base}};
    if (batched) origin["b"] = E::Var("b");
    auto tile_of = [&](Operand operand, int tile, int64_t rows) {
      std::vector<int64_t> extents = {rows, tk[1]};
      if (batched) extents.insert(extents.begin(), 0);
      return OperandCopy{tile, compute.Tile(operand, origin, extents).Permute({1, 0})};
    };
    const OperandCopy a_tile = tile_of(Operand::kInput, as, mt);
    const OperandCopy b_tile = tile_of(Operand::kWeight, bs, nt);
    // One cooperative copy per operand: rows × k, k innermost (contiguous in global memory), the
    // last vector_load elements of a row one vector access.
    auto copy = [&](const std::string& p, Operand operand, const OperandCopy& tile, int64_t rows) {
      const E kk = E::Var(p + "k", vector_load) + E::Var(p + "v");
      Stmt s = compute.Fill(operand, tile, {kk, E::Var(p + "r")});
      return Node::MakeLoop(
          {p + "r", rows, LoopKind::kCooperative},
          {Node::MakeLoop(
              {p + "k", tk[1] / vector_load, LoopKind::kCooperative},
              {Node::MakeLoop({p + "v", vector_load,
                               vector_load > 1 ? LoopKind::kVectorized : LoopKind::kSerial},
                              {Node::MakeStmt(s)})})});
    };
    k0_body.push_back(copy("a", Operand::kInput, a_tile, mt));
    k0_body.push_back(copy("b", Operand::kWeight, b_tile, nt));
    mac = compute.MultiplyAdd(acc_at("vm", "mi", "vn", "ni"), at, &a_tile, &b_tile);
  } else {
    mac = compute.MultiplyAdd(acc_at("vm", "mi", "vn", "ni"), at);
  }
  k0_body.push_back(Node::MakeLoop({"k1", tk[1]}, {thread_tile("", mac)}));
  thread_body.push_back(Node::MakeLoop({"k0", tk[0]}, std::move(k0_body)));

  Stmt store =
      compute.Store(element("wvm", "wmi", "wvn", "wni"), acc_at("wvm", "wmi", "wvn", "wni"));
  thread_body.push_back(thread_tile("w", store));

  Node top = Node::MakeLoop(
      {"bm", tm[0], LoopKind::kBlockY},
      {Node::MakeLoop({"bn", tn[0], LoopKind::kBlockX},
                      {Node::MakeLoop({"tm", tm[2], LoopKind::kThreadY},
                                      {Node::MakeLoop({"tn", tn[2], LoopKind::kThreadX},
                                                      std::move(thread_body))})})});
  if (batched) top = Node::MakeLoop({"b", dims.batch, LoopKind::kBlockZ}, {std::move(top)});
  nest.body.push_back(std::move(top));
  ApplyAutoUnroll(nest, "k0", config.Int("auto_unroll_max_step"));
  return nest;
}

}  // namespace

ConfigSpace MakeDenseGpuSpace(const DenseShape& shape) {
  return MakeMatmulGpuSpace(MatmulDimsOf(shape));
}

LoopNest MakeDenseGpuNest(const DenseShape& shape, const ConfigView& config) {
  return MakeMatmulGpuNest(MatmulDimsOf(shape), config);
}

ConfigSpace MakeBatchMatmulGpuSpace(const BatchMatmulShape& shape) {
  if (shape.b > kMaxGridY) {
    throw Error("batch_matmul: batch " + std::to_string(shape.b) + " exceeds the grid's z limit " +
                std::to_string(kMaxGridY));
  }
  return MakeMatmulGpuSpace(MatmulDimsOf(shape));
}

LoopNest MakeBatchMatmulGpuNest(const BatchMatmulShape& shape, const ConfigView& config) {
  return MakeMatmulGpuNest(MatmulDimsOf(shape), config);
}

}  // namespace glimpse::gpu
