// The graph's JSON form and the performance model's version check (glimpse/program_graph.h).
#include <fmt/format.h>

#include "glimpse/error.h"
#include "glimpse/program_graph.h"

namespace glimpse {
namespace {

// What remakes a performance model for this glimpse's features (tools/glimpse/train_command.cc;
// --model defaults to graphsage).
constexpr const char* kRemake = "glimpse train perf-model --corpus <corpus> --out <file>";

Json EdgesToJson(const std::vector<GraphEdge>& edges) {
  Json list = Json::array();
  for (const GraphEdge& edge : edges) list.push_back({edge.from, edge.to});
  return list;
}

}  // namespace

Json ProgramGraphToJson(const ProgramGraph& graph) {
  Json nodes = Json::array();
  for (const GraphNode& node : graph.nodes) {
    nodes.push_back({{"type", GraphNodeTypeName(node.type)},
                     {"label", node.label},
                     {"features", std::vector<float>(node.features.begin(), node.features.end())}});
  }
  return {{"format", "glimpse-program-graph"},
          {"feature_version", kProgramGraphFeatureVersion},
          {"name", graph.name},
          {"tile_sizes", graph.tile_sizes},
          {"feature_names", ProgramGraphFeatureNames()},
          {"nodes", std::move(nodes)},
          {"edges",
           {{"nesting", EdgesToJson(graph.nesting)},
            {"data_flow", EdgesToJson(graph.data_flow)},
            {"sequence", EdgesToJson(graph.sequence)}}}};
}

void CheckProgramGraphVersion(int model_version, const std::string& model_path,
                              const std::string& remake) {
  if (model_version == kProgramGraphFeatureVersion) return;
  throw Error(fmt::format(
      "{}: program-graph features version {}; this glimpse computes version {} (remake it with "
      "'{}')",
      model_path, model_version, kProgramGraphFeatureVersion, remake.empty() ? kRemake : remake));
}

}  // namespace glimpse
