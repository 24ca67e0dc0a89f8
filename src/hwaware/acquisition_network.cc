// The neural acquisition function's network and its sampling policy (glimpse/glimpse_tuner.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "glimpse/error.h"
#include "hwaware/acquisition_internal.h"
#include "hwaware/acquisition_net.h"

namespace glimpse {
namespace hwaware {

namespace {
// The UCB term's starting weight: a z-score spread of about ±2 over a pool becomes logits of ±6,
// so the untrained softmax policy already concentrates on UCB's choices.
constexpr double kInitialUcbWeight = 3.0;
// The MLP's output layer starts this much smaller than libtorch's default initialisation, so
// that it perturbs UCB's ranking rather than replacing it.
constexpr double kInitialResidualScale = 0.1;
}  // namespace

AcquisitionNetImpl::AcquisitionNetImpl(int inputs, int hidden) {
  layer1 = register_module("layer1", torch::nn::Linear(inputs, hidden));
  layer2 = register_module("layer2", torch::nn::Linear(hidden, hidden));
  layer3 = register_module("layer3", torch::nn::Linear(hidden, 1));
  {
    torch::NoGradGuard no_grad;
    layer3->weight.mul_(kInitialResidualScale);
    layer3->bias.mul_(kInitialResidualScale);
  }
  ucb_weight = register_parameter("ucb_weight", torch::full({1}, kInitialUcbWeight));
}

torch::Tensor AcquisitionNetImpl::forward(const torch::Tensor& features) {
  torch::Tensor ucb = features.select(1, 0) + kAcquisitionUcbKappa * features.select(1, 1);
  torch::Tensor centred = ucb - ucb.mean();
  // Population deviation; a pool of one candidate, or of equal UCB values, gives z = 0.
  torch::Tensor z = centred / (centred.pow(2).mean().sqrt() + 1e-6);
  torch::Tensor residual = layer3(torch::tanh(layer2(torch::tanh(layer1(features))))).squeeze(1);
  return ucb_weight * z + residual;
}

torch::Tensor FeatureTensor(const std::vector<std::vector<double>>& rows, int64_t width) {
  auto n = static_cast<int64_t>(rows.size());
  torch::Tensor t = torch::zeros({n, width}, torch::kFloat32);
  auto a = t.accessor<float, 2>();
  for (int64_t r = 0; r < n; ++r) {
    if (static_cast<int64_t>(rows[r].size()) != width) {
      throw Error(
          fmt::format("acquisition network: candidate {} has {} features; the model takes {}", r,
                      rows[r].size(), width));
    }
    for (int64_t c = 0; c < width; ++c) a[r][c] = static_cast<float>(rows[r][c]);
  }
  return t;
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

AcquisitionNetwork::AcquisitionNetwork(int blueprint_components, int hidden, uint64_t seed)
    : blueprint_components_(blueprint_components), hidden_(hidden) {
  if (blueprint_components < 0 || hidden < 1) {
    throw Error(
        fmt::format("acquisition network: Blueprint components {} (≥ 0) and hidden width {} (≥ 1)",
                    blueprint_components, hidden));
  }
  // One thread: the network is small, and a fixed reduction order keeps results reproducible.
  torch::set_num_threads(1);
  torch::manual_seed(seed);
  network_ = std::make_unique<Network>();
  network_->net = hwaware::AcquisitionNet(kAcquisitionBaseFeatures + blueprint_components, hidden);
  network_->net->eval();
}

AcquisitionNetwork::~AcquisitionNetwork() = default;
AcquisitionNetwork::AcquisitionNetwork(AcquisitionNetwork&&) noexcept = default;
AcquisitionNetwork& AcquisitionNetwork::operator=(AcquisitionNetwork&&) noexcept = default;

std::vector<double> AcquisitionNetwork::Score(
    const std::vector<std::vector<double>>& features) const {
  if (features.empty()) return {};
  torch::NoGradGuard no_grad;
  torch::Tensor logits = network_->net->forward(
      hwaware::FeatureTensor(features, kAcquisitionBaseFeatures + blueprint_components_));
  auto a = logits.accessor<float, 1>();
  std::vector<double> out(features.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = a[static_cast<int64_t>(i)];
  return out;
}

int AcquisitionNetwork::blueprint_components() const { return blueprint_components_; }
const std::string& AcquisitionNetwork::made_by() const { return made_by_; }
void AcquisitionNetwork::set_made_by(std::string command) { made_by_ = std::move(command); }
Json& AcquisitionNetwork::training_info() { return training_info_; }
const Json& AcquisitionNetwork::training_info() const { return training_info_; }
AcquisitionNetwork::Network& AcquisitionNetwork::network() { return *network_; }

}  // namespace glimpse
