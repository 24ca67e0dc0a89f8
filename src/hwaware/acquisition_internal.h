// What the acquisition function's .cc files and its tests share, without libtorch: the network's
// plain layers, Plackett–Luce sampling, the record of one tuning episode's decisions, and the
// REINFORCE update (glimpse/glimpse_tuner.h, "Training the acquisition function"; the update and
// the libtorch module are in src/hwaware_training).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "glimpse/glimpse_tuner.h"
#include "glimpse/json.h"
#include "glimpse/random.h"
#include "hwaware/dense_layer.h"

namespace glimpse {

// The network inference runs on: logits = ucb_weight · z(UCB) + layer3(tanh(layer2(tanh(
// layer1(features))))), z(UCB) the pool-standardised mean + kAcquisitionUcbKappa · std.
struct AcquisitionNetwork::Network {
  hwaware::DenseLayer layer1, layer2, layer3;
  float ucb_weight = 0.0f;
};

namespace hwaware {

// Logits of a pool of feature rows (each of `width` values; Error otherwise).
std::vector<double> AcquisitionLogits(const AcquisitionNetwork::Network& network,
                                      const std::vector<std::vector<double>>& features, int width);

// The layers as the model file's "weights", and back: Error naming `where` when a layer is missing
// or does not fit a network of `inputs` features and `hidden` width.
Json AcquisitionWeightsToJson(const AcquisitionNetwork::Network& network);
AcquisitionNetwork::Network AcquisitionWeightsFromJson(const Json& weights,
                                                       const std::string& where, int inputs,
                                                       int hidden);

// k draws without replacement from softmax(logits) (Plackett–Luce), in the order drawn; all
// indices when there are at most k. Draws by inverse CDF with UniformUnit(rng).
std::vector<size_t> SamplePlackettLuce(const std::vector<double>& logits, size_t k, Rng& rng);

// One decision of an episode: the pool's feature rows and the indices the policy chose.
struct AcquisitionDecision {
  std::vector<std::vector<double>> features;
  std::vector<size_t> chosen;
};

// One episode: its decisions and the reward that followed each (same length).
struct PolicyEpisode {
  std::vector<AcquisitionDecision> decisions;
  std::vector<double> rewards;
  size_t group = 0;  // episodes of one group (one space) share their baseline
};

// G_t = Σ_{t' ≥ t} r_t' of one episode.
std::vector<double> ReturnsOf(const std::vector<double>& rewards);

// Adam on an AcquisitionNetwork's weights (a libtorch module behind the pimpl, its parameters
// copied back into the network after each step). In glimpse_hwaware_training.
class AcquisitionLearner {
 public:
  // `network` outlives the learner.
  AcquisitionLearner(AcquisitionNetwork& network, double learning_rate);
  ~AcquisitionLearner();
  // One REINFORCE step over an iteration's episodes: returns G_t, baseline b_t = mean G_t over
  // the episodes of the same group that reached step t, loss = −Σ (G_t − b_t) · log π(chosen_t) −
  // entropy_bonus · Σ H(π_t), divided by the number of episodes. Returns the loss before the step.
  double Update(const std::vector<PolicyEpisode>& episodes, double entropy_bonus);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The trainer's policy: samples from the network's softmax (Plackett–Luce) and records every
// decision in `log` (which outlives the policy; so does `network`). `measured` is called at each
// decision and its value stored in `measured_before` (the measurements made before the decision).
class SamplingAcquisition : public AcquisitionPolicy {
 public:
  SamplingAcquisition(const AcquisitionNetwork& network, std::vector<AcquisitionDecision>* log,
                      std::vector<int64_t>* measured_before, const int64_t* measured)
      : network_(network), log_(log), measured_before_(measured_before), measured_(measured) {}
  std::string Name() const override { return "neural-sampling"; }
  std::vector<size_t> Choose(const std::vector<std::vector<double>>& features, size_t k,
                             Rng& rng) override;

 private:
  const AcquisitionNetwork& network_;
  std::vector<AcquisitionDecision>* log_;
  std::vector<int64_t>* measured_before_;
  const int64_t* measured_;
};

}  // namespace hwaware
}  // namespace glimpse
