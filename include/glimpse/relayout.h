// glimpse/relayout.h — how a copy of a tensor lays out the source's elements.
//
// Schedules read operands from copies: a zero-padded input, a weight packed into channel blocks,
// a block's tile of the input staged in shared memory. A Relayout says, step by step, how the
// copy's elements relate to the source's — a window (a padded copy, or a tile whose origin moves
// with the loops), a dimension split into blocks, a dimension fixed to one index, a permutation —
// and translates an index both ways:
//   SourceIndex: the copy's element → the source's (the statement that fills the copy);
//   CopyIndex:   the source's element → the copy's (a statement of the operator's computation
//                 that reads the copy instead of the source).
// So a template writes the computation once, against the operator's own tensors, and only says
// where each operand is read from (glimpse/op_compute.h).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "glimpse/loop_nest.h"

namespace glimpse {

class Relayout {
 public:
  // The identity layout of a tensor of `source_shape`.
  explicit Relayout(std::vector<int64_t> source_shape);

  // Dimension `dim` keeps `extent` elements from source position `origin` on (copy index i holds
  // source index origin + i); `origin` may depend on loops (a tile that moves with the block).
  // Positions outside the source read as zero when the copy is filled from a padded operand.
  Relayout& Window(int dim, AffineExpr origin, int64_t extent);
  // Window(dim, −pad, size + 2·pad): `pad` zeros on both sides.
  Relayout& Pad(int dim, int64_t pad);
  // Dimension `dim` becomes (index / factor, index % factor): the quotient takes its place and the
  // remainder is inserted as dimension `remainder_position` of the result. Error when `factor`
  // does not divide the dimension.
  Relayout& Split(int dim, int64_t factor, int remainder_position);
  // Dimension `dim` is dropped: the copy holds the source elements whose index there is `at`.
  Relayout& Fix(int dim, AffineExpr at);
  // Dimension i of the result is dimension order[i] of the layout so far.
  Relayout& Permute(std::vector<int> order);

  const std::vector<int64_t>& source_shape() const { return source_shape_; }
  const std::vector<int64_t>& shape() const { return shape_; }  // the copy's
  bool HasWindow() const;  // Window or Pad: the copy may hold positions outside the source

  // The source element held at `copy_index` (one expression per copy dimension).
  std::vector<AffineExpr> SourceIndex(std::vector<AffineExpr> copy_index) const;
  // Where the copy holds the source element `source_index`. A split dimension's index must be
  // quotient · factor + remainder with the remainder's terms' coefficients below the factor (a
  // split layout follows a split loop); a fixed dimension's index must be the fixed one. Throws
  // Error otherwise. That a remainder stays below the factor is the caller's binding's to keep
  // (LoopNest::Validate checks unguarded reads).
  std::vector<AffineExpr> CopyIndex(std::vector<AffineExpr> source_index) const;

 private:
  enum class StepKind { kWindow, kSplit, kFix, kPermute };
  struct Step {
    explicit Step(StepKind kind, int dim = 0, AffineExpr expr = {})
        : kind(kind), dim(dim), expr(std::move(expr)) {}
    StepKind kind;
    int dim;
    AffineExpr expr;             // kWindow: origin; kFix: the index
    int64_t factor = 1;          // kSplit
    int remainder_position = 0;  // kSplit
    std::vector<int> order;      // kPermute
  };
  int CheckedDim(int dim, const char* step) const;

  std::vector<int64_t> source_shape_, shape_;
  std::vector<Step> steps_;
};

}  // namespace glimpse
