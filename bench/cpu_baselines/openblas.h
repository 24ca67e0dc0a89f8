// bench/cpu_baselines/openblas.h — dense and batch_matmul through OpenBLAS (cblas, row-major):
// C = A · Bᵀ as cblas_sgemm with B transposed (one call per batch for batch_matmul), and for M = 1
// as cblas_sgemv; bias (and ReLU) are added by a separate loop after the BLAS call, inside the
// timed call, since BLAS has no bias epilogue.
#pragma once

#include <string>
#include <vector>

#include "glimpse/ops.h"
#include "protocol.h"
#include "reference.h"

namespace glimpse::baselines {

// Sets OpenBLAS's thread count to cpus.size() and pins its threads one per CPU: the calling
// thread (OpenBLAS's last thread index) to cpus[0], where OpenMP binds its initial thread, and
// OpenBLAS's worker i to cpus[i + 1] — in the pthread build; the OpenMP build uses OpenMP's
// threads, already pinned. Returns what was done, for the record.
std::string ConfigureOpenBlas(const std::vector<int>& cpus);

// "OpenBLAS 0.3.21 NO_AFFINITY Zen MAX_THREADS=64, core Zen, pthreads" — openblas_get_config().
std::string OpenBlasDescription();

// Whether the variant applies: sgemm to dense and batch_matmul, sgemv to dense with M = 1.
bool OpenBlasSgemmApplies(const Operator& op);
bool OpenBlasSgemvApplies(const Operator& op);

// Runs the variant once (output filled with NaN first), checks it against `reference` when given,
// then times it under `protocol`. The operator must be one the variant applies to.
Measurement MeasureOpenBlasSgemm(const Operator& op, const std::vector<std::vector<float>>& inputs,
                                 const Reference* reference, const Protocol& protocol,
                                 CacheFlusher& flusher);
Measurement MeasureOpenBlasSgemv(const Operator& op, const std::vector<std::vector<float>>& inputs,
                                 const Reference* reference, const Protocol& protocol,
                                 CacheFlusher& flusher);

}  // namespace glimpse::baselines
