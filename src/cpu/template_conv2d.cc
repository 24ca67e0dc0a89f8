// The conv2d NCHW template: out[n,k,oh,ow] = Σ_{c,r,s} in[n,c,ih,iw] · w[k,c,r,s] (+ bias[k])
// (then ReLU), ih = oh·stride + r·dilation − pad, iw = ow·stride + s·dilation − pad.
//
// Schedule (register/cache tiling over output channels and the output plane, as AutoTVM's x86
// NCHW templates tile k / oh / ow and vectorise ow):
//   [padding == "copy": P[N][C][H+2p][W+2p] = zero-padded input, parallel over c]
//   for n, k0, oh0, ow0                     outer tiles; `parallel` picks k0, oh0 or both
//     acc[k1·k2][oh1][ow1·ow2]              per-tile accumulator (stack, thread-private)
//     acc = 0
//     for <order of c0 c1 r s k1>, oh1, ow1, k2, ow2
//       acc += in · w                       (guarded loads when padding == "guard")
//     out = acc (+ bias) (ReLU)
// ow2 is vectorised with `vectorize`, k2 unrolled with `unroll`.
#include <string>

#include "cpu/template_util.h"
#include "glimpse/error.h"

namespace glimpse::cpu {

namespace {
constexpr int64_t kMaxAccumulator = 8192;  // floats: 32 KiB of stack per thread
}  // namespace

ConfigSpace MakeConv2dSpace(const Conv2dShape& shape) {
  ConfigSpace space;
  space.AddKnob(Knob::Split("tile_k", shape.k, 3));
  space.AddKnob(Knob::Split("tile_oh", shape.OutH(), 2));
  space.AddKnob(Knob::Split("tile_ow", shape.OutW(), 3));
  space.AddKnob(Knob::Split("tile_c", shape.c, 2));
  space.AddKnob(Knob::Permutation("order", 5));
  space.AddKnob(Knob::Categorical("parallel", {std::string("k"), std::string("oh"),
                                               std::string("k_oh"), std::string("none")}));
  space.AddKnob(Knob::Ordered("vectorize", {int64_t{0}, int64_t{1}}));
  space.AddKnob(Knob::Ordered("unroll", {int64_t{0}, int64_t{1}}));
  if (shape.pad > 0) {
    space.AddKnob(Knob::Categorical("padding", {std::string("guard"), std::string("copy")}));
  }
  space.AddRestriction("tile_k_1 * tile_k_2 * tile_oh_1 * tile_ow_1 * tile_ow_2 <= " +
                       std::to_string(kMaxAccumulator));
  return space;
}

LoopNest MakeConv2dNest(const Conv2dShape& shape, const ConfigView& config) {
  std::vector<int64_t> tk = config.List("tile_k"), toh = config.List("tile_oh"),
                       tow = config.List("tile_ow"), tc = config.List("tile_c");
  const int64_t k_tile = tk[1] * tk[2], oh_tile = toh[1], ow_tile = tow[1] * tow[2];
  if (k_tile * oh_tile * ow_tile > kMaxAccumulator) {
    throw Error("conv2d: accumulator tile of " + std::to_string(k_tile * oh_tile * ow_tile) +
                " floats");
  }
  const bool copy_pad = config.Has("padding") && config.Text("padding") == "copy";
  const bool vectorize = config.Int("vectorize") != 0;
  using E = AffineExpr;

  LoopNest nest;
  nest.name = "conv2d";
  int in = nest.AddTensor({"I", {shape.n, shape.c, shape.h, shape.w}, "NCHW", DType::kFloat32,
                           TensorRole::kInput, 0});
  int w = nest.AddTensor({"Wt", {shape.k, shape.c, shape.r, shape.s}, "KCRS", DType::kFloat32,
                          TensorRole::kInput, 1});
  int bias = -1;
  if (shape.bias) {
    bias = nest.AddTensor({"bias", {shape.k}, "K", DType::kFloat32, TensorRole::kInput, 2});
  }
  int out = nest.AddTensor({"O", {shape.n, shape.k, shape.OutH(), shape.OutW()}, "NCHW",
                            DType::kFloat32, TensorRole::kOutput});
  int acc = nest.AddTensor({"acc", {k_tile, oh_tile, ow_tile}, "K,OH,OW", DType::kFloat32,
                            TensorRole::kTemp, -1, "ow0"});

  // The input row / column read for an output position and a window offset.
  E oh = E::Var("oh0", oh_tile) + E::Var("oh1");
  E ow = E::Var("ow0", ow_tile) + E::Var("ow1", tow[2]) + E::Var("ow2");
  E ih = oh * shape.stride + E::Var("r", shape.dilation);
  E iw = ow * shape.stride + E::Var("s", shape.dilation);
  Access load;
  if (copy_pad) {
    const int64_t hp = shape.h + 2 * shape.pad, wp = shape.w + 2 * shape.pad;
    int padded = nest.AddTensor({"P", {shape.n, shape.c, hp, wp}, "NCHW", DType::kFloat32,
                                 TensorRole::kTemp});
    Stmt copy{StmtKind::kCopy,
              {padded, {E::Var("pn"), E::Var("pc"), E::Var("ph"), E::Var("pw")}},
              {in,
               {E::Var("pn"), E::Var("pc"), E::Var("ph") + E::Const(-shape.pad),
                E::Var("pw") + E::Const(-shape.pad)},
               /*zero_outside=*/true}};
    nest.body.push_back(Node::MakeLoop(
        {"pn", shape.n},
        {Node::MakeLoop({"pc", shape.c, LoopKind::kParallel},
                        {Node::MakeLoop({"ph", hp}, {Node::MakeLoop({"pw", wp},
                                                                    {Node::MakeStmt(copy)})})})}));
    load = {padded, {E::Var("n"), E::Var("c"), ih, iw}};
  } else {
    E pad = E::Const(-shape.pad);
    load = {in, {E::Var("n"), E::Var("c"), ih + pad, iw + pad}, shape.pad > 0};
  }

  Stmt zero{StmtKind::kZero, {acc, {E::Var("zk"), E::Var("zh"), E::Var("zw")}}};
  Node zero_nest = Node::MakeLoop(
      {"zk", k_tile},
      {Node::MakeLoop({"zh", oh_tile},
                      {Node::MakeLoop({"zw", ow_tile}, {Node::MakeStmt(zero)})})});

  Stmt mac{StmtKind::kMultiplyAdd};
  mac.dst = {acc, {E::Var("ki"), E::Var("oh1"), E::Var("ow1", tow[2]) + E::Var("ow2")}};
  mac.a = load;
  mac.b = {w, {E::Var("k0", k_tile) + E::Var("ki"), E::Var("c"), E::Var("r"), E::Var("s")}};
  Node compute = Node::MakeStmt(mac);
  for (const auto& [name, extent] : std::vector<std::pair<std::string, int64_t>>{
           {"ow2", tow[2]}, {"ow1", tow[1]}, {"oh1", oh_tile}, {"ki", k_tile},
           {"s", shape.s}, {"r", shape.r}, {"c", shape.c}}) {
    compute = Node::MakeLoop({name, extent}, {std::move(compute)});
  }

  Stmt store{StmtKind::kCopy,
             {out, {E::Var("n"), E::Var("k0", k_tile) + E::Var("wk"),
                    E::Var("oh0", oh_tile) + E::Var("wh"), E::Var("ow0", ow_tile) + E::Var("ww")}},
             {acc, {E::Var("wk"), E::Var("wh"), E::Var("ww")}}};
  if (bias >= 0) store.bias = Access{bias, {E::Var("k0", k_tile) + E::Var("wk")}};
  store.relu = shape.relu;
  Node store_nest = Node::MakeLoop(
      {"wk", k_tile},
      {Node::MakeLoop({"wh", oh_tile},
                      {Node::MakeLoop({"ww", ow_tile}, {Node::MakeStmt(store)})})});

  nest.body.push_back(Node::MakeLoop(
      {"n", shape.n},
      {Node::MakeLoop(
          {"k0", tk[0]},
          {Node::MakeLoop({"oh0", toh[0]},
                          {Node::MakeLoop({"ow0", tow[0]},
                                          {zero_nest, compute, store_nest})})})}));

  SplitLoop(nest, "c", tc, {"c0", "c1"});
  SplitLoop(nest, "ki", {tk[1], tk[2]}, {"k1", "k2"});
  const std::vector<std::string> reorderable = {"c0", "c1", "r", "s", "k1"};
  std::vector<std::string> order;
  for (int64_t position : config.List("order")) order.push_back(reorderable.at(position));
  for (const char* name : {"oh1", "ow1", "k2", "ow2"}) order.emplace_back(name);
  ReorderLoops(nest, order);

  if (vectorize) {
    SetLoopKind(nest, "ow2", LoopKind::kVectorized);
    SetLoopKind(nest, "zw", LoopKind::kVectorized);
    SetLoopKind(nest, "ww", LoopKind::kVectorized);
  }
  if (config.Int("unroll") != 0) SetLoopKind(nest, "k2", LoopKind::kUnrolled);
  const std::string parallel = config.Text("parallel");
  if (parallel == "k" || parallel == "k_oh") SetLoopKind(nest, "k0", LoopKind::kParallel);
  if (parallel == "oh" || parallel == "k_oh") SetLoopKind(nest, "oh0", LoopKind::kParallel);
  return nest;
}

}  // namespace glimpse::cpu
