// The depthwise_conv2d template (channel multiplier 1): out[n,c,oh,ow] = Σ_{r,s} in[n,c,ih,iw] ·
// w[c,r,s] (+ bias[c]) (then ReLU), ih = oh·stride + r·dilation − pad, iw likewise.
//
// Knobs in the spirit of AutoTVM's x86 depthwise templates (tile the channels and the output
// plane, vectorise either the output columns or a channel block, unroll, pad by a copy or by
// guarded loads). Channels split c0 × c1 × c2, output rows oh0 × oh1, columns ow0 × ow1 × ow2;
// a channel is (c0·c1 + c1)·c2 + c2 in both layouts.
//
// vector_axis == "ow" (NCHW, no repacking):
//   [padding == "copy": P[N][C][H+2p][W+2p] = zero-padded input, parallel over c]
//   for n, c0, oh0, ow0                   outer tiles; `parallel` picks c0, oh0 or both
//     acc[c1·c2][oh1][ow1·ow2]            per-tile accumulator (stack, thread-private)
//     acc = 0
//     for <order of c1 oh1 ow1 r s>, c2 (unrolled with `unroll`), ow2 (vector)
//       acc += in · w
//     out = acc (+ bias) (ReLU)
// vector_axis == "c" (channels blocked by c2, the vector):
//   prepare (untimed, once per weight): Wp[C/c2][R][S][c2] = w
//   Ip[N][C/c2][H(+2p)][W(+2p)][c2] = in  activation packing (timed), parallel over (block, row)
//   for n, c0, oh0, ow0
//     acc[c1][oh1][ow1·ow2][c2]
//     for <order of c1 oh1 ow1 r s>, ow2 (unrolled with `unroll`), c2 (vector)
//       acc += Ip · Wp
//     out (NCHW) = acc (+ bias) (ReLU)    the unpacking store
//
// Blocked activations (in_block = out_block = b, glimpse/ops.h): vector_axis "c" with c2 = b only.
// The store is then contiguous, and the input is read where it is unless the padding is copied.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cpu/template_util.h"
#include "glimpse/error.h"
#include "glimpse/op_compute.h"

namespace glimpse::cpu {

namespace {
constexpr int64_t kMaxAccumulator = 8192;  // floats: 32 KiB of stack per thread
}  // namespace

ConfigSpace MakeDepthwiseSpace(const DepthwiseConv2dShape& shape) {
  ConfigSpace space;
  space.AddKnob(Knob::Split("tile_c", shape.c, 3));
  space.AddKnob(Knob::Split("tile_oh", shape.OutH(), 2));
  space.AddKnob(Knob::Split("tile_ow", shape.OutW(), 3));
  space.AddKnob(Knob::Permutation("order", 5));
  space.AddKnob(Knob::Categorical(
      "parallel", {std::string("c"), std::string("oh"), std::string("c_oh"), std::string("none")}));
  const bool blocked_activations = shape.out_block != 0;
  space.AddKnob(Knob::Categorical(
      "vector_axis", blocked_activations
                         ? std::vector<KnobValue>{std::string("c")}
                         : std::vector<KnobValue>{std::string("ow"), std::string("c")}));
  space.AddKnob(Knob::Ordered("unroll", {int64_t{0}, int64_t{1}}));
  if (shape.pad > 0) {
    space.AddKnob(Knob::Categorical("padding", {std::string("guard"), std::string("copy")}));
  }
  if (blocked_activations) {
    space.AddRestriction("tile_c_2 == " + std::to_string(shape.out_block));
  }
  space.AddRestriction("tile_c_1 * tile_c_2 * tile_oh_1 * tile_ow_1 * tile_ow_2 <= " +
                       std::to_string(kMaxAccumulator));
  return space;
}

LoopNest MakeDepthwiseNest(const DepthwiseConv2dShape& shape, const ConfigView& config) {
  std::vector<int64_t> tc = config.List("tile_c"), toh = config.List("tile_oh"),
                       tow = config.List("tile_ow");
  const int64_t c_tile = tc[1] * tc[2], oh_tile = toh[1], ow_tile = tow[1] * tow[2];
  if (c_tile * oh_tile * ow_tile > kMaxAccumulator) {
    throw Error("depthwise_conv2d: accumulator tile of " +
                std::to_string(c_tile * oh_tile * ow_tile) + " floats");
  }
  const bool blocked = config.Text("vector_axis") == "c";
  const bool copy_pad = config.Has("padding") && config.Text("padding") == "copy";
  const int64_t pad_in_copy = copy_pad ? shape.pad : 0;
  const int64_t hp = shape.h + 2 * pad_in_copy, wp = shape.w + 2 * pad_in_copy;
  if (shape.out_block != 0 && (!blocked || tc[2] != shape.out_block)) {
    throw Error("depthwise_conv2d: activations blocked by " + std::to_string(shape.out_block) +
                " need vector_axis c with tile_c_2 = " + std::to_string(shape.out_block));
  }
  // A blocked input with nothing to pad is read where it is.
  const bool pack_input = shape.in_block == 0 || pad_in_copy > 0;
  using E = AffineExpr;

  LoopNest nest;
  nest.name = blocked ? "depthwise_conv2d_nchwc" : "depthwise_conv2d";
  const OperatorCompute compute = DeclareOperatorCompute(nest, shape);

  // The output element of the channel (c0, c1, c2) and the output position, and the taps.
  const AxisBinding at = {{"n", E::Var("n")},
                          {"c", E::Var("c0", c_tile) + E::Var("c1", tc[2]) + E::Var("c2")},
                          {"oh", E::Var("oh0", oh_tile) + E::Var("oh1")},
                          {"ow", E::Var("ow0", ow_tile) + E::Var("ow1", tow[2]) + E::Var("ow2")},
                          {"r", E::Var("r")},
                          {"s", E::Var("s")}};

  Stmt mac;
  int acc = -1;
  if (blocked) {
    const int64_t blocks = shape.c / tc[2];
    // Wp[C/c2][R][S][c2] and Ip[N][C/c2][H(+2p)][W(+2p)][c2].
    Relayout w_layout = compute.LayoutOf(Operand::kWeight).Split(0, tc[2], 3);
    Relayout in_layout = compute.LayoutOf(Operand::kInput).Split(1, tc[2], 4);
    if (pad_in_copy > 0) in_layout.Pad(2, pad_in_copy).Pad(3, pad_in_copy);
    const OperandCopy packed_w{
        nest.AddTensor({"Wp", w_layout.shape(), "CRS" + std::to_string(tc[2]) + "c",
                        DType::kFloat32, TensorRole::kPrepared}),
        w_layout};
    std::optional<OperandCopy> packed_in;
    if (pack_input) {
      packed_in =
          OperandCopy{nest.AddTensor({"Ip", in_layout.shape(), "NCHW" + std::to_string(tc[2]) + "c",
                                      DType::kFloat32, TensorRole::kTemp}),
                      in_layout};
    }
    acc = AddAccumulator(nest, {tc[1], oh_tile, ow_tile, tc[2]}, "C1,OH,OW,C2", "ow0");
    Stmt pack_w = compute.Fill(Operand::kWeight, packed_w,
                               {E::Var("qb"), E::Var("qr"), E::Var("qs"), E::Var("qc")});
    nest.prepare.push_back(Node::MakeLoop(
        {"qb", blocks},
        {Node::MakeLoop(
            {"qr", shape.r},
            {Node::MakeLoop({"qs", shape.s},
                            {Node::MakeLoop({"qc", tc[2]}, {Node::MakeStmt(pack_w)})})})}));
    if (packed_in) {
      Stmt pack_in =
          compute.Fill(Operand::kInput, *packed_in,
                       {E::Var("pn"), E::Var("pb"), E::Var("ph"), E::Var("pw"), E::Var("pc")});
      nest.body.push_back(Node::MakeLoop(
          {"pn", shape.n},
          {Node::MakeLoop(
              {"pb", blocks, LoopKind::kParallel},
              {Node::MakeLoop(
                  {"ph", hp, LoopKind::kParallel},
                  {Node::MakeLoop({"pw", wp}, {Node::MakeLoop({"pc", tc[2]},
                                                              {Node::MakeStmt(pack_in)})})})})}));
    }
    mac = compute.MultiplyAdd(
        {acc, {E::Var("c1"), E::Var("oh1"), E::Var("ow1", tow[2]) + E::Var("ow2"), E::Var("c2")}},
        at, packed_in ? &*packed_in : nullptr, &packed_w);
  } else {
    acc = AddAccumulator(nest, {c_tile, oh_tile, ow_tile}, "C,OH,OW", "ow0");
    std::optional<OperandCopy> padded;
    if (copy_pad) padded = AddPaddedInputCopy(nest, compute, shape.pad);
    mac = compute.MultiplyAdd({acc,
                               {E::Var("c1", tc[2]) + E::Var("c2"), E::Var("oh1"),
                                E::Var("ow1", tow[2]) + E::Var("ow2")}},
                              at, padded ? &*padded : nullptr);
  }

  // Compute: the ordered loops, then the unrolled and the vector loop innermost.
  const std::string vector_loop = blocked ? "c2" : "ow2";
  const std::string unrolled_loop = blocked ? "ow2" : "c2";
  auto extent_of = [&](const std::string& name) -> int64_t {
    if (name == "c1") return tc[1];
    if (name == "c2") return tc[2];
    if (name == "oh1") return oh_tile;
    if (name == "ow1") return tow[1];
    if (name == "ow2") return tow[2];
    if (name == "r") return shape.r;
    return shape.s;
  };
  Node reduction = Node::MakeLoop({vector_loop, extent_of(vector_loop), LoopKind::kVectorized},
                                  {Node::MakeStmt(mac)});
  reduction = Node::MakeLoop({unrolled_loop, extent_of(unrolled_loop),
                              config.Int("unroll") != 0 ? LoopKind::kUnrolled : LoopKind::kSerial},
                             {std::move(reduction)});
  const std::vector<std::string> reorderable = {"c1", "oh1", "ow1", "r", "s"};
  const std::vector<int64_t> order = config.List("order");
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const std::string& name = reorderable.at(*it);
    reduction = Node::MakeLoop({name, extent_of(name)}, {std::move(reduction)});
  }

  // Zero and store walk the accumulator in its own order, its last dimension as the vector.
  std::vector<int64_t> acc_shape = nest.tensors[acc].shape;
  std::vector<std::string> z_names = blocked ? std::vector<std::string>{"zc1", "zh", "zw", "zc2"}
                                             : std::vector<std::string>{"zc", "zh", "zw"};
  std::vector<std::string> w_names = blocked ? std::vector<std::string>{"wc1", "wh", "ww", "wc2"}
                                             : std::vector<std::string>{"wc", "wh", "ww"};
  std::vector<E> z_index, w_index;
  for (size_t d = 0; d < acc_shape.size(); ++d) {
    z_index.push_back(E::Var(z_names[d]));
    w_index.push_back(E::Var(w_names[d]));
  }
  E w_channel = blocked ? (E::Var("c0", tc[1]) + E::Var("wc1")) * tc[2] + E::Var("wc2")
                        : E::Var("c0", c_tile) + E::Var("wc");
  Stmt zero{StmtKind::kZero, {acc, z_index}};
  Stmt store = compute.Store({{"n", E::Var("n")},
                              {"c", w_channel},
                              {"oh", E::Var("oh0", oh_tile) + E::Var("wh")},
                              {"ow", E::Var("ow0", ow_tile) + E::Var("ww")}},
                             {acc, w_index});
  Node zero_nest = Node::MakeStmt(zero), store_nest = Node::MakeStmt(store);
  for (size_t d = acc_shape.size(); d-- > 0;) {
    LoopKind kind = d + 1 == acc_shape.size() ? LoopKind::kVectorized : LoopKind::kSerial;
    zero_nest = Node::MakeLoop({z_names[d], acc_shape[d], kind}, {std::move(zero_nest)});
    store_nest = Node::MakeLoop({w_names[d], acc_shape[d], kind}, {std::move(store_nest)});
  }

  nest.body.push_back(Node::MakeLoop(
      {"n", shape.n},
      {Node::MakeLoop(
          {"c0", tc[0]},
          {Node::MakeLoop(
              {"oh0", toh[0]},
              {Node::MakeLoop({"ow0", tow[0]}, MoveNodes(std::move(zero_nest), std::move(reduction),
                                                         std::move(store_nest)))})})}));

  const std::string parallel = config.Text("parallel");
  if (parallel == "c" || parallel == "c_oh") SetLoopKind(nest, "c0", LoopKind::kParallel);
  if (parallel == "oh" || parallel == "c_oh") SetLoopKind(nest, "oh0", LoopKind::kParallel);
  return nest;
}

}  // namespace glimpse::cpu
