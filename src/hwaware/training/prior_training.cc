// Training the prior generator H(Π, Θ): full-batch Adam on the cross-entropy between H's per-knob
// distributions and the recorded spaces' top-configuration targets (glimpse/prior_generator.h).
#include <fmt/format.h>

#include <chrono>
#include <cmath>

#include "glimpse/error.h"
#include "hwaware/training/prior_torch.h"

namespace glimpse {

PriorGenerator PriorGenerator::Train(const std::vector<PriorTrainingExample>& examples,
                                     const PriorTrainingOptions& options,
                                     PriorTrainingReport* report) {
  if (examples.empty()) throw Error("prior generator: no training spaces");
  if (options.epochs < 0 || options.hidden < 1 || options.embedding < 1 ||
      !(options.learning_rate > 0)) {
    throw Error(
        fmt::format("prior generator: epochs {} (≥ 0), hidden {} and embedding {} (≥ 1), "
                    "learning rate {:g} (> 0)",
                    options.epochs, options.hidden, options.embedding, options.learning_rate));
  }
  auto start = std::chrono::steady_clock::now();
  size_t components = examples[0].blueprint.size();
  std::vector<std::vector<double>> blueprint_rows, knob_rows;
  std::vector<std::vector<std::vector<double>>> value_rows;
  std::vector<size_t> knob_of_row, example_of_row;
  for (size_t i = 0; i < examples.size(); ++i) {
    const PriorTrainingExample& e = examples[i];
    if (e.blueprint.size() != components) {
      throw Error(fmt::format(
          "prior generator: {} on {} has a Blueprint of {} components, {} "
          "on {} one of {}",
          e.name, e.gpu, e.blueprint.size(), examples[0].name, examples[0].gpu, components));
    }
    if (e.target.size() != e.space.NumKnobs()) {
      throw Error(fmt::format("prior generator: {} on {}: a target of {} knobs for a space of {}",
                              e.name, e.gpu, e.target.size(), e.space.NumKnobs()));
    }
    for (size_t k = 0; k < e.target.size(); ++k) {
      if (e.target[k].size() != e.space.knobs()[k].size()) {
        throw Error(fmt::format("prior generator: {} on {}: knob '{}' has {} values, its target {}",
                                e.name, e.gpu, e.space.knobs()[k].name(), e.space.knobs()[k].size(),
                                e.target[k].size()));
      }
    }
    hwaware::AppendRows(e.space, e.task, e.blueprint, i, &blueprint_rows, &knob_rows, &value_rows,
                        &knob_of_row, &example_of_row);
  }
  if (knob_rows.empty()) throw Error("prior generator: no training space has a knob of two values");
  hwaware::PriorBatch batch = hwaware::MakeBatch(blueprint_rows, knob_rows, value_rows);
  torch::Tensor target = torch::zeros_like(batch.mask, torch::kFloat32);
  {
    auto t = target.accessor<float, 2>();
    for (size_t r = 0; r < knob_of_row.size(); ++r) {
      const std::vector<double>& row = examples[example_of_row[r]].target[knob_of_row[r]];
      for (size_t v = 0; v < row.size(); ++v) t[r][v] = static_cast<float>(row[v]);
    }
  }

  // One thread: the network is a few thousand weights, and a fixed reduction order keeps the
  // model the same from run to run.
  torch::set_num_threads(1);
  torch::manual_seed(options.seed);
  PriorGenerator model;
  hwaware::PriorNet net(static_cast<int>(components), options.hidden, options.embedding);
  torch::optim::Adam adam(
      net->parameters(),
      torch::optim::AdamOptions(options.learning_rate).weight_decay(options.weight_decay));
  auto loss_of = [&](torch::Tensor* per_row) {
    torch::Tensor log_p =
        torch::log_softmax(net->forward(batch.blueprint, batch.knob, batch.value, batch.mask), 1);
    // Padding has target 0; its log-probability is finite (−1e9 logits), so 0 × it is 0.
    torch::Tensor cross_entropy = -(target * log_p).sum(1);
    if (per_row) *per_row = cross_entropy.detach();
    return cross_entropy.mean();
  };
  double initial = 0.0;
  for (int epoch = 0; epoch < options.epochs; ++epoch) {
    adam.zero_grad();
    torch::Tensor loss = loss_of(nullptr);
    if (epoch == 0) initial = loss.item<double>();
    loss.backward();
    adam.step();
  }
  torch::Tensor per_row;
  {
    torch::NoGradGuard no_grad;
    model.final_loss_ = loss_of(&per_row).item<double>();
  }
  if (options.epochs == 0) initial = model.final_loss_;
  model.network_ =
      std::make_unique<Network>(hwaware::ToPriorNetwork(net, options.hidden, options.embedding));

  model.options_ = options;
  model.blueprint_components_ = static_cast<int>(components);
  for (const PriorTrainingExample& e : examples) {
    model.training_.push_back({e.name, e.gpu, e.path, e.top_count});
  }
  if (report) {
    report->initial_loss = initial;
    report->final_loss = model.final_loss_;
    report->examples.clear();
    std::vector<double> ce(examples.size(), 0.0), entropy(examples.size(), 0.0);
    std::vector<int> rows(examples.size(), 0);
    auto a = per_row.accessor<float, 1>();
    for (size_t r = 0; r < knob_of_row.size(); ++r) {
      size_t i = example_of_row[r];
      ce[i] += a[r];
      for (double p : examples[i].target[knob_of_row[r]]) {
        if (p > 0) entropy[i] -= p * std::log(p);
      }
      ++rows[i];
    }
    for (size_t i = 0; i < examples.size(); ++i) {
      double n = std::max(1, rows[i]);
      report->examples.push_back({examples[i].name, examples[i].gpu, ce[i] / n, entropy[i] / n});
    }
    report->seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return model;
}

}  // namespace glimpse
