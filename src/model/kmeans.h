// k-means clustering and knee detection for Chameleon's adaptive sampling (chameleon_tuner.cc).
//
// Points are rows of equal width in a flat row-major buffer. KMeans is Lloyd's algorithm after
// k-means++ seeding (Arthur & Vassilvitskii 2007), every draw from the caller's Rng so that a
// tuner's seed fixes the clustering. KneeIndex is the "kneedle" rule (Satopää et al. 2011) in its
// simplest form: the point of a normalised curve farthest below the chord from its first to its
// last point.
#pragma once

#include <cstddef>
#include <vector>

#include "glimpse/random.h"

namespace glimpse::model {

// n points of `dims` coordinates each, row-major: point i is values[i·dims, (i+1)·dims).
struct PointSet {
  size_t dims = 0;
  std::vector<double> values;

  size_t size() const { return dims == 0 ? 0 : values.size() / dims; }
  const double* row(size_t i) const { return values.data() + i * dims; }
};

// Each dimension shifted to mean 0 and scaled to standard deviation 1 over the points, so that a
// knob with many values does not outweigh one with few. Dimensions that are constant over the
// points become 0 (they cannot separate anything).
PointSet Standardize(const PointSet& points);

// Squared Euclidean distance of two rows of width `dims`.
double SquaredDistance(const double* a, const double* b, size_t dims);

struct KMeansResult {
  PointSet centroids;              // k rows
  std::vector<size_t> assignment;  // per point: its centroid (the nearest; ties: lowest index)
  double inertia = 0.0;            // Σ over points of the squared distance to its centroid
  int iterations = 0;              // Lloyd iterations run
};

// k clusters of `points` (1 ≤ k ≤ points.size(), checked by the caller). Seeding: the first
// centre uniformly among the points, each next one with probability ∝ D² (squared distance to the
// nearest centre chosen so far), uniformly when every D² is 0. Lloyd: assign each point to its
// nearest centre, move each centre to its members' mean, until no assignment changes or
// `max_iterations` updates. A cluster left empty takes the point farthest from its centre, so all
// k clusters end non-empty whenever the points hold k distinct ones.
KMeansResult KMeans(const PointSet& points, size_t k, Rng& rng, int max_iterations = 100);

// Index of the knee of a decreasing, convex curve (xs increasing, e.g. k = 1..k_max, ys the
// k-means inertia): both axes normalised to [0, 1], the point with the greatest vertical distance
// below the straight line from the first point to the last (for a fixed line that is also the
// greatest perpendicular distance). Ties go to the earliest point. Returns 0 when there are fewer
// than three points, ys is flat, or no point lies below the line (a straight or concave curve has
// no knee; the smallest k is then the economical choice).
size_t KneeIndex(const std::vector<double>& xs, const std::vector<double>& ys);

}  // namespace glimpse::model
