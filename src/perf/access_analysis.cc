// Strides and footprints of affine accesses (perf/access_analysis.h).
#include "perf/access_analysis.h"

#include <algorithm>
#include <cstdlib>

namespace glimpse::perf {

AccessInLoops::AccessInLoops(const Access& access, const TensorDecl& tensor,
                             std::span<const Loop* const> loops)
    : shape_(tensor.shape),
      loops_(loops),
      index_dims_(access.index.size()),
      indexed_dims_(std::min(tensor.shape.size(), access.index.size())),
      coefficients_(access.index.size() * loops.size(), 0) {
  for (size_t d = 0; d < access.index.size(); ++d) {
    for (const auto& [name, coefficient] : access.index[d].terms) {
      for (size_t l = 0; l < loops.size(); ++l) {
        if (loops[l]->name != name) continue;
        // The first term of a loop counts, as in AffineExpr::CoefficientOf.
        int64_t& slot = coefficients_[d * loops.size() + l];
        if (slot == 0) slot = coefficient;
        break;  // loop names are unique in a nest
      }
    }
  }
}

int64_t AccessInLoops::FlatStride(size_t loop) const {
  int64_t stride = 0, row = 1;
  for (size_t d = shape_.size(); d-- > 0;) {
    if (d < indexed_dims_) stride += Coefficient(d, loop) * row;
    row *= shape_[d];
  }
  return stride;
}

double AccessInLoops::DimensionFootprint(size_t dim, size_t first) const {
  if (dim >= indexed_dims_) return 1.0;
  double range = 1.0, iterations = 1.0;
  for (size_t l = first; l < NumLoops(); ++l) {
    const int64_t coefficient = Coefficient(dim, l);
    if (coefficient == 0) continue;
    const auto extent = static_cast<double>(loops_[l]->extent);
    range += static_cast<double>(std::llabs(coefficient)) * (extent - 1.0);
    iterations *= extent;
  }
  return std::min({range, iterations, static_cast<double>(shape_[dim])});
}

std::vector<double> AccessInLoops::FootprintPerDimension(size_t first) const {
  std::vector<double> distinct(shape_.size());
  for (size_t d = 0; d < shape_.size(); ++d) distinct[d] = DimensionFootprint(d, first);
  return distinct;
}

double AccessInLoops::Footprint(size_t first) const {
  double elements = 1.0;
  for (size_t d = 0; d < shape_.size(); ++d) elements *= DimensionFootprint(d, first);
  double iterations = 1.0;
  for (size_t l = first; l < NumLoops(); ++l) {
    for (size_t d = 0; d < index_dims_; ++d) {
      if (Coefficient(d, l) != 0) {
        iterations *= static_cast<double>(loops_[l]->extent);
        break;
      }
    }
  }
  return std::min(elements, iterations);
}

std::vector<double> FootprintPerDimension(const Access& access, const TensorDecl& tensor,
                                          const std::vector<const Loop*>& loops) {
  return AccessInLoops(access, tensor, loops).FootprintPerDimension(0);
}

double Footprint(const Access& access, const TensorDecl& tensor,
                 const std::vector<const Loop*>& loops) {
  return AccessInLoops(access, tensor, loops).Footprint(0);
}

double PlacedStmt::Iterations() const {
  double iterations = 1.0;
  for (const Loop* loop : loops) iterations *= static_cast<double>(loop->extent);
  return iterations;
}

namespace {

void PlaceStatements(const std::vector<Node>& body, std::vector<const Loop*>& around,
                     std::vector<PlacedStmt>& out) {
  for (const Node& node : body) {
    if (node.is_loop) {
      around.push_back(&node.loop);
      PlaceStatements(node.body, around, out);
      around.pop_back();
    } else if (node.stmt.kind != StmtKind::kPrefetch) {  // a hint: no work, no traffic of its own
      out.push_back({&node.stmt, around});
    }
  }
}

}  // namespace

std::vector<PlacedStmt> PlacedStatements(const std::vector<Node>& body) {
  std::vector<PlacedStmt> out;
  std::vector<const Loop*> around;
  PlaceStatements(body, around, out);
  return out;
}

}  // namespace glimpse::perf
