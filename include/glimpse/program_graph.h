// glimpse/program_graph.h — a scheduled loop nest as a graph with per-node features: the input of
// the learned performance model (Kaufman et al., "A learned performance model for TPUs";
// docs/perf-model.md).
//
// Kaufman's model reads a kernel as a graph of its operations, each with an opcode and a
// fixed-width feature vector, and runs GraphSAGE over it. Our kernels are the nests the templates
// generate (glimpse/loop_nest.h), so the graph is made from a nest:
//   - nodes: one per loop, one per tensor the nest's body touches, and per statement a compute
//     node (multiply-add, copy, zero) with a load node per element it reads and a store node for
//     the element it writes;
//   - edges, kept apart by type so that a model may weigh them differently: nesting (loop → each
//     loop or statement directly in its body), data flow (tensor → load → statement → store →
//     tensor) and sequence (each node of a body → the next one, the order they run in).
// Only `body` is read: `prepare` runs once, outside the timed call (glimpse/cpu.h), so it costs
// nothing a runner measures; the kPrepared tensors it writes appear as tensors the body reads.
//
// Units: counts in elements (every tensor is float32), strides in elements of the row-major
// tensor. Counts that grow with the problem (extents, iterations, footprints, sizes) are stored
// as log2(1 + x) and strides as sign(s) · log2(1 + |s|), so that a 1 and a 10⁹ differ by 30, not
// by 10⁹, in a network's input; one-hots and flags are 0/1; depth and position are small integers
// kept as they are.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "glimpse/json.h"
#include "glimpse/loop_nest.h"
#include "glimpse/ops.h"
#include "glimpse/space.h"

namespace glimpse {

// The version of the node features and the graph's shape. Bump it whenever a feature's meaning,
// order or scaling changes, or the nodes and edges are made differently: every trained model
// stores the version it was trained on and is refused with another (CheckProgramGraphVersion).
constexpr int kProgramGraphFeatureVersion = 1;

enum class GraphNodeType : uint8_t {
  kLoop,
  kTensor,
  kLoad,         // one element a statement reads (a multiply-add's destination counts: it is read)
  kStore,        // the element a statement writes
  kMultiplyAdd,  // dst += a · b
  kCopy,         // dst = a [+ bias] [then ReLU]: a move with the epilogue's arithmetic
  kZero,         // dst = 0
};
constexpr int kGraphNodeTypes = 7;
// "loop", "tensor", "load", "store", "multiply_add", "copy", "zero"
const char* GraphNodeTypeName(GraphNodeType type);

// ---- The node features
//
// Every node has kProgramGraphFeatureWidth values; each group below is a fixed region, zero in
// nodes it does not describe (Kaufman: "an op's features occupy a fixed region of the vector").
// "Statement" nodes are the compute nodes (multiply-add, copy, zero); an access (load, store)
// repeats its statement's depth, position and iterations.
//
//  index  name                        nodes       meaning
//  0–6    type.<name>                 all         one-hot GraphNodeType, in the enum's order
//  7      depth                       loop, stmt, number of loops around it (0: top level)
//                                     access
//  8      position                    loop, stmt, index among the nodes of its body (an access:
//                                     access      its statement's)
//  9      log_iterations              loop, stmt, log2(1 + times it runs): a loop, the product of
//                                     access      its extent and those around it (runs of its
//                                                 body); a statement, of the loops around it
//  10     loop.log_extent             loop        log2(1 + extent)
//  11–17  loop.kind.<k>               loop        one-hot: serial, parallel, vectorized,
//                                                 unrolled, gpu_block (blockIdx.*), gpu_thread
//                                                 (threadIdx.*), cooperative
//  18     loop.innermost              loop        1 when its body holds no loop
//  19     loop.log_statements         loop        log2(1 + statements anywhere below it)
//  20–24  tensor.role.<r>             tensor      one-hot TensorRole: input, output, temp,
//                                                 prepared, literal
//  25     tensor.log_elements         tensor      log2(1 + elements)
//  26     tensor.rank                 tensor      dimensions
//  27     tensor.log_minor_extent     tensor      log2(1 + the last, contiguous dimension)
//  28     tensor.constant             tensor      1 for a constant of the model (a weight)
//  29–31  tensor.scope.<s>            tensor      one-hot MemoryScope: global, shared, local
//  32–35  access.stride<i>            access      i = 0…3: signed log of the elements the access
//                                                 moves by when the i-th innermost loop around it
//                                                 steps by one (0: the loop reuses the element,
//                                                 or there is no such loop)
//  36–39  access.loop_log_extent<i>   access      log2(1 + extent) of that loop; 0: no such loop
//  40–43  access.log_footprint<i>     access      log2(1 + distinct elements touched while the
//                                                 innermost i+1 loops around it run through their
//                                                 ranges); beyond its depth, all its loops'
//  44     access.log_footprint_nest   access      log2(1 + distinct elements touched by all its
//                                                 loops: the whole kernel's share of the tensor)
//  45     access.guarded              access      1 when out-of-bounds elements read as 0 / are
//                                                 skipped (Access::zero_outside)
//  46     access.accumulator          access      1 for a multiply-add's read and write of its
//                                                 destination
//  47     stmt.flops                  stmt        floating-point operations per run: 2 for a
//                                                 multiply-add, a copy's bias and ReLU 1 each
//  48     stmt.log_flops              stmt        log2(1 + flops × runs)
//  49     stmt.bias                   stmt        1 for a copy that adds a bias
//  50     stmt.relu                   stmt        1 for a copy that applies ReLU
//  51–54  tile.log_size<i>            all         the kernel's tile (ProgramTileSizes), minor to
//                                                 major: log2(1 + size of dimension i), 0 beyond
//                                                 its rank; a tile of more than 4 dimensions has
//                                                 its major ones folded into the 4th (product)
//  55     tile.log_sum                all         log2(1 + Σ sizes)
//  56     tile.log_product            all         log2(1 + Π sizes) (0: no tile)
//
// Footprints are exact for an index that is one loop per dimension or a split's mixed radix
// (i·8 + j with j < 8); otherwise (a convolution's oh·stride + r) they are each dimension's
// bounding range, bounded by the iterations that produce it and by the dimension's size.
namespace graph_feature {
constexpr int kType = 0;  // + GraphNodeType
constexpr int kDepth = 7;
constexpr int kPosition = 8;
constexpr int kLogIterations = 9;
constexpr int kLoopLogExtent = 10;
constexpr int kLoopKind = 11;  // + 0 serial … 6 cooperative
constexpr int kLoopInnermost = 18;
constexpr int kLoopLogStatements = 19;
constexpr int kTensorRole = 20;  // + TensorRole
constexpr int kTensorLogElements = 25;
constexpr int kTensorRank = 26;
constexpr int kTensorLogMinorExtent = 27;
constexpr int kTensorConstant = 28;
constexpr int kTensorScope = 29;  // + MemoryScope
constexpr int kAccessLoops = 4;   // innermost loops whose stride, extent and footprint are kept
constexpr int kAccessStride = 32;
constexpr int kAccessLoopLogExtent = 36;
constexpr int kAccessLogFootprint = 40;
constexpr int kAccessLogFootprintNest = 44;
constexpr int kAccessGuarded = 45;
constexpr int kAccessAccumulator = 46;
constexpr int kStmtFlops = 47;
constexpr int kStmtLogFlops = 48;
constexpr int kStmtBias = 49;
constexpr int kStmtRelu = 50;
constexpr int kTileDims = 4;
constexpr int kTileLogSize = 51;
constexpr int kTileLogSum = 55;
constexpr int kTileLogProduct = 56;
}  // namespace graph_feature
constexpr int kProgramGraphFeatureWidth = 57;

// The name of each feature index, as in the table ("loop.kind.vectorized", "access.stride0"):
// kProgramGraphFeatureWidth names, for JSON exports and for baselines that print importances.
const std::vector<std::string>& ProgramGraphFeatureNames();

// log2(1 + x) for x ≥ 0, and sign(x) · log2(1 + |x|) for a stride: the scalings of the table.
float LogCount(double x);
float SignedLog(double x);

// ---- The graph

struct GraphNode {
  GraphNodeType type = GraphNodeType::kLoop;
  // A loop's or tensor's name, an access's tensor name, a statement's type name: for dumps and
  // tests only, never a feature.
  std::string label;
  std::array<float, kProgramGraphFeatureWidth> features{};
};

struct GraphEdge {
  int from = -1;  // node indices
  int to = -1;
  bool operator==(const GraphEdge&) const = default;
};

// Node order (deterministic, so that two builds of one nest are equal): the tensors the body
// touches in declaration order, then the body in pre-order — a loop before its body; a statement
// as its compute node, its loads (a, b, bias, then the destination a multiply-add reads) and its
// store.
struct ProgramGraph {
  std::string name;  // the nest's
  std::vector<GraphNode> nodes;
  std::vector<GraphEdge> nesting;    // loop → loop or statement directly in its body
  std::vector<GraphEdge> data_flow;  // tensor → load → statement → store → tensor
  std::vector<GraphEdge> sequence;   // a node of a body (loop or statement) → the next one
  std::vector<int64_t> tile_sizes;   // ProgramTileSizes of the nest, major to minor

  int Count(GraphNodeType type) const;
};

// The graph of a nest's `body`. The nest should be valid (LoopNest::Validate), which is not
// checked again: an access to an unknown tensor throws Error, a variable of no loop around an
// access counts as a constant (stride 0).
ProgramGraph BuildProgramGraph(const LoopNest& nest);
// The graph of a CPU template's nest: BuildProgramGraph(MakeCpuNest(op, space, config)). Throws
// Error when the configuration does not instantiate.
ProgramGraph BuildCpuProgramGraph(const Operator& op, const ConfigSpace& space,
                                  const Config& config);

// ---- The tile (Kaufman's tile-size sub-vector)
//
// Kaufman's tile is the block of a kernel's output computed at a time in fast memory and then
// copied out. Our CPU templates make exactly that: a per-tile accumulator, a kTemp tensor that the
// operator's multiply-add accumulates into and the epilogue copies out (dense's
// acc[m1·m2][n1·n2], conv2d's acc[k1·k2][oh1][ow1·ow2] or NCHWc's register tile) — its
// dimensions are the extents of the loops the tiling splits produced. So the tile of a nest is:
//   - the shape of the tensor its main multiply-add (the one that runs most, the first on ties)
//     writes, when that tensor is a temporary;
//   - else, for a multiply-add straight into the output, the block of its destination touched
//     while the loops inside the outermost reduction loop around it (one the destination's index
//     does not use) run: the part of the output finished between two steps of the reduction (the
//     innermost loop's when no loop is a reduction);
//   - empty (no tile) for a nest without a multiply-add.
// Sizes major to minor, as the tensor's dimensions.
std::vector<int64_t> ProgramTileSizes(const LoopNest& nest);
// The tile region of the features (table above): kTileDims sizes minor to major, their sum and
// product, log-scaled.
std::array<float, graph_feature::kTileDims + 2> TileSubVector(const std::vector<int64_t>& tile);

// ---- Export and versions

// {"format": "glimpse-program-graph", "feature_version": kProgramGraphFeatureVersion, "name",
//  "tile_sizes", "feature_names", "nodes": [{"type", "label", "features"}],
//  "edges": {"nesting": [[from, to], …], "data_flow": …, "sequence": …}}: for debugging and the
// performance model's corpus.
Json ProgramGraphToJson(const ProgramGraph& graph);

// Refuses a performance model trained on other program-graph features: throws Error naming
// `model_path`, its version and this glimpse's, and the command that remakes the model (`remake`;
// empty: the learned network's, 'glimpse train perf-model --corpus <corpus> --out <file>').
void CheckProgramGraphVersion(int model_version, const std::string& model_path,
                              const std::string& remake = "");

}  // namespace glimpse
