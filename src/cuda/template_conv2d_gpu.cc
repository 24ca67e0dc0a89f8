// The direct conv2d GPU template, with the knobs of AutoTVM's conv2d_nchw CUDA schedule:
// out[n,f,y,x] = Σ_{c,r,s} in[n,c,y·stride + r·dil − pad, x·stride + s·dil − pad] · w[f,c,r,s]
// (+ bias[f]) (then ReLU). Knobs and their mapping are documented in docs/gpu-tuning.md.
//
// Output channels f, rows y and columns x are each split four ways, outermost first
// (block, virtual thread, thread, inner): f = ((bf·F1 + vf)·F2 + tf)·F3 + fi, likewise y, x.
// The reduction axes c, r, s are split two ways (outer, inner). With Fb = F1·F2·F3 (the block's
// channels), Yb and Xb likewise:
//
//   for n, bf   blockIdx.z (fused: n slowest)       for by blockIdx.y, bx blockIdx.x
//    for tf threadIdx.z, ty threadIdx.y, tx threadIdx.x
//     acc[F1·F3][Y1·Y3][X1·X3]  local              zero: vthreads × inner loops
//     for rco, ryo, rxo
//       AA[RCi][WH][WW] shared = in[…]  cooperative (the padded input window of the block's
//                                        tile for this reduction step; zero outside the input)
//       WW[Fb][RCi][RYi][RXi] shared = w[…]  cooperative
//       for rci, ryi, rxi, vf, vy, vx (unrolled: TVM's vthreads), fi, yi, xi
//         acc += AA[rci][yl·stride + ryi·dil][xl·stride + rxi·dil] · WW[fl][rci][ryi][rxi]
//     out = acc (+ bias) (ReLU)                  vthreads × inner loops
// where fl / yl / xl are the position inside the block's tile (vf·F2·F3 + tf·F3 + fi, …), so
// that threads next to each other along x write (and read) neighbouring columns when X3 = 1.
#include <string>
#include <utility>
#include <vector>

#include "cuda/template_util.h"
#include "glimpse/error.h"
#include "glimpse/op_compute.h"

namespace glimpse::gpu {

using E = AffineExpr;

ConfigSpace MakeConv2dGpuSpace(const Conv2dShape& shape) {
  ConfigSpace space;
  std::vector<KnobValue> algorithms = {std::string("direct")};
  const bool winograd = Conv2dWinogradApplies(shape);
  if (winograd) algorithms.emplace_back(std::string("winograd"));
  space.AddKnob(Knob::Categorical("algorithm", algorithms));
  space.AddKnob(Knob::Split("tile_f", shape.k, 4));
  space.AddKnob(Knob::Split("tile_y", shape.OutH(), 4));
  space.AddKnob(Knob::Split("tile_x", shape.OutW(), 4));
  space.AddKnob(Knob::Split("tile_rc", shape.c, 2));
  space.AddKnob(Knob::Split("tile_ry", shape.r, 2));
  space.AddKnob(Knob::Split("tile_rx", shape.s, 2));
  space.AddKnob(Knob::Ordered("auto_unroll_max_step", {int64_t{0}, int64_t{512}, int64_t{1500}}));
  space.AddKnob(Knob::Ordered("unroll_explicit", {int64_t{0}, int64_t{1}}));
  // The limits every CUDA device has (src/cuda/template_util.h), checked before anything is built.
  // Shared memory: the input window (RCi × WH × WW) and the weight tile (Fb × RCi × RYi × RXi).
  const std::string st = std::to_string(shape.stride), dil = std::to_string(shape.dilation);
  const std::string window_h =
      "((tile_y_1 * tile_y_2 * tile_y_3 - 1) * " + st + " + (tile_ry_1 - 1) * " + dil + " + 1)";
  const std::string window_w =
      "((tile_x_1 * tile_x_2 * tile_x_3 - 1) * " + st + " + (tile_rx_1 - 1) * " + dil + " + 1)";
  const std::vector<std::string> limits = {
      "tile_f_2 * tile_y_2 * tile_x_2 <= " + std::to_string(kMaxThreadsPerBlock),
      "tile_f_2 <= 64",  // blockDim.z
      "tile_f_1 * tile_f_3 * tile_y_1 * tile_y_3 * tile_x_1 * tile_x_3 <= " +
          std::to_string(kMaxLocalFloats),
      "4 * (tile_rc_1 * " + window_h + " * " + window_w +
          " + tile_f_1 * tile_f_2 * tile_f_3 * tile_rc_1 * tile_ry_1 * tile_rx_1) <= " +
          std::to_string(kMaxSharedBytesPerBlock),
      std::to_string(shape.n) + " * tile_f_0 <= " + std::to_string(kMaxGridY),
      "tile_y_0 <= " + std::to_string(kMaxGridY),
  };
  // Winograd configurations ignore the direct knobs, so the limits bind direct ones only.
  for (const std::string& limit : limits) {
    space.AddRestriction(winograd ? "algorithm == 'winograd' or " + limit : limit);
  }
  return space;
}

LoopNest MakeConv2dGpuNest(const Conv2dShape& shape, const ConfigView& config) {
  if (config.Text("algorithm") == "winograd") return MakeWinogradGpuNest(shape, config);
  const std::vector<int64_t> tf = config.List("tile_f"), ty = config.List("tile_y"),
                             tx = config.List("tile_x"), trc = config.List("tile_rc"),
                             try_ = config.List("tile_ry"), trx = config.List("tile_rx");
  const int64_t fb = tf[1] * tf[2] * tf[3], yb = ty[1] * ty[2] * ty[3], xb = tx[1] * tx[2] * tx[3];
  const int64_t acc_floats = tf[1] * tf[3] * ty[1] * ty[3] * tx[1] * tx[3];
  if (acc_floats > kMaxLocalFloats) {
    throw Error("conv2d gpu: accumulator of " + std::to_string(acc_floats) +
                " floats per thread; at most " + std::to_string(kMaxLocalFloats));
  }
  const int64_t stride = shape.stride, dil = shape.dilation;
  const int64_t rci = trc[1], ryi = try_[1], rxi = trx[1];
  // The input rows / columns one block's tile reads in one reduction step.
  const int64_t window_h = (yb - 1) * stride + (ryi - 1) * dil + 1;
  const int64_t window_w = (xb - 1) * stride + (rxi - 1) * dil + 1;

  LoopNest nest;
  nest.name = "conv2d_direct_gpu";
  const OperatorCompute compute = DeclareOperatorCompute(nest, shape);
  // This reduction step's tiles: the input window the block's outputs and taps read, and the
  // weights of the block's output channels and taps, from the elements the block's first output
  // reads at the step's first tap on.
  const AxisBinding origin = {{"n", E::Var("n")},        {"k", E::Var("bf", fb)},
                              {"oh", E::Var("by", yb)},  {"ow", E::Var("bx", xb)},
                              {"c", E::Var("rco", rci)}, {"r", E::Var("ryo", ryi)},
                              {"s", E::Var("rxo", rxi)}};
  const OperandCopy in_tile{
      nest.AddTensor(
          {"AA", {rci, window_h, window_w}, "CHW", DType::kFloat32, TensorRole::kTemp, -1, "bx"}),
      compute.Tile(Operand::kInput, origin, {0, rci, window_h, window_w})};
  const OperandCopy w_tile{
      nest.AddTensor(
          {"WW", {fb, rci, ryi, rxi}, "KCRS", DType::kFloat32, TensorRole::kTemp, -1, "bx"}),
      compute.Tile(Operand::kWeight, origin, {fb, rci, ryi, rxi})};
  nest.tensors[in_tile.tensor].scope = MemoryScope::kShared;
  nest.tensors[w_tile.tensor].scope = MemoryScope::kShared;
  // Positions inside the block's tile and in the output, for loops with prefix `p` ("" for the
  // compute, "z_" zeroing, "s_" storing): the vthread and inner loops are the prefix's own.
  const ThreadAccumulator acc(nest, {{"f", tf}, {"y", ty}, {"x", tx}}, "KHW", "tx");
  const TiledAxis &axis_f = acc.axes[0], &axis_y = acc.axes[1], &axis_x = acc.axes[2];

  // Cooperative copies of this reduction step's input window and weight tile.
  Stmt load_a =
      compute.Fill(Operand::kInput, in_tile, {E::Var("a_c"), E::Var("a_h"), E::Var("a_w")});
  Node copy_a = NestLoops({{"a_c", rci, LoopKind::kCooperative},
                           {"a_h", window_h, LoopKind::kCooperative},
                           {"a_w", window_w, LoopKind::kCooperative}},
                          {Node::MakeStmt(load_a)});
  Stmt load_w = compute.Fill(Operand::kWeight, w_tile,
                             {E::Var("w_f"), E::Var("w_c"), E::Var("w_r"), E::Var("w_s")});
  Node copy_w = NestLoops({{"w_f", fb, LoopKind::kCooperative},
                           {"w_c", rci, LoopKind::kCooperative},
                           {"w_r", ryi, LoopKind::kCooperative},
                           {"w_s", rxi, LoopKind::kCooperative}},
                          {Node::MakeStmt(load_w)});

  auto element = [&](const std::string& p) {
    return ConvolutionOutputElement("k", axis_f, axis_y, axis_x, p);
  };
  AxisBinding at = element("");
  at["c"] = E::Var("rco", rci) + E::Var("rci");
  at["r"] = E::Var("ryo", ryi) + E::Var("ryi");
  at["s"] = E::Var("rxo", rxi) + E::Var("rxi");
  Stmt mac = compute.MultiplyAdd(acc.At(""), at, &in_tile, &w_tile);
  std::vector<Loop> inner = {{"rci", rci}, {"ryi", ryi}, {"rxi", rxi}};
  for (const Loop& loop : acc.Loops("")) inner.push_back(loop);
  Node multiply_add = NestLoops(inner, {Node::MakeStmt(mac)});
  Node reduction = NestLoops({{"rco", trc[0]}, {"ryo", try_[0]}, {"rxo", trx[0]}},
                             {std::move(copy_a), std::move(copy_w), std::move(multiply_add)});

  Node store_nest = acc.Store(compute.Store(element("s_"), acc.At("s_")));

  nest.body.push_back(NestLoops(ConvolutionLaunchLoops(shape.n, axis_f, axis_y, axis_x),
                                {acc.Zero(), std::move(reduction), std::move(store_nest)}));

  // auto_unroll_max_step bounds the iterations of the unrolled innermost loops (TVM's step
  // count); unroll_explicit = 1 lets the unrolling reach the inner reduction loops too (see
  // docs/gpu-tuning.md). The vthread loops stay unrolled whatever the knobs, as TVM always
  // expands virtual threads.
  const int64_t max_step = config.Int("auto_unroll_max_step");
  const bool explicit_unroll = config.Int("unroll_explicit") != 0;
  // ApplyAutoUnroll marks loops inside its root: under the innermost vthread loop the inner
  // tile loops (fi, yi, xi), under rxo also rci, ryi, rxi (cooperative copies are left alone).
  for (const char* prefix : {"z_", "s_", ""}) {
    const std::string p = prefix;
    ApplyAutoUnroll(nest, p.empty() && explicit_unroll ? "rxo" : p + "vx", max_step);
  }
  nest.Validate();
  CudaLaunch launch;
  launch.grid = {tx[0], ty[0], shape.n * tf[0]};
  launch.block = {tx[2], ty[2], tf[2]};
  CheckLaunchLimits(
      "conv2d gpu", launch,
      4 * (nest.tensors[in_tile.tensor].NumElements() + nest.tensors[w_tile.tensor].NumElements()));
  return nest;
}

}  // namespace glimpse::gpu
