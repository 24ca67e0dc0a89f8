// The acquisition function's features and the UCB fallback (glimpse/glimpse_tuner.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "glimpse/error.h"
#include "glimpse/glimpse_tuner.h"

namespace glimpse {

std::vector<std::vector<double>> AcquisitionFeatures(const AcquisitionInput& input,
                                                     int blueprint_components) {
  if (input.mean.size() != input.std.size()) {
    throw Error(fmt::format("acquisition features: {} means but {} standard deviations",
                            input.mean.size(), input.std.size()));
  }
  if (blueprint_components < 0 ||
      input.blueprint.size() > static_cast<size_t>(blueprint_components)) {
    throw Error(fmt::format(
        "acquisition features: a Blueprint of {} components; the model takes at most {}",
        input.blueprint.size(), blueprint_components));
  }
  size_t n = input.mean.size();
  // Rank by mean, best first; equal means keep the lower index first.
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return input.mean[a] > input.mean[b]; });
  std::vector<double> rank(n, 0.0);
  for (size_t r = 0; r < n; ++r) rank[order[r]] = static_cast<double>(r) / static_cast<double>(n);
  double log_budget = input.budget > 0 ? std::log10(input.budget) / 3.0 : 0.0;

  std::vector<std::vector<double>> rows(n);
  for (size_t i = 0; i < n; ++i) {
    std::vector<double>& row = rows[i];
    row.reserve(kAcquisitionBaseFeatures + blueprint_components);
    row = {input.mean[i], input.std[i],          input.mean[i] - input.best_observed,
           rank[i],       input.budget_fraction, log_budget};
    row.insert(row.end(), input.blueprint.begin(), input.blueprint.end());
    row.resize(kAcquisitionBaseFeatures + blueprint_components, 0.0);
  }
  return rows;
}

namespace {

// The k indices of the largest scores, best first; equal scores keep the lower index first.
std::vector<size_t> TopK(const std::vector<double>& scores, size_t k) {
  std::vector<size_t> order(scores.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  order.resize(std::min(k, order.size()));
  return order;
}

class UcbAcquisition : public AcquisitionPolicy {
 public:
  explicit UcbAcquisition(double kappa) : kappa_(kappa) {}
  std::string Name() const override { return fmt::format("ucb (kappa {:g})", kappa_); }
  std::vector<size_t> Choose(const std::vector<std::vector<double>>& features, size_t k,
                             Rng&) override {
    std::vector<double> scores(features.size());
    for (size_t i = 0; i < features.size(); ++i) {
      if (features[i].size() < 2) {
        throw Error(fmt::format("ucb acquisition: candidate {} has {} features, needs mean and std",
                                i, features[i].size()));
      }
      scores[i] = features[i][0] + kappa_ * features[i][1];
    }
    return TopK(scores, k);
  }

 private:
  double kappa_;
};

class NeuralAcquisition : public AcquisitionPolicy {
 public:
  explicit NeuralAcquisition(const AcquisitionNetwork& network) : network_(network) {}
  std::string Name() const override { return "neural"; }
  std::vector<size_t> Choose(const std::vector<std::vector<double>>& features, size_t k,
                             Rng&) override {
    if (features.empty()) return {};
    return TopK(network_.Score(features), k);
  }

 private:
  const AcquisitionNetwork& network_;
};

}  // namespace

std::unique_ptr<AcquisitionPolicy> MakeUcbAcquisition(double kappa) {
  if (!std::isfinite(kappa))
    throw Error(fmt::format("ucb acquisition: kappa {} is not finite", kappa));
  return std::make_unique<UcbAcquisition>(kappa);
}

std::unique_ptr<AcquisitionPolicy> MakeNeuralAcquisition(const AcquisitionNetwork& network) {
  return std::make_unique<NeuralAcquisition>(network);
}

}  // namespace glimpse
