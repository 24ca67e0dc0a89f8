// bench/cpu_baselines/onednn.h — glimpse's operators run by oneDNN (CPU engine, f32, forward
// inference): conv2d as a direct convolution, depthwise_conv2d as a grouped one (groups = C),
// dense as an inner product, batch_matmul as a matmul; bias is the primitive's bias, ReLU an
// eltwise post-op.
#pragma once

#include <string>
#include <vector>

#include "glimpse/ops.h"
#include "protocol.h"
#include "reference.h"

namespace glimpse::baselines {

enum class OneDnnLayout {
  // src, weights and dst descriptors with format_tag::any: oneDNN picks its preferred (blocked)
  // layouts. The input and the weights are reordered into them once, before and outside the timed
  // calls; the timed call writes dst in oneDNN's layout (reordered back only for the check).
  kBlocked,
  // The operator's own layouts (NCHW / KCRS / NCHW, A[M,K] / B[N,K] / C[M,N]); no reorders.
  kPlain,
};

// Variant key of a layout: "onednn_blocked" or "onednn_plain".
std::string OneDnnVariant(OneDnnLayout layout);

// Builds the primitive for `op` in `layout`, runs it once on `inputs` (the output filled with NaN
// first) and checks that output against `reference` when it is given, then times it under
// `protocol`. Measurement::implementation is impl_info_str() followed by the layouts used;
// Measurement::error is set when oneDNN has no implementation for the operator.
Measurement MeasureOneDnn(const Operator& op, OneDnnLayout layout,
                          const std::vector<std::vector<float>>& inputs, const Reference* reference,
                          const Protocol& protocol, CacheFlusher& flusher);

// "oneDNN 2.6.3 (OpenMP runtime), ISA avx512_core_bf16" — the library and the ISA it dispatches.
std::string OneDnnDescription();

}  // namespace glimpse::baselines
