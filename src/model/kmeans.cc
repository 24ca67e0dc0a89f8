// k-means++ seeding, Lloyd iterations and the kneedle knee (see kmeans.h).
//
// Map: Standardize · SquaredDistance · Seed (k-means++) · Assign (nearest centre) · Update (means,
// empty clusters re-seeded at the worst-fitted point) · KMeans (Seed, then Update/Assign until
// stable) · KneeIndex.
#include "model/kmeans.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace glimpse::model {

namespace {

// k-means++: the first centre uniform, then each next one drawn with probability ∝ D².
PointSet Seed(const PointSet& points, size_t k, Rng& rng) {
  const size_t n = points.size(), dims = points.dims;
  PointSet centres{dims, {}};
  centres.values.reserve(k * dims);
  auto add = [&](size_t i) {
    centres.values.insert(centres.values.end(), points.row(i), points.row(i) + dims);
  };
  add(UniformIndex(rng, n));
  std::vector<double> d2(n);
  for (size_t i = 0; i < n; ++i) d2[i] = SquaredDistance(points.row(i), centres.row(0), dims);
  while (centres.size() < k) {
    double total = 0.0;
    for (double d : d2) total += d;
    size_t pick = n;
    if (total > 0.0) {
      const double target = UniformUnit(rng) * total;
      double cumulative = 0.0;
      for (size_t i = 0; i < n; ++i) {
        if (d2[i] <= 0.0) continue;  // a point already chosen (or a duplicate) is never redrawn
        cumulative += d2[i];
        pick = i;
        if (target < cumulative) break;
      }
    } else {
      pick = UniformIndex(rng, n);  // every point coincides with a centre: k exceeds the
                                    // distinct points, the extra centres are duplicates
    }
    add(pick);
    const double* centre = centres.row(centres.size() - 1);
    for (size_t i = 0; i < n; ++i) {
      d2[i] = std::min(d2[i], SquaredDistance(points.row(i), centre, dims));
    }
  }
  return centres;
}

// Nearest centre of every point (ties: the lowest index). Returns whether any assignment changed.
bool Assign(const PointSet& points, const PointSet& centres, std::vector<size_t>& assignment) {
  bool changed = false;
  for (size_t i = 0; i < points.size(); ++i) {
    size_t best = 0;
    double best_d = std::numeric_limits<double>::infinity();
    for (size_t c = 0; c < centres.size(); ++c) {
      const double d = SquaredDistance(points.row(i), centres.row(c), points.dims);
      if (d < best_d) {
        best_d = d;
        best = c;
      }
    }
    if (assignment[i] != best) {
      assignment[i] = best;
      changed = true;
    }
  }
  return changed;
}

// Moves every centre to its members' mean. An empty cluster takes the point farthest from its
// own centre among clusters with more than one member (each such point serves one empty cluster).
void Update(const PointSet& points, const std::vector<size_t>& assignment, PointSet& centres) {
  const size_t dims = points.dims, k = centres.size();
  std::vector<double> sums(k * dims, 0.0);
  std::vector<size_t> counts(k, 0);
  for (size_t i = 0; i < points.size(); ++i) {
    const size_t c = assignment[i];
    ++counts[c];
    for (size_t j = 0; j < dims; ++j) sums[c * dims + j] += points.row(i)[j];
  }
  std::vector<bool> donated(points.size(), false);
  for (size_t c = 0; c < k; ++c) {
    double* centre = centres.values.data() + c * dims;
    if (counts[c] > 0) {
      for (size_t j = 0; j < dims; ++j) centre[j] = sums[c * dims + j] / counts[c];
      continue;
    }
    size_t worst = points.size();
    double worst_d = -1.0;
    for (size_t i = 0; i < points.size(); ++i) {
      if (donated[i] || counts[assignment[i]] < 2) continue;
      const double d = SquaredDistance(points.row(i), centres.row(assignment[i]), dims);
      if (d > worst_d) {
        worst_d = d;
        worst = i;
      }
    }
    if (worst == points.size()) continue;  // nothing to spare: the centre stays where it is
    donated[worst] = true;
    --counts[assignment[worst]];
    std::copy(points.row(worst), points.row(worst) + dims, centre);
  }
}

}  // namespace

double SquaredDistance(const double* a, const double* b, size_t dims) {
  double sum = 0.0;
  for (size_t j = 0; j < dims; ++j) {
    const double d = a[j] - b[j];
    sum += d * d;
  }
  return sum;
}

PointSet Standardize(const PointSet& points) {
  PointSet out = points;
  const size_t n = points.size(), dims = points.dims;
  if (n == 0) return out;
  for (size_t j = 0; j < dims; ++j) {
    double mean = 0.0;
    for (size_t i = 0; i < n; ++i) mean += points.row(i)[j];
    mean /= static_cast<double>(n);
    double variance = 0.0;
    for (size_t i = 0; i < n; ++i) {
      const double d = points.row(i)[j] - mean;
      variance += d * d;
    }
    const double sd = std::sqrt(variance / static_cast<double>(n));
    for (size_t i = 0; i < n; ++i) {
      double& value = out.values[i * dims + j];
      value = sd > 0.0 ? (value - mean) / sd : 0.0;
    }
  }
  return out;
}

KMeansResult KMeans(const PointSet& points, size_t k, Rng& rng, int max_iterations) {
  KMeansResult result;
  result.centroids = Seed(points, k, rng);
  result.assignment.assign(points.size(), k);  // k: not assigned yet, so the first pass "changes"
  Assign(points, result.centroids, result.assignment);
  while (result.iterations < max_iterations) {
    Update(points, result.assignment, result.centroids);
    ++result.iterations;
    if (!Assign(points, result.centroids, result.assignment)) break;
  }
  for (size_t i = 0; i < points.size(); ++i) {
    result.inertia +=
        SquaredDistance(points.row(i), result.centroids.row(result.assignment[i]), points.dims);
  }
  return result;
}

size_t KneeIndex(const std::vector<double>& xs, const std::vector<double>& ys) {
  const size_t n = std::min(xs.size(), ys.size());
  if (n < 3) return 0;
  const auto extremes = std::minmax_element(ys.begin(), ys.begin() + n);
  const double y_min = *extremes.first;  // plain values: lambdas may not capture bindings
  const double x_span = xs[n - 1] - xs[0];
  const double y_span = *extremes.second - y_min;
  if (!(x_span > 0.0) || !(y_span > 0.0)) return 0;
  auto nx = [&](size_t i) { return (xs[i] - xs[0]) / x_span; };
  auto ny = [&](size_t i) { return (ys[i] - y_min) / y_span; };
  const double first = ny(0), last = ny(n - 1);
  // Rounding puts the points of a straight line a hair's breadth either side of the chord; a knee
  // must lie measurably below it (normalised units).
  constexpr double kMinDepth = 1e-9;
  size_t knee = 0;
  double best = kMinDepth;
  for (size_t i = 1; i + 1 < n; ++i) {
    const double chord = first + (last - first) * nx(i);
    const double below = chord - ny(i);
    if (below > best) {
      best = below;
      knee = i;
    }
  }
  return knee;
}

}  // namespace glimpse::model
