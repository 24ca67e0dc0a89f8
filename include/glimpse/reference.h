// Reference implementations of the CPU operators: plain loops in double precision, obviously
// correct, used by the runner's worker to check every candidate's output.
#pragma once

#include <vector>

#include "glimpse/ops.h"

namespace glimpse {

struct ReferenceResult {
  std::vector<double> output;     // the exact-as-possible result, OperatorOutputShape(op) row-major
  std::vector<double> magnitude;  // per element Σ|a·b| over the reduction (+ |bias| + |residual|)
};

// `inputs` in the operator's input order (glimpse/ops.h).
ReferenceResult ComputeReference(const Operator& op, const std::vector<std::vector<float>>& inputs);

// The tolerance rule of docs/cpu-tuning.md: |out − ref| ≤ rtol · (|ref| + magnitude / √L), with L
// the reduction length; NaN or ±inf never pass. Returns the index of the first element that
// fails, or -1.
int64_t FirstMismatch(const ReferenceResult& reference, const float* output, int64_t count,
                      int64_t reduction_length, double rtol);

}  // namespace glimpse
