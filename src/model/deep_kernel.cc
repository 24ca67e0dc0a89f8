// The deep-kernel GP (model/deep_kernel.h): the feature network's passes, the MAP objective and
// its Adam ascent.
#include "model/deep_kernel.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "glimpse/error.h"

namespace glimpse::model {

namespace {

constexpr double kAdamBeta1 = 0.9;
constexpr double kAdamBeta2 = 0.999;
constexpr double kAdamEpsilon = 1e-8;
// log σ² is kept in [log 10⁻⁴, log 4]: below, the GP interpolates measurement noise; above, it
// explains nothing.
constexpr double kMinLogNoise = -9.2;
constexpr double kMaxLogNoise = 1.4;
constexpr double kMinLogSignal = -7.0;
constexpr double kMaxLogSignal = 4.0;

double StandardNormal(Rng& rng) {
  // Box–Muller on glimpse's own uniform draws, so that sequences do not depend on the standard
  // library's distributions.
  const double u1 = std::max(UniformUnit(rng), 1e-300);
  const double u2 = UniformUnit(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.141592653589793 * u2);
}

// The rows of `data` at `picks`.
DeepKernelData Subset(const DeepKernelData& data, const std::vector<size_t>& picks, size_t width) {
  DeepKernelData out;
  out.inputs.reserve(picks.size() * width);
  for (size_t row : picks) {
    out.inputs.insert(out.inputs.end(), data.inputs.begin() + row * width,
                      data.inputs.begin() + (row + 1) * width);
    out.targets.push_back(data.targets[row]);
    out.prior_mean.push_back(data.prior_mean[row]);
  }
  return out;
}

}  // namespace

DeepKernelGp::DeepKernelGp(std::vector<size_t> widths) : widths_(std::move(widths)) {
  if (widths_.size() < 2 || std::find(widths_.begin(), widths_.end(), 0) != widths_.end()) {
    throw Error("deep kernel: needs an input and a feature width, all positive");
  }
  for (size_t l = 0; l + 1 < widths_.size(); ++l) {
    net_params_ += widths_[l] * widths_[l + 1] + widths_[l + 1];
  }
  theta_.assign(net_params_ + 4, 0.0);
  theta_[net_params_ + 2] = 1.0;  // a
}

void DeepKernelGp::InitRandom(Rng& rng) {
  size_t p = 0;
  for (size_t l = 0; l + 1 < widths_.size(); ++l) {
    const double scale = 1.0 / std::sqrt(static_cast<double>(widths_[l]));
    for (size_t i = 0; i < widths_[l] * widths_[l + 1]; ++i)
      theta_[p++] = scale * StandardNormal(rng);
    for (size_t i = 0; i < widths_[l + 1]; ++i) theta_[p++] = 0.0;
  }
  theta_[net_params_] = 0.0;                 // log s²
  theta_[net_params_ + 1] = std::log(0.05);  // log σ²
  theta_[net_params_ + 2] = 1.0;             // a
  theta_[net_params_ + 3] = 0.0;             // b
}

GpHyper DeepKernelGp::hyper() const {
  GpHyper hyper;
  hyper.log_signal = theta_[net_params_];
  hyper.log_noise = theta_[net_params_ + 1];
  return hyper;
}

std::vector<std::vector<double>> DeepKernelGp::ForwardAll(const std::vector<double>& inputs,
                                                          size_t rows) const {
  std::vector<std::vector<double>> activations{inputs};
  size_t p = 0;
  for (size_t l = 0; l + 1 < widths_.size(); ++l) {
    const size_t in = widths_[l], out = widths_[l + 1];
    const double* weights = &theta_[p];
    const double* bias = &theta_[p + in * out];
    p += in * out + out;
    const std::vector<double>& x = activations.back();
    std::vector<double> y(rows * out);
    const bool last = l + 2 == widths_.size();
    for (size_t r = 0; r < rows; ++r) {
      for (size_t o = 0; o < out; ++o) {
        double sum = bias[o];
        const double* w = &weights[o * in];
        const double* xr = &x[r * in];
        for (size_t i = 0; i < in; ++i) sum += w[i] * xr[i];
        y[r * out + o] = last ? sum : std::tanh(sum);
      }
    }
    activations.push_back(std::move(y));
  }
  return activations;
}

std::vector<double> DeepKernelGp::Features(const std::vector<double>& inputs) const {
  if (inputs.size() % input_width() != 0) {
    throw Error("deep kernel: " + std::to_string(inputs.size()) +
                " input values are not whole rows of width " + std::to_string(input_width()));
  }
  return ForwardAll(inputs, inputs.size() / input_width()).back();
}

void DeepKernelGp::Backward(const std::vector<std::vector<double>>& activations, size_t rows,
                            std::vector<double> d_out, std::vector<double>& grad) const {
  // Layer offsets, walked backwards.
  std::vector<size_t> offsets;
  size_t p = 0;
  for (size_t l = 0; l + 1 < widths_.size(); ++l) {
    offsets.push_back(p);
    p += widths_[l] * widths_[l + 1] + widths_[l + 1];
  }
  for (size_t l = widths_.size() - 1; l-- > 0;) {
    const size_t in = widths_[l], out = widths_[l + 1];
    const bool last = l + 2 == widths_.size();
    const std::vector<double>& x = activations[l];
    const std::vector<double>& y = activations[l + 1];
    if (!last) {
      for (size_t i = 0; i < d_out.size(); ++i) d_out[i] *= 1.0 - y[i] * y[i];  // tanh'
    }
    const double* weights = &theta_[offsets[l]];
    double* d_weights = &grad[offsets[l]];
    double* d_bias = &grad[offsets[l] + in * out];
    std::vector<double> d_in(l > 0 ? rows * in : 0, 0.0);
    for (size_t r = 0; r < rows; ++r) {
      for (size_t o = 0; o < out; ++o) {
        const double g = d_out[r * out + o];
        if (g == 0.0) continue;
        d_bias[o] += g;
        const double* xr = &x[r * in];
        double* dw = &d_weights[o * in];
        for (size_t i = 0; i < in; ++i) dw[i] += g * xr[i];
        if (l > 0) {
          const double* w = &weights[o * in];
          double* di = &d_in[r * in];
          for (size_t i = 0; i < in; ++i) di[i] += g * w[i];
        }
      }
    }
    d_out = std::move(d_in);
  }
}

double DeepKernelGp::Objective(const DeepKernelData& data, const std::vector<double>& reference,
                               double prior_precision, std::vector<double>& grad) const {
  const size_t rows = data.rows();
  if (data.inputs.size() != rows * input_width() || data.prior_mean.size() != rows) {
    throw Error("deep kernel: inputs, targets and prior means of different lengths");
  }
  if (prior_precision > 0.0 && reference.size() != theta_.size()) {
    throw Error("deep kernel: the prior's reference has " + std::to_string(reference.size()) +
                " parameters, the model " + std::to_string(theta_.size()));
  }
  grad.assign(theta_.size(), 0.0);
  const std::vector<std::vector<double>> activations = ForwardAll(data.inputs, rows);
  const double a = mean_scale(), b = mean_offset();
  std::vector<double> residuals(rows);
  for (size_t i = 0; i < rows; ++i) residuals[i] = data.targets[i] - a * data.prior_mean[i] - b;
  GpLikelihoodGradient likelihood =
      LogLikelihoodGradient(activations.back(), feature_width(), residuals, hyper());
  Backward(activations, rows, std::move(likelihood.d_features), grad);
  grad[net_params_] = likelihood.d_log_signal;
  grad[net_params_ + 1] = likelihood.d_log_noise;
  for (size_t i = 0; i < rows; ++i) {
    // ∂rᵢ/∂a = −mᵢ, ∂rᵢ/∂b = −1.
    grad[net_params_ + 2] -= likelihood.d_residuals[i] * data.prior_mean[i];
    grad[net_params_ + 3] -= likelihood.d_residuals[i];
  }
  double value = likelihood.value;
  if (prior_precision > 0.0) {
    for (size_t k = 0; k < theta_.size(); ++k) {
      const double diff = theta_[k] - reference[k];
      value -= 0.5 * prior_precision * diff * diff;
      grad[k] -= prior_precision * diff;
    }
  }
  return value;
}

double DeepKernelGp::Fit(const DeepKernelData& data, const std::vector<double>& reference,
                         const DeepKernelFitOptions& options, Rng& rng) {
  const size_t rows = data.rows();
  if (data.inputs.size() != rows * input_width() || data.prior_mean.size() != rows) {
    throw Error("deep kernel: inputs, targets and prior means of different lengths");
  }
  if (reference.size() != theta_.size()) {
    throw Error("deep kernel: the prior's reference has " + std::to_string(reference.size()) +
                " parameters, the model " + std::to_string(theta_.size()));
  }
  std::vector<double> grad(theta_.size()), m1(theta_.size(), 0.0), m2(theta_.size(), 0.0);
  std::vector<size_t> order(rows);
  std::iota(order.begin(), order.end(), size_t{0});
  const bool minibatch = options.batch > 0 && options.batch < rows;
  double value = 0.0;
  for (int step = 1; step <= options.steps && rows > 0; ++step) {
    if (minibatch) {
      // A partial Fisher–Yates shuffle: the first `batch` positions are a uniform draw.
      for (size_t i = 0; i < options.batch; ++i) {
        std::swap(order[i], order[i + UniformIndex(rng, rows - i)]);
      }
      std::vector<size_t> picks(order.begin(), order.begin() + options.batch);
      value =
          Objective(Subset(data, picks, input_width()), reference, options.prior_precision, grad);
    } else {
      value = Objective(data, reference, options.prior_precision, grad);
    }
    // Adam, ascending.
    const double correction1 = 1.0 - std::pow(kAdamBeta1, step);
    const double correction2 = 1.0 - std::pow(kAdamBeta2, step);
    for (size_t k = 0; k < theta_.size(); ++k) {
      if (!std::isfinite(grad[k])) continue;
      m1[k] = kAdamBeta1 * m1[k] + (1.0 - kAdamBeta1) * grad[k];
      m2[k] = kAdamBeta2 * m2[k] + (1.0 - kAdamBeta2) * grad[k] * grad[k];
      theta_[k] += options.learning_rate * (m1[k] / correction1) /
                   (std::sqrt(m2[k] / correction2) + kAdamEpsilon);
    }
    theta_[net_params_] = std::clamp(theta_[net_params_], kMinLogSignal, kMaxLogSignal);
    theta_[net_params_ + 1] = std::clamp(theta_[net_params_ + 1], kMinLogNoise, kMaxLogNoise);
  }
  Condition(data);
  return value;
}

void DeepKernelGp::Condition(const DeepKernelData& data) {
  const size_t rows = data.rows();
  if (data.inputs.size() != rows * input_width() || data.prior_mean.size() != rows) {
    throw Error("deep kernel: inputs, targets and prior means of different lengths");
  }
  std::vector<double> residuals(rows);
  for (size_t i = 0; i < rows; ++i) {
    residuals[i] = data.targets[i] - mean_scale() * data.prior_mean[i] - mean_offset();
  }
  gp_.Condition(ForwardAll(data.inputs, rows).back(), feature_width(), std::move(residuals),
                hyper());
}

void DeepKernelGp::Predict(const std::vector<double>& inputs, const std::vector<double>& prior_mean,
                           std::vector<double>* mean, std::vector<double>* variance) const {
  const std::vector<double> features = Features(inputs);
  const size_t rows = features.size() / feature_width();
  if (prior_mean.size() != rows) {
    throw Error("deep kernel: " + std::to_string(prior_mean.size()) + " prior means for " +
                std::to_string(rows) + " rows");
  }
  if (mean != nullptr) mean->assign(rows, 0.0);
  if (variance != nullptr) variance->assign(rows, 0.0);
  const GpHyper prior_hyper = hyper();
  for (size_t r = 0; r < rows; ++r) {
    double m = 0.0, v = prior_hyper.signal();
    if (gp_.size() > 0) gp_.Predict(&features[r * feature_width()], &m, variance ? &v : nullptr);
    if (mean != nullptr) (*mean)[r] = mean_scale() * prior_mean[r] + mean_offset() + m;
    if (variance != nullptr) (*variance)[r] = v;
  }
}

}  // namespace glimpse::model
