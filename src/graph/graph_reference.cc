// The reference interpreter of a model graph (glimpse/model_graph.h RunModelGraphReference):
// every op as the plainest loops, in double precision, NCHW.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "glimpse/error.h"
#include "glimpse/model_graph.h"

namespace glimpse {
namespace {

using Values = std::vector<double>;

// Row-major strides of `shape`.
std::vector<int64_t> Strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * shape[i + 1];
  }
  return strides;
}

Values Conv(const GraphOp& op, const std::vector<int64_t>& xs, const Values& x,
            const std::vector<int64_t>& ws, const Values& w, const Values* bias,
            const std::vector<int64_t>& ys) {
  const int64_t n = xs[0], c = xs[1], h = xs[2], wd = xs[3];
  const int64_t k = ws[0], cg = ws[1], r = ws[2], s = ws[3];
  const int64_t oh = ys[2], ow = ys[3], kg = k / op.group;
  Values y(n * k * oh * ow, 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ko = 0; ko < k; ++ko) {
      const int64_t g = ko / kg;
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double acc = bias ? (*bias)[ko] : 0.0;
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t ri = 0; ri < r; ++ri)
              for (int64_t si = 0; si < s; ++si) {
                const int64_t ih = i * op.strides[0] + ri * op.dilations[0] - op.pads[0];
                const int64_t iw = j * op.strides[1] + si * op.dilations[1] - op.pads[1];
                if (ih < 0 || ih >= h || iw < 0 || iw >= wd) continue;
                acc += x[((b * c + g * cg + ci) * h + ih) * wd + iw] *
                       w[((ko * cg + ci) * r + ri) * s + si];
              }
          y[((b * k + ko) * oh + i) * ow + j] = acc;
        }
    }
  return y;
}

Values Pool(const GraphOp& op, const std::vector<int64_t>& xs, const Values& x,
            const std::vector<int64_t>& ys) {
  const int64_t n = xs[0], c = xs[1], h = xs[2], w = xs[3], oh = ys[2], ow = ys[3];
  const bool max = op.kind == GraphOpKind::kMaxPool;
  Values y(n * c * oh * ow);
  for (int64_t p = 0; p < n * c; ++p)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        double acc = max ? -std::numeric_limits<double>::infinity() : 0.0;
        int64_t count = 0;
        for (int64_t ri = 0; ri < op.kernel[0]; ++ri)
          for (int64_t si = 0; si < op.kernel[1]; ++si) {
            const int64_t ih = i * op.strides[0] + ri - op.pads[0];
            const int64_t iw = j * op.strides[1] + si - op.pads[1];
            const bool inside = ih >= 0 && ih < h && iw >= 0 && iw < w;
            // The window counts padding cells that lie within the padded input.
            const bool in_padded = ih < h + op.pads[2] && iw < w + op.pads[3];
            if (inside) {
              const double v = x[(p * h + ih) * w + iw];
              acc = max ? std::max(acc, v) : acc + v;
              ++count;
            } else if (in_padded && op.count_include_pad) {
              ++count;
            }
          }
        y[(p * oh + i) * ow + j] =
            max ? acc : acc / static_cast<double>(std::max<int64_t>(1, count));
      }
  return y;
}

}  // namespace

std::vector<std::vector<float>> RunModelGraphReference(
    const ModelGraph& graph, const std::vector<std::vector<float>>& inputs) {
  if (inputs.size() != graph.inputs.size()) {
    throw Error(fmt::format("model {}: {} inputs given, it takes {}", graph.name, inputs.size(),
                            graph.inputs.size()));
  }
  std::vector<Values> values(graph.tensors.size());
  for (size_t i = 0; i < graph.tensors.size(); ++i) {
    if (graph.tensors[i].constant) {
      values[i].assign(graph.tensors[i].data.begin(), graph.tensors[i].data.end());
    }
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const GraphTensor& tensor = graph.tensors[graph.inputs[i]];
    if (static_cast<int64_t>(inputs[i].size()) != tensor.Elements()) {
      throw Error(fmt::format("model {}: input '{}' takes {} values, got {}", graph.name,
                              tensor.name, tensor.Elements(), inputs[i].size()));
    }
    values[graph.inputs[i]].assign(inputs[i].begin(), inputs[i].end());
  }
  for (const GraphOp& op : graph.ops) {
    const auto& ys = graph.tensors[op.output].shape;
    auto in = [&](size_t i) -> const Values& { return values[op.inputs[i]]; };
    auto shape = [&](size_t i) -> const std::vector<int64_t>& {
      return graph.tensors[op.inputs[i]].shape;
    };
    Values y;
    switch (op.kind) {
      case GraphOpKind::kConv:
        y = Conv(op, shape(0), in(0), shape(1), in(1), op.inputs.size() == 3 ? &in(2) : nullptr,
                 ys);
        break;
      case GraphOpKind::kDense: {
        const int64_t n = shape(1)[0], k = shape(1)[1],
                      m = graph.tensors[op.inputs[0]].Elements() / k;
        y.assign(m * n, 0.0);
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double acc = op.inputs.size() == 3 ? in(2)[j] : 0.0;
            for (int64_t l = 0; l < k; ++l) acc += in(0)[i * k + l] * in(1)[j * k + l];
            y[i * n + j] = acc;
          }
        break;
      }
      case GraphOpKind::kBatchMatmul: {
        const auto& as = shape(0);
        const int64_t m = as[as.size() - 2], k = as.back(), n = ys.back();
        const int64_t batch = graph.tensors[op.output].Elements() / (m * n);
        y.assign(batch * m * n, 0.0);
        for (int64_t b = 0; b < batch; ++b)
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
              double acc = 0.0;
              for (int64_t l = 0; l < k; ++l) {
                acc += in(0)[(b * m + i) * k + l] * in(1)[(b * k + l) * n + j];
              }
              y[(b * m + i) * n + j] = acc;
            }
        break;
      }
      case GraphOpKind::kRelu:
        y = in(0);
        for (double& v : y) v = std::max(v, 0.0);
        break;
      case GraphOpKind::kClip:
        y = in(0);
        for (double& v : y) v = std::min<double>(std::max<double>(v, op.clip_min), op.clip_max);
        break;
      case GraphOpKind::kAdd: {
        const int64_t count = graph.tensors[op.output].Elements();
        const auto out_strides = Strides(ys);
        y.assign(count, 0.0);
        // Each input's index of an output element: broadcast dimensions read position 0.
        auto index = [&](const std::vector<int64_t>& s, int64_t flat) {
          const auto st = Strides(s);
          const size_t offset = ys.size() - s.size();
          int64_t at = 0;
          for (size_t d = 0; d < ys.size(); ++d) {
            const int64_t coordinate = flat / out_strides[d] % ys[d];
            if (d >= offset && s[d - offset] != 1) at += coordinate * st[d - offset];
          }
          return at;
        };
        for (int64_t e = 0; e < count; ++e) {
          y[e] = in(0)[index(shape(0), e)] + in(1)[index(shape(1), e)];
        }
        break;
      }
      case GraphOpKind::kMaxPool:
      case GraphOpKind::kAveragePool:
        y = Pool(op, shape(0), in(0), ys);
        break;
      case GraphOpKind::kGlobalAveragePool: {
        const int64_t planes = ys[0] * ys[1], area = shape(0)[2] * shape(0)[3];
        y.assign(planes, 0.0);
        for (int64_t p = 0; p < planes; ++p) {
          for (int64_t e = 0; e < area; ++e) y[p] += in(0)[p * area + e];
          y[p] /= static_cast<double>(area);
        }
        break;
      }
      case GraphOpKind::kFlatten:
      case GraphOpKind::kReshape:
        y = in(0);
        break;
      case GraphOpKind::kConcat: {
        // Outer blocks (dimensions before the axis) of each input, one after the other.
        int64_t outer = 1;
        for (int64_t d = 0; d < op.axis; ++d) outer *= ys[d];
        y.reserve(graph.tensors[op.output].Elements());
        for (int64_t o = 0; o < outer; ++o) {
          for (size_t i = 0; i < op.inputs.size(); ++i) {
            const int64_t block = graph.tensors[op.inputs[i]].Elements() / outer;
            y.insert(y.end(), in(i).begin() + o * block, in(i).begin() + (o + 1) * block);
          }
        }
        break;
      }
      case GraphOpKind::kSoftmax: {
        y = in(0);
        const auto strides = Strides(ys);
        const int64_t extent = ys[op.axis], stride = strides[op.axis];
        const int64_t count = graph.tensors[op.output].Elements();
        for (int64_t e = 0; e < count; ++e) {
          if (e / stride % extent != 0) continue;  // e starts a row along the axis
          double top = -std::numeric_limits<double>::infinity(), sum = 0.0;
          for (int64_t a = 0; a < extent; ++a) top = std::max(top, y[e + a * stride]);
          for (int64_t a = 0; a < extent; ++a) sum += std::exp(y[e + a * stride] - top);
          for (int64_t a = 0; a < extent; ++a) {
            y[e + a * stride] = std::exp(y[e + a * stride] - top) / sum;
          }
        }
        break;
      }
    }
    values[op.output] = std::move(y);
  }
  std::vector<std::vector<float>> outputs;
  for (int output : graph.outputs) {
    outputs.emplace_back(values[output].begin(), values[output].end());
  }
  return outputs;
}

}  // namespace glimpse
