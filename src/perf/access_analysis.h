// How an access moves through its tensor as the loops around it run: strides and footprints, the
// locality the program graph's access features describe (glimpse/program_graph.h). Private to
// src/perf.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "glimpse/loop_nest.h"

namespace glimpse::perf {

// An access and the loops around it (outermost first), with the coefficient of each loop in each
// dimension of its index looked up once: the loop names are compared here and nowhere else, so
// that the strides and footprints of every suffix of the loops (a program graph asks for the
// innermost 1, 2, 3, 4 and all of them) are arithmetic.
class AccessInLoops {
 public:
  // `tensor` is the one `access` names; it and the loops must outlive this.
  AccessInLoops(const Access& access, const TensorDecl& tensor, std::span<const Loop* const> loops);

  size_t NumLoops() const { return loops_.size(); }
  // Elements of the row-major tensor that the access moves by when loop `loop` (an index into
  // the loops) steps by one (0: the access does not depend on the loop, so the loop reuses the
  // element).
  int64_t FlatStride(size_t loop) const;
  // For each dimension of the tensor, how many distinct indices the access takes while loops
  // [first, NumLoops()) run through their ranges (the other loop variables fixed): the smallest
  // of the index's range (1 + Σ |coefficient| · (extent − 1)), the iterations that produce it
  // (Π extents of the loops it uses) and the dimension's size. Exact for one loop per dimension
  // and for a split's mixed radix.
  std::vector<double> FootprintPerDimension(size_t first) const;
  // Distinct elements touched while loops [first, NumLoops()) run: the product of
  // FootprintPerDimension, bounded by the iterations of the loops the access uses (a loop in two
  // dimensions cannot touch more elements than it runs).
  double Footprint(size_t first) const;

 private:
  int64_t Coefficient(size_t dim, size_t loop) const {
    return coefficients_[dim * NumLoops() + loop];
  }
  double DimensionFootprint(size_t dim, size_t first) const;

  const std::vector<int64_t>& shape_;  // the tensor's
  std::span<const Loop* const> loops_;
  size_t index_dims_ = 0;              // the index's
  size_t indexed_dims_ = 0;            // dimensions both the tensor and the index have
  std::vector<int64_t> coefficients_;  // [dimension of the index][loop], row-major
};

// One-off forms of the above, for an access and the loops `loops` (all of them).
std::vector<double> FootprintPerDimension(const Access& access, const TensorDecl& tensor,
                                          const std::vector<const Loop*>& loops);
double Footprint(const Access& access, const TensorDecl& tensor,
                 const std::vector<const Loop*>& loops);

// A statement of a nest's body with the loops around it, outermost first.
struct PlacedStmt {
  const Stmt* stmt = nullptr;
  std::vector<const Loop*> loops;
  // How many times it runs: the product of the loops' extents (useful ranges and peeled edges
  // not counted).
  double Iterations() const;
};
// Every statement of `body`, in program order.
std::vector<PlacedStmt> PlacedStatements(const std::vector<Node>& body);

}  // namespace glimpse::perf
