// The prior generator's network H(Π, Θ) and its use: per-knob distributions and initial samples
// (glimpse/prior_generator.h; the network is described there), without libtorch.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "glimpse/error.h"
#include "hwaware/prior_internal.h"

namespace glimpse {
namespace hwaware {

namespace {

std::vector<float> Floats(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<float> out;
  out.reserve(a.size() + b.size());
  for (double v : a) out.push_back(static_cast<float>(v));
  for (double v : b) out.push_back(static_cast<float>(v));
  return out;
}

}  // namespace

std::vector<float> PriorLogits(const PriorGenerator::Network& network,
                               const std::vector<double>& blueprint,
                               const std::vector<double>& knob_features,
                               const std::vector<std::vector<double>>& value_features) {
  // Θ and the knob generate the weights that score the knob's values.
  std::vector<float> hidden = network.generator1.Apply(Floats(blueprint, knob_features));
  TanhInPlace(hidden);
  const std::vector<float> w = network.generator2.Apply(hidden);
  std::vector<float> logits;
  logits.reserve(value_features.size());
  for (const std::vector<double>& value : value_features) {
    const std::vector<float> in = Floats(value, knob_features);
    std::vector<float> e = network.embed1.Apply(in);
    TanhInPlace(e);
    e = network.embed2.Apply(e);
    std::vector<float> b = network.bias1.Apply(in);
    TanhInPlace(b);
    b = network.bias2.Apply(b);
    float logit = 0.0f;
    for (size_t i = 0; i < e.size(); ++i) logit += e[i] * w[i];
    logits.push_back(logit + b[0]);
  }
  return logits;
}

void AppendRows(const ConfigSpace& space, const PriorTask& task,
                const std::vector<double>& blueprint, size_t example,
                std::vector<std::vector<double>>* blueprint_rows,
                std::vector<std::vector<double>>* knob_rows,
                std::vector<std::vector<std::vector<double>>>* value_rows,
                std::vector<size_t>* knob_of_row, std::vector<size_t>* example_of_row) {
  for (size_t k = 0; k < space.NumKnobs(); ++k) {
    const Knob& knob = space.knobs()[k];
    if (knob.size() < 2) continue;
    blueprint_rows->push_back(blueprint);
    knob_rows->push_back(PriorKnobFeatures(knob, task));
    value_rows->push_back(PriorValueFeatures(knob));
    knob_of_row->push_back(k);
    example_of_row->push_back(example);
  }
}

}  // namespace hwaware

PriorGenerator::PriorGenerator() = default;
PriorGenerator::~PriorGenerator() = default;
PriorGenerator::PriorGenerator(PriorGenerator&&) noexcept = default;
PriorGenerator& PriorGenerator::operator=(PriorGenerator&&) noexcept = default;

PriorDistribution PriorGenerator::Distribution(const ConfigSpace& space, const PriorTask& task,
                                               const std::vector<double>& blueprint_vector) const {
  if (!network_) throw Error("prior generator: no trained network (train or load one first)");
  if (static_cast<int>(blueprint_vector.size()) != blueprint_components_) {
    throw Error(
        fmt::format("prior generator: a Blueprint vector of {} components; the model was "
                    "made with {}",
                    blueprint_vector.size(), blueprint_components_));
  }
  PriorDistribution out(space.NumKnobs());
  for (size_t k = 0; k < space.NumKnobs(); ++k) out[k].assign(space.knobs()[k].size(), 1.0);
  std::vector<std::vector<double>> blueprint_rows, knob_rows;
  std::vector<std::vector<std::vector<double>>> value_rows;
  std::vector<size_t> knob_of_row, example_of_row;
  hwaware::AppendRows(space, task, blueprint_vector, 0, &blueprint_rows, &knob_rows, &value_rows,
                      &knob_of_row, &example_of_row);
  for (size_t r = 0; r < knob_of_row.size(); ++r) {
    const std::vector<float> logits =
        hwaware::PriorLogits(*network_, blueprint_rows[r], knob_rows[r], value_rows[r]);
    // softmax, shifted by the largest logit so that exp cannot overflow
    const double top = *std::max_element(logits.begin(), logits.end());
    std::vector<double>& row = out[knob_of_row[r]];
    double total = 0.0;
    for (size_t v = 0; v < row.size(); ++v) total += row[v] = std::exp(logits[v] - top);
    for (double& p : row) p /= total;
  }
  return out;
}

PriorDistribution PriorGenerator::Distribution(const ConfigSpace& space, const PriorTask& task,
                                               const GpuSpec& gpu,
                                               const Blueprint& blueprint) const {
  if (blueprint.components() != blueprint_components_) {
    throw Error(
        fmt::format("the prior generator was made with a Blueprint of {} components "
                    "(version {}); this Blueprint has {}: remake it with 'glimpse train "
                    "prior --spaces <dir> --out <file>'",
                    blueprint_components_, blueprint_version_, blueprint.components()));
  }
  return Distribution(space, task, blueprint.Embed(gpu));
}

std::vector<Config> PriorGenerator::InitialConfigs(
    const ConfigSpace& space, const PriorTask& task, const std::vector<double>& blueprint_vector,
    size_t n, const std::function<bool(const Config&)>& accept) const {
  return EnumerateByProbability(space, Distribution(space, task, blueprint_vector), n, accept);
}

std::vector<Config> PriorGenerator::InitialConfigs(
    const ConfigSpace& space, const PriorTask& task, const GpuSpec& gpu, const Blueprint& blueprint,
    size_t n, const std::function<bool(const Config&)>& accept) const {
  return EnumerateByProbability(space, Distribution(space, task, gpu, blueprint), n, accept);
}

}  // namespace glimpse
