// Exact GP regression (model/gaussian_process.h): Cholesky, triangular solves, the posterior and
// the log marginal likelihood's gradient.
#include "model/gaussian_process.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "glimpse/error.h"

namespace glimpse::model {

namespace {

constexpr double kNoiseFloor = 1e-6;
constexpr double kFirstJitter = 1e-8;  // times s², growing tenfold per failed factorisation
constexpr int kJitterTries = 8;

// K + σ²I over the rows of `features`.
std::vector<double> Gram(const std::vector<double>& features, size_t n, size_t d,
                         const GpHyper& hyper) {
  std::vector<double> k(n * n);
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j <= i; ++j) {
      const double value = Kernel(&features[i * d], &features[j * d], d, hyper);
      k[i * n + j] = value;
      k[j * n + i] = value;
    }
    k[i * n + i] += hyper.noise();
  }
  return k;
}

// The Cholesky factor of `gram`, with jitter on the diagonal where needed.
std::vector<double> Factor(const std::vector<double>& gram, size_t n, const GpHyper& hyper) {
  double jitter = 0.0;
  for (int attempt = 0; attempt <= kJitterTries; ++attempt) {
    std::vector<double> chol = gram;
    for (size_t i = 0; i < n; ++i) chol[i * n + i] += jitter;
    if (CholeskyInPlace(chol, n)) return chol;
    jitter = jitter == 0.0 ? kFirstJitter * hyper.signal() : jitter * 10.0;
  }
  throw Error("Gaussian process: the kernel matrix of " + std::to_string(n) +
              " points is not positive definite even with jitter");
}

// −½ yᵀα − Σ log Lᵢᵢ − n/2 log 2π.
double LogLikelihood(const std::vector<double>& chol, size_t n, const std::vector<double>& y,
                     const std::vector<double>& alpha) {
  double value = -0.5 * static_cast<double>(n) * std::log(2.0 * std::numbers::pi);
  for (size_t i = 0; i < n; ++i) value += -0.5 * y[i] * alpha[i] - std::log(chol[i * n + i]);
  return value;
}

}  // namespace

bool CholeskyInPlace(std::vector<double>& a, size_t n) {
  for (size_t j = 0; j < n; ++j) {
    double* row_j = &a[j * n];
    double diagonal = row_j[j];
    for (size_t k = 0; k < j; ++k) diagonal -= row_j[k] * row_j[k];
    if (!(diagonal > 0.0) || !std::isfinite(diagonal)) return false;
    const double pivot = std::sqrt(diagonal);
    row_j[j] = pivot;
    for (size_t i = j + 1; i < n; ++i) {
      double* row_i = &a[i * n];
      double sum = row_i[j];
      for (size_t k = 0; k < j; ++k) sum -= row_i[k] * row_j[k];
      row_i[j] = sum / pivot;
    }
    for (size_t k = j + 1; k < n; ++k) row_j[k] = 0.0;
  }
  return true;
}

void SolveLower(const std::vector<double>& l, size_t n, double* b) {
  for (size_t i = 0; i < n; ++i) {
    const double* row = &l[i * n];
    double sum = b[i];
    for (size_t k = 0; k < i; ++k) sum -= row[k] * b[k];
    b[i] = sum / row[i];
  }
}

void SolveLowerTransposed(const std::vector<double>& l, size_t n, double* b) {
  for (size_t i = n; i-- > 0;) {
    double sum = b[i];
    for (size_t k = i + 1; k < n; ++k) sum -= l[k * n + i] * b[k];
    b[i] = sum / l[i * n + i];
  }
}

double GpHyper::signal() const { return std::exp(log_signal); }
double GpHyper::noise() const { return std::exp(log_noise) + kNoiseFloor; }

double Kernel(const double* a, const double* b, size_t d, const GpHyper& hyper) {
  double distance = 0.0;
  for (size_t k = 0; k < d; ++k) {
    const double diff = a[k] - b[k];
    distance += diff * diff;
  }
  return hyper.signal() * std::exp(-0.5 * distance);
}

void ExactGp::Condition(std::vector<double> features, size_t d, std::vector<double> residuals,
                        GpHyper hyper) {
  if (d == 0 || features.size() != residuals.size() * d) {
    throw Error("Gaussian process: " + std::to_string(features.size()) + " feature values for " +
                std::to_string(residuals.size()) + " residuals of width " + std::to_string(d));
  }
  n_ = residuals.size();
  d_ = d;
  hyper_ = hyper;
  features_ = std::move(features);
  chol_ = Factor(Gram(features_, n_, d_, hyper_), n_, hyper_);
  alpha_ = residuals;
  SolveLower(chol_, n_, alpha_.data());
  SolveLowerTransposed(chol_, n_, alpha_.data());
  log_likelihood_ = LogLikelihood(chol_, n_, residuals, alpha_);
}

void ExactGp::Predict(const double* feature, double* mean, double* variance) const {
  std::vector<double> k_star(n_);
  double m = 0.0;
  for (size_t i = 0; i < n_; ++i) {
    k_star[i] = Kernel(feature, &features_[i * d_], d_, hyper_);
    m += k_star[i] * alpha_[i];
  }
  *mean = m;
  if (variance != nullptr) {
    SolveLower(chol_, n_, k_star.data());  // v = L⁻¹k*
    double explained = 0.0;
    for (double v : k_star) explained += v * v;
    *variance = std::max(hyper_.signal() - explained, 0.0);
  }
}

GpLikelihoodGradient LogLikelihoodGradient(const std::vector<double>& features, size_t d,
                                           const std::vector<double>& residuals,
                                           const GpHyper& hyper) {
  const size_t n = residuals.size();
  if (d == 0 || features.size() != n * d) {
    throw Error("Gaussian process: feature and residual sizes differ");
  }
  GpLikelihoodGradient out;
  out.d_features.assign(n * d, 0.0);
  out.d_residuals.assign(n, 0.0);
  if (n == 0) return out;
  const std::vector<double> chol = Factor(Gram(features, n, d, hyper), n, hyper);
  std::vector<double> alpha = residuals;
  SolveLower(chol, n, alpha.data());
  SolveLowerTransposed(chol, n, alpha.data());
  out.value = LogLikelihood(chol, n, residuals, alpha);
  for (size_t i = 0; i < n; ++i) out.d_residuals[i] = -alpha[i];

  // K⁻¹ column by column: K⁻¹eⱼ = L⁻ᵀ(L⁻¹eⱼ).
  std::vector<double> inverse(n * n);
  std::vector<double> column(n);
  for (size_t j = 0; j < n; ++j) {
    std::fill(column.begin(), column.end(), 0.0);
    column[j] = 1.0;
    SolveLower(chol, n, column.data());
    SolveLowerTransposed(chol, n, column.data());
    for (size_t i = 0; i < n; ++i) inverse[i * n + j] = column[i];
  }
  const double signal = hyper.signal();
  double trace_w = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const double* fi = &features[i * d];
    double* gi = &out.d_features[i * d];
    trace_w += 0.5 * (alpha[i] * alpha[i] - inverse[i * n + i]);
    out.d_log_signal += 0.5 * (alpha[i] * alpha[i] - inverse[i * n + i]) * signal;
    for (size_t j = 0; j < n; ++j) {
      if (j == i) continue;
      const double w =
          0.5 * (alpha[i] * alpha[j] - 0.5 * (inverse[i * n + j] + inverse[j * n + i]));
      const double* fj = &features[j * d];
      const double k = Kernel(fi, fj, d, hyper);  // s²·e_ij
      out.d_log_signal += w * k;
      // ∂Kᵢⱼ/∂fᵢ = −Kᵢⱼ(fᵢ − fⱼ); Wᵢⱼ and Wⱼᵢ both count.
      for (size_t c = 0; c < d; ++c) gi[c] += -2.0 * w * k * (fi[c] - fj[c]);
    }
  }
  out.d_log_noise = trace_w * std::exp(hyper.log_noise);
  return out;
}

}  // namespace glimpse::model
