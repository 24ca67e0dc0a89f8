// The prior generator's network H(Π, Θ) and its use: per-knob distributions and initial samples
// (glimpse/prior_generator.h; the network is described there).
#include <fmt/format.h>

#include <algorithm>

#include "glimpse/error.h"
#include "hwaware/prior_internal.h"

namespace glimpse {
namespace hwaware {

PriorNetImpl::PriorNetImpl(int blueprint_components, int hidden, int embedding) {
  int knob = kPriorKnobFeatures;
  int value = kPriorValueFeatures;
  generator1 =
      register_module("generator1", torch::nn::Linear(blueprint_components + knob, hidden));
  generator2 = register_module("generator2", torch::nn::Linear(hidden, embedding));
  embed1 = register_module("embed1", torch::nn::Linear(value + knob, hidden));
  embed2 = register_module("embed2", torch::nn::Linear(hidden, embedding));
  bias1 = register_module("bias1", torch::nn::Linear(value + knob, hidden));
  bias2 = register_module("bias2", torch::nn::Linear(hidden, 1));
}

torch::Tensor PriorNetImpl::forward(const torch::Tensor& blueprint, const torch::Tensor& knob,
                                    const torch::Tensor& value, const torch::Tensor& mask) {
  // Θ and the knob generate the weights that score the knob's values.
  torch::Tensor w = generator2(torch::tanh(generator1(torch::cat({blueprint, knob}, 1))));
  int64_t values = value.size(1);
  torch::Tensor knob_per_value = knob.unsqueeze(1).expand({knob.size(0), values, knob.size(1)});
  torch::Tensor value_in = torch::cat({value, knob_per_value}, 2);
  torch::Tensor e = embed2(torch::tanh(embed1(value_in)));           // [R, V, E]
  torch::Tensor b = bias2(torch::tanh(bias1(value_in))).squeeze(2);  // [R, V]
  torch::Tensor logits = (e * w.unsqueeze(1)).sum(2) + b;
  return logits.masked_fill(mask.logical_not(), -1e9);
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

PriorBatch MakeBatch(const std::vector<std::vector<double>>& blueprint_rows,
                     const std::vector<std::vector<double>>& knob_rows,
                     const std::vector<std::vector<std::vector<double>>>& value_rows) {
  auto rows = static_cast<int64_t>(knob_rows.size());
  int64_t components = rows ? static_cast<int64_t>(blueprint_rows[0].size()) : 0;
  int64_t width = 1;
  for (const auto& v : value_rows) width = std::max<int64_t>(width, static_cast<int64_t>(v.size()));
  PriorBatch batch;
  batch.blueprint = torch::zeros({rows, components}, torch::kFloat32);
  batch.knob = torch::zeros({rows, kPriorKnobFeatures}, torch::kFloat32);
  batch.value = torch::zeros({rows, width, kPriorValueFeatures}, torch::kFloat32);
  batch.mask = torch::zeros({rows, width}, torch::kBool);
  auto blueprint = batch.blueprint.accessor<float, 2>();
  auto knob = batch.knob.accessor<float, 2>();
  auto value = batch.value.accessor<float, 3>();
  auto mask = batch.mask.accessor<bool, 2>();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < components; ++c)
      blueprint[r][c] = static_cast<float>(blueprint_rows[r][c]);
    for (int64_t c = 0; c < kPriorKnobFeatures; ++c)
      knob[r][c] = static_cast<float>(knob_rows[r][c]);
    for (size_t v = 0; v < value_rows[r].size(); ++v) {
      mask[r][v] = true;
      for (int64_t c = 0; c < kPriorValueFeatures; ++c) {
        value[r][v][c] = static_cast<float>(value_rows[r][v][c]);
      }
    }
  }
  return batch;
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
  if (knob_rows.empty()) return out;
  hwaware::PriorBatch batch = hwaware::MakeBatch(blueprint_rows, knob_rows, value_rows);
  torch::NoGradGuard no_grad;
  torch::Tensor p = torch::softmax(
      network_->net->forward(batch.blueprint, batch.knob, batch.value, batch.mask), 1);
  p = p.to(torch::kFloat64).contiguous();
  auto a = p.accessor<double, 2>();
  for (size_t r = 0; r < knob_of_row.size(); ++r) {
    std::vector<double>& row = out[knob_of_row[r]];
    for (size_t v = 0; v < row.size(); ++v) row[v] = a[r][v];
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
