// A model named on the command line: a zoo model ('glimpse model list') or an ONNX file
// (FILE.onnx, with --input-shape for its symbolic dimensions). Every command that takes a model
// reads it here, so both kinds go through one path to their tunable layers.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "glimpse/model_graph.h"
#include "glimpse/model_zoo.h"

namespace glimpse::cli {

struct LoadedModel {
  std::string name;         // the zoo's canonical name, or the file's stem
  std::string description;  // the zoo's one line, or where the file came from (opset, producer)
  std::vector<ModelLayer> layers;
  std::optional<ModelGraph> graph;
  std::vector<GraphLayer> graph_layers;  // the graph's tunable layers (layers is their ModelLayer)
                                         // // an ONNX file's whole graph
  // Nodes of the graph no template describes (not tuned; a compiled model runs them as plain
  // loops), each as GraphLayers says why.
  std::vector<std::string> untunable;
};

// `model` is a path when it ends in .onnx, else a zoo name. `input_shapes` are --input-shape
// values ("name=1x3x224x224"), refused for a zoo model. Errors say what was wrong, after `flag`
// (e.g. "--model: …") unless it is empty.
// A zoo CNN's graph gets its seeded weights only with `weights` (compiling needs them; listing,
// showing and tuning do not: zeros, quickly).
LoadedModel LoadModel(const std::string& model, const std::vector<std::string>& input_shapes,
                      const std::string& flag, bool weights = false);

// The zoo's names, comma-separated, and the ONNX alternative: for messages.
std::string KnownModelsText();

}  // namespace glimpse::cli
