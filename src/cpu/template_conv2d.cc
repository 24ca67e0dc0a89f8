// The conv2d template: out[n,k,oh,ow] = Σ_{c,r,s} in[n,c,ih,iw] · w[k,c,r,s] (+ bias[k]) (then
// ReLU), ih = oh·stride + r·dilation − pad, iw = ow·stride + s·dilation − pad. The kernel's inputs
// and output are NCHW / KCRS whatever the `layout` knob says; it picks how the kernel computes.
//
// layout NCHW (register/cache tiling over output channels and the output plane, as AutoTVM's x86
// NCHW templates tile k / oh / ow and vectorise ow):
//   [padding == "copy": P[N][C][H+2p][W+2p] = zero-padded input, parallel over c]
//   for n, k0, oh0, ow0                     outer tiles; `parallel` picks k0, oh0 or both
//     acc[k1·k2][oh1][ow1·ow2]              per-tile accumulator (stack, thread-private)
//     acc = 0
//     for <order of c0 c1 r s k1>, oh1, ow1, k2, ow2
//       acc += in · w                       (guarded loads when padding == "guard")
//     out = acc (+ bias) (ReLU)
// ow2 is vectorised with `vectorize`, k2 unrolled with `unroll`.
//
// layout NCHWc (channel blocks, as AutoTVM's x86 conv2d_NCHWc: the output-channel block is the
// vector, a row of output columns × the block is a register tile). Blocks come from the same
// splits: oc_block = k2 (tile_k_2), ic_block = c1 (tile_c_1).
//   prepare (untimed, once per weight):  Wp[K/k2][C/c1][R][S][c1][k2] = w   (OIHW[c1]i[k2]o)
//   Ip[N][C/c1][H(+2p)][W(+2p)][c1] = in    activation packing, zero-padded when padding == copy;
//                                           timed, parallel over (c0, row)
//   for n, k0, oh0, ow0                     outer tiles; `parallel` as for NCHW
//     [for k1]                              unless k1 is last in `order`
//     for oh1, ow1
//       acc[(k1)][ow2][k2]                  register tile: k1 when last in `order`, ow2 unrolled,
//       acc = 0                             k2 the vector (with `vectorize`)
//       for <order of c0 c1 r s>            s unrolled with `unroll` (AutoTVM's unroll_kw)
//         for (k1), ow2, k2: acc += Ip[n][c0][ih][iw][c1] · Wp[k0·k1 + k1][c0][r][s][c1][k2]
//       out (NCHW) = acc (+ bias) (ReLU)    the unpacking store
//
// layout NCHWc_strided (offered for 1×1 convolutions with stride > 1, no padding and a stride
// that divides H and W — ResNet's downsample layers): NCHWc, but the activation packing keeps
// only the positions the kernel reads, Ip[N][C/c1][H/stride][W/stride][c1] = in[…][h·stride]
// [w·stride], so the timed packing touches 1/stride² of the input instead of all of it (which
// cost those layers as much as their small reduction), and the taps read Ip contiguously.
//
// layout NCHW_plane (offered with NCHWc_strided, on plain activations: NCHW in and out). A 1×1
// convolution is a matrix product over the output plane, and in NCHW that plane is contiguous:
//   Xs[N][C][P'] = in[…][oh·stride][ow·stride]   the positions the taps read, compacted (timed;
//                                                 P = OH·OW, zero up to P', a whole number of
//                                                 tiles)
//   for n, k0, p0                                 `parallel`: k0 ("k"), p0 ("oh") or both
//     for k1, p1
//       acc[k2][p2] = 0                           register tile: k2 output channels (unrolled with
//       for c                                     `unroll`) × p2 consecutive positions (the vector)
//         acc[k2][p2] += Xs[n][c][p] · w[k][c]    one weight broadcast per channel row
//       out[n][k][p] = acc (+ bias) (+ Res) (ReLU) stored along the rows, skipped past P
// with p = (p0·p1_extent + p1)·p2_extent + p2. The NCHWc layouts transpose twice on such an
// operator — the input into channel blocks, the channel vectors back into planes — a quarter of
// the time of ResNet-18's 56×56 downsample layer; this one transposes nothing
// (bench/results/cpu_models_64/blocked/plane_probe). Knobs: tile_k = (k0, k1, k2); the tile's
// positions p2 = tile_oh_1 · tile_ow_2 rounded up to a multiple of 16 (so that any plane size
// gets whole vectors), p1 = tile_ow_1; tile_c, order, tile_oh_0 and tile_ow_0 have no effect.
//
// Both layouts skip the kernel rows r that fall in the padding (Loop::useful_begin: at the top
// and bottom output rows of a tile, those taps only read zeros), as oneDNN does: 2 of the 42 row
// passes of a 3×3 layer with 14 output rows — where the order runs no channel loop outside r
// (MakeConv2dBlockedNest says why). NCHWc with guarded loads peels its first and last column
// tile (Loop::peel_edges): the padding columns' taps are skipped there, decided at compile time
// where ow2 and s are unrolled, and the tiles between run without column guards.
//
// Blocked activations (in_block / out_block, glimpse/ops.h): the NCHWc layouts only, their
// blocks those of the activations (tile_c_1 = in_block, tile_k_2 = out_block). The register
// tile's store is then contiguous — a vector of k2 channels per column — and a blocked input
// needs no packing unless the padding is copied or the stride skips positions: the taps read I.
#include <algorithm>
#include <optional>
#include <string>

#include "cpu/template_util.h"
#include "glimpse/error.h"
#include "glimpse/op_compute.h"

namespace glimpse::cpu {

namespace {
constexpr int64_t kMaxAccumulator = 8192;  // floats: 32 KiB of stack per thread
// The most floats an NCHWc register tile may have in any space (kPortableRegisterTileFloats, 32
// AVX-512 registers): beyond it the unrolled body spills anywhere and only costs compile time. A
// space may cap it lower (MakeCpuSpace's register_tile_floats), to what this machine's vector
// registers hold; a record's configuration from another machine's space still instantiates.
constexpr int64_t kMaxRegisterTile = kPortableRegisterTileFloats;

LoopNest MakeConv2dBlockedNest(const Conv2dShape& shape, const ConfigView& config);
LoopNest MakeConv2dPlaneNest(const Conv2dShape& shape, const ConfigView& config);
}  // namespace

namespace {
// A 1×1 convolution whose stride skips input positions the blocked packing can leave out
// (layout NCHWc_strided).
bool StridedPointwise(const Conv2dShape& shape) {
  return shape.r == 1 && shape.s == 1 && shape.pad == 0 && shape.stride > 1 &&
         shape.h % shape.stride == 0 && shape.w % shape.stride == 0;
}
}  // namespace

ConfigSpace MakeConv2dSpace(const Conv2dShape& shape, int64_t register_tile_floats) {
  ConfigSpace space;
  // Every other shape keeps exactly the knobs and restrictions it always had, so that its space's
  // fingerprint — and the workload key of its records — stays what it was.
  const bool strided = StridedPointwise(shape);
  const bool blocked_activations = shape.in_block != 0 || shape.out_block != 0;
  std::vector<KnobValue> layouts = {std::string("NCHW"), std::string("NCHWc")};
  // The plain template indexes its activations by single channels: none blocked.
  if (blocked_activations) layouts.erase(layouts.begin());
  if (strided) layouts.emplace_back(std::string("NCHWc_strided"));
  const bool plane = strided && !blocked_activations;
  if (plane) layouts.emplace_back(std::string("NCHW_plane"));
  space.AddKnob(Knob::Categorical("layout", layouts));
  space.AddKnob(Knob::Split("tile_k", shape.k, 3));
  space.AddKnob(Knob::Split("tile_oh", shape.OutH(), 2));
  space.AddKnob(Knob::Split("tile_ow", shape.OutW(), 3));
  space.AddKnob(Knob::Split("tile_c", shape.c, 2));
  space.AddKnob(Knob::Permutation("order", 5));
  space.AddKnob(Knob::Categorical(
      "parallel", {std::string("k"), std::string("oh"), std::string("k_oh"), std::string("none")}));
  space.AddKnob(Knob::Ordered("vectorize", {int64_t{0}, int64_t{1}}));
  space.AddKnob(Knob::Ordered("unroll", {int64_t{0}, int64_t{1}}));
  if (shape.pad > 0) {
    space.AddKnob(Knob::Categorical("padding", {std::string("guard"), std::string("copy")}));
  }
  space.AddRestriction(std::string(strided ? "layout != 'NCHW'" : "layout == 'NCHWc'") +
                       " or tile_k_1 * tile_k_2 * tile_oh_1 * tile_ow_1 * "
                       "tile_ow_2 <= " +
                       std::to_string(kMaxAccumulator));
  // order_4 == 4: k1 is the last of the order, so a dimension of the register tile. The portable
  // cap's text is what every space had before the cap followed the machine, so AVX-512 machines
  // keep their workload keys.
  if (shape.in_block != 0) {
    space.AddRestriction("tile_c_1 == " + std::to_string(shape.in_block));
  }
  if (shape.out_block != 0) {
    space.AddRestriction("tile_k_2 == " + std::to_string(shape.out_block));
  }
  space.AddRestriction(
      "layout == 'NCHW' or tile_ow_2 * tile_k_2 <= " + std::to_string(register_tile_floats) +
      " and (order_4 != 4 or tile_k_1 * "
      "tile_ow_2 * tile_k_2 <= " +
      std::to_string(register_tile_floats) + ")");
  if (plane) {
    // The plane's register tile: k2 rows of p2 positions, p2 rounded up to whole vectors.
    space.AddRestriction("layout != 'NCHW_plane' or tile_k_2 * ((tile_oh_1 * tile_ow_2 + " +
                         std::to_string(kPlaneVector - 1) + ") // " + std::to_string(kPlaneVector) +
                         ") * " + std::to_string(kPlaneVector) +
                         " <= " + std::to_string(register_tile_floats));
  }
  return space;
}

LoopNest MakeConv2dNest(const Conv2dShape& shape, const ConfigView& config) {
  if (config.Text("layout") == "NCHW_plane") return MakeConv2dPlaneNest(shape, config);
  if (config.Text("layout") != "NCHW") return MakeConv2dBlockedNest(shape, config);
  if (shape.in_block != 0 || shape.out_block != 0) {
    throw Error("conv2d: layout NCHW on blocked activations; accepted: NCHWc, NCHWc_strided");
  }
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
  const OperatorCompute compute = DeclareOperatorCompute(nest, shape);
  int acc = AddAccumulator(nest, {k_tile, oh_tile, ow_tile}, "K,OH,OW", "ow0");

  std::optional<OperandCopy> padded;
  if (copy_pad) padded = AddPaddedInputCopy(nest, compute, shape.pad);

  Stmt zero{StmtKind::kZero, {acc, {E::Var("zk"), E::Var("zh"), E::Var("zw")}}};
  Node zero_nest = Node::MakeLoop(
      {"zk", k_tile},
      {Node::MakeLoop({"zh", oh_tile}, {Node::MakeLoop({"zw", ow_tile}, {Node::MakeStmt(zero)})})});

  // The output element (k, oh, ow) of the tile position (ki, oh1, ow1·ow2 + ow2), and the taps.
  const E ow_in_tile = E::Var("ow1", tow[2]) + E::Var("ow2");
  const AxisBinding at = {{"n", E::Var("n")},
                          {"k", E::Var("k0", k_tile) + E::Var("ki")},
                          {"oh", E::Var("oh0", oh_tile) + E::Var("oh1")},
                          {"ow", E::Var("ow0", ow_tile) + ow_in_tile},
                          {"c", E::Var("c")},
                          {"r", E::Var("r")},
                          {"s", E::Var("s")}};
  Node reduction = Node::MakeStmt(compute.MultiplyAdd(
      {acc, {E::Var("ki"), E::Var("oh1"), ow_in_tile}}, at, padded ? &*padded : nullptr));
  for (const auto& [name, extent] : std::vector<std::pair<std::string, int64_t>>{{"ow2", tow[2]},
                                                                                 {"ow1", tow[1]},
                                                                                 {"oh1", oh_tile},
                                                                                 {"ki", k_tile},
                                                                                 {"s", shape.s},
                                                                                 {"r", shape.r},
                                                                                 {"c", shape.c}}) {
    reduction = Node::MakeLoop({name, extent}, {std::move(reduction)});
  }

  Stmt store = compute.Store({{"n", E::Var("n")},
                              {"k", E::Var("k0", k_tile) + E::Var("wk")},
                              {"oh", E::Var("oh0", oh_tile) + E::Var("wh")},
                              {"ow", E::Var("ow0", ow_tile) + E::Var("ww")}},
                             {acc, {E::Var("wk"), E::Var("wh"), E::Var("ww")}});
  Node store_nest = Node::MakeLoop(
      {"wk", k_tile}, {Node::MakeLoop({"wh", oh_tile},
                                      {Node::MakeLoop({"ww", ow_tile}, {Node::MakeStmt(store)})})});

  nest.body.push_back(Node::MakeLoop(
      {"n", shape.n},
      {Node::MakeLoop(
          {"k0", tk[0]},
          {Node::MakeLoop(
              {"oh0", toh[0]},
              {Node::MakeLoop({"ow0", tow[0]}, MoveNodes(std::move(zero_nest), std::move(reduction),
                                                         std::move(store_nest)))})})}));

  // The kernel rows that reach the input for some row of the tile (oh1 runs inside r), where no
  // channel loop runs outside r (as in the NCHWc template below).
  const std::vector<int64_t> order_knob = config.List("order");
  bool channels_outside_r = false;
  for (int64_t position : order_knob) {
    if (position == 2) break;
    if ((position == 0 && tc[0] > 1) || (position == 1 && tc[1] > 1)) channels_outside_r = true;
  }
  if (!channels_outside_r) {
    MarkUsefulKernelRows(nest.FindLoop("r"), E::Var("oh0", oh_tile), oh_tile, shape.stride,
                         shape.pad, shape.dilation, shape.h);
  }
  SplitLoop(nest, "c", tc, {"c0", "c1"});
  SplitLoop(nest, "ki", {tk[1], tk[2]}, {"k1", "k2"});
  const std::vector<std::string> reorderable = {"c0", "c1", "r", "s", "k1"};
  std::vector<std::string> order;
  for (int64_t position : order_knob) order.push_back(reorderable.at(position));
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

namespace {

constexpr int64_t kLineFloats = 16;  // floats in a 64-byte cache line

// Prefetches for the register tile at the same columns one output row down (`oh` + 1), which a
// thread parallel over rows computes next: the input rows that row reads and this one does not,
// and, on a blocked output (blocks of whole lines), the output lines it writes. A first layer reads
// its input once, straight from memory; without them its tiles wait on each new row (0.6 MB read
// cold is latency-bound on Zen 4), and MobileNet-v2's stem ran at 77-80 % of the peak against
// 91 % for a hand kernel that prefetches so (bench/results/cpu_models_64.md, "MobileNet-v2's
// first layer is not memory-bound"). Dilation 1 only (every first layer of the zoo). Past the last
// row, or left of a row's start, the element lies outside the tensor: the access is marked
// zero_outside, and the hint touches a line that is not the tensor's (StmtKind::kPrefetch).
// `block_channel`: the first output channel of the tile's block, in the loop "fk" over its
// `blocks` blocks of `block` channels. On a blocked input with `spread_over` > 1, the tiles k1o =
// 0 .. spread_over − 1 of one row share the next row's input columns out among them.
std::vector<Node> NextRowPrefetches(const OperatorCompute& compute, const Conv2dShape& shape,
                                    const AffineExpr& oh, const AffineExpr& first_ow,
                                    int64_t columns, const AffineExpr& block_channel,
                                    int64_t blocks, int64_t block, int64_t spread_over) {
  using E = AffineExpr;
  std::vector<Node> out;
  if (shape.dilation != 1) return out;
  // Rows (oh + 1)·stride − pad + r, of which the last min(stride, R) are new.
  const int64_t new_rows = std::min(shape.stride, shape.r);
  const int64_t span = (columns - 1) * shape.stride + shape.s;  // the tile's input columns
  // A plain input's lines run along a row (16 columns each); a blocked input's column holds a
  // channel block's in_block floats: a line at 16, half of one at 8 (where every other prefetch
  // then repeats a line).
  const bool blocked = shape.in_block != 0;
  const int64_t channel_step = blocked ? shape.in_block : 1;
  Stmt input{StmtKind::kPrefetch};
  input.a = compute.Read(Operand::kInput, {{"n", E::Var("n")},
                                           {"c", E::Var("fc", channel_step)},
                                           {"oh", oh + E::Const(1)},
                                           {"r", E::Var("fr") + E::Const(shape.r - new_rows)},
                                           {"ow", first_ow},
                                           {"s", E::Var("fl", blocked ? 1 : kLineFloats)}});
  input.a.zero_outside = true;
  if (!blocked) {
    out.push_back(NestLoops({{"fc", shape.c, LoopKind::kUnrolled},
                             {"fr", new_rows, LoopKind::kUnrolled},
                             {"fl", (span - 1) / kLineFloats + 2, LoopKind::kUnrolled}},
                            {Node::MakeStmt(std::move(input))}));
  } else {
    // Tile k1o of `spread_over` takes columns [k1o·chunk, (k1o + 1)·chunk). The useful range is
    // how the emitter skips the others; a generator that ran them all would only prefetch more.
    Loop columns_loop{"fl", span};
    if (spread_over > 1) {
      const int64_t chunk = (span + spread_over - 1) / spread_over;
      columns_loop.useful_begin = E::Var("k1o", chunk);
      columns_loop.useful_end = E::Var("k1o", chunk) + E::Const(chunk);
    }
    out.push_back(Node::MakeLoop(std::move(columns_loop),
                                 {NestLoops({{"fc", shape.c / channel_step, LoopKind::kUnrolled},
                                             {"fr", new_rows, LoopKind::kUnrolled}},
                                            {Node::MakeStmt(std::move(input))})}));
  }
  // A plain output's lines run along a row of one channel each: a prefetch per channel, left out.
  if (shape.out_block != 0 && block % kLineFloats == 0) {
    Stmt output{StmtKind::kPrefetch};
    // The output element the store of that row writes (its value is not needed).
    output.a = compute
                   .Store({{"n", E::Var("n")},
                           {"k", block_channel + E::Var("fq", kLineFloats)},
                           {"oh", oh + E::Const(1)},
                           {"ow", first_ow + E::Var("fw")}},
                          Access{}, true)
                   .dst;
    output.prefetch_write = true;
    out.push_back(NestLoops({{"fk", blocks, LoopKind::kUnrolled},
                             {"fw", columns, LoopKind::kUnrolled},
                             {"fq", block / kLineFloats, LoopKind::kUnrolled}},
                            {Node::MakeStmt(std::move(output))}));
  }
  return out;
}

LoopNest MakeConv2dBlockedNest(const Conv2dShape& shape, const ConfigView& config) {
  std::vector<int64_t> tk = config.List("tile_k"), toh = config.List("tile_oh"),
                       tow = config.List("tile_ow"), tc = config.List("tile_c");
  // The order knob permutes c0 c1 r s k1 (positions 0..4); k1 last puts it in the register tile.
  const std::vector<int64_t> order_knob = config.List("order");
  const bool k1_in_tile = order_knob.back() == 4;
  const int64_t k_block = tk[2], c_block = tc[1], k1_tile = k1_in_tile ? tk[1] : 1;
  const int64_t ow_tile = tow[1] * tow[2];
  if (tow[2] * k_block * k1_tile > kMaxRegisterTile) {
    throw Error("conv2d NCHWc: register tile of " + std::to_string(tow[2] * k_block * k1_tile) +
                " floats");
  }
  const bool copy_pad = config.Has("padding") && config.Text("padding") == "copy";
  const int64_t pad_in_copy = copy_pad ? shape.pad : 0;
  const bool strided_pack = config.Text("layout") == "NCHWc_strided";
  if (strided_pack && !StridedPointwise(shape)) {
    throw Error(
        "conv2d: layout NCHWc_strided needs a 1×1 kernel, no padding and a stride that "
        "divides H and W");
  }
  if (shape.in_block != 0 && c_block != shape.in_block) {
    throw Error("conv2d NCHWc: input channel block " + std::to_string(c_block) +
                " on an input blocked by " + std::to_string(shape.in_block));
  }
  if (shape.out_block != 0 && k_block != shape.out_block) {
    throw Error("conv2d NCHWc: output channel block " + std::to_string(k_block) +
                " on an output blocked by " + std::to_string(shape.out_block));
  }
  // An input already in the kernel's blocks, with nothing to pad or skip, is read where it is. A
  // plain (NCHW) input is in blocks of one channel: with c1 = 1 the packed copy would be the
  // input itself, and on a 3-channel first layer that copy cost MobileNet-v2's stem a fifth of
  // its time (bench/results/cpu_models_64.md, "The first layers read their input in place").
  const bool input_in_blocks = shape.in_block != 0 || c_block == 1;
  const bool pack_input = !input_in_blocks || pad_in_copy > 0 || strided_pack;
  // A plain input read in place (a first layer, whose few channels stream from memory once) at a
  // stride, by a register tile of one output block, whose FMAs broadcast each input element from
  // memory: the tile prefetches the next output row's input and output, and reads its input
  // through a pointer per kernel row. On MobileNet-v2's first layer (stride 2, 32 channels: little
  // work per byte) one block × 8 columns ran at 90 % of the FMA peak so, 80 % without. The first
  // layers' two-block tiles (explicit broadcasts, each feeding two FMAs) lost 1–3 % with them, and
  // at stride 1 the next row adds one input row per channel, which the hardware streams: VGG-16's
  // first layer lost more. Those go without (bench/results/cpu_models_64.md, "The first layers
  // prefetch").
  const bool streams_plain_input =
      !pack_input && shape.in_block == 0 && shape.stride > 1 && (!k1_in_tile || tk[1] == 1);
  // A blocked input read in place at a stride, by register tiles of one output row and one block
  // that the channel-block loop k1o (outside the tile) passes over in turn, where the input is
  // the larger stream from memory (more input than weight bytes): each of the row's tiles
  // prefetches its share of the next row's input (Ceil(span / k1o's extent) columns of it) and
  // output, so the new input arrives spread over the whole row. ResNet-18's 56×56 stride-2 3×3
  // ran 4 % faster so (88 → 92 % of the peak by the fastest round); its 14×14 one, whose weights
  // (4.7 MB) outweigh its input, 2–4 % slower. With every tile prefetching all of it, ResNet-50's
  // 28×28 stride-2 3×3 (a tile of 7 rows) lost 16 %; with the first k1o's tiles prefetching all
  // of it there, no layer gained (bench/results/cpu_models_64.md, "Strided layers prefetch their
  // next row").
  const bool spreads_blocked_input = !pack_input && shape.in_block != 0 && shape.stride > 1 &&
                                     !k1_in_tile && tk[1] > 1 && toh[1] == 1 &&
                                     shape.h * shape.w > shape.k * shape.r * shape.s;
  const int64_t hp = strided_pack ? shape.h / shape.stride : shape.h + 2 * pad_in_copy;
  const int64_t wp = strided_pack ? shape.w / shape.stride : shape.w + 2 * pad_in_copy;
  using E = AffineExpr;

  LoopNest nest;
  nest.name = strided_pack ? "conv2d_nchwc_strided" : "conv2d_nchwc";
  const OperatorCompute compute = DeclareOperatorCompute(nest, shape);
  // Wp[K/k2][C/c1][R][S][c1][k2] (OIHW[c1]i[k2]o) and Ip[N][C/c1][H(+2p)][W(+2p)][c1].
  Relayout w_layout = compute.LayoutOf(Operand::kWeight).Split(0, k_block, 4).Split(1, c_block, 4);
  Relayout in_layout = compute.LayoutOf(Operand::kInput).Split(1, c_block, 4);
  if (pad_in_copy > 0) in_layout.Pad(2, pad_in_copy).Pad(3, pad_in_copy);
  if (strided_pack) {
    // h = q·stride + 0 and w likewise: the packed plane holds the positions the taps read.
    in_layout.Split(2, shape.stride, 3).Fix(3, E::Const(0));
    in_layout.Split(3, shape.stride, 4).Fix(4, E::Const(0));
  }
  const OperandCopy packed_w{
      nest.AddTensor({"Wp", w_layout.shape(),
                      "OIHW" + std::to_string(c_block) + "i" + std::to_string(k_block) + "o",
                      DType::kFloat32, TensorRole::kPrepared}),
      w_layout};
  std::optional<OperandCopy> packed_in;
  if (pack_input) {
    packed_in =
        OperandCopy{nest.AddTensor({"Ip", in_layout.shape(), "NCHW" + std::to_string(c_block) + "c",
                                    DType::kFloat32, TensorRole::kTemp}),
                    in_layout};
  }
  int acc = AddAccumulator(nest, {k1_tile, tow[2], k_block}, "K1,OW2,K2", "ow1");

  // Prepare: the weight in the blocked layout, once.
  {
    Node node = Node::MakeStmt(compute.Fill(
        Operand::kWeight, packed_w,
        {E::Var("qk0"), E::Var("qc0"), E::Var("qr"), E::Var("qs"), E::Var("qc1"), E::Var("qk2")}));
    for (const auto& [name, extent] :
         std::vector<std::pair<std::string, int64_t>>{{"qk2", k_block},
                                                      {"qc1", c_block},
                                                      {"qs", shape.s},
                                                      {"qr", shape.r},
                                                      {"qc0", tc[0]}}) {
      node = Node::MakeLoop({name, extent}, {std::move(node)});
    }
    nest.prepare.push_back(
        Node::MakeLoop({"qk0", shape.k / k_block, LoopKind::kParallel}, {std::move(node)}));
  }

  // The activation in the blocked layout (zero-padded with padding == copy), every call.
  if (packed_in) {
    Stmt copy =
        compute.Fill(Operand::kInput, *packed_in,
                     {E::Var("pn"), E::Var("pc0"), E::Var("ph"), E::Var("pw"), E::Var("pc1")});
    nest.body.push_back(Node::MakeLoop(
        {"pn", shape.n},
        {Node::MakeLoop(
            {"pc0", tc[0], LoopKind::kParallel},
            {Node::MakeLoop(
                {"ph", hp, LoopKind::kParallel},
                {Node::MakeLoop({"pw", wp},
                                {Node::MakeLoop({"pc1", c_block}, {Node::MakeStmt(copy)})})})})}));
  }

  // The output element of the register tile element (k1, ow2, k2) (k1o when k1 is not in the
  // tile), and the taps.
  const E oh = E::Var("oh0", toh[1]) + E::Var("oh1");
  // The output channel of outer tile k0, k1 position `k1` and block lane `k2`.
  auto channel = [&](const E& k1, const E& k2) {
    return (E::Var("k0", tk[1]) + k1) * k_block + k2;
  };
  const AxisBinding at = {{"n", E::Var("n")},
                          {"k", channel(k1_in_tile ? E::Var("k1") : E::Var("k1o"), E::Var("k2"))},
                          {"oh", oh},
                          {"ow", E::Var("ow0", ow_tile) + E::Var("ow1", tow[2]) + E::Var("ow2")},
                          {"c", E::Var("c0", c_block) + E::Var("c1")},
                          // The strided packing's rows and columns are whole multiples of the
                          // stride: the single tap is bound as 0, not as its extent-1 loop.
                          {"r", strided_pack ? E::Const(0) : E::Var("r")},
                          {"s", strided_pack ? E::Const(0) : E::Var("s")}};
  Stmt mac = compute.MultiplyAdd(
      {acc, {k1_in_tile ? E::Var("k1") : E::Const(0), E::Var("ow2"), E::Var("k2")}}, at,
      packed_in ? &*packed_in : nullptr, &packed_w);
  Node reduction = Node::MakeLoop({"ow2", tow[2], LoopKind::kUnrolled},
                                  {Node::MakeLoop({"k2", k_block}, {Node::MakeStmt(mac)})});
  if (k1_in_tile)
    reduction = Node::MakeLoop({"k1", tk[1], LoopKind::kUnrolled}, {std::move(reduction)});
  const std::vector<std::string> reduction_names = {"c0", "c1", "r", "s"};
  const std::vector<int64_t> reduction_extents = {tc[0], c_block, shape.r, shape.s};
  // Which of the reduction loops have more than one iteration, outside r and inside it.
  // (And whether a channel loop of more than one iteration runs inside r.)
  bool outside_r = false, inside_r = false, past_r = false, channels_inside_r = false;
  for (int64_t position : order_knob) {
    if (position == 4) continue;  // k1
    if (position == 2) {
      past_r = true;
    } else if (reduction_extents.at(position) > 1) {
      (past_r ? inside_r : outside_r) = true;
      if (past_r && position != 3) channels_inside_r = true;
    }
  }
  const auto innermost_reduction =
      std::find_if(order_knob.rbegin(), order_knob.rend(), [](int64_t p) { return p != 4; });
  for (auto it = order_knob.rbegin(); it != order_knob.rend(); ++it) {
    if (*it == 4) continue;  // k1
    Loop loop{reduction_names.at(*it), reduction_extents.at(*it)};
    // The register tile is one output row: at the top and bottom rows, the kernel rows that
    // fall in the padding are skipped where r is the outermost reduction loop. Not where r is
    // the innermost: its bounds would be computed around every register tile's few FMAs, and
    // its constant trip count lets the compiler unroll it (the 3-channel stem measured 16 %
    // slower so). Nor inside a channel loop, where the skip cuts a hole in every channel
    // block's pass over the weights: ResNet-18's 7×7 layers measured 8–16 % slower so, where
    // the same code running every row was not.
    if (loop.name == "r" && !strided_pack && !outside_r && inside_r) {
      MarkUsefulKernelRows(loop, oh, 1, shape.stride, shape.pad, shape.dilation, shape.h);
    }
    // The innermost reduction loop holds the register tile's loops: a plain input read in place
    // is read through a pointer per kernel row there (Loop::load_pointers).
    if (streams_plain_input && it == innermost_reduction) loop.load_pointers = true;
    reduction = Node::MakeLoop(std::move(loop), {std::move(reduction)});
  }

  Stmt zero{StmtKind::kZero, {acc, {E::Var("zk1"), E::Var("zw"), E::Var("zk2")}}};
  Node zero_nest =
      Node::MakeLoop({"zk1", k1_tile, LoopKind::kUnrolled},
                     {Node::MakeLoop({"zw", tow[2], LoopKind::kUnrolled},
                                     {Node::MakeLoop({"zk2", k_block}, {Node::MakeStmt(zero)})})});

  Stmt store =
      compute.Store({{"n", E::Var("n")},
                     {"k", channel(k1_in_tile ? E::Var("wk1") : E::Var("k1o"), E::Var("wk2"))},
                     {"oh", oh},
                     {"ow", E::Var("ow0", ow_tile) + E::Var("ow1", tow[2]) + E::Var("ww")}},
                    {acc, {E::Var("wk1"), E::Var("ww"), E::Var("wk2")}});
  Node store_nest =
      Node::MakeLoop({"wk1", k1_tile, LoopKind::kUnrolled},
                     {Node::MakeLoop({"ww", tow[2], LoopKind::kUnrolled},
                                     {Node::MakeLoop({"wk2", k_block}, {Node::MakeStmt(store)})})});

  std::vector<Node> tile_body;
  if (streams_plain_input || spreads_blocked_input) {
    const E first_ow = E::Var("ow0", ow_tile) + E::Var("ow1", tow[2]);
    tile_body = NextRowPrefetches(compute, shape, oh, first_ow, tow[2],
                                  channel(E::Var(k1_in_tile ? "fk" : "k1o"), E::Const(0)), k1_tile,
                                  k_block, spreads_blocked_input ? tk[1] : 1);
  }
  tile_body.push_back(std::move(zero_nest));
  tile_body.push_back(std::move(reduction));
  tile_body.push_back(std::move(store_nest));
  Node tile =
      Node::MakeLoop({"oh1", toh[1]}, {Node::MakeLoop({"ow1", tow[1]}, std::move(tile_body))});
  if (!k1_in_tile) tile = Node::MakeLoop({"k1o", tk[1]}, {std::move(tile)});
  // With guarded loads only the first and the last column tile reach the padding: peeled, the
  // tiles between lose the column guards and the edge tiles skip their padding taps (decided at
  // compile time once ow2 and s are unrolled) instead of multiplying zeros — 2 of the 42 column
  // taps of a 3×3 layer 14 columns wide. The outer column loop only: peeling ow1 as well (where
  // ow0 has one iteration) measured no faster on VGG-16's wide layers, whose padding is 1–2 % of
  // their taps (bench/results/cpu_models_64/blocked/peel).
  Loop ow0{"ow0", tow[0]};
  ow0.peel_edges = shape.pad > 0 && !copy_pad && !strided_pack;
  nest.body.push_back(Node::MakeLoop(
      {"n", shape.n},
      {Node::MakeLoop({"k0", tk[0]},
                      {Node::MakeLoop({"oh0", toh[0]},
                                      {Node::MakeLoop(std::move(ow0), {std::move(tile)})})})}));

  if (config.Int("vectorize") != 0) {
    for (const char* name : {"k2", "zk2", "wk2"}) SetLoopKind(nest, name, LoopKind::kVectorized);
  }
  if (config.Int("unroll") != 0) {
    SetLoopKind(nest, "s", LoopKind::kUnrolled);
    // A kernel row whose body is only its unrolled taps (every channel loop inside r has one
    // iteration) is unrolled too, up to 3×3 taps: on a 3-channel first layer its three-iteration
    // loop around a few dozen FMAs cost 5–7 % (bench/results/cpu_models_64.md, "The first layers
    // read their input in place").
    if (!channels_inside_r && shape.r * shape.s <= 9) SetLoopKind(nest, "r", LoopKind::kUnrolled);
  }
  const std::string parallel = config.Text("parallel");
  if (parallel == "k" || parallel == "k_oh") SetLoopKind(nest, "k0", LoopKind::kParallel);
  if (parallel == "oh" || parallel == "k_oh") SetLoopKind(nest, "oh0", LoopKind::kParallel);
  return nest;
}

LoopNest MakeConv2dPlaneNest(const Conv2dShape& shape, const ConfigView& config) {
  if (!StridedPointwise(shape) || shape.in_block != 0 || shape.out_block != 0) {
    throw Error(
        "conv2d: layout NCHW_plane needs a 1×1 kernel, no padding, a stride that divides H and W "
        "and plain (NCHW) activations");
  }
  const std::vector<int64_t> tk = config.List("tile_k"), toh = config.List("tile_oh"),
                             tow = config.List("tile_ow");
  const int64_t rows = tk[2];  // output channels of the register tile
  const int64_t positions =
      (toh[1] * tow[2] + kPlaneVector - 1) / kPlaneVector * kPlaneVector;  // p2
  if (rows * positions > kMaxRegisterTile) {
    throw Error("conv2d NCHW_plane: register tile of " + std::to_string(rows * positions) +
                " floats");
  }
  const int64_t out_h = shape.OutH(), out_w = shape.OutW(), plane = out_h * out_w;
  const int64_t p1_extent = tow[1];
  const int64_t tiles = (plane + positions - 1) / positions;
  const int64_t p0_extent = (tiles + p1_extent - 1) / p1_extent;
  const int64_t padded_plane = p0_extent * p1_extent * positions;  // P'
  using E = AffineExpr;

  LoopNest nest;
  nest.name = "conv2d_nchw_plane";
  const OperatorCompute compute = DeclareOperatorCompute(nest, shape);
  const OperatorTensors& tensors = compute.tensors;
  // The output (and the residual, which has its shape) seen as [N][K][1][OH·OW]: the same memory,
  // indexed by the flattened position.
  for (int t : {tensors.output, tensors.residual}) {
    if (t >= 0) nest.tensors[t].shape = {shape.n, shape.k, 1, plane};
  }
  const int xs = nest.AddTensor(
      {"Xs", {shape.n, shape.c, padded_plane}, "NCP", DType::kFloat32, TensorRole::kTemp});
  const int acc = AddAccumulator(nest, {rows, positions}, "K2,P2", "p1");

  // Xs: the positions the taps read, row after row; the tail past OH·OW (the last tile's
  // overhang) zero — its lanes are computed but never stored, and zeros keep them from reading
  // whatever the allocation held (a denormal there would slow every FMA of the tile).
  {
    Stmt copy{StmtKind::kCopy,
              {xs, {E::Var("xn"), E::Var("xc"), E::Var("xh", out_w) + E::Var("xw")}},
              compute.Read(Operand::kInput, {{"n", E::Var("xn")},
                                             {"c", E::Var("xc")},
                                             {"oh", E::Var("xh")},
                                             {"ow", E::Var("xw")},
                                             {"r", E::Const(0)},
                                             {"s", E::Const(0)}})};
    std::vector<Node> per_channel;
    per_channel.push_back(Node::MakeLoop(
        {"xh", out_h},
        {Node::MakeLoop({"xw", out_w, LoopKind::kVectorized}, {Node::MakeStmt(std::move(copy))})}));
    if (padded_plane > plane) {
      Stmt zero{StmtKind::kZero,
                {xs, {E::Var("xn"), E::Var("xc"), E::Const(plane) + E::Var("xt")}}};
      per_channel.push_back(Node::MakeLoop({"xt", padded_plane - plane, LoopKind::kVectorized},
                                           {Node::MakeStmt(std::move(zero))}));
    }
    nest.body.push_back(Node::MakeLoop(
        {"xn", shape.n},
        {Node::MakeLoop({"xc", shape.c, LoopKind::kParallel}, std::move(per_channel))}));
  }

  const E channel = (E::Var("k0", tk[1]) + E::Var("k1")) * rows;         // + the row in the tile
  const E first = (E::Var("p0", p1_extent) + E::Var("p1")) * positions;  // + the position
  Stmt mac{StmtKind::kMultiplyAdd, {acc, {E::Var("k2"), E::Var("p2")}}};
  mac.a = Access{xs, {E::Var("n"), E::Var("c"), first + E::Var("p2")}};
  mac.b = compute.Read(
      Operand::kWeight,
      {{"k", channel + E::Var("k2")}, {"c", E::Var("c")}, {"r", E::Const(0)}, {"s", E::Const(0)}});
  const bool vectorize = config.Int("vectorize") != 0;
  const LoopKind vector = vectorize ? LoopKind::kVectorized : LoopKind::kSerial;
  const LoopKind row = config.Int("unroll") != 0 ? LoopKind::kUnrolled : LoopKind::kSerial;
  Node zero_nest = Node::MakeLoop(
      {"zk2", rows, row},
      {Node::MakeLoop(
          {"zp2", positions, vector},
          {Node::MakeStmt(Stmt{StmtKind::kZero, {acc, {E::Var("zk2"), E::Var("zp2")}}})})});
  Node reduction = Node::MakeLoop(
      {"c", shape.c}, {Node::MakeLoop({"k2", rows, row}, {Node::MakeLoop({"p2", positions, vector},
                                                                         {Node::MakeStmt(mac)})})});
  // Positions past OH·OW (the last tile's overhang) are not stored: a guarded store.
  Stmt store = tensors.Store(
      Access{tensors.output,
             {E::Var("n"), channel + E::Var("wk2"), E::Const(0), first + E::Var("wp2")},
             padded_plane > plane},
      Access{acc, {E::Var("wk2"), E::Var("wp2")}});
  Node store_nest = Node::MakeLoop(
      {"wk2", rows, row},
      {Node::MakeLoop({"wp2", positions, vector}, {Node::MakeStmt(std::move(store))})});

  const std::string parallel = config.Text("parallel");
  const bool over_k = parallel == "k" || parallel == "k_oh";
  const bool over_plane = parallel == "oh" || parallel == "k_oh";
  nest.body.push_back(Node::MakeLoop(
      {"n", shape.n},
      {Node::MakeLoop(
          {"k0", tk[0], over_k ? LoopKind::kParallel : LoopKind::kSerial},
          {Node::MakeLoop(
              {"p0", p0_extent, over_plane ? LoopKind::kParallel : LoopKind::kSerial},
              {Node::MakeLoop({"k1", tk[1]},
                              {Node::MakeLoop({"p1", p1_extent},
                                              MoveNodes(std::move(zero_nest), std::move(reduction),
                                                        std::move(store_nest)))})})})}));
  return nest;
}

}  // namespace

}  // namespace glimpse::cpu
