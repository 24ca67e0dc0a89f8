// Winograd conv2d F(2×2, 3×3) on the GPU, for 3×3, stride-1, dilation-1 layers (any padding,
// any H/W, batch, bias, ReLU). Knobs and their meaning are documented in docs/gpu-tuning.md
// ("conv2d (winograd)").
//
// With m = 2 outputs per tile side and α = m + 2 = 4 inputs per tile side, output tile
// (th, tw) of image n is Y = Aᵀ·[Σ_c U[·][·][k][c] ⊙ V_c]·A, where
//   U[ξ][ν][k][c] = (G·w[k][c]·Gᵀ)[ξ][ν]   the weight transform (prepare body, untimed)
//   V_c[ξ][ν] = (Bᵀ·d_c·B)[ξ][ν]           d_c: the α×α input patch at (th·m − pad, tw·m − pad)
// Bᵀ, Aᵀ and GG[ξ][ν][r][s] = G[ξ][r]·G[ν][s] are kLiteral tables. The transforms are written as
// one statement per nonzero coefficient, at constant indices, so that after unrolling the
// compiler folds the table values (a multiply by ±1 becomes an add or subtract, zeros cost
// nothing).
//
// Output channels k are split four ways like the direct template's tile_f
// (k = ((bf·F1 + vf)·F2 + tf)·F3 + fi), tile rows and columns likewise with tile_th / tile_tw:
//
//   for n, bf blockIdx.z; by blockIdx.y; bx blockIdx.x; tf threadIdx.z; ty .y; tx .x
//     M[F1·F3][Y1·Y3][X1·X3][α][α] local = 0
//     for rco
//       [UU[α][α][Fb][RCi] shared ← U          cooperative, cache_u = 1]
//       [AA[RCi][Yb·m+2][Xb·m+2] shared ← in   cooperative, zero outside, cache_input = 1]
//       for rci
//         for each of the thread's tiles: d = patch (guarded loads), T = Bᵀ·d, V[tile] = T·B
//         M[f][tile] += U[·][·][k][c] ⊙ V[tile]          (unrolled: F1·F3 × tiles × α²)
//     for each (f, tile): S = Aᵀ·M, Y = S·A, out[n][k][th·m + a][tw·m + b] = Y (+ bias) (ReLU),
//                          a store guarded where the last tile overhangs an odd OH / OW.
#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "cuda/template_util.h"
#include "glimpse/error.h"
#include "glimpse/op_compute.h"

namespace glimpse::gpu {

namespace {

using E = AffineExpr;

constexpr int64_t kM = 2;           // outputs per tile side
constexpr int64_t kAlpha = kM + 2;  // inputs per tile side (kernel size 3)

// F(2×2, 3×3) with interpolation points 0, 1, −1 (Lavin & Gray), row-major.
constexpr float kBt[] = {1, 0,  -1, 0,  //
                         0, 1,  1,  0,  //
                         0, -1, 1,  0,  //
                         0, 1,  0,  -1};
constexpr float kG[] = {1,    0,     0,     //
                        0.5f, 0.5f,  0.5f,  //
                        0.5f, -0.5f, 0.5f,  //
                        0,    0,     1};
constexpr float kAt[] = {1, 1, 1,  0,  //
                         0, 1, -1, -1};

// dst(row) = Σ_col table[row][col] · src(col) for every row, at constant indices: a term whose
// coefficient is 1 starts the sum as a copy (where the row has one; else a kZero), every other
// nonzero coefficient is one kMultiplyAdd. Starting from 0.0f would cost an add per row, which
// the compiler may not drop (0 + x is not x for x = −0).
std::vector<Node> LinearMap(int table, const float* values, int64_t rows, int64_t cols,
                            const std::function<Access(int64_t)>& dst,
                            const std::function<Access(int64_t)>& src, bool transpose = false) {
  std::vector<Node> nodes;
  for (int64_t row = 0; row < rows; ++row) {
    const float* coefficients = values + row * cols;
    const int64_t first =
        std::find(coefficients, coefficients + cols, 1.0f) - coefficients;  // cols: none
    if (first < cols) {
      nodes.push_back(Node::MakeStmt(Stmt(StmtKind::kCopy, dst(row), src(first))));
    } else {
      nodes.push_back(Node::MakeStmt(Stmt(StmtKind::kZero, dst(row))));
    }
    for (int64_t col = 0; col < cols; ++col) {
      if (coefficients[col] == 0.0f || col == first) continue;
      Access coefficient{table, {E::Const(row), E::Const(col)}};
      nodes.push_back(
          Node::MakeStmt(Stmt(StmtKind::kMultiplyAdd, dst(row), transpose ? src(col) : coefficient,
                              transpose ? coefficient : src(col))));
    }
  }
  return nodes;
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The largest divisor of `n` that is at most `limit`.
int64_t DivisorAtMost(int64_t n, int64_t limit) {
  for (int64_t d = std::min(n, limit); d > 1; --d) {
    if (n % d == 0) return d;
  }
  return 1;
}

}  // namespace

bool Conv2dWinogradApplies(const Conv2dShape& shape) {
  return shape.r == 3 && shape.s == 3 && shape.stride == 1 && shape.dilation == 1;
}

int64_t WinogradTilesH(const Conv2dShape& shape) { return CeilDiv(shape.OutH(), kM); }
int64_t WinogradTilesW(const Conv2dShape& shape) { return CeilDiv(shape.OutW(), kM); }

ConfigSpace AddWinogradKnobs(const ConfigSpace& direct, const Conv2dShape& shape) {
  if (!Conv2dWinogradApplies(shape)) return direct;
  ConfigSpace space;
  for (const Knob& knob : direct.knobs()) space.AddKnob(knob);
  space.AddKnob(Knob::Split("tile_th", WinogradTilesH(shape), 4));
  space.AddKnob(Knob::Split("tile_tw", WinogradTilesW(shape), 4));
  space.AddKnob(Knob::Ordered("cache_u", {int64_t{0}, int64_t{1}}));
  space.AddKnob(Knob::Ordered("cache_input", {int64_t{0}, int64_t{1}}));
  for (const std::string& restriction : direct.restrictions()) space.AddRestriction(restriction);
  // The limits of src/cuda/template_util.h for winograd configurations (direct ones ignore these
  // knobs). Accumulators: α² floats per (channel, tile) of a thread.
  const std::string a2 = std::to_string(kAlpha * kAlpha), m = std::to_string(kM);
  const std::string window = "(tile_th_1 * tile_th_2 * tile_th_3 * " + m + " + 2) * " +
                             "(tile_tw_1 * tile_tw_2 * tile_tw_3 * " + m + " + 2)";
  const std::vector<std::string> limits = {
      "tile_f_2 * tile_th_2 * tile_tw_2 <= " + std::to_string(kMaxThreadsPerBlock),
      "tile_f_2 <= 64",
      a2 + " * tile_f_1 * tile_f_3 * tile_th_1 * tile_th_3 * tile_tw_1 * tile_tw_3 <= " +
          std::to_string(kMaxLocalFloats),
      "4 * (cache_u * " + a2 + " * tile_f_1 * tile_f_2 * tile_f_3 * tile_rc_1 + cache_input * " +
          "tile_rc_1 * " + window + ") <= " + std::to_string(kMaxSharedBytesPerBlock),
      std::to_string(shape.n) + " * tile_f_0 <= " + std::to_string(kMaxGridY),
      "tile_th_0 <= " + std::to_string(kMaxGridY),
  };
  for (const std::string& limit : limits) space.AddRestriction("algorithm == 'direct' or " + limit);
  return space;
}

LoopNest MakeWinogradGpuNest(const Conv2dShape& shape, const ConfigView& config) {
  if (!Conv2dWinogradApplies(shape)) {
    throw Error(
        "conv2d gpu: algorithm 'winograd' needs a 3x3 kernel, stride 1 and dilation 1 "
        "(this layer has " +
        std::to_string(shape.r) + "x" + std::to_string(shape.s) + ", stride " +
        std::to_string(shape.stride) + ", dilation " + std::to_string(shape.dilation) +
        "); accepted: direct");
  }
  if (!config.Has("tile_th")) {
    throw Error(
        "conv2d gpu: algorithm 'winograd' needs the knobs tile_th, tile_tw, cache_u and "
        "cache_input (the space of MakeGpuSpace)");
  }
  const std::vector<int64_t> tf = config.List("tile_f"), ty = config.List("tile_th"),
                             tx = config.List("tile_tw"), trc = config.List("tile_rc");
  const bool cache_u = config.Int("cache_u") != 0;
  const bool cache_input = config.Int("cache_input") != 0;
  const int64_t fb = tf[1] * tf[2] * tf[3], yb = ty[1] * ty[2] * ty[3], xb = tx[1] * tx[2] * tx[3];
  const int64_t ft = tf[1] * tf[3], yt = ty[1] * ty[3], xt = tx[1] * tx[3];
  const int64_t acc_floats = ft * yt * xt * kAlpha * kAlpha;
  if (acc_floats > kMaxLocalFloats) {
    throw Error("conv2d gpu winograd: accumulator of " + std::to_string(acc_floats) +
                " floats per thread; at most " + std::to_string(kMaxLocalFloats));
  }
  const int64_t rci = trc[1];
  const int64_t oh = shape.OutH(), ow = shape.OutW();
  const int64_t window_h = yb * kM + 2, window_w = xb * kM + 2;

  LoopNest nest;
  nest.name = "conv2d_winograd_gpu";
  // Winograd is another algorithm, not a schedule of the direct computation: it transforms the
  // weights and input tiles, and its 2×2 tiles overhang an odd output (reading input past the
  // direct computation's window, as zeros). So it states its own reads; the tensors and the
  // output statement are the operator's.
  const OperatorCompute compute = DeclareOperatorCompute(nest, shape);
  const int in = compute.tensors.input, w = compute.tensors.weight;
  auto literal = [&](const std::string& name, int64_t rows, int64_t cols, const float* values) {
    int t = nest.AddTensor({name, {rows, cols}, "", DType::kFloat32, TensorRole::kLiteral});
    nest.tensors[t].values.assign(values, values + rows * cols);
    return t;
  };
  const int bt = literal("Bt", kAlpha, kAlpha, kBt);
  const int at = literal("At", kM, kAlpha, kAt);
  int u = nest.AddTensor(
      {"U", {kAlpha, kAlpha, shape.k, shape.c}, "XNKC", DType::kFloat32, TensorRole::kPrepared});

  // ---- prepare: U[ξ][ν][k][c] = Σ_{r,s} GG[ξ][ν][r][s]·w[k][c][r][s], one thread per (k, c),
  // with GG[ξ][ν][r][s] = G[ξ][r]·G[ν][s] a literal table (a statement multiplies two operands,
  // and prepare writes only prepared tensors, so G·w·Gᵀ is one sum over the 9 weights); one
  // multiply-add per nonzero coefficient.
  std::vector<float> gg(kAlpha * kAlpha * 9);
  for (int64_t xi = 0; xi < kAlpha; ++xi) {
    for (int64_t nu = 0; nu < kAlpha; ++nu) {
      for (int64_t r = 0; r < 3; ++r) {
        for (int64_t c = 0; c < 3; ++c) {
          gg[((xi * kAlpha + nu) * 3 + r) * 3 + c] = kG[xi * 3 + r] * kG[nu * 3 + c];
        }
      }
    }
  }
  int ggt =
      nest.AddTensor({"GG", {kAlpha, kAlpha, 3, 3}, "XNRS", DType::kFloat32, TensorRole::kLiteral});
  nest.tensors[ggt].values = gg;
  {
    const int64_t ct = DivisorAtMost(shape.c, 128);
    const E pk = E::Var("p_k"), pc = E::Var("p_cb", ct) + E::Var("p_ct");
    std::vector<Node> weight;
    for (int64_t xi = 0; xi < kAlpha; ++xi) {
      for (int64_t nu = 0; nu < kAlpha; ++nu) {
        Access dst{u, {E::Const(xi), E::Const(nu), pk, pc}};
        weight.push_back(Node::MakeStmt(Stmt(StmtKind::kZero, dst)));
        for (int64_t r = 0; r < 3; ++r) {
          for (int64_t c = 0; c < 3; ++c) {
            if (gg[((xi * kAlpha + nu) * 3 + r) * 3 + c] == 0.0f) continue;
            weight.push_back(Node::MakeStmt(
                Stmt(StmtKind::kMultiplyAdd, dst,
                     Access{ggt, {E::Const(xi), E::Const(nu), E::Const(r), E::Const(c)}},
                     Access{w, {pk, pc, E::Const(r), E::Const(c)}})));
          }
        }
      }
    }
    nest.prepare.push_back(NestLoops({{"p_k", shape.k, LoopKind::kBlockY},
                                      {"p_cb", shape.c / ct, LoopKind::kBlockX},
                                      {"p_ct", ct, LoopKind::kThreadX}},
                                     std::move(weight)));
  }

  // ---- body
  int uu = -1, aa = -1;
  if (cache_u) {
    uu = nest.AddTensor(
        {"UU", {kAlpha, kAlpha, fb, rci}, "XNKC", DType::kFloat32, TensorRole::kTemp, -1, "bx"});
    nest.tensors[uu].scope = MemoryScope::kShared;
  }
  if (cache_input) {
    aa = nest.AddTensor(
        {"AA", {rci, window_h, window_w}, "CHW", DType::kFloat32, TensorRole::kTemp, -1, "bx"});
    nest.tensors[aa].scope = MemoryScope::kShared;
  }
  int acc = nest.AddTensor(
      {"M", {ft, yt, xt, kAlpha, kAlpha}, "KHWXN", DType::kFloat32, TensorRole::kTemp, -1, "tx"});
  nest.tensors[acc].scope = MemoryScope::kLocal;
  int v = nest.AddTensor(
      {"V", {yt, xt, kAlpha, kAlpha}, "HWXN", DType::kFloat32, TensorRole::kTemp, -1, "rci"});
  nest.tensors[v].scope = MemoryScope::kLocal;
  int d =
      nest.AddTensor({"d", {kAlpha, kAlpha}, "HW", DType::kFloat32, TensorRole::kTemp, -1, "v_xi"});
  nest.tensors[d].scope = MemoryScope::kLocal;
  int t =
      nest.AddTensor({"T", {kAlpha, kAlpha}, "XW", DType::kFloat32, TensorRole::kTemp, -1, "v_xi"});
  nest.tensors[t].scope = MemoryScope::kLocal;
  int s = nest.AddTensor({"S", {kM, kAlpha}, "AN", DType::kFloat32, TensorRole::kTemp, -1, "o_xi"});
  nest.tensors[s].scope = MemoryScope::kLocal;
  int y = nest.AddTensor({"Y", {kM, kM}, "AB", DType::kFloat32, TensorRole::kTemp, -1, "o_xi"});
  nest.tensors[y].scope = MemoryScope::kLocal;

  // Positions for loops with prefix `p`: inside the block's tile and the thread's own tiles.
  const TiledAxis axis_f{"f", tf}, axis_y{"y", ty}, axis_x{"x", tx};
  // A thread's own tile (with or without the channel axis), every loop unrolled.
  auto tile_loops = [&](const std::string& p, bool with_f) {
    return with_f ? ThreadTileLoops({axis_f, axis_y, axis_x}, p, LoopKind::kUnrolled)
                  : ThreadTileLoops({axis_y, axis_x}, p, LoopKind::kUnrolled);
  };

  std::vector<Loop> zero_loops = tile_loops("z_", true);
  zero_loops.insert(zero_loops.end(),
                    {{"z_e", kAlpha, LoopKind::kUnrolled}, {"z_n", kAlpha, LoopKind::kUnrolled}});
  Node zero = NestLoops(
      zero_loops,
      {Node::MakeStmt(
          Stmt(StmtKind::kZero, Access{acc,
                                       {axis_f.InThread("z_"), axis_y.InThread("z_"),
                                        axis_x.InThread("z_"), E::Var("z_e"), E::Var("z_n")}}))});

  const E c_now = E::Var("rco", rci) + E::Var("rci");
  std::vector<Node> step;
  if (cache_u) {
    Stmt copy{StmtKind::kCopy,
              {uu, {E::Var("u_e"), E::Var("u_n"), E::Var("u_f"), E::Var("u_c")}},
              {u,
               {E::Var("u_e"), E::Var("u_n"), E::Var("bf", fb) + E::Var("u_f"),
                E::Var("rco", rci) + E::Var("u_c")}}};
    step.push_back(NestLoops({{"u_e", kAlpha, LoopKind::kCooperative},
                              {"u_n", kAlpha, LoopKind::kCooperative},
                              {"u_f", fb, LoopKind::kCooperative},
                              {"u_c", rci, LoopKind::kCooperative}},
                             {Node::MakeStmt(copy)}));
  }
  if (cache_input) {
    Stmt copy{StmtKind::kCopy,
              {aa, {E::Var("a_c"), E::Var("a_h"), E::Var("a_w")}},
              {in,
               {E::Var("n"), E::Var("rco", rci) + E::Var("a_c"),
                E::Var("by", yb * kM) + E::Var("a_h") + E::Const(-shape.pad),
                E::Var("bx", xb * kM) + E::Var("a_w") + E::Const(-shape.pad)},
               /*zero_outside=*/true}};
    step.push_back(NestLoops({{"a_c", rci, LoopKind::kCooperative},
                              {"a_h", window_h, LoopKind::kCooperative},
                              {"a_w", window_w, LoopKind::kCooperative}},
                             {Node::MakeStmt(copy)}));
  }

  // The input transform of each of the thread's tiles, into V.
  Access patch;
  if (cache_input) {
    patch = {aa,
             {E::Var("rci"), axis_y.InBlock("v_") * kM + E::Var("d_i"),
              axis_x.InBlock("v_") * kM + E::Var("d_j")}};
  } else {
    // Guarded where the patch reaches the padding or past the last row / column.
    patch = {
        in,
        {E::Var("n"), c_now,
         (E::Var("by", yb) + axis_y.InBlock("v_")) * kM + E::Var("d_i") + E::Const(-shape.pad),
         (E::Var("bx", xb) + axis_x.InBlock("v_")) * kM + E::Var("d_j") + E::Const(-shape.pad)},
        /*zero_outside=*/true};
  }
  Node load = NestLoops(
      {{"d_i", kAlpha, LoopKind::kUnrolled}, {"d_j", kAlpha, LoopKind::kUnrolled}},
      {Node::MakeStmt(Stmt(StmtKind::kCopy, {d, {E::Var("d_i"), E::Var("d_j")}}, patch))});
  Node rows = NestLoops({{"t_j", kAlpha, LoopKind::kUnrolled}},
                        LinearMap(
                            bt, kBt, kAlpha, kAlpha,
                            [&](int64_t xi) {
                              return Access{t, {E::Const(xi), E::Var("t_j")}};
                            },
                            [&](int64_t i) {
                              return Access{d, {E::Const(i), E::Var("t_j")}};
                            }));
  auto v_at = [&](const std::string& p, const E& xi, const E& nu) {
    return Access{v, {axis_y.InThread(p), axis_x.InThread(p), xi, nu}};
  };
  Node cols = NestLoops({{"w_x", kAlpha, LoopKind::kUnrolled}},
                        LinearMap(
                            bt, kBt, kAlpha, kAlpha,
                            [&](int64_t nu) { return v_at("v_", E::Var("w_x"), E::Const(nu)); },
                            [&](int64_t j) {
                              return Access{t, {E::Var("w_x"), E::Const(j)}};
                            },
                            /*transpose=*/true));
  Node transform =
      NestLoops(tile_loops("v_", false), {std::move(load), std::move(rows), std::move(cols)});

  // The batched product over this channel: M[f][tile][ξ][ν] += U[ξ][ν][k][c] · V[tile][ξ][ν].
  std::vector<Loop> gemm_loops = tile_loops("g_", true);
  gemm_loops.insert(gemm_loops.end(),
                    {{"g_e", kAlpha, LoopKind::kUnrolled}, {"g_n", kAlpha, LoopKind::kUnrolled}});
  Access u_at =
      cache_u
          ? Access{uu, {E::Var("g_e"), E::Var("g_n"), axis_f.InBlock("g_"), E::Var("rci")}}
          : Access{u,
                   {E::Var("g_e"), E::Var("g_n"), E::Var("bf", fb) + axis_f.InBlock("g_"), c_now}};
  Node gemm =
      NestLoops(gemm_loops,
                {Node::MakeStmt(Stmt(StmtKind::kMultiplyAdd,
                                     Access{acc,
                                            {axis_f.InThread("g_"), axis_y.InThread("g_"),
                                             axis_x.InThread("g_"), E::Var("g_e"), E::Var("g_n")}},
                                     u_at, v_at("g_", E::Var("g_e"), E::Var("g_n"))))});
  Node channel = Node::MakeLoop({"rci", rci}, {std::move(transform), std::move(gemm)});
  step.push_back(std::move(channel));
  Node reduction = Node::MakeLoop({"rco", trc[0]}, std::move(step));

  // The output transform and the (guarded) store of each 2×2 output tile.
  const E m_f = axis_f.InThread("o_"), m_y = axis_y.InThread("o_"), m_x = axis_x.InThread("o_");
  Node s_map = NestLoops({{"s_n", kAlpha, LoopKind::kUnrolled}},
                         LinearMap(
                             at, kAt, kM, kAlpha,
                             [&](int64_t a) {
                               return Access{s, {E::Const(a), E::Var("s_n")}};
                             },
                             [&](int64_t xi) {
                               return Access{acc, {m_f, m_y, m_x, E::Const(xi), E::Var("s_n")}};
                             }));
  Node y_map = NestLoops({{"y_a", kM, LoopKind::kUnrolled}},
                         LinearMap(
                             at, kAt, kM, kAlpha,
                             [&](int64_t b) {
                               return Access{y, {E::Var("y_a"), E::Const(b)}};
                             },
                             [&](int64_t nu) {
                               return Access{s, {E::Var("y_a"), E::Const(nu)}};
                             },
                             /*transpose=*/true));
  Stmt store = compute.Store(
      {{"n", E::Var("n")},
       {"k", E::Var("bf", fb) + axis_f.InBlock("o_")},
       {"oh", (E::Var("by", yb) + axis_y.InBlock("o_")) * kM + E::Var("st_a")},
       {"ow", (E::Var("bx", xb) + axis_x.InBlock("o_")) * kM + E::Var("st_b")}},
      {y, {E::Var("st_a"), E::Var("st_b")}}, /*guarded=*/oh % kM != 0 || ow % kM != 0);
  Node store_tile =
      NestLoops({{"st_a", kM, LoopKind::kUnrolled}, {"st_b", kM, LoopKind::kUnrolled}},
                {Node::MakeStmt(store)});
  Node output = NestLoops(tile_loops("o_", true),
                          {std::move(s_map), std::move(y_map), std::move(store_tile)});

  nest.body.push_back(NestLoops(ConvolutionLaunchLoops(shape.n, axis_f, axis_y, axis_x),
                                {std::move(zero), std::move(reduction), std::move(output)}));
  nest.Validate();
  CudaLaunch launch;
  launch.grid = {tx[0], ty[0], shape.n * tf[0]};
  launch.block = {tx[2], ty[2], tf[2]};
  int64_t shared = 0;
  if (uu >= 0) shared += 4 * nest.tensors[uu].NumElements();
  if (aa >= 0) shared += 4 * nest.tensors[aa].NumElements();
  CheckLaunchLimits("conv2d gpu winograd", launch, shared);
  return nest;
}

}  // namespace glimpse::gpu
