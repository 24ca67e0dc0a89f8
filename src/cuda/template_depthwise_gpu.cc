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
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cuda/template_util.h"
#include "glimpse/error.h"
#include "glimpse/op_compute.h"

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
  const OperatorCompute compute = DeclareOperatorCompute(nest, shape);
  const ThreadAccumulator acc(nest, {{"c", tc}, {"y", ty}, {"x", tx}}, "CHW", "tx");
  const TiledAxis &axis_c = acc.axes[0], &axis_y = acc.axes[1], &axis_x = acc.axes[2];

  auto element = [&](const std::string& p) {
    return ConvolutionOutputElement("c", axis_c, axis_y, axis_x, p);
  };
  AxisBinding at = element("");
  at["r"] = E::Var("r");
  at["s"] = E::Var("s");

  std::vector<Node> thread_body;
  std::optional<OperandCopy> in_tile;
  if (cache) {
    // The input window the block's outputs read, from the element its first output's first tap
    // reads on.
    const AxisBinding origin = {{"n", E::Var("n")},       {"c", E::Var("bc", cb)},
                                {"oh", E::Var("by", yb)}, {"ow", E::Var("bx", xb)},
                                {"r", E::Const(0)},       {"s", E::Const(0)}};
    in_tile = OperandCopy{
        nest.AddTensor(
            {"AA", {cb, window_h, window_w}, "CHW", DType::kFloat32, TensorRole::kTemp, -1, "bx"}),
        compute.Tile(Operand::kInput, origin, {0, cb, window_h, window_w})};
    nest.tensors[in_tile->tensor].scope = MemoryScope::kShared;
    Stmt load =
        compute.Fill(Operand::kInput, *in_tile, {E::Var("a_c"), E::Var("a_h"), E::Var("a_w")});
    thread_body.push_back(NestLoops({{"a_c", cb, LoopKind::kCooperative},
                                     {"a_h", window_h, LoopKind::kCooperative},
                                     {"a_w", window_w, LoopKind::kCooperative}},
                                    {Node::MakeStmt(load)}));
  }

  thread_body.push_back(acc.Zero());
  Stmt mac = compute.MultiplyAdd(acc.At(""), at, in_tile ? &*in_tile : nullptr);
  std::vector<Loop> inner = {{"r", shape.r, LoopKind::kUnrolled},
                             {"s", shape.s, LoopKind::kUnrolled}};
  for (const Loop& loop : acc.Loops("")) inner.push_back(loop);
  thread_body.push_back(NestLoops(inner, {Node::MakeStmt(mac)}));

  thread_body.push_back(acc.Store(compute.Store(element("s_"), acc.At("s_"))));

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
