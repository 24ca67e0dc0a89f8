// The depthwise conv2d GPU template (channel multiplier 1), after AutoTVM's depthwise_conv2d_nchw
// CUDA schedule: out[n,c,y,x] = Σ_{r,s} in[n,c,y·stride + r·dil − pad, x·stride + s·dil − pad] ·
// w[c,r,s] (+ bias[c]) (then ReLU). Knobs and their mapping are documented in docs/gpu-tuning.md.
//
// Channels c, rows y and columns x are each split four ways, outermost first (block, virtual
// thread, thread, inner), as in the direct conv2d template; Cb / Yb / Xb are a block's tile.
//
//   for n, bc   blockIdx.z (fused: n slowest)       for by blockIdx.y, bx blockIdx.x
//    for tc threadIdx.z, ty threadIdx.y, tx threadIdx.x
//     [cache_input: AA[Cb][WH][WW] shared = in[…]   cooperative: the block's padded input
//                                                    window, zero outside the input]
//     acc[C1·C3][Y1·Y3][X1·X3]  local = 0
//     for r, s (unrolled), vc, vy, vx (unrolled: TVM's vthreads), ci, yi, xi
//       acc += (AA or in)[…] · w[c][r][s]
//     out = acc (+ bias) (ReLU)
// There is no reduction over channels, so the window is loaded once per block.
#include <string>
#include <utility>
#include <vector>

#include "cuda/template_util.h"
#include "glimpse/error.h"
#include "glimpse/op_tensors.h"

namespace glimpse::gpu {

using E = AffineExpr;

ConfigSpace MakeDepthwiseGpuSpace(const DepthwiseConv2dShape& shape) {
  ConfigSpace space;
  space.AddKnob(Knob::Split("tile_c", shape.c, 4));
  space.AddKnob(Knob::Split("tile_y", shape.OutH(), 4));
  space.AddKnob(Knob::Split("tile_x", shape.OutW(), 4));
  space.AddKnob(Knob::Ordered("cache_input", {int64_t{0}, int64_t{1}}));
  space.AddKnob(Knob::Ordered("auto_unroll_max_step", {int64_t{0}, int64_t{256}, int64_t{1500}}));
  const std::string st = std::to_string(shape.stride);
  const std::string window_h = "((tile_y_1 * tile_y_2 * tile_y_3 - 1) * " + st + " + " +
                               std::to_string((shape.r - 1) * shape.dilation + 1) + ")";
  const std::string window_w = "((tile_x_1 * tile_x_2 * tile_x_3 - 1) * " + st + " + " +
                               std::to_string((shape.s - 1) * shape.dilation + 1) + ")";
  space.AddRestriction("tile_c_2 * tile_y_2 * tile_x_2 <= " + std::to_string(kMaxThreadsPerBlock));
  space.AddRestriction("tile_c_2 <= 64");  // blockDim.z
  space.AddRestriction("tile_c_1 * tile_c_3 * tile_y_1 * tile_y_3 * tile_x_1 * tile_x_3 <= " +
                       std::to_string(kMaxLocalFloats));
  space.AddRestriction("cache_input == 0 or 4 * tile_c_1 * tile_c_2 * tile_c_3 * " + window_h +
                       " * " + window_w + " <= " + std::to_string(kMaxSharedBytesPerBlock));
  space.AddRestriction(std::to_string(shape.n) + " * tile_c_0 <= " + std::to_string(kMaxGridY));
  space.AddRestriction("tile_y_0 <= " + std::to_string(kMaxGridY));
  return space;
}

LoopNest MakeDepthwiseGpuNest(const DepthwiseConv2dShape& shape, const ConfigView& config) {
  const std::vector<int64_t> tc = config.List("tile_c"), ty = config.List("tile_y"),
                             tx = config.List("tile_x");
  const int64_t cb = tc[1] * tc[2] * tc[3], yb = ty[1] * ty[2] * ty[3], xb = tx[1] * tx[2] * tx[3];
  const int64_t acc_floats = tc[1] * tc[3] * ty[1] * ty[3] * tx[1] * tx[3];
  if (acc_floats > kMaxLocalFloats) {
    throw Error("depthwise_conv2d gpu: accumulator of " + std::to_string(acc_floats) +
                " floats per thread; at most " + std::to_string(kMaxLocalFloats));
  }
  const bool cache = config.Int("cache_input") != 0;
  const int64_t stride = shape.stride, dil = shape.dilation;
  const int64_t window_h = (yb - 1) * stride + (shape.r - 1) * dil + 1;
  const int64_t window_w = (xb - 1) * stride + (shape.s - 1) * dil + 1;

  LoopNest nest;
  nest.name = "depthwise_conv2d_gpu";
  const OperatorTensors tensors = DeclareOperatorTensors(nest, shape);
  const int in = tensors.input, w = tensors.weight, out = tensors.output;
  int acc = nest.AddTensor({"acc",
                            {tc[1] * tc[3], ty[1] * ty[3], tx[1] * tx[3]},
                            "CHW",
                            DType::kFloat32,
                            TensorRole::kTemp,
                            -1,
                            "tx"});
  nest.tensors[acc].scope = MemoryScope::kLocal;

  const std::vector<TiledAxis> axes = {{"c", tc}, {"y", ty}, {"x", tx}};
  const TiledAxis &axis_c = axes[0], &axis_y = axes[1], &axis_x = axes[2];
  auto acc_at = [&](const std::string& p) { return ThreadTileAccess(acc, axes, p); };
  auto tile_loops = [&](const std::string& p) {
    return ThreadTileLoops(axes, p, LoopKind::kSerial);
  };

  std::vector<Node> thread_body;
  Access input;
  const E c_out = E::Var("bc", cb) + axis_c.InBlock("");
  if (cache) {
    int aa = nest.AddTensor(
        {"AA", {cb, window_h, window_w}, "CHW", DType::kFloat32, TensorRole::kTemp, -1, "bx"});
    nest.tensors[aa].scope = MemoryScope::kShared;
    Stmt load{StmtKind::kCopy,
              {aa, {E::Var("a_c"), E::Var("a_h"), E::Var("a_w")}},
              {in,
               {E::Var("n"), E::Var("bc", cb) + E::Var("a_c"),
                E::Var("by", yb * stride) + E::Var("a_h") + E::Const(-shape.pad),
                E::Var("bx", xb * stride) + E::Var("a_w") + E::Const(-shape.pad)},
               /*zero_outside=*/shape.pad > 0}};
    thread_body.push_back(NestLoops({{"a_c", cb, LoopKind::kCooperative},
                                     {"a_h", window_h, LoopKind::kCooperative},
                                     {"a_w", window_w, LoopKind::kCooperative}},
                                    {Node::MakeStmt(load)}));
    input = {aa,
             {axis_c.InBlock(""), axis_y.InBlock("") * stride + E::Var("r", dil),
              axis_x.InBlock("") * stride + E::Var("s", dil)}};
  } else {
    const E pad = E::Const(-shape.pad);
    input = {in,
             {E::Var("n"), c_out,
              (E::Var("by", yb) + axis_y.InBlock("")) * stride + E::Var("r", dil) + pad,
              (E::Var("bx", xb) + axis_x.InBlock("")) * stride + E::Var("s", dil) + pad},
             /*zero_outside=*/shape.pad > 0};
  }

  thread_body.push_back(
      NestLoops(tile_loops("z_"), {Node::MakeStmt(Stmt(StmtKind::kZero, acc_at("z_")))}));
  Stmt mac{StmtKind::kMultiplyAdd, acc_at(""), input, {w, {c_out, E::Var("r"), E::Var("s")}}};
  std::vector<Loop> inner = {{"r", shape.r, LoopKind::kUnrolled},
                             {"s", shape.s, LoopKind::kUnrolled}};
  for (const Loop& loop : tile_loops("")) inner.push_back(loop);
  thread_body.push_back(NestLoops(inner, {Node::MakeStmt(mac)}));

  const E c_store = E::Var("bc", cb) + axis_c.InBlock("s_");
  Stmt store = tensors.Store({out,
                              {E::Var("n"), c_store, E::Var("by", yb) + axis_y.InBlock("s_"),
                               E::Var("bx", xb) + axis_x.InBlock("s_")}},
                             acc_at("s_"));
  thread_body.push_back(NestLoops(tile_loops("s_"), {Node::MakeStmt(store)}));

  nest.body.push_back(
      NestLoops(ConvolutionLaunchLoops(shape.n, axis_c, axis_y, axis_x), std::move(thread_body)));

  // As in the direct conv2d template, the step budget unrolls the innermost tile loops (the
  // vthread loops and r, s are unrolled whatever it is). AutoTVM's unroll_explicit is left out:
  // with r and s always unrolled there is no further loop it could reach here.
  const int64_t max_step = config.Int("auto_unroll_max_step");
  for (const char* root : {"z_vx", "s_vx", "vx"}) ApplyAutoUnroll(nest, root, max_step);
  nest.Validate();
  CudaLaunch launch;
  launch.grid = {tx[0], ty[0], shape.n * tc[0]};
  launch.block = {tx[2], ty[2], tc[2]};
  CheckLaunchLimits("depthwise_conv2d gpu", launch, cache ? 4 * cb * window_h * window_w : 0);
  return nest;
}

}  // namespace glimpse::gpu
