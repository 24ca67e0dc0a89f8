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

// A (batched) matrix product C[(b),m,n] = A[(b),m,k] · B[(b),n,k]ᵀ, then the epilogue
// (glimpse/ops.h): dense (batch 0, no batch dimension) and batch_matmul, which share their
// templates.
struct MatmulDims {
  std::string name;                        // "dense", "batch_matmul": the nests' names
  int64_t batch = 0, m = 1, n = 1, k = 1;  // batch 0: no batch dimension (dense)
  bool bias = false, relu = false;
  bool residual = false, relu6 = false;
};
MatmulDims MatmulDimsOf(const DenseShape& shape);
MatmulDims MatmulDimsOf(const BatchMatmulShape& shape);

// An operator's tensors in a nest (indices into LoopNest::tensors) and the end of its computation.
struct OperatorTensors {
  int input = -1;       // conv2d, depthwise_conv2d: I; dense, batch_matmul: A
  int weight = -1;      // Wt; B
  int bias = -1;        // -1 without bias
  int residual = -1;    // Res, the output's shape and layout; -1 without a residual
  int output = -1;      // O; C
  int channel_dim = 1;  // the output dimension the bias follows (NCHW: 1; [B,]M,N: the last)
  // A blocked output (NCHW[b]c): its channel is index[channel_dim]·b + the last index; 0: plain.
  int64_t channel_block = 0;
  bool relu = false, relu6 = false;

  // The operator's output statement: dst = value (+ bias[dst's channel index]) (+ Res[dst's
  // index]) (then ReLU or ReLU6). A template chooses where (`dst`, an element of the output,
  // possibly guarded) and what it has accumulated (`value`); the epilogue is the operator's.
  // Error when `dst` is not the output.
  Stmt Store(Access dst, Access value) const;
};

// Declares in `nest`, in this order:
//   conv2d            I[N,C,H,W], Wt[K,C,R,S], bias[K], Res[N,K,OH,OW], O[N,K,OH,OW]
//   depthwise_conv2d  I[N,C,H,W], Wt[C,R,S],   bias[C], Res[N,C,OH,OW], O[N,C,OH,OW]
//                     (I, Res and O as [N][C/b][H][W][b] under in_block / out_block = b)
//   dense             A[M,K],     B[N,K],      bias[N], Res[M,N],       C[M,N]
//   batch_matmul      A[B,M,K],   B[B,N,K],    bias[N], Res[B,M,N],     C[B,M,N]
// as the inputs (in the kernel ABI's order: bias and Res only when the operator has them) and the
// output. Weights and biases are constants (OperatorInputIsConstant); batch_matmul's B and every
// Res are activations.
OperatorTensors DeclareOperatorTensors(LoopNest& nest, const Operator& op);
OperatorTensors DeclareMatmulTensors(LoopNest& nest, const MatmulDims& dims);

}  // namespace glimpse
