// glimpse/op_compute.h — each operator's computation, declared once over named axes.
//
//   conv2d            O[n,k,oh,ow] = Σ_{c,r,s} I[n, c, oh·stride + r·dilation − pad,
//                                                   ow·stride + s·dilation − pad] · Wt[k,c,r,s]
//   depthwise_conv2d  O[n,c,oh,ow] = Σ_{r,s}   I[n, c, oh·stride + r·dilation − pad,
//                                                   ow·stride + s·dilation − pad] · Wt[c,r,s]
//   dense             C[m,n]       = Σ_k       A[m,k] · B[n,k]
//   batch_matmul      C[b,m,n]     = Σ_k       A[b,m,k] · B[b,n,k]
// then the output statement's bias and ReLU (OperatorTensors::Store). Input positions outside I
// read as zero (the padding).
//
// A template schedules this computation and does not restate it: it binds every axis to an
// expression of its own loops (an axis tiled into block, thread and inner loops is their
// mixed-radix position), says which operand it reads from a copy in another layout (a padded or
// packed copy, a shared-memory tile: Relayout), and asks for the statements — the multiply-add,
// the copy's fill, the output statement. What it still writes itself is the schedule: the loops,
// their order and kinds, the temporaries, and where each statement goes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "glimpse/loop_nest.h"
#include "glimpse/op_tensors.h"
#include "glimpse/ops.h"
#include "glimpse/relayout.h"

namespace glimpse {

enum class Operand : uint8_t { kInput, kWeight };  // I / A, Wt / B

struct ComputeAxis {
  std::string name;  // conv2d: n k oh ow | c r s; depthwise: n c oh ow | r s; (b) m n | k
  int64_t extent = 1;
  bool reduction = false;

  ComputeAxis(std::string name, int64_t extent, bool reduction = false)
      : name(std::move(name)), extent(extent), reduction(reduction) {}
};

// Each axis's value as an expression of a template's loop variables.
using AxisBinding = std::map<std::string, AffineExpr>;

// An operand read from a copy: the copy's tensor in the nest and how it lays out the operand.
struct OperandCopy {
  int tensor = -1;
  Relayout layout;
};

class OperatorCompute {
 public:
  OperatorTensors tensors;
  std::vector<ComputeAxis> axes;  // the output's dimensions in order, then the reduction axes

  int64_t Extent(const std::string& axis) const;  // Error for an unknown axis
  // The identity layout of an operand as the computation indexes it (a blocked activation too:
  // NCHW): where a copy's Relayout starts.
  Relayout LayoutOf(Operand operand) const;

  // A block of the operand: `extents[d]` elements along each dimension d from the element read
  // where the axes are `origin` on (a tile that moves with the loops `origin` depends on); a
  // dimension of extent 0 is dropped (the block holds the origin's index there only).
  Relayout Tile(Operand operand, const AxisBinding& origin,
                const std::vector<int64_t>& extents) const;

  // The operand's element read where the axes are `at` (every axis the operand uses bound),
  // guarded where it may fall in the padding.
  Access Read(Operand operand, const AxisBinding& at) const;
  // The same element in `copy`. A copy with a window holds the padding's zeros itself (its fill
  // reads guarded), so reading it is unguarded; LoopNest::Validate checks that it stays inside.
  Access Read(Operand operand, const AxisBinding& at, const OperandCopy& copy) const;
  // copy[copy_index] = the operand's element it holds: the statement that fills a copy.
  Stmt Fill(Operand operand, const OperandCopy& copy, std::vector<AffineExpr> copy_index) const;

  // dst += input · weight where the axes are `at`, each operand read from its copy when given.
  Stmt MultiplyAdd(Access dst, const AxisBinding& at, const OperandCopy* input_copy = nullptr,
                   const OperandCopy* weight_copy = nullptr) const;
  // The output statement (OperatorTensors::Store) for the output element where the spatial axes
  // are `at`, from `value`; `guarded`: skipped for elements outside the output.
  Stmt Store(const AxisBinding& at, Access value, bool guarded = false) const;

 private:
  friend OperatorCompute DeclareOperatorCompute(LoopNest& nest, const Operator& op);
  friend OperatorCompute DeclareMatmulCompute(LoopNest& nest, const MatmulDims& dims);
  const Access& Declared(Operand operand) const;
  // An operand's element indexed as the computation declares it (NCHW) → as it is stored.
  Access Stored(Operand operand, Access logical) const;

  // The operands and the output indexed by axis variables (named as the axes).
  Access input_, weight_, output_;
  std::vector<int64_t> input_shape_, weight_shape_;  // as the computation indexes them
  // From that index to the stored one, for an activation stored blocked (in_block, out_block).
  std::optional<Relayout> input_blocks_, output_blocks_;
};

// Declares the operator's tensors in `nest` (DeclareOperatorTensors) and its computation.
OperatorCompute DeclareOperatorCompute(LoopNest& nest, const Operator& op);
OperatorCompute DeclareMatmulCompute(LoopNest& nest, const MatmulDims& dims);

}  // namespace glimpse
