// The batch_matmul template: C[b,m,n] = A[b,m,k] · B[b,n,k]ᵀ (+ bias[n]) (then ReLU).
//
// The dense schedule (template_dense.cc) inside a batch loop b, as AutoTVM's x86 batch_matmul
// tiles y / x / k per batch and parallelises the fused outer loops: the same tiling, order,
// vectorisation, unrolling and packing knobs, and a `parallel` knob whose choices include the
// batch: b, m, n, bm (b and m0 collapsed), mn (m0 and n0 collapsed), none. B is an activation here,
// so pack_b packs it inside the kernel (timed), one batch at a time in parallel.
#include "cpu/template_util.h"

namespace glimpse::cpu {

ConfigSpace MakeBatchMatmulSpace(const BatchMatmulShape& shape) {
  return MakeMatmulSpace(MatmulDimsOf(shape), {"b", "m", "n", "bm", "mn", "none"});
}

LoopNest MakeBatchMatmulNest(const BatchMatmulShape& shape, const ConfigView& config) {
  return MakeMatmulNest(MatmulDimsOf(shape), config);
}

}  // namespace glimpse::cpu
