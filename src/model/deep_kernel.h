// The DGP tuner's surrogate: a Gaussian process on learned features (a deep kernel) with a prior
// mean that can carry another model's prediction, fitted by maximum a posteriori.
//
//   y(x) = a · m(x) + b + f(h(x)) + ε,   f ~ GP(0, k) (model/gaussian_process.h),  ε ~ N(0, σ²)
//
// h is a small fully connected network (tanh between layers, linear last); m(x) is given with the
// data (the source model's prediction in the DGP tuner, 0 without one); θ = (h's weights, log s²,
// log σ², a, b) is one flat vector. Fit maximises
//   log p(y − a·m − b | h(X); s², σ²) − (prior_precision / 2) · ‖θ − θ_ref‖²
// with Adam on the whole data or on random minibatches: maximum a posteriori under a Gaussian
// prior centred on θ_ref (the pretrained parameters when adapting to a new task; the random
// initialisation when pretraining, where it acts as weight decay).
#pragma once

#include <cstddef>
#include <vector>

#include "glimpse/random.h"
#include "model/gaussian_process.h"

namespace glimpse::model {

// Rows of inputs with their targets and prior means (all three of one length in rows).
struct DeepKernelData {
  std::vector<double> inputs;      // rows × input width
  std::vector<double> targets;     // rows
  std::vector<double> prior_mean;  // rows; m(x), zeros when there is none
  size_t rows() const { return targets.size(); }
};

struct DeepKernelFitOptions {
  int steps = 100;
  double learning_rate = 0.01;
  size_t batch = 0;              // rows per step (drawn without replacement); 0: every row
  double prior_precision = 0.0;  // 1/τ² of the Gaussian prior on θ around the reference
};

class DeepKernelGp {
 public:
  // `widths`: input width, hidden widths…, feature width (at least input and feature).
  explicit DeepKernelGp(std::vector<size_t> widths);

  // Random weights (normal, variance 1/fan-in), s² = 1, σ² = 0.05, a = 1, b = 0.
  void InitRandom(Rng& rng);

  size_t input_width() const { return widths_.front(); }
  size_t feature_width() const { return widths_.back(); }
  std::vector<double>& params() { return theta_; }
  const std::vector<double>& params() const { return theta_; }
  GpHyper hyper() const;
  double mean_scale() const { return theta_[net_params_ + 2]; }
  double mean_offset() const { return theta_[net_params_ + 3]; }

  // MAP fit from the current parameters (see above); returns the objective of the last step.
  // Error when the data's sizes disagree or the reference has another length.
  double Fit(const DeepKernelData& data, const std::vector<double>& reference,
             const DeepKernelFitOptions& options, Rng& rng);

  // Conditions the GP on `data` with the current parameters (done by Fit's end, too).
  void Condition(const DeepKernelData& data);

  // Posterior mean and latent variance of y at each row of `inputs` with prior mean
  // `prior_mean` (one per row). Needs Condition (or Fit) first; with no rows conditioned on,
  // the prior.
  void Predict(const std::vector<double>& inputs, const std::vector<double>& prior_mean,
               std::vector<double>* mean, std::vector<double>* variance) const;

  // h(inputs), rows × feature width.
  std::vector<double> Features(const std::vector<double>& inputs) const;

  // The MAP objective on `data` (log marginal likelihood + log prior around `reference` with
  // precision `prior_precision`, constants dropped) at the current parameters; `grad` (resized to
  // params().size()) receives its gradient. What Fit ascends; public for its tests.
  double Objective(const DeepKernelData& data, const std::vector<double>& reference,
                   double prior_precision, std::vector<double>& grad) const;

 private:
  // Forward pass keeping each layer's output (activations[0] = inputs).
  std::vector<std::vector<double>> ForwardAll(const std::vector<double>& inputs, size_t rows) const;
  // Adds ∂L/∂(net weights) to grad given ∂L/∂features.
  void Backward(const std::vector<std::vector<double>>& activations, size_t rows,
                std::vector<double> d_out, std::vector<double>& grad) const;
  std::vector<size_t> widths_;
  size_t net_params_ = 0;
  std::vector<double> theta_;  // weights and biases per layer, then log s², log σ², a, b
  ExactGp gp_;
};

}  // namespace glimpse::model
