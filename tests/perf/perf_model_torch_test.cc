// Inference is plain C++ (src/perf/graphsage_network.cc) so that glimpse_lite predicts without
// libtorch; training is libtorch's (src/perf/training). These tests hold both forward passes equal
// on the same weights, for GraphSAGE and the LSTM, on real CPU nests.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "glimpse/perf_model.h"
#include "perf/training/perf_torch.h"
#include "synthetic_perf_corpus.h"

namespace glimpse {
namespace {

std::vector<ProgramGraph> Graphs(int per_operator) {
  std::vector<ProgramGraph> graphs;
  Rng rng(17);
  for (const std::string& text : testing_perf::SyntheticOperators()) {
    const Operator op = ParseOperator(text);
    const ConfigSpace space = MakeCpuSpace(op);
    for (int i = 0; i < per_operator; ++i) {
      graphs.push_back(BuildCpuProgramGraph(op, space, *space.SampleValid(rng)));
    }
  }
  return graphs;
}

void ExpectEqualForwardPasses(const PerfModelShape& shape) {
  torch::manual_seed(4);
  perf::PerfNet net(shape);
  perf::PerfNormalisation norm = perf::EmptyPerfModelState(shape).normalisation;
  for (int f = 0; f < kProgramGraphFeatureWidth; ++f) {
    norm.feature_mean[f] = 0.1f * static_cast<float>(f % 5);
    norm.feature_std[f] = 1.0f + 0.05f * static_cast<float>(f % 7);
  }
  norm.target_mean = -8.0;
  norm.target_std = 1.5;
  const PerfModel model(std::make_shared<const PerfModelState>(perf::ToPerfModelState(net, norm)));

  const std::vector<ProgramGraph> graphs = Graphs(3);
  std::vector<const ProgramGraph*> batch;
  for (const ProgramGraph& g : graphs) batch.push_back(&g);
  torch::NoGradGuard no_grad;
  torch::Tensor theirs = net->forward(perf::MakePerfBatch(norm, batch));
  const std::vector<double> ours = model.PredictLogTimes(batch);
  ASSERT_EQ(ours.size(), graphs.size());
  ASSERT_EQ(theirs.size(0), static_cast<int64_t>(graphs.size()));
  double spread = 0.0;
  for (size_t i = 0; i < graphs.size(); ++i) {
    const double standard = (ours[i] - norm.target_mean) / norm.target_std;
    const double reference = theirs[i].item<double>();
    EXPECT_NEAR(standard, reference, 1e-5 * std::max(1.0, std::abs(reference)))
        << "graph " << i << " (" << graphs[i].name << ")";
    spread = std::max(spread, std::abs(reference - theirs[0].item<double>()));
  }
  EXPECT_GT(spread, 1e-4);  // the graphs are told apart: the comparison is not of constants

  // And back: a plain network loaded into a fresh module computes the same.
  perf::PerfNet copy(shape);
  perf::LoadPerfModelState(model.state(), copy);
  torch::Tensor again = copy->forward(perf::MakePerfBatch(norm, batch));
  EXPECT_TRUE(torch::allclose(again, theirs, 0.0, 0.0));
}

TEST(PerfModelTorchTest, GraphSageMatchesTheModule) {
  PerfModelShape shape;
  shape.architecture = PerfModelArchitecture::kGraphSage;
  shape.hidden = 16;
  shape.hops = 3;
  ExpectEqualForwardPasses(shape);
  shape.readout_hidden = 12;
  ExpectEqualForwardPasses(shape);
}

TEST(PerfModelTorchTest, LstmMatchesTheModule) {
  PerfModelShape shape;
  shape.architecture = PerfModelArchitecture::kLstm;
  shape.hidden = 16;
  ExpectEqualForwardPasses(shape);
  shape.readout_hidden = 12;
  ExpectEqualForwardPasses(shape);
}

}  // namespace
}  // namespace glimpse
