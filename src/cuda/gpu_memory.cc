// What measuring an operator on a GPU holds in memory (glimpse/cuda.h): the device's share and the
// worker's host share, so that a task is refused before anything is built when either does not
// fit.
#include <algorithm>

#include "glimpse/cuda.h"

namespace glimpse {

MeasurementBytes GpuMeasurementDeviceBytes(const Operator& op, int64_t l2_bytes,
                                           int64_t flush_bytes) {
  MeasurementBytes bytes;
  bytes.tensors = OperatorTensorBytes(op);
  // The GPU worker's rule (gpu_worker.cc): the request's flush, else twice the L2.
  bytes.flush = flush_bytes > 0   ? static_cast<double>(flush_bytes)
                : flush_bytes < 0 ? 0.0
                                  : 2.0 * static_cast<double>(std::max<int64_t>(l2_bytes, 0));
  return bytes;  // no reference: the worker checks the output on the host
}

MeasurementBytes GpuMeasurementHostBytes(const Operator& op) {
  // The host copies of the inputs and the output, and the double-precision reference.
  return OperatorMeasurementBytes(op, /*flush_bytes=*/0.0);
}

}  // namespace glimpse
