// Strides and footprints of affine accesses (perf/access_analysis.h).
#include "perf/access_analysis.h"

#include <algorithm>
#include <cstdlib>

namespace glimpse::perf {

int64_t FlatStride(const Access& access, const TensorDecl& tensor, const std::string& loop) {
  int64_t stride = 0, row = 1;
  for (size_t d = tensor.shape.size(); d-- > 0;) {
    if (d < access.index.size()) stride += access.index[d].CoefficientOf(loop) * row;
    row *= tensor.shape[d];
  }
  return stride;
}

std::vector<double> FootprintPerDimension(const Access& access, const TensorDecl& tensor,
                                          const std::vector<const Loop*>& loops) {
  std::vector<double> distinct(tensor.shape.size(), 1.0);
  for (size_t d = 0; d < tensor.shape.size() && d < access.index.size(); ++d) {
    double range = 1.0, iterations = 1.0;
    for (const Loop* loop : loops) {
      const int64_t coefficient = access.index[d].CoefficientOf(loop->name);
      if (coefficient == 0) continue;
      range += static_cast<double>(std::llabs(coefficient)) * static_cast<double>(loop->extent - 1);
      iterations *= static_cast<double>(loop->extent);
    }
    distinct[d] = std::min({range, iterations, static_cast<double>(tensor.shape[d])});
  }
  return distinct;
}

double Footprint(const Access& access, const TensorDecl& tensor,
                 const std::vector<const Loop*>& loops) {
  double elements = 1.0;
  for (double extent : FootprintPerDimension(access, tensor, loops)) elements *= extent;
  double iterations = 1.0;
  for (const Loop* loop : loops) {
    const bool used = std::any_of(access.index.begin(), access.index.end(),
                                  [&](const AffineExpr& e) { return e.DependsOn(loop->name); });
    if (used) iterations *= static_cast<double>(loop->extent);
  }
  return std::min(elements, iterations);
}

}  // namespace glimpse::perf
