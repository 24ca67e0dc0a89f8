// How an access moves through its tensor as the loops around it run: strides and footprints, the
// locality the program graph's access features describe (glimpse/program_graph.h). Private to
// src/perf.
#pragma once

#include <cstdint>
#include <vector>

#include "glimpse/loop_nest.h"

namespace glimpse::perf {

// Elements of the row-major tensor that `access` moves by when loop `loop` steps by one (0: the
// access does not depend on the loop, so the loop reuses the element).
int64_t FlatStride(const Access& access, const TensorDecl& tensor, const std::string& loop);

// For each dimension of the tensor, how many distinct indices `access` takes while `loops` run
// through their ranges (the other loop variables fixed): the smallest of the index's range
// (1 + Σ |coefficient| · (extent − 1)), the iterations that produce it (Π extents of the loops it
// uses) and the dimension's size. Exact for one loop per dimension and for a split's mixed radix.
std::vector<double> FootprintPerDimension(const Access& access, const TensorDecl& tensor,
                                          const std::vector<const Loop*>& loops);

// Distinct elements touched: the product of FootprintPerDimension, bounded by the iterations of
// the loops the access uses (a loop in two dimensions cannot touch more elements than it runs).
double Footprint(const Access& access, const TensorDecl& tensor,
                 const std::vector<const Loop*>& loops);

}  // namespace glimpse::perf
