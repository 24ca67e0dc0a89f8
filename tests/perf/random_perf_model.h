// A performance model with random weights (no libtorch, no training), for tests of what reads or
// uses a model: file round trips, the tuners' cost model.
#pragma once

#include <memory>

#include "glimpse/perf_model.h"
#include "glimpse/random.h"
#include "perf/perf_network.h"

namespace glimpse {
namespace testing_perf {

inline PerfModel RandomPerfModel(PerfModelArchitecture architecture, uint64_t seed) {
  PerfModelShape shape;
  shape.architecture = architecture;
  shape.hidden = 8;
  shape.hops = 2;
  shape.readout_hidden = architecture == PerfModelArchitecture::kLstm ? 5 : 0;
  auto state = std::make_shared<PerfModelState>(perf::EmptyPerfModelState(shape));
  Rng rng(seed);
  auto fill = [&](perf::PerfDenseLayer& layer) {
    for (float& w : layer.weight) w = static_cast<float>(UniformUnit(rng) - 0.5);
    for (float& b : layer.bias) b = static_cast<float>(0.2 * (UniformUnit(rng) - 0.5));
    layer.Finish();
  };
  fill(state->embed);
  for (auto& hop : state->message) {
    for (auto& layer : hop) fill(layer);
  }
  for (auto& layer : state->combine) fill(layer);
  if (architecture == PerfModelArchitecture::kLstm) {
    fill(state->lstm_input);
    fill(state->lstm_recurrent);
    fill(state->readout_hidden);
  }
  fill(state->readout);
  state->normalisation.target_mean = -9.0;
  state->normalisation.target_std = 2.0;
  for (float& s : state->normalisation.feature_std) s = 1.5f;
  return PerfModel(state);
}

}  // namespace testing_perf
}  // namespace glimpse
