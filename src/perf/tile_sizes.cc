// The kernel's tile and Kaufman's tile-size sub-vector (glimpse/program_graph.h, "The tile").
#include <algorithm>
#include <cmath>

#include "glimpse/program_graph.h"
#include "perf/access_analysis.h"

namespace glimpse {
namespace {

// The multiply-add that runs most (the first on ties) and the loops around it, outermost first.
struct MainStatement {
  const Stmt* stmt = nullptr;
  double runs = 0.0;
  std::vector<const Loop*> loops;
};

void FindMain(const std::vector<Node>& body, std::vector<const Loop*>& loops, double runs,
              MainStatement& main) {
  for (const Node& node : body) {
    if (node.is_loop) {
      loops.push_back(&node.loop);
      FindMain(node.body, loops, runs * static_cast<double>(node.loop.extent), main);
      loops.pop_back();
    } else if (node.stmt.kind == StmtKind::kMultiplyAdd && runs > main.runs) {
      main = {&node.stmt, runs, loops};
    }
  }
}

}  // namespace

std::vector<int64_t> ProgramTileSizes(const LoopNest& nest) {
  MainStatement main;
  std::vector<const Loop*> loops;
  FindMain(nest.body, loops, 1.0, main);
  if (main.stmt == nullptr) return {};
  const Access& dst = main.stmt->dst;
  const TensorDecl& tensor = nest.tensors.at(dst.tensor);
  if (tensor.role == TensorRole::kTemp) return tensor.shape;  // the per-tile accumulator

  // Into the output: the block finished between two steps of the outermost reduction loop.
  auto uses = [&](const Loop* loop) {
    return std::any_of(dst.index.begin(), dst.index.end(),
                       [&](const AffineExpr& e) { return e.DependsOn(loop->name); });
  };
  auto reduction = std::find_if(main.loops.begin(), main.loops.end(),
                                [&](const Loop* loop) { return !uses(loop); });
  std::vector<const Loop*> inside;
  if (reduction != main.loops.end()) {
    inside.assign(reduction + 1, main.loops.end());
  } else if (!main.loops.empty()) {
    inside.push_back(main.loops.back());
  }
  std::vector<int64_t> tile;
  for (double extent : perf::FootprintPerDimension(dst, tensor, inside)) {
    tile.push_back(static_cast<int64_t>(std::llround(extent)));
  }
  return tile;
}

std::array<float, graph_feature::kTileDims + 2> TileSubVector(const std::vector<int64_t>& tile) {
  std::array<float, graph_feature::kTileDims + 2> features{};
  if (tile.empty()) return features;
  // Minor to major; dimensions beyond kTileDims fold into the last slot, keeping the product.
  std::vector<double> minor_first(tile.rbegin(), tile.rend());
  double folded = 1.0, sum = 0.0, product = 1.0;
  for (size_t i = 0; i < minor_first.size(); ++i) {
    sum += minor_first[i];
    product *= minor_first[i];
    if (i + 1 >= graph_feature::kTileDims) folded *= minor_first[i];
  }
  for (size_t i = 0; i < minor_first.size() && i + 1 < graph_feature::kTileDims; ++i) {
    features[i] = LogCount(minor_first[i]);
  }
  if (minor_first.size() >= graph_feature::kTileDims) {
    features[graph_feature::kTileDims - 1] = LogCount(folded);
  }
  features[graph_feature::kTileDims] = LogCount(sum);
  features[graph_feature::kTileDims + 1] = LogCount(product);
  return features;
}

}  // namespace glimpse
