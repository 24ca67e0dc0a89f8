#include "model_source.h"

#include "glimpse/error.h"
#include "glimpse/onnx_import.h"

namespace glimpse::cli {

std::string KnownModelsText() {
  std::string known;
  for (const std::string& name : ZooModelNames()) known += (known.empty() ? "" : ", ") + name;
  return known + ", or an ONNX file FILE.onnx";
}

LoadedModel LoadModel(const std::string& model, const std::vector<std::string>& input_shapes,
                      const std::string& flag, bool weights) {
  LoadedModel loaded;
  if (!IsOnnxPath(model)) {
    if (!input_shapes.empty()) {
      throw Error("--input-shape applies to ONNX models (FILE.onnx), not to the zoo model '" +
                  model + "'");
    }
    try {
      loaded.name = CanonicalZooModelName(model);
    } catch (const Error& error) {
      throw Error((flag.empty() ? "" : flag + ": ") + error.what() +
                  " (or an ONNX file FILE.onnx)");
    }
    for (const ZooModelInfo& info : ZooModels()) {
      if (info.name == loaded.name) loaded.description = info.description;
    }
    if (!HasZooGraph(loaded.name)) {
      loaded.layers = ZooModel(loaded.name);  // a list of matrix products, no graph
      return loaded;
    }
    // The same path as an ONNX file: the graph, its layers with the ReLUs fused.
    loaded.graph = ZooGraph(loaded.name, /*seed=*/0, weights);
    loaded.graph_layers = GraphLayers(*loaded.graph);
    loaded.layers = ModelLayers(loaded.graph_layers);
    return loaded;
  }
  OnnxImportOptions options;
  for (const std::string& text : input_shapes) {
    auto [name, dims] = ParseInputShape(text);
    if (!options.input_shapes.emplace(name, dims).second) {
      throw Error("--input-shape gives input '" + name + "' twice");
    }
  }
  loaded.graph = ImportOnnx(model, options);
  loaded.name = loaded.graph->name;
  loaded.description = loaded.graph->source;
  loaded.graph_layers = GraphLayers(*loaded.graph, &loaded.untunable);
  loaded.layers = ModelLayers(loaded.graph_layers);
  return loaded;
}

}  // namespace glimpse::cli
