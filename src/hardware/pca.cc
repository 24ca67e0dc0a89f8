// Principal component analysis for the Blueprint: a cyclic Jacobi eigen-solver for the (small)
// covariance matrix, and projection / reconstruction in the component basis.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "glimpse/error.h"
#include "glimpse/hardware.h"

namespace glimpse {

SymmetricEigen DecomposeSymmetric(const std::vector<std::vector<double>>& matrix) {
  const size_t n = matrix.size();
  double largest = 0.0;
  for (const auto& row : matrix) {
    if (row.size() != n) throw Error("DecomposeSymmetric: the matrix is not square");
    for (double value : row) largest = std::max(largest, std::abs(value));
  }
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      if (std::abs(matrix[i][j] - matrix[j][i]) > 1e-9 * std::max(1.0, largest)) {
        throw Error(
            fmt::format("DecomposeSymmetric: the matrix is not symmetric at ({}, {})", i, j));
      }
    }
  }
  std::vector<std::vector<double>> a = matrix;
  std::vector<std::vector<double>> v(n, std::vector<double>(n, 0.0));
  for (size_t i = 0; i < n; ++i) v[i][i] = 1.0;

  // Cyclic sweeps of rotations that zero a[p][q], until the off-diagonal mass is negligible
  // against the matrix's scale (Jacobi converges quadratically; a handful of sweeps suffice).
  const double tiny = 1e-30 * std::max(1.0, largest * largest);
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0.0;
    for (size_t p = 0; p < n; ++p) {
      for (size_t q = p + 1; q < n; ++q) off += a[p][q] * a[p][q];
    }
    if (off <= tiny) break;
    for (size_t p = 0; p < n; ++p) {
      for (size_t q = p + 1; q < n; ++q) {
        if (std::abs(a[p][q]) <= 1e-300) continue;
        double theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
        double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1.0));
        double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
        for (size_t k = 0; k < n; ++k) {  // A ← A·J
          double kp = a[k][p], kq = a[k][q];
          a[k][p] = c * kp - s * kq;
          a[k][q] = s * kp + c * kq;
        }
        for (size_t k = 0; k < n; ++k) {  // A ← Jᵀ·A
          double pk = a[p][k], qk = a[q][k];
          a[p][k] = c * pk - s * qk;
          a[q][k] = s * pk + c * qk;
        }
        for (size_t k = 0; k < n; ++k) {  // V ← V·J
          double kp = v[k][p], kq = v[k][q];
          v[k][p] = c * kp - s * kq;
          v[k][q] = s * kp + c * kq;
        }
      }
    }
  }

  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return a[x][x] > a[y][y]; });
  SymmetricEigen result;
  for (size_t index : order) {
    result.values.push_back(a[index][index]);
    std::vector<double> vector(n);
    for (size_t k = 0; k < n; ++k) vector[k] = v[k][index];
    size_t biggest = 0;
    for (size_t k = 1; k < n; ++k) {
      if (std::abs(vector[k]) > std::abs(vector[biggest]) + 1e-12) biggest = k;
    }
    if (n > 0 && vector[biggest] < 0) {
      for (double& x : vector) x = -x;
    }
    result.vectors.push_back(std::move(vector));
  }
  return result;
}

Pca Pca::Fit(const std::vector<std::vector<double>>& rows) {
  if (rows.empty() || rows.front().empty()) throw Error("PCA needs at least one non-empty row");
  const size_t n = rows.size(), d = rows.front().size();
  for (const auto& row : rows) {
    if (row.size() != d) {
      throw Error(fmt::format("PCA rows differ in length ({} and {})", d, row.size()));
    }
  }
  Pca pca;
  pca.mean.assign(d, 0.0);
  for (const auto& row : rows) {
    for (size_t j = 0; j < d; ++j) pca.mean[j] += row[j] / static_cast<double>(n);
  }
  std::vector<std::vector<double>> covariance(d, std::vector<double>(d, 0.0));
  for (const auto& row : rows) {
    for (size_t i = 0; i < d; ++i) {
      double xi = row[i] - pca.mean[i];
      for (size_t j = i; j < d; ++j) covariance[i][j] += xi * (row[j] - pca.mean[j]);
    }
  }
  for (size_t i = 0; i < d; ++i) {
    for (size_t j = i; j < d; ++j) {
      covariance[i][j] /= static_cast<double>(n);
      covariance[j][i] = covariance[i][j];
    }
  }
  SymmetricEigen eigen = DecomposeSymmetric(covariance);
  // Rounding can leave the null directions of a rank-deficient covariance slightly negative.
  for (double& value : eigen.values) value = std::max(value, 0.0);
  pca.eigenvalues = std::move(eigen.values);
  pca.components = std::move(eigen.vectors);
  return pca;
}

std::vector<double> Pca::Project(const std::vector<double>& x, int k) const {
  if (x.size() != mean.size()) {
    throw Error(
        fmt::format("PCA projection of {} values; the model has {}", x.size(), mean.size()));
  }
  if (k < 0 || k > dimensions()) {
    throw Error(
        fmt::format("PCA projection onto {} components; the model has {}", k, dimensions()));
  }
  std::vector<double> z(static_cast<size_t>(k), 0.0);
  for (int i = 0; i < k; ++i) {
    for (size_t j = 0; j < x.size(); ++j) z[i] += (x[j] - mean[j]) * components[i][j];
  }
  return z;
}

std::vector<double> Pca::Reconstruct(const std::vector<double>& z) const {
  if (static_cast<int>(z.size()) > dimensions()) {
    throw Error(fmt::format("PCA reconstruction from {} components; the model has {}", z.size(),
                            dimensions()));
  }
  std::vector<double> x = mean;
  for (size_t i = 0; i < z.size(); ++i) {
    for (size_t j = 0; j < x.size(); ++j) x[j] += z[i] * components[i][j];
  }
  return x;
}

double Pca::ReconstructionRmse(const std::vector<std::vector<double>>& rows, int k) const {
  double sum = 0.0;
  size_t count = 0;
  for (const auto& row : rows) {
    std::vector<double> back = Reconstruct(Project(row, k));
    for (size_t j = 0; j < row.size(); ++j) sum += (row[j] - back[j]) * (row[j] - back[j]);
    count += row.size();
  }
  return count ? std::sqrt(sum / static_cast<double>(count)) : 0.0;
}

double Pca::ExplainedVariance(int k) const {
  double total = std::accumulate(eigenvalues.begin(), eigenvalues.end(), 0.0);
  if (total <= 0.0) return 1.0;
  k = std::clamp(k, 0, dimensions());
  return std::accumulate(eigenvalues.begin(), eigenvalues.begin() + k, 0.0) / total;
}

}  // namespace glimpse
