// Inference speed of the learned performance model (docs/perf-model.md "The model"): predictions
// per second for batches of 1,000 candidate graphs of ResNet-18's conv2d layers (uniformly sampled
// CPU configurations), GraphSAGE and the LSTM at the default shape (hidden 32, 3 hops, linear
// readout), one thread. Building the graphs (the nest and its features) is timed apart from the
// forward pass. Then what a tuner pays: LearnedCostModel::Predict (glimpse/learned_cost_model.h)
// on the same new configurations, each operator's in one call — the nests built, their graphs
// and the GraphSAGE forward pass — on one thread and on every core. The weights do not change the
// work: without a model file, each architecture is trained for one epoch on 64 of the graphs
// (random times).
//
// Usage: bench_perf_model [graphsage-model.json [lstm-model.json]]
#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <thread>

#include "glimpse/cpu.h"
#include "glimpse/learned_cost_model.h"
#include "glimpse/model_zoo.h"
#include "glimpse/perf_model.h"
#include "glimpse/perf_training.h"
#include "glimpse/random.h"

using namespace glimpse;

namespace {

double Since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  constexpr int kBatch = 1000;
  constexpr int kRepeats = 3;
  std::map<std::string, Operator> convs;
  for (const ModelLayer& layer : ZooModel("resnet18")) {
    if (OperatorName(layer.op) == "conv2d") convs.emplace(OperatorToString(layer.op), layer.op);
  }
  std::vector<std::pair<Operator, ConfigSpace>> spaces;
  for (const auto& [name, op] : convs) spaces.emplace_back(op, MakeCpuSpace(op));
  Rng rng(1);
  std::vector<Config> configs;
  for (int i = 0; i < kBatch; ++i) {
    configs.push_back(*spaces[i % spaces.size()].second.SampleValid(rng));
  }
  auto start = std::chrono::steady_clock::now();
  std::vector<ProgramGraph> graphs;
  size_t nodes = 0;
  for (int i = 0; i < kBatch; ++i) {
    const auto& [op, space] = spaces[i % spaces.size()];
    graphs.push_back(BuildCpuProgramGraph(op, space, configs[i]));
    nodes += graphs.back().nodes.size();
  }
  const double build_s = Since(start);
  std::vector<const ProgramGraph*> batch;
  for (const ProgramGraph& g : graphs) batch.push_back(&g);
  fmt::print("{} ResNet-18 conv2d candidates of {} operators, {:.1f} nodes per graph\n", kBatch,
             spaces.size(), double(nodes) / kBatch);
  fmt::print("graph building: {:.3f} s, {:.0f} graphs/s\n", build_s, kBatch / build_s);

  for (PerfModelArchitecture architecture :
       {PerfModelArchitecture::kGraphSage, PerfModelArchitecture::kLstm}) {
    const int arg = architecture == PerfModelArchitecture::kGraphSage ? 1 : 2;
    std::shared_ptr<const PerfModel> model;
    if (argc > arg) {
      model = std::make_shared<const PerfModel>(PerfModel::Load(argv[arg]));
    } else {
      std::vector<PerfTrainingExample> examples;
      for (int i = 0; i < 64; ++i) {
        examples.push_back({graphs[i], -10.0 + UniformUnit(rng), "g" + std::to_string(i % 4)});
      }
      PerfModelTrainOptions options;
      options.shape.architecture = architecture;
      options.epochs = 1;
      model = std::make_shared<const PerfModel>(TrainPerfModel(examples, options));
    }
    double best = 1e30, checksum = 0.0;
    for (int r = 0; r < kRepeats; ++r) {
      start = std::chrono::steady_clock::now();
      std::vector<double> predictions = model->PredictLogTimes(batch);
      best = std::min(best, Since(start));
      checksum += predictions.front();
    }
    fmt::print(
        "{} (hidden {}{}): forward pass of {} graphs: {:.3f} s (best of {}), "
        "{:.0f} predictions/s; with graph building {:.0f}/s [checksum {:.3f}]\n",
        PerfModelArchitectureName(architecture), model->shape().hidden,
        architecture == PerfModelArchitecture::kGraphSage
            ? fmt::format(", hops {}", model->shape().hops)
            : std::string(),
        kBatch, best, kRepeats, kBatch / best, kBatch / (best + build_s), checksum);
    if (architecture != PerfModelArchitecture::kGraphSage) continue;
    const size_t cores = std::max(1u, std::thread::hardware_concurrency());
    for (size_t threads : {size_t{1}, cores}) {
      double best_predict = 1e30;
      for (int r = 0; r < kRepeats; ++r) {
        start = std::chrono::steady_clock::now();
        for (size_t o = 0; o < spaces.size(); ++o) {
          LearnedCostModel cost(model, spaces[o].first, spaces[o].second);  // an empty cache
          cost.set_threads(threads);
          std::vector<Config> mine;
          for (size_t i = o; i < configs.size(); i += spaces.size()) mine.push_back(configs[i]);
          cost.Predict(mine);
        }
        best_predict = std::min(best_predict, Since(start));
      }
      fmt::print(
          "learned cost model (nests, graphs, forward pass), {} thread{}: {:.3f} s (best of {}), "
          "{:.0f} new configurations/s\n",
          threads, threads == 1 ? "" : "s", best_predict, kRepeats, kBatch / best_predict);
      if (cores == 1) break;
    }
  }
  return 0;
}
