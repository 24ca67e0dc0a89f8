// Exact Gaussian-process regression on feature vectors, for the DGP tuner's surrogate
// (model/deep_kernel.h) and its tests.
//
// The kernel is the squared exponential with unit lengthscale on the features,
//   k(a, b) = s² · exp(−½‖a − b‖²),   observations y = f + ε, ε ~ N(0, σ²),
// because the feature map in front of it (the deep kernel) learns every scale itself. The GP has a
// zero mean: callers subtract their prior mean from the targets first (the residuals below).
// Matrices are dense, row-major std::vector<double>; sizes stay in the hundreds, so the plain
// O(n³) loops here cost milliseconds and need no linear-algebra library.
#pragma once

#include <cstddef>
#include <vector>

namespace glimpse::model {

// ---- Dense algebra on a symmetric positive-definite n × n matrix

// Replaces the lower triangle of `a` by its Cholesky factor L (a = L·Lᵀ) and zeroes the upper
// triangle. False (and `a` unusable) when `a` is not numerically positive definite.
bool CholeskyInPlace(std::vector<double>& a, size_t n);
// Solves L·x = b in place (L lower triangular, as CholeskyInPlace leaves it).
void SolveLower(const std::vector<double>& l, size_t n, double* b);
// Solves Lᵀ·x = b in place.
void SolveLowerTransposed(const std::vector<double>& l, size_t n, double* b);

// ---- The GP

struct GpHyper {
  double log_signal = 0.0;  // log s²
  double log_noise = -4.6;  // log σ² (σ² ≈ 0.01)
  double signal() const;    // s²
  double noise() const;     // σ² plus a floor of 1e-6, so that K stays positive definite
};

// k(a, b) for two feature rows of width d.
double Kernel(const double* a, const double* b, size_t d, const GpHyper& hyper);

// The posterior of a GP conditioned on n feature rows (width d) and their residuals.
class ExactGp {
 public:
  // Conditions on `features` (n·d values) and `residuals` (n). When K + σ²I is not numerically
  // positive definite, jitter (10⁻⁸ s², growing tenfold) is added to the diagonal until it is.
  // Zero rows is allowed: the posterior is then the prior.
  void Condition(std::vector<double> features, size_t d, std::vector<double> residuals,
                 GpHyper hyper);

  // Posterior mean of the residual and variance of the latent f (without σ²) at one row.
  void Predict(const double* feature, double* mean, double* variance) const;
  // log p(residuals | features) under the conditioned hyperparameters.
  double LogMarginalLikelihood() const { return log_likelihood_; }
  size_t size() const { return n_; }
  const GpHyper& hyper() const { return hyper_; }

 private:
  size_t n_ = 0, d_ = 0;
  GpHyper hyper_;
  std::vector<double> features_;
  std::vector<double> chol_;   // L of K + σ²I (+ jitter)
  std::vector<double> alpha_;  // (K + σ²I)⁻¹ · residuals
  double log_likelihood_ = 0.0;
};

// log p(y | X) and its gradient, for training the feature map and the hyperparameters by
// gradient ascent (the deep kernel's fit).
struct GpLikelihoodGradient {
  double value = 0.0;               // log p(residuals | features)
  std::vector<double> d_features;   // ∂/∂features, n·d
  std::vector<double> d_residuals;  // ∂/∂residuals, n (= −α)
  double d_log_signal = 0.0;
  double d_log_noise = 0.0;
};

// With W = ½(ααᵀ − K⁻¹), α = K⁻¹y: ∂L/∂θ = Σᵢⱼ Wᵢⱼ ∂Kᵢⱼ/∂θ (Rasmussen & Williams eq. 5.9).
// Jitter as in ExactGp::Condition. O(n³).
GpLikelihoodGradient LogLikelihoodGradient(const std::vector<double>& features, size_t d,
                                           const std::vector<double>& residuals,
                                           const GpHyper& hyper);

}  // namespace glimpse::model
