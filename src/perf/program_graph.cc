// BuildProgramGraph: one walk of a nest's body that makes the nodes, their features and the
// edges (glimpse/program_graph.h has the node order and the feature table). Map: Builder::Tensors
// (the tensor nodes), Builder::Body/Visit (loops, sequence edges), Builder::Statement (compute,
// load and store nodes, data-flow edges), Builder::AccessFeatures (strides, footprints).
#include "glimpse/program_graph.h"

#include <algorithm>

#include "glimpse/error.h"
#include "perf/access_analysis.h"

namespace glimpse {
namespace {
namespace gf = graph_feature;

int LoopKindSlot(LoopKind kind) {
  switch (kind) {
    case LoopKind::kSerial:
      return 0;
    case LoopKind::kParallel:
      return 1;
    case LoopKind::kVectorized:
      return 2;
    case LoopKind::kUnrolled:
      return 3;
    case LoopKind::kCooperative:
      return 6;
    default:
      return IsBlockBinding(kind) ? 4 : 5;  // the GPU index bindings
  }
}

int StatementsBelow(const Node& node) {
  if (!node.is_loop) return 1;
  int count = 0;
  for (const Node& child : node.body) count += StatementsBelow(child);
  return count;
}

class Builder {
 public:
  Builder(const LoopNest& nest, ProgramGraph& graph)
      : nest_(nest), graph_(graph), tile_(TileSubVector(graph.tile_sizes)) {}

  void Build() {
    // One allocation for the nodes: a graph holds about 40 of 260 bytes each.
    graph_.nodes.reserve(nest_.tensors.size() + NodesOf(nest_.body));
    Tensors();
    Body(nest_.body, -1);
  }

 private:
  using Features = std::array<float, kProgramGraphFeatureWidth>;

  int AddNode(GraphNodeType type, std::string label) {
    GraphNode node;
    node.type = type;
    node.label = std::move(label);
    node.features[gf::kType + static_cast<int>(type)] = 1.0f;
    std::copy(tile_.begin(), tile_.end(), node.features.begin() + gf::kTileLogSize);
    graph_.nodes.push_back(std::move(node));
    return static_cast<int>(graph_.nodes.size()) - 1;
  }

  const TensorDecl& TensorOf(const Access& access) const {
    if (access.tensor < 0 || access.tensor >= static_cast<int>(nest_.tensors.size())) {
      throw Error("program graph of '" + nest_.name + "': an access names tensor " +
                  std::to_string(access.tensor) + " of " + std::to_string(nest_.tensors.size()));
    }
    return nest_.tensors[access.tensor];
  }

  // The loop, compute and access nodes of a body.
  static size_t NodesOf(const std::vector<Node>& body) {
    size_t count = 0;
    for (const Node& node : body) {
      count += node.is_loop ? 1 + NodesOf(node.body) : 1 + Uses(node.stmt).size();
    }
    return count;
  }

  // The accesses a statement makes, reads first (the order of its nodes).
  struct Use {
    const Access* access;
    bool store;
    bool accumulator;
  };
  static std::vector<Use> Uses(const Stmt& stmt) {
    std::vector<Use> uses;
    const bool mac = stmt.kind == StmtKind::kMultiplyAdd;
    for (const Access* read : StmtReads(stmt)) uses.push_back({read, false, false});
    if (mac) uses.push_back({&stmt.dst, false, true});
    uses.push_back({&stmt.dst, true, mac});
    return uses;
  }

  void CollectTensors(const std::vector<Node>& body, std::vector<bool>& used) const {
    for (const Node& node : body) {
      if (node.is_loop) {
        CollectTensors(node.body, used);
      } else {
        for (const Use& use : Uses(node.stmt)) {
          TensorOf(*use.access);
          used[use.access->tensor] = true;
        }
      }
    }
  }

  void Tensors() {
    std::vector<bool> used(nest_.tensors.size(), false);
    CollectTensors(nest_.body, used);
    tensor_node_.assign(nest_.tensors.size(), -1);
    for (size_t t = 0; t < nest_.tensors.size(); ++t) {
      if (!used[t]) continue;
      const TensorDecl& tensor = nest_.tensors[t];
      tensor_node_[t] = AddNode(GraphNodeType::kTensor, tensor.name);
      Features& f = graph_.nodes.back().features;
      f[gf::kTensorRole + static_cast<int>(tensor.role)] = 1.0f;
      f[gf::kTensorLogElements] = LogCount(static_cast<double>(tensor.NumElements()));
      f[gf::kTensorRank] = static_cast<float>(tensor.shape.size());
      f[gf::kTensorLogMinorExtent] =
          tensor.shape.empty() ? 0.0f : LogCount(static_cast<double>(tensor.shape.back()));
      f[gf::kTensorConstant] = tensor.constant ? 1.0f : 0.0f;
      f[gf::kTensorScope + static_cast<int>(tensor.scope)] = 1.0f;
    }
  }

  void Body(const std::vector<Node>& body, int parent) {
    int previous = -1;
    for (size_t position = 0; position < body.size(); ++position) {
      const int id = Visit(body[position], static_cast<int>(position), parent);
      if (previous >= 0) graph_.sequence.push_back({previous, id});
      previous = id;
    }
  }

  // Depth, position and runs: what every node inside the body shares.
  void Place(Features& f, int position, double runs) const {
    f[gf::kDepth] = static_cast<float>(loops_.size());
    f[gf::kPosition] = static_cast<float>(position);
    f[gf::kLogIterations] = LogCount(runs);
  }

  double Runs() const {
    double runs = 1.0;
    for (const Loop* loop : loops_) runs *= static_cast<double>(loop->extent);
    return runs;
  }

  // A node's nesting edge is added with the node, so that edges come in node order.
  int Visit(const Node& node, int position, int parent) {
    if (!node.is_loop) return Statement(node.stmt, position, parent);
    const int id = AddNode(GraphNodeType::kLoop, node.loop.name);
    if (parent >= 0) graph_.nesting.push_back({parent, id});
    {
      Features& f = graph_.nodes[id].features;
      Place(f, position, Runs() * static_cast<double>(node.loop.extent));
      f[gf::kLoopLogExtent] = LogCount(static_cast<double>(node.loop.extent));
      f[gf::kLoopKind + LoopKindSlot(node.loop.kind)] = 1.0f;
      const bool innermost =
          std::none_of(node.body.begin(), node.body.end(), [](const Node& n) { return n.is_loop; });
      f[gf::kLoopInnermost] = innermost ? 1.0f : 0.0f;
      f[gf::kLoopLogStatements] = LogCount(StatementsBelow(node));
    }  // `f` dangles once the body adds nodes
    loops_.push_back(&node.loop);
    Body(node.body, id);
    loops_.pop_back();
    return id;
  }

  int Statement(const Stmt& stmt, int position, int parent) {
    static constexpr GraphNodeType kTypes[] = {GraphNodeType::kZero, GraphNodeType::kMultiplyAdd,
                                               GraphNodeType::kCopy};
    const GraphNodeType type = kTypes[static_cast<int>(stmt.kind)];
    const double runs = Runs();
    const int id = AddNode(type, GraphNodeTypeName(type));
    if (parent >= 0) graph_.nesting.push_back({parent, id});
    {
      Features& f = graph_.nodes[id].features;
      Place(f, position, runs);
      double flops = 0.0;
      if (stmt.kind == StmtKind::kMultiplyAdd) flops = 2.0;
      if (stmt.kind == StmtKind::kCopy) {
        flops = EpilogueFlops(stmt);
        f[gf::kStmtBias] = stmt.bias ? 1.0f : 0.0f;
        // ReLU6 is an activation too; the residual shows as its load's access node.
        f[gf::kStmtRelu] = stmt.relu || stmt.relu6 ? 1.0f : 0.0f;
      }
      f[gf::kStmtFlops] = static_cast<float>(flops);
      f[gf::kStmtLogFlops] = LogCount(flops * runs);
    }
    for (const Use& use : Uses(stmt)) {
      const TensorDecl& tensor = TensorOf(*use.access);
      const int access =
          AddNode(use.store ? GraphNodeType::kStore : GraphNodeType::kLoad, tensor.name);
      Features& f = graph_.nodes[access].features;
      Place(f, position, runs);
      AccessFeatures(*use.access, tensor, f);
      f[gf::kAccessAccumulator] = use.accumulator ? 1.0f : 0.0f;
      const int tensor_node = tensor_node_[use.access->tensor];
      if (use.store) {
        graph_.data_flow.push_back({id, access});
        graph_.data_flow.push_back({access, tensor_node});
      } else {
        graph_.data_flow.push_back({tensor_node, access});
        graph_.data_flow.push_back({access, id});
      }
    }
    return id;
  }

  void AccessFeatures(const Access& access, const TensorDecl& tensor, Features& f) const {
    const int depth = static_cast<int>(loops_.size());
    const perf::AccessInLoops in_loops(access, tensor, loops_);
    for (int i = 0; i < gf::kAccessLoops; ++i) {
      // The innermost i+1 loops (all of them beyond the depth).
      const int first = std::max(0, depth - 1 - i);
      f[gf::kAccessLogFootprint + i] = LogCount(in_loops.Footprint(first));
      if (i >= depth) continue;
      const int loop = depth - 1 - i;
      f[gf::kAccessStride + i] = SignedLog(static_cast<double>(in_loops.FlatStride(loop)));
      f[gf::kAccessLoopLogExtent + i] = LogCount(static_cast<double>(loops_[loop]->extent));
    }
    f[gf::kAccessLogFootprintNest] = LogCount(in_loops.Footprint(0));
    f[gf::kAccessGuarded] = access.zero_outside ? 1.0f : 0.0f;
  }

  const LoopNest& nest_;
  ProgramGraph& graph_;
  const std::array<float, gf::kTileDims + 2> tile_;
  std::vector<int> tensor_node_;    // by tensor index; -1 when the body does not touch it
  std::vector<const Loop*> loops_;  // around the node being visited, outermost first
};

}  // namespace

ProgramGraph BuildProgramGraph(const LoopNest& nest) {
  // The graph of the program a prefetch does not change (the featuriser's version stays).
  if (HasPrefetch(nest)) return BuildProgramGraph(WithoutPrefetches(nest));
  ProgramGraph graph;
  graph.name = nest.name;
  graph.tile_sizes = ProgramTileSizes(nest);
  Builder(nest, graph).Build();
  return graph;
}

int ProgramGraph::Count(GraphNodeType type) const {
  return static_cast<int>(std::count_if(nodes.begin(), nodes.end(),
                                        [&](const GraphNode& node) { return node.type == type; }));
}

}  // namespace glimpse
