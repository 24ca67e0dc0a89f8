// The neural acquisition function's network (plain layers, no libtorch) and its sampling policy
// (glimpse/glimpse_tuner.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "glimpse/error.h"
#include "hwaware/acquisition_internal.h"

namespace glimpse {
namespace hwaware {

std::vector<double> AcquisitionLogits(const AcquisitionNetwork::Network& network,
                                      const std::vector<std::vector<double>>& features, int width) {
  if (features.empty()) return {};
  const size_t n = features.size();
  std::vector<float> ucb(n);
  for (size_t r = 0; r < n; ++r) {
    if (static_cast<int>(features[r].size()) != width) {
      throw Error(
          fmt::format("acquisition network: candidate {} has {} features; the model takes {}", r,
                      features[r].size(), width));
    }
    ucb[r] = static_cast<float>(features[r][0]) +
             static_cast<float>(kAcquisitionUcbKappa) * static_cast<float>(features[r][1]);
  }
  // z over the pool with the population deviation; a pool of one candidate, or of equal UCB
  // values, gives z = 0.
  float mean = 0.0f;
  for (float u : ucb) mean += u;
  mean /= static_cast<float>(n);
  float square = 0.0f;
  for (float u : ucb) square += (u - mean) * (u - mean);
  const float deviation = std::sqrt(square / static_cast<float>(n)) + 1e-6f;
  std::vector<double> logits(n);
  std::vector<float> row(static_cast<size_t>(width));
  for (size_t r = 0; r < n; ++r) {
    for (int c = 0; c < width; ++c) row[c] = static_cast<float>(features[r][c]);
    std::vector<float> h = network.layer1.Apply(row);
    TanhInPlace(h);
    h = network.layer2.Apply(h);
    TanhInPlace(h);
    const float residual = network.layer3.Apply(h)[0];
    logits[r] = network.ucb_weight * ((ucb[r] - mean) / deviation) + residual;
  }
  return logits;
}

std::vector<size_t> SamplePlackettLuce(const std::vector<double>& logits, size_t k, Rng& rng) {
  size_t n = logits.size();
  k = std::min(k, n);
  double top = n ? *std::max_element(logits.begin(), logits.end()) : 0.0;
  // Unnormalised probabilities, shifted by the largest logit so that exp cannot overflow.
  std::vector<double> weight(n);
  for (size_t i = 0; i < n; ++i) weight[i] = std::exp(logits[i] - top);
  std::vector<size_t> chosen;
  chosen.reserve(k);
  for (size_t draw = 0; draw < k; ++draw) {
    double total = 0.0;
    for (double w : weight) total += w;
    size_t pick = n;
    if (total > 0) {
      double u = UniformUnit(rng) * total;
      for (size_t i = 0; i < n; ++i) {
        if (weight[i] <= 0) continue;
        pick = i;  // the last positive weight catches rounding at the top end
        if (u < weight[i]) break;
        u -= weight[i];
      }
    } else {
      // Every remaining weight underflowed: the first not yet chosen.
      for (size_t i = 0; i < n && pick == n; ++i) {
        if (std::find(chosen.begin(), chosen.end(), i) == chosen.end()) pick = i;
      }
    }
    chosen.push_back(pick);
    weight[pick] = 0.0;
  }
  return chosen;
}

std::vector<size_t> SamplingAcquisition::Choose(const std::vector<std::vector<double>>& features,
                                                size_t k, Rng& rng) {
  if (features.empty()) return {};
  std::vector<size_t> chosen = SamplePlackettLuce(network_.Score(features), k, rng);
  log_->push_back({features, chosen});
  measured_before_->push_back(*measured_);
  return chosen;
}

}  // namespace hwaware

AcquisitionNetwork::AcquisitionNetwork() = default;
AcquisitionNetwork::~AcquisitionNetwork() = default;
AcquisitionNetwork::AcquisitionNetwork(AcquisitionNetwork&&) noexcept = default;
AcquisitionNetwork& AcquisitionNetwork::operator=(AcquisitionNetwork&&) noexcept = default;

std::vector<double> AcquisitionNetwork::Score(
    const std::vector<std::vector<double>>& features) const {
  if (features.empty()) return {};
  return hwaware::AcquisitionLogits(*network_, features,
                                    kAcquisitionBaseFeatures + blueprint_components_);
}

int AcquisitionNetwork::blueprint_components() const { return blueprint_components_; }
const std::string& AcquisitionNetwork::made_by() const { return made_by_; }
void AcquisitionNetwork::set_made_by(std::string command) { made_by_ = std::move(command); }
Json& AcquisitionNetwork::training_info() { return training_info_; }
const Json& AcquisitionNetwork::training_info() const { return training_info_; }
AcquisitionNetwork::Network& AcquisitionNetwork::network() { return *network_; }
const AcquisitionNetwork::Network& AcquisitionNetwork::network() const { return *network_; }

}  // namespace glimpse
