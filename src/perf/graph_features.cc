// The node types' and features' names and the features' scalings (glimpse/program_graph.h).
#include <algorithm>
#include <cmath>

#include "glimpse/program_graph.h"

namespace glimpse {
namespace {

std::vector<std::string> MakeNames() {
  std::vector<std::string> names;
  for (int t = 0; t < kGraphNodeTypes; ++t) {
    names.push_back(std::string("type.") + GraphNodeTypeName(static_cast<GraphNodeType>(t)));
  }
  for (const char* name : {"depth", "position", "log_iterations", "loop.log_extent"}) {
    names.emplace_back(name);
  }
  for (const char* kind :
       {"serial", "parallel", "vectorized", "unrolled", "gpu_block", "gpu_thread", "cooperative"}) {
    names.push_back(std::string("loop.kind.") + kind);
  }
  names.emplace_back("loop.innermost");
  names.emplace_back("loop.log_statements");
  for (const char* role : {"input", "output", "temp", "prepared", "literal"}) {
    names.push_back(std::string("tensor.role.") + role);
  }
  for (const char* name :
       {"tensor.log_elements", "tensor.rank", "tensor.log_minor_extent", "tensor.constant",
        "tensor.scope.global", "tensor.scope.shared", "tensor.scope.local"}) {
    names.emplace_back(name);
  }
  for (const char* group : {"access.stride", "access.loop_log_extent", "access.log_footprint"}) {
    for (int i = 0; i < graph_feature::kAccessLoops; ++i)
      names.push_back(group + std::to_string(i));
  }
  for (const char* name : {"access.log_footprint_nest", "access.guarded", "access.accumulator",
                           "stmt.flops", "stmt.log_flops", "stmt.bias", "stmt.relu"}) {
    names.emplace_back(name);
  }
  for (int i = 0; i < graph_feature::kTileDims; ++i) {
    names.push_back("tile.log_size" + std::to_string(i));
  }
  names.emplace_back("tile.log_sum");
  names.emplace_back("tile.log_product");
  return names;
}

}  // namespace

const char* GraphNodeTypeName(GraphNodeType type) {
  switch (type) {
    case GraphNodeType::kLoop:
      return "loop";
    case GraphNodeType::kTensor:
      return "tensor";
    case GraphNodeType::kLoad:
      return "load";
    case GraphNodeType::kStore:
      return "store";
    case GraphNodeType::kMultiplyAdd:
      return "multiply_add";
    case GraphNodeType::kCopy:
      return "copy";
    case GraphNodeType::kZero:
      return "zero";
  }
  return "unknown";
}

const std::vector<std::string>& ProgramGraphFeatureNames() {
  static const std::vector<std::string> kNames = MakeNames();
  return kNames;
}

float LogCount(double x) { return static_cast<float>(std::log2(1.0 + std::max(0.0, x))); }

float SignedLog(double x) {
  return static_cast<float>(std::copysign(std::log2(1.0 + std::fabs(x)), x));
}

}  // namespace glimpse
