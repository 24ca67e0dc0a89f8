// glimpse/op_tensors.h — what an operator's computation reads and writes, declared in a loop nest.
//
// DeclareOperatorCompute (glimpse/op_compute.h), which every template starts from, declares them,
// so that the inputs (in the kernel ABI's order, constants marked), the output and their names,
// shapes and layouts follow from the operator alone. The operators' formulas are those of
// glimpse/ops.h.
#pragma once

#include <cstdint>
#include <string>

#include "glimpse/loop_nest.h"
#include "glimpse/ops.h"

namespace glimpse {

// A (batched) matrix product C[(b),m,n] = A[(b),m,k] · B[(b),n,k]ᵀ (+ bias[n]) (then ReLU): dense
// (batch 0, no batch dimension) and batch_matmul, which share their templates.
struct MatmulDims {
  std::string name;                        // "dense", "batch_matmul": the nests' names
  int64_t batch = 0, m = 1, n = 1, k = 1;  // batch 0: no batch dimension (dense)
  bool bias = false, relu = false;
};
MatmulDims MatmulDimsOf(const DenseShape& shape);
MatmulDims MatmulDimsOf(const BatchMatmulShape& shape);

// An operator's tensors in a nest (indices into LoopNest::tensors) and the end of its computation.
struct OperatorTensors {
  int input = -1;       // conv2d, depthwise_conv2d: I; dense, batch_matmul: A
  int weight = -1;      // Wt; B
  int bias = -1;        // -1 without bias
  int output = -1;      // O; C
  int channel_dim = 1;  // the output dimension the bias follows (NCHW: 1; [B,]M,N: the last)
  bool relu = false;

  // The operator's output statement: dst = value (+ bias[dst's channel index]) (then ReLU). A
  // template chooses where (`dst`, an element of the output, possibly guarded) and what it has
  // accumulated (`value`); the bias and the ReLU are the operator's. Error when `dst` is not the
  // output.
  Stmt Store(Access dst, Access value) const;
};

// Declares in `nest`, in this order:
//   conv2d            I[N,C,H,W], Wt[K,C,R,S], bias[K], O[N,K,OH,OW]
//   depthwise_conv2d  I[N,C,H,W], Wt[C,R,S],   bias[C], O[N,C,OH,OW]
//   dense             A[M,K],     B[N,K],      bias[N], C[M,N]
//   batch_matmul      A[B,M,K],   B[B,N,K],    bias[N], C[B,M,N]
// as inputs 0, 1, 2 and the output; bias only when the operator has one. Weights and biases are
// constants (OperatorInputIsConstant); batch_matmul's B is an activation.
OperatorTensors DeclareOperatorTensors(LoopNest& nest, const Operator& op);
OperatorTensors DeclareMatmulTensors(LoopNest& nest, const MatmulDims& dims);

}  // namespace glimpse
