// glimpse/ops.h — the operators glimpse tunes, described independently of any device: their
// shapes, the "op:field=value,…" syntax and JSON, sizes and FLOPs, and the order of their inputs
// (the kernel ABI every backend's generated kernels follow). Their plain reference implementations
// are in glimpse/reference.h; their schedules are the backends' templates (glimpse/cpu.h,
// glimpse/gpu.h).
//
// Units: sizes in elements unless a name says otherwise.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "glimpse/json.h"

namespace glimpse {

// ---- Shapes
//
// Each operator's inputs, in the order every backend's kernels take them, are listed in its
// shape's comment: A, B, bias, residual (dense, batch_matmul); input, weight, bias, residual
// (conv2d, depthwise_conv2d); bias only when bias=1, residual only when residual=1.
//
// The epilogue, applied to each accumulated output element in this order:
//   bias=1      + bias[the element's channel: K, C or N]
//   residual=1  + residual[the element's own index] (an activation of the output's shape: the
//               shortcut of a residual block, fused as ONNX Runtime and TVM fuse conv + Add)
//   relu=1      then max(·, 0)
//   relu6=1     then min(max(·, 0), 6) (ONNX's Clip(0, 6), MobileNet's ReLU6); not with relu=1
//
// Activation layouts (conv2d, depthwise_conv2d; CPU templates only). By default the input, the
// residual and the output are NCHW. in_block=b stores the input as NCHW[b]c — [N][C/b][H][W][b],
// channel c at (c / b, c % b) — and out_block=b stores the residual and the output so, as
// oneDNN's nChw16c/nChw8c: a network that keeps its activations blocked between layers pays no
// packing or unpacking inside the kernels. b must divide the channels it blocks; depthwise takes
// one block for both. The weights and the bias keep their layouts.

// C[M,N] = A[M,K] · B[N,K]ᵀ, then the epilogue.
struct DenseShape {
  int64_t m = 1, n = 1, k = 1;
  bool bias = false, relu = false;
  bool residual = false, relu6 = false;
};

// out[N,K,OH,OW] = Σ_{c,r,s} in[N,C,oh·stride + r·dilation − pad, ow·stride + s·dilation − pad]
//                  · weight[K,C,R,S], then the epilogue; the input is zero outside its bounds.
struct Conv2dShape {
  int64_t n = 1, c = 1, h = 1, w = 1, k = 1, r = 1, s = 1;
  int64_t stride = 1, pad = 0, dilation = 1;
  bool bias = false, relu = false;
  bool residual = false, relu6 = false;
  int64_t in_block = 0, out_block = 0;  // 0: NCHW (see "Activation layouts" above)
  int64_t OutH() const { return (h + 2 * pad - dilation * (r - 1) - 1) / stride + 1; }
  int64_t OutW() const { return (w + 2 * pad - dilation * (s - 1) - 1) / stride + 1; }
};

// Depthwise conv2d (channel multiplier 1): out[N,C,OH,OW] = Σ_{r,s} in[N,C,ih,iw] · weight[C,R,S]
// then the epilogue, ih/iw as for Conv2dShape.
struct DepthwiseConv2dShape {
  int64_t n = 1, c = 1, h = 1, w = 1, r = 1, s = 1;
  int64_t stride = 1, pad = 0, dilation = 1;
  bool bias = false, relu = false;
  bool residual = false, relu6 = false;
  int64_t in_block = 0, out_block = 0;  // equal: one layout for input and output
  int64_t OutH() const { return (h + 2 * pad - dilation * (r - 1) - 1) / stride + 1; }
  int64_t OutW() const { return (w + 2 * pad - dilation * (s - 1) - 1) / stride + 1; }
};

// C[B,M,N] = A[B,M,K] · B[B,N,K]ᵀ per batch b, then the epilogue — dense, batched.
struct BatchMatmulShape {
  int64_t b = 1, m = 1, n = 1, k = 1;
  bool bias = false, relu = false;
  bool residual = false, relu6 = false;
};

using Operator = std::variant<DenseShape, Conv2dShape, DepthwiseConv2dShape, BatchMatmulShape>;

// "dense:M=1,N=1000,K=512,bias=1,relu=0",
// "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1[,dilation=1,bias=0,relu=0]",
// "depthwise_conv2d:N=1,C=32,H=112,W=112,R=3,S=3,stride=1,pad=1[,dilation=1,bias=0,relu=0]" or
// "batch_matmul:B=12,M=128,N=128,K=64[,bias=0,relu=0]"; each also takes [,residual=1,relu6=1],
// the convolutions [,in_block=16,out_block=16], which the canonical form writes only when set (so
// that the workloads without them keep the names they always had). Field names are case-sensitive
// as shown; omitted optional fields take the defaults above, the shape fields (M/N/K,
// N/C/H/W/K/R/S, N/C/H/W/R/S, B/M/N/K) are required. Throws Error naming the bad field and the
// accepted ones, or the unknown operator and the known ones.
Operator ParseOperator(const std::string& text);
std::string OperatorToString(const Operator& op);  // the canonical form ParseOperator reads
// The operator with its epilogue (bias, ReLU, ReLU6, residual add) removed: the loops that set its
// speed. Two operators equal here are epilogue siblings, whose schedules transfer one to one.
Operator OperatorWithoutEpilogue(Operator op);
std::string OperatorName(
    const Operator& op);                  // "dense", "conv2d", "depthwise_conv2d", "batch_matmul"
Json OperatorToJson(const Operator& op);  // {"op": "dense", "M": 1, …}
Operator OperatorFromJson(const Json& json);  // throws Error like ParseOperator
double OperatorFlops(const Operator& op);     // 2 · multiply-adds (epilogue not counted)
// Bytes of the operator's tensors in float32, its inputs (weights, bias, residual included) and
// its output: what a runner must hold to measure it.
struct OperatorBytes {
  double inputs = 0;
  double output = 0;
  double Total() const { return inputs + output; }
};
OperatorBytes OperatorTensorBytes(const Operator& op);
// Throws Error when the operator's tensors (`Total()`) exceed `available` bytes of `where`'s
// memory: "conv2d:…: its tensors take 4.4 TB (inputs 2.2 TB, output 2.2 TB), more than the
// 23.4 GiB of <where>; it cannot be measured there".
void CheckOperatorFitsMemory(const Operator& op, double available, const std::string& where);
// What a runner holds in memory to measure the operator, besides the kernel's own workspace: its
// tensors, the exact reference result the output is checked against (a double value and a double
// magnitude per output element, glimpse/reference.h) and the buffer written between timed runs
// to flush the caches.
struct MeasurementBytes {
  OperatorBytes tensors;
  double reference = 0;
  double flush = 0;
  double Total() const { return tensors.Total() + reference + flush; }
};
MeasurementBytes OperatorMeasurementBytes(const Operator& op, double flush_bytes);
// CheckOperatorFitsMemory, then the whole measurement: "dense:…: measuring it takes 30.1 GiB (its
// tensors 10.0 GiB, the reference its output is checked against 20.0 GiB, the cache flush
// 128.0 MiB), more than the 23.4 GiB of <where>; it cannot be measured there".
void CheckMeasurementFitsMemory(const Operator& op, const MeasurementBytes& bytes, double available,
                                const std::string& where);
// Throws Error when a configuration's workspace — `prepared_bytes` of weights packed before the
// timed runs and `scratch_bytes` the kernel allocates per call — does not fit in `available`
// bytes beside the measurement's own (≤ 0: unknown, nothing checked): "the configuration's
// workspace takes 6.0 GiB (packed weights …, scratch …); with the 20.1 GiB the measurement holds,
// more than the 23.4 GiB of <where>".
void CheckWorkspaceFitsMemory(const MeasurementBytes& measurement, double prepared_bytes,
                              double scratch_bytes, double available, const std::string& where);
// A human size: "812 B", "3.2 KiB", "23.4 GiB", "4.4 TiB".
std::string FormatBytes(double bytes);
// 2 · the multiply-adds whose input tap lies inside the image: what a convolution that skips the
// zero padding computes (oneDNN's direct kernels do). Equals OperatorFlops without padding; a rate
// counted with OperatorFlops can exceed the machine's peak by the ratio of the two.
double OperatorFlopsInsideImage(const Operator& op);
// The tensors' shapes as stored: a blocked activation (in_block, out_block) is
// [N][C/b][H][W][b]; the element counts are those of the plain layout.
std::vector<std::vector<int64_t>> OperatorInputShapes(const Operator& op);
std::vector<int64_t> OperatorOutputShape(const Operator& op);
// Whether the operator stores an activation blocked (in_block or out_block set).
bool OperatorHasBlockedLayout(const Operator& op);
// The same computation on NCHW activations (in_block and out_block cleared).
Operator OperatorInPlainLayout(Operator op);
// A tensor of plain shape [N][C][H][W] reordered to NCHW[block]c, and back (defined for float and
// double). Block 0 returns the tensor unchanged; Error when block does not divide C or the
// tensor's size is not the shape's.
template <typename T>
std::vector<T> BlockChannels(const std::vector<T>& plain, const std::vector<int64_t>& plain_shape,
                             int64_t block);
template <typename T>
std::vector<T> UnblockChannels(const std::vector<T>& blocked,
                               const std::vector<int64_t>& plain_shape, int64_t block);
int64_t OperatorReductionLength(
    const Operator& op);  // K (dense, batch_matmul), C·R·S (conv2d), R·S

// ---- Inputs

// The position of the bias and of the residual among the operator's inputs; -1 without one.
int OperatorBiasInput(const Operator& op);
int OperatorResidualInput(const Operator& op);

// Whether input `index` (in the order of the shapes' comments above) is a constant of a model —
// dense's B and bias, conv2d's and depthwise_conv2d's weight and bias, batch_matmul's bias — which
// a prepare step may read. batch_matmul's A and B and every residual are activations.
bool OperatorInputIsConstant(const Operator& op, int index);

}  // namespace glimpse
