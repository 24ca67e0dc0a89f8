// `glimpse model list` and `glimpse model show NAME`: the model zoo, its layers and the distinct
// operators a model is tuned as.
#include <fmt/format.h>

#include <iostream>
#include <map>
#include <memory>
#include <set>

#include "commands.h"
#include "format.h"
#include "glimpse/cpu.h"
#include "glimpse/error.h"
#include "glimpse/model_zoo.h"
#include "glimpse/onnx_export.h"
#include "model_source.h"
#include "tune_report.h"

namespace glimpse::cli {
namespace {

struct ModelFlags {
  std::string name;
  std::vector<std::string> input_shapes;
  bool json = false;
  std::string out;  // export: the ONNX file
};

// "" when the operator has a CPU template, else why not ("no CPU template for … yet").
std::string TemplateProblem(const Operator& op) {
  try {
    MakeCpuSpace(op);
    return "";
  } catch (const Error& error) {
    return error.what();
  }
}

std::string Mflop(double flops) { return fmt::format("{:.1f}", flops / 1e6); }

// 0.255 → "25.5 %"; small shares keep two decimals (ResNet-18's dense layer is "0.03 %").
std::string Percent(double fraction) {
  return fraction >= 0.01 ? fmt::format("{:.1f} %", 100 * fraction)
                          : fmt::format("{:.2f} %", 100 * fraction);
}

void RunList(const ModelFlags& flags) {
  Json rows = Json::array();
  Table table({"model", "layers", "tasks", "GFLOP", "description"});
  table.AlignLeft({"description"});
  for (const ZooModelInfo& info : ZooModels()) {
    const std::vector<ModelLayer> layers = LoadModel(info.name, {}, "").layers;
    const size_t tasks = ExtractTasks(layers).size();
    const double flops = ModelFlops(layers);
    rows.push_back({{"model", info.name},
                    {"description", info.description},
                    {"layers", layers.size()},
                    {"tasks", tasks},
                    {"flops", flops}});
    table.AddRow({info.name, std::to_string(layers.size()), std::to_string(tasks),
                  fmt::format("{:.2f}", flops / 1e9), info.description});
  }
  if (flags.json) {
    std::cout << rows.dump(2) << "\n";
    return;
  }
  table.Print(std::cout);
  std::cout << "\nBatch 1, 3x224x224 input; GFLOP = 2 x multiply-adds of the convolutions and "
               "dense layers.\n";
}

void RunShow(const ModelFlags& flags) {
  LoadedModel model = LoadModel(flags.name, flags.input_shapes, "");
  const std::string& name = model.name;
  const std::string& description = model.description;
  const std::vector<ModelLayer>& layers = model.layers;
  std::vector<ModelTask> tasks = ExtractTasks(layers);
  const double total = ModelFlops(layers);

  if (flags.json) {
    Json out;
    out["model"] = name;
    out["description"] = description;
    out["flops"] = total;
    out["layers"] = Json::array();
    for (const ModelLayer& layer : layers) {
      out["layers"].push_back({{"name", layer.name},
                               {"op", OperatorToString(layer.op)},
                               {"flops", OperatorFlops(layer.op)}});
    }
    out["tasks"] = Json::array();
    for (const ModelTask& task : tasks) {
      std::string problem = TemplateProblem(task.op);
      Json row = {{"op", task.op_text},         {"operator", OperatorName(task.op)},
                  {"weight", task.weight},      {"layers", task.layers},
                  {"flops", task.Flops()},      {"total_flops", task.TotalFlops()},
                  {"template", problem.empty()}};
      if (!problem.empty()) row["template_error"] = problem;
      out["tasks"].push_back(std::move(row));
    }
    std::cout << out.dump(2) << "\n";
    return;
  }

  std::cout << fmt::format("{}: {}\n{} layers, {} distinct operators, {:.3f} GFLOP\n\nLayers\n",
                           name, description, layers.size(), tasks.size(), total / 1e9);
  Table layer_table({"#", "layer", "operator", "MFLOP"});
  layer_table.AlignLeft({"layer", "operator"});
  for (size_t i = 0; i < layers.size(); ++i) {
    layer_table.AddRow({std::to_string(i + 1), layers[i].name,
                        CompactOp(OperatorToString(layers[i].op)),
                        Mflop(OperatorFlops(layers[i].op))});
  }
  layer_table.Print(std::cout);

  std::cout << "\nTasks (distinct operators; weight = layers computing it)\n";
  Table task_table({"#", "operator", "weight", "MFLOP", "share", "template", "layers"});
  task_table.AlignLeft({"operator", "template", "layers"});
  for (size_t i = 0; i < tasks.size(); ++i) {
    const ModelTask& task = tasks[i];
    std::string layer_names;
    for (const std::string& layer : task.layers) {
      layer_names += (layer_names.empty() ? "" : ", ") + layer;
    }
    task_table.AddRow({std::to_string(i + 1), CompactOp(task.op_text), std::to_string(task.weight),
                       Mflop(task.Flops()), Percent(task.TotalFlops() / total),
                       TemplateProblem(task.op).empty() ? "yes" : "not yet", layer_names});
  }
  task_table.Print(std::cout);
  if (model.graph) {
    // What runs besides the tuned layers, by kind (a fused ReLU is part of its layer).
    std::map<std::string, int> others;
    std::set<int> fused;
    for (const GraphLayer& layer : model.graph_layers) {
      fused.insert(layer.op);
      fused.insert(layer.fused.begin(), layer.fused.end());
    }
    for (size_t i = 0; i < model.graph->ops.size(); ++i) {
      if (!fused.count(static_cast<int>(i))) ++others[GraphOpKindName(model.graph->ops[i].kind)];
    }
    std::string text;
    for (const auto& [kind, count] : others) {
      text += fmt::format("{}{} x{}", text.empty() ? "" : ", ", kind, count);
    }
    std::cout << "\nMFLOP: one execution (2 x multiply-adds); share: weight x MFLOP of the model's "
                 "total. Batch norms are folded into the convolutions' biases; a residual Add and "
                 "a ReLU (or ReLU6) that only their layer feeds are fused (residual=1, relu=1, "
                 "relu6=1). Not tuned: "
              << (text.empty() ? "nothing else" : text) << ".\n";
    for (const std::string& why : model.untunable) {
      std::cout << "No template (runs as a plain loop): " << why << "\n";
    }
    return;
  }
  std::cout << "\nMFLOP: one execution (2 x multiply-adds); share: weight x MFLOP of the model's "
               "total. A CNN's biases hold the folded batch norm; ReLU, residual adds, pooling, "
               "softmax and LayerNorm are not listed (not tuned).\n";
}

// `glimpse model export NAME -o FILE.onnx`: the graph glimpse compiles, weights included, for
// ONNX Runtime (a zoo model: the seeded weights `glimpse compile` gives it).
void RunExport(const ModelFlags& flags) {
  const LoadedModel model = LoadModel(flags.name, flags.input_shapes, "", /*weights=*/true);
  if (!model.graph) {
    throw Error("model export: " + model.name +
                " lists its matrix products only, with no graph to export (the CNNs of 'glimpse "
                "model list' and ONNX files have one)");
  }
  ExportOnnx(*model.graph, flags.out);
  std::cout << fmt::format("wrote {} ({} ops, opset {}) to {}\n", model.name,
                           model.graph->ops.size(), kExportOnnxOpset, flags.out);
}

}  // namespace

void AddModelCommand(CLI::App& app) {
  auto flags = std::make_shared<ModelFlags>();
  CLI::App* command = app.add_subcommand(
      "model",
      "The model zoo: CNN layers at batch 1, a transformer layer, and the distinct operators "
      "they tune as");
  command->require_subcommand(1);
  CLI::App* list = command->add_subcommand("list", "List the models of the zoo");
  list->add_flag("--json", flags->json, "print JSON");
  list->callback([flags] { RunList(*flags); });
  CLI::App* show = command->add_subcommand(
      "show",
      "A model's tunable layers (with fused bias and ReLU for an ONNX file) and its distinct "
      "operators (tasks) with weights and FLOPs");
  show->add_option("name", flags->name,
                   "a zoo model ('glimpse model list') or an ONNX file FILE.onnx")
      ->required();
  show->add_option("--input-shape", flags->input_shapes,
                   "NAME=1x3x224x224: the shape of an ONNX model's input with symbolic "
                   "dimensions (repeatable)");
  show->add_flag("--json", flags->json, "print JSON");
  show->callback([flags] { RunShow(*flags); });
  CLI::App* export_command = command->add_subcommand(
      "export",
      "Write a model's graph, weights included, as an ONNX file (opset 13): a zoo CNN with the "
      "seeded weights glimpse compile gives it, for ONNX Runtime to run the same model");
  export_command->add_option("name", flags->name, "a CNN of the zoo or an ONNX file")->required();
  export_command->add_option("--input-shape", flags->input_shapes,
                             "NAME=1x3x224x224 for an ONNX input with symbolic dimensions");
  export_command->add_option("-o,--out", flags->out, "the ONNX file to write")->required();
  export_command->callback([flags] { RunExport(*flags); });
}

}  // namespace glimpse::cli
