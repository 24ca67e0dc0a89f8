#include "glimpse/reference.h"

#include <cmath>
#include <utility>
#include <variant>

#include "glimpse/error.h"

namespace glimpse {

namespace {

// Applies the operator's epilogue (glimpse/ops.h) to accumulated element `index`, whose output
// channel (the bias's index) is `channel`. The additions count in the element's magnitude.
template <typename Shape>
void Epilogue(const Shape& shape, const std::vector<std::vector<float>>& inputs, int64_t channel,
              size_t index, ReferenceResult& result) {
  double& out = result.output[index];
  double& magnitude = result.magnitude[index];
  if (shape.bias) {
    out += inputs[2][channel];
    magnitude += std::fabs(inputs[2][channel]);
  }
  if (shape.residual) {
    const double residual = inputs[shape.bias ? 3 : 2][index];
    out += residual;
    magnitude += std::fabs(residual);
  }
  if ((shape.relu || shape.relu6) && out < 0) out = 0;
  if (shape.relu6 && out > 6) out = 6;
}

// out[batch][m][n] = Σ_k A[batch][m][k] · B[batch][n][k] (B stored transposed, as both matmul
// operators take it), then the epilogue; dense is the batch of one.
void BatchMatmul(const std::vector<std::vector<float>>& inputs, const BatchMatmulShape& bm,
                 ReferenceResult& result) {
  const std::vector<float>& a = inputs[0];
  const std::vector<float>& b = inputs[1];
  for (int64_t batch = 0; batch < bm.b; ++batch) {
    for (int64_t m = 0; m < bm.m; ++m) {
      for (int64_t n = 0; n < bm.n; ++n) {
        double sum = 0, mag = 0;
        for (int64_t k = 0; k < bm.k; ++k) {
          double term =
              double(a[(batch * bm.m + m) * bm.k + k]) * double(b[(batch * bm.n + n) * bm.k + k]);
          sum += term;
          mag += std::fabs(term);
        }
        size_t i = (batch * bm.m + m) * bm.n + n;
        result.output[i] = sum;
        result.magnitude[i] = mag;
        Epilogue(bm, inputs, n, i, result);
      }
    }
  }
}

}  // namespace

ReferenceResult ComputeReference(const Operator& op,
                                 const std::vector<std::vector<float>>& inputs) {
  if (OperatorHasBlockedLayout(op)) {
    // The plain computation on the activations unblocked, its result blocked as the output is.
    const Operator plain = OperatorInPlainLayout(op);
    const std::vector<std::vector<int64_t>> plain_inputs = OperatorInputShapes(plain);
    const std::vector<int64_t> plain_output = OperatorOutputShape(plain);
    const auto [in_block, out_block] = std::visit(
        [](const auto& shape) -> std::pair<int64_t, int64_t> {
          if constexpr (requires { shape.in_block; }) return {shape.in_block, shape.out_block};
          return {0, 0};
        },
        op);
    std::vector<std::vector<float>> unblocked = inputs;
    if (inputs.empty()) throw Error("reference: no inputs");
    unblocked[0] = UnblockChannels(inputs[0], plain_inputs[0], in_block);
    const int residual = OperatorResidualInput(op);
    if (residual >= 0 && residual < static_cast<int>(inputs.size())) {
      unblocked[residual] = UnblockChannels(inputs[residual], plain_output, out_block);
    }
    ReferenceResult result = ComputeReference(plain, unblocked);
    result.output = BlockChannels(result.output, plain_output, out_block);
    result.magnitude = BlockChannels(result.magnitude, plain_output, out_block);
    return result;
  }
  ReferenceResult result;
  int64_t count = 1;
  for (int64_t d : OperatorOutputShape(op)) count *= d;
  result.output.assign(count, 0.0);
  result.magnitude.assign(count, 0.0);
  if (const auto* d = std::get_if<DenseShape>(&op)) {
    BatchMatmul(inputs,
                BatchMatmulShape{1, d->m, d->n, d->k, d->bias, d->relu, d->residual, d->relu6},
                result);
    return result;
  }
  if (const auto* bm = std::get_if<BatchMatmulShape>(&op)) {
    BatchMatmul(inputs, *bm, result);
    return result;
  }
  if (const auto* d = std::get_if<DepthwiseConv2dShape>(&op)) {
    const std::vector<float>& in = inputs[0];
    const std::vector<float>& w = inputs[1];
    const int64_t oh_count = d->OutH(), ow_count = d->OutW();
    for (int64_t n = 0; n < d->n; ++n) {
      for (int64_t ch = 0; ch < d->c; ++ch) {
        for (int64_t oh = 0; oh < oh_count; ++oh) {
          for (int64_t ow = 0; ow < ow_count; ++ow) {
            double sum = 0, mag = 0;
            for (int64_t r = 0; r < d->r; ++r) {
              for (int64_t s = 0; s < d->s; ++s) {
                int64_t ih = oh * d->stride + r * d->dilation - d->pad;
                int64_t iw = ow * d->stride + s * d->dilation - d->pad;
                if (ih < 0 || ih >= d->h || iw < 0 || iw >= d->w) continue;
                double term = double(in[((n * d->c + ch) * d->h + ih) * d->w + iw]) *
                              double(w[(ch * d->r + r) * d->s + s]);
                sum += term;
                mag += std::fabs(term);
              }
            }
            size_t i = ((n * d->c + ch) * oh_count + oh) * ow_count + ow;
            result.output[i] = sum;
            result.magnitude[i] = mag;
            Epilogue(*d, inputs, ch, i, result);
          }
        }
      }
    }
    return result;
  }
  const auto& c = std::get<Conv2dShape>(op);
  const std::vector<float>& in = inputs[0];
  const std::vector<float>& w = inputs[1];
  const int64_t oh_count = c.OutH(), ow_count = c.OutW();
  for (int64_t n = 0; n < c.n; ++n) {
    for (int64_t k = 0; k < c.k; ++k) {
      for (int64_t oh = 0; oh < oh_count; ++oh) {
        for (int64_t ow = 0; ow < ow_count; ++ow) {
          double sum = 0, mag = 0;
          for (int64_t ch = 0; ch < c.c; ++ch) {
            for (int64_t r = 0; r < c.r; ++r) {
              for (int64_t s = 0; s < c.s; ++s) {
                int64_t ih = oh * c.stride + r * c.dilation - c.pad;
                int64_t iw = ow * c.stride + s * c.dilation - c.pad;
                if (ih < 0 || ih >= c.h || iw < 0 || iw >= c.w) continue;
                double term = double(in[((n * c.c + ch) * c.h + ih) * c.w + iw]) *
                              double(w[((k * c.c + ch) * c.r + r) * c.s + s]);
                sum += term;
                mag += std::fabs(term);
              }
            }
          }
          size_t i = ((n * c.k + k) * oh_count + oh) * ow_count + ow;
          result.output[i] = sum;
          result.magnitude[i] = mag;
          Epilogue(c, inputs, k, i, result);
        }
      }
    }
  }
  return result;
}

int64_t FirstMismatch(const ReferenceResult& reference, const float* output, int64_t count,
                      int64_t reduction_length, double rtol) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(reduction_length));
  for (int64_t i = 0; i < count; ++i) {
    double value = output[i];
    double expected = reference.output[i];
    double tolerance = rtol * (std::fabs(expected) + reference.magnitude[i] * scale);
    if (!std::isfinite(value) || !(std::fabs(value - expected) <= tolerance)) return i;
  }
  return -1;
}

}  // namespace glimpse
