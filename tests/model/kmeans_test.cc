// k-means and knee detection of Chameleon's adaptive sampling: recovery of well-separated
// clusters, the knee of synthetic curves, standardisation.
#include "model/kmeans.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

namespace glimpse::model {
namespace {

// `per_cluster` points around each centre, uniform noise of ±spread in every coordinate.
PointSet Blobs(const std::vector<std::vector<double>>& centres, size_t per_cluster, double spread,
               uint64_t seed, std::vector<size_t>* truth) {
  Rng rng(seed);
  PointSet points{centres.front().size(), {}};
  for (size_t i = 0; i < per_cluster; ++i) {
    for (size_t c = 0; c < centres.size(); ++c) {  // interleaved, so order gives nothing away
      for (double x : centres[c]) points.values.push_back(x + spread * (2 * UniformUnit(rng) - 1));
      truth->push_back(c);
    }
  }
  return points;
}

const std::vector<std::vector<double>> kCentres = {
    {0, 0, 0}, {10, 0, 0}, {0, 10, 0}, {0, 0, 10}, {10, 10, 10}};

TEST(KMeansTest, RecoversWellSeparatedClusters) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    std::vector<size_t> truth;
    PointSet points = Blobs(kCentres, 30, 1.0, seed, &truth);
    Rng rng(seed + 100);
    KMeansResult result = KMeans(points, kCentres.size(), rng);
    ASSERT_EQ(result.centroids.size(), kCentres.size());
    ASSERT_EQ(result.assignment.size(), points.size());
    // Every true cluster maps to exactly one found cluster, and different ones to different ones.
    std::vector<std::set<size_t>> found_of(kCentres.size());
    for (size_t i = 0; i < truth.size(); ++i) found_of[truth[i]].insert(result.assignment[i]);
    std::set<size_t> used;
    for (const std::set<size_t>& found : found_of) {
      ASSERT_EQ(found.size(), 1u) << "seed " << seed;
      used.insert(*found.begin());
    }
    EXPECT_EQ(used.size(), kCentres.size()) << "seed " << seed;
    // Each centroid sits near its true centre (noise ±1 per axis, 30 points: mean error ≪ 1).
    for (size_t c = 0; c < kCentres.size(); ++c) {
      const double d2 =
          SquaredDistance(result.centroids.row(*found_of[c].begin()), kCentres[c].data(), 3);
      EXPECT_LT(d2, 0.5 * 0.5) << "seed " << seed << ", cluster " << c;
    }
    // Inertia is the within-cluster spread only: ≈ n · 3 · (1/3) for uniform ±1 noise.
    EXPECT_LT(result.inertia, 2.0 * points.size());
    double recomputed = 0.0;
    for (size_t i = 0; i < points.size(); ++i) {
      recomputed += SquaredDistance(points.row(i), result.centroids.row(result.assignment[i]), 3);
    }
    EXPECT_NEAR(result.inertia, recomputed, 1e-9 * recomputed);
  }
}

TEST(KMeansTest, SameRngSameClustering) {
  std::vector<size_t> truth;
  PointSet points = Blobs(kCentres, 10, 4.0, 7, &truth);  // overlapping: seeding matters
  Rng a(3), b(3);
  KMeansResult first = KMeans(points, 6, a), second = KMeans(points, 6, b);
  EXPECT_EQ(first.assignment, second.assignment);
  EXPECT_EQ(first.centroids.values, second.centroids.values);
}

TEST(KMeansTest, InertiaFallsWithKAndVanishesAtOnePointPerCluster) {
  std::vector<size_t> truth;
  PointSet points = Blobs(kCentres, 4, 1.0, 11, &truth);  // 20 distinct points
  Rng rng(5);
  const double one = KMeans(points, 1, rng).inertia;
  const double five = KMeans(points, 5, rng).inertia;
  KMeansResult all = KMeans(points, points.size(), rng);
  EXPECT_GT(one, 10.0 * five);
  EXPECT_NEAR(all.inertia, 0.0, 1e-12);
  EXPECT_EQ(std::set<size_t>(all.assignment.begin(), all.assignment.end()).size(),
            points.size());  // no cluster left empty
}

TEST(KMeansTest, MoreClustersThanDistinctPointsStillAssignsEverything) {
  PointSet points{1, {2.0, 2.0, 2.0, 5.0, 5.0}};
  Rng rng(1);
  KMeansResult result = KMeans(points, 4, rng);
  EXPECT_NEAR(result.inertia, 0.0, 1e-12);
  EXPECT_EQ(result.assignment[0], result.assignment[1]);
  EXPECT_NE(result.assignment[0], result.assignment[3]);
}

TEST(StandardizeTest, ZeroMeanUnitVarianceAndConstantDimensionsVanish) {
  PointSet points{2, {1, 7, 3, 7, 5, 7, 7, 7}};  // second dimension constant
  PointSet out = Standardize(points);
  double mean = 0.0, square = 0.0;
  for (size_t i = 0; i < out.size(); ++i) {
    mean += out.row(i)[0];
    square += out.row(i)[0] * out.row(i)[0];
    EXPECT_EQ(out.row(i)[1], 0.0);
  }
  EXPECT_NEAR(mean / out.size(), 0.0, 1e-12);
  EXPECT_NEAR(square / out.size(), 1.0, 1e-12);
  EXPECT_LT(out.row(0)[0], out.row(1)[0]);  // order kept
}

// A curve falling steeply until `elbow`, then slowly: the knee is at the elbow.
std::vector<double> Elbow(const std::vector<double>& ks, double elbow, double steep,
                          double shallow) {
  std::vector<double> ys;
  for (double k : ks) {
    ys.push_back(k <= elbow ? 100.0 - steep * (k - ks.front())
                            : 100.0 - steep * (elbow - ks.front()) - shallow * (k - elbow));
  }
  return ys;
}

std::vector<double> Range(int from, int to) {
  std::vector<double> ks;
  for (int k = from; k <= to; ++k) ks.push_back(k);
  return ks;
}

TEST(KneeIndexTest, FindsTheElbowOfPiecewiseLinearCurves) {
  const std::vector<double> ks = Range(1, 10);
  EXPECT_EQ(ks[KneeIndex(ks, Elbow(ks, 4, 20, 1))], 4);
  EXPECT_EQ(ks[KneeIndex(ks, Elbow(ks, 7, 10, 0.5))], 7);
  const std::vector<double> wide = Range(8, 64);
  EXPECT_EQ(wide[KneeIndex(wide, Elbow(wide, 19, 4, 0.2))], 19);
}

TEST(KneeIndexTest, ScaleAndShiftOfTheLossDoNotMoveTheKnee) {
  const std::vector<double> ks = Range(1, 12);
  std::vector<double> ys = Elbow(ks, 5, 15, 2);
  const size_t knee = KneeIndex(ks, ys);
  for (double& y : ys) y = 1e-3 * y + 42.0;
  EXPECT_EQ(KneeIndex(ks, ys), knee);
  EXPECT_EQ(ks[knee], 5);
}

TEST(KneeIndexTest, ConvexDecayHasItsKneeWhereTheCurveBends) {
  // y = 1/k over k = 1..20: normalised, the farthest point below the chord is k ≈ √20 ≈ 4.5.
  const std::vector<double> ks = Range(1, 20);
  std::vector<double> ys;
  for (double k : ks) ys.push_back(1.0 / k);
  const double knee = ks[KneeIndex(ks, ys)];
  EXPECT_GE(knee, 4);
  EXPECT_LE(knee, 5);
}

TEST(KneeIndexTest, NoKneeGivesTheFirstPoint) {
  const std::vector<double> ks = Range(1, 8);
  std::vector<double> line, concave, flat(ks.size(), 3.0);
  for (double k : ks) {
    line.push_back(10.0 - k);
    concave.push_back(100.0 - k * k);
  }
  EXPECT_EQ(KneeIndex(ks, line), 0u);
  EXPECT_EQ(KneeIndex(ks, concave), 0u);
  EXPECT_EQ(KneeIndex(ks, flat), 0u);
  EXPECT_EQ(KneeIndex({1, 2}, {5, 1}), 0u);
}

TEST(KneeIndexTest, KMeansInertiaOfFiveBlobsHasItsKneeAtFive) {
  std::vector<size_t> truth;
  PointSet points = Standardize(Blobs(kCentres, 20, 1.0, 3, &truth));
  Rng rng(9);
  std::vector<double> ks, inertia;
  for (size_t k = 1; k <= 12; ++k) {
    ks.push_back(static_cast<double>(k));
    inertia.push_back(KMeans(points, k, rng).inertia);
  }
  EXPECT_EQ(ks[KneeIndex(ks, inertia)], 5);
}

}  // namespace
}  // namespace glimpse::model
