#include "reference.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <type_traits>
#include <variant>

namespace glimpse::baselines {
namespace {

int64_t Count(const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  return count;
}

// Adds bias and ReLU to an accumulated element.
void Finish(double sum, double magnitude, const float* bias, int64_t channel, bool relu,
            double* out, double* out_magnitude) {
  if (bias != nullptr) {
    sum += bias[channel];
    magnitude += std::fabs(bias[channel]);
  }
  *out = relu && sum < 0 ? 0.0 : sum;
  *out_magnitude = magnitude;
}

// C[b, m, n] = Σ_k A[b, m, k] · B[b, n, k] (+ bias[n]); dense is the case batch = 1.
void ReferenceMatmul(int64_t batch, int64_t m, int64_t n, int64_t k, bool relu, const float* a,
                     const float* b, const float* bias, Reference& ref) {
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t bb = 0; bb < batch; ++bb) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        const float* row = a + (bb * m + i) * k;
        const float* col = b + (bb * n + j) * k;
        double sum = 0, magnitude = 0;
        for (int64_t kk = 0; kk < k; ++kk) {
          double term = static_cast<double>(row[kk]) * col[kk];
          sum += term;
          magnitude += std::fabs(term);
        }
        int64_t index = (bb * m + i) * n + j;
        Finish(sum, magnitude, bias, j, relu, &ref.output[index], &ref.magnitude[index]);
      }
    }
  }
}

// Direct convolution; `depthwise` uses weight[C, R, S] and output channel = input channel.
template <typename Shape>
void ReferenceConv(const Shape& s, int64_t out_channels, bool depthwise, const float* in,
                   const float* weight, const float* bias, Reference& ref) {
  const int64_t oh_count = s.OutH(), ow_count = s.OutW();
  const int64_t in_channels = depthwise ? 1 : s.c;
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t k = 0; k < out_channels; ++k) {
      for (int64_t oh = 0; oh < oh_count; ++oh) {
        for (int64_t ow = 0; ow < ow_count; ++ow) {
          double sum = 0, magnitude = 0;
          for (int64_t ci = 0; ci < in_channels; ++ci) {
            const int64_t c = depthwise ? k : ci;
            for (int64_t r = 0; r < s.r; ++r) {
              const int64_t ih = oh * s.stride + r * s.dilation - s.pad;
              if (ih < 0 || ih >= s.h) continue;
              for (int64_t q = 0; q < s.s; ++q) {
                const int64_t iw = ow * s.stride + q * s.dilation - s.pad;
                if (iw < 0 || iw >= s.w) continue;
                double term = static_cast<double>(in[((n * s.c + c) * s.h + ih) * s.w + iw]) *
                              weight[((k * in_channels + ci) * s.r + r) * s.s + q];
                sum += term;
                magnitude += std::fabs(term);
              }
            }
          }
          int64_t index = ((n * out_channels + k) * oh_count + oh) * ow_count + ow;
          Finish(sum, magnitude, bias, k, s.relu, &ref.output[index], &ref.magnitude[index]);
        }
      }
    }
  }
}

}  // namespace

std::vector<std::vector<float>> MakeInputs(const Operator& op, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<std::vector<float>> inputs;
  for (const auto& shape : OperatorInputShapes(op)) {
    std::vector<float> values(static_cast<size_t>(Count(shape)));
    for (float& v : values) v = uniform(rng);
    inputs.push_back(std::move(values));
  }
  return inputs;
}

Reference ComputeReference(const Operator& op, const std::vector<std::vector<float>>& inputs) {
  Reference ref;
  const int64_t count = Count(OperatorOutputShape(op));
  ref.output.assign(count, 0.0);
  ref.magnitude.assign(count, 0.0);
  auto bias_of = [&](bool has_bias) { return has_bias ? inputs.at(2).data() : nullptr; };
  std::visit(
      [&](const auto& s) {
        using Shape = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<Shape, DenseShape>) {
          ReferenceMatmul(1, s.m, s.n, s.k, s.relu, inputs[0].data(), inputs[1].data(),
                          bias_of(s.bias), ref);
        } else if constexpr (std::is_same_v<Shape, BatchMatmulShape>) {
          ReferenceMatmul(s.b, s.m, s.n, s.k, s.relu, inputs[0].data(), inputs[1].data(),
                          bias_of(s.bias), ref);
        } else if constexpr (std::is_same_v<Shape, Conv2dShape>) {
          ReferenceConv(s, s.k, false, inputs[0].data(), inputs[1].data(), bias_of(s.bias), ref);
        } else {
          ReferenceConv(s, s.c, true, inputs[0].data(), inputs[1].data(), bias_of(s.bias), ref);
        }
      },
      op);
  return ref;
}

CheckResult CheckOutput(const Reference& reference, const float* output, int64_t count,
                        int64_t reduction_length, double rtol) {
  CheckResult result;
  const double root = std::sqrt(static_cast<double>(std::max<int64_t>(1, reduction_length)));
  for (int64_t i = 0; i < count; ++i) {
    const double expected = reference.output[i];
    const double scale = std::fabs(expected) + reference.magnitude[i] / root;
    const double error = std::fabs(static_cast<double>(output[i]) - expected);
    const bool ok = std::isfinite(output[i]) && error <= rtol * scale;
    if (scale > 0 && std::isfinite(output[i])) {
      result.max_ratio = std::max(result.max_ratio, error / scale);
    }
    if (!ok && result.passed) {
      result.passed = false;
      result.first_bad = i;
      std::ostringstream message;
      message << "FAILED: element " << i << " is " << output[i] << ", expected " << expected
              << " (tolerance " << rtol * scale << ")";
      result.message = message.str();
    }
  }
  if (result.passed) {
    std::ostringstream message;
    message.precision(2);
    message << std::scientific << "passed (max |err| / scale " << result.max_ratio << ", rtol "
            << rtol << ")";
    result.message = message.str();
  }
  return result;
}

std::string SelfTestChecker() {
  const Operator op = ParseOperator("dense:M=3,N=17,K=40,bias=1");
  const Reference ref = ComputeReference(op, MakeInputs(op, 7));
  std::vector<float> output(ref.output.begin(), ref.output.end());
  const int64_t length = OperatorReductionLength(op);
  CheckResult good = CheckOutput(ref, output.data(), output.size(), length);
  if (!good.passed) return "the reference rounded to float was rejected: " + good.message;
  const size_t victim = output.size() / 2;
  output[victim] += static_cast<float>(ref.magnitude[victim] / static_cast<double>(length));
  CheckResult bad = CheckOutput(ref, output.data(), output.size(), length);
  if (bad.passed || bad.first_bad != static_cast<int64_t>(victim)) {
    return "an element off by one missing term (magnitude / L) was not caught";
  }
  return "";
}

}  // namespace glimpse::baselines
