// A small synthetic performance corpus for the model's tests: real CPU nests (dense and conv2d
// operators at sampled configurations) whose "times" come from a known formula of their graphs'
// features plus noise, so that a model has something learnable in seconds.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "glimpse/cpu.h"
#include "glimpse/ops.h"
#include "glimpse/perf_corpus.h"
#include "glimpse/program_graph.h"
#include "glimpse/random.h"

namespace glimpse {
namespace testing_perf {

inline const std::vector<std::string>& SyntheticOperators() {
  static const std::vector<std::string> ops = {
      "dense:M=16,N=64,K=48,bias=1", "dense:M=32,N=32,K=64,bias=1,relu=1", "dense:M=8,N=128,K=32",
      "conv2d:N=1,C=8,H=8,W=8,K=16,R=3,S=3,stride=1,pad=1",
      "conv2d:N=1,C=16,H=6,W=6,K=8,R=1,S=1,stride=1,pad=0"};
  return ops;
}

// The known "time": ln(seconds) from the graph's largest statement work and its tile volume.
inline double SyntheticLogTime(const ProgramGraph& graph) {
  double flops = 0.0;
  for (const GraphNode& node : graph.nodes) {
    flops = std::max(flops, double(node.features[graph_feature::kStmtLogFlops]));
  }
  const double tile = graph.nodes.front().features[graph_feature::kTileLogProduct];
  return -16.0 + 0.7 * flops + 0.25 * std::abs(tile - 5.0);
}

// `per_operator` sampled configurations of each operator as ok records.
inline PerfCorpus SyntheticCorpus(int per_operator, uint64_t seed) {
  PerfCorpus corpus;
  corpus.header = {{"created_at", 0},
                   {"machine", {{"cpu", "synthetic"}}},
                   {"protocol", Json::object()},
                   {"template_versions", {{"cpu", 1}}},
                   {"program_graph_feature_version", kProgramGraphFeatureVersion}};
  Rng rng(seed);
  for (const std::string& text : SyntheticOperators()) {
    const Operator op = ParseOperator(text);
    const ConfigSpace space = MakeCpuSpace(op);
    for (int i = 0; i < per_operator; ++i) {
      const Config config = *space.SampleValid(rng);
      const ProgramGraph graph = BuildCpuProgramGraph(op, space, config);
      PerfCorpusRecord record;
      record.op = OperatorToString(op);
      record.kind = OperatorName(op);
      record.target = "cpu";
      record.template_version = 1;
      record.device = "synthetic";
      record.workload_key = record.op;
      record.strategy = "synthetic";
      record.config = space.ConfigToJson(config);
      record.status = MeasureStatus::kOk;
      const double noise = 0.05 * (2.0 * UniformUnit(rng) - 1.0);
      record.time_s = std::exp(SyntheticLogTime(graph) + noise);
      record.samples_s = {record.time_s};
      corpus.records.push_back(record);
    }
  }
  return corpus;
}

}  // namespace testing_perf
}  // namespace glimpse
