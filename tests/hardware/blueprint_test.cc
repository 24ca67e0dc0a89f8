// PCA (eigen-solver, round trip, the component criteria) and the Blueprint (fit on the table,
// model file and its version, embedding GPUs that are not in the table).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>

#include "glimpse/error.h"
#include "glimpse/hardware.h"
#include "test_paths.h"

namespace glimpse {
namespace {

const GpuTable& Shipped() {
  static const GpuTable table = GpuTable::Load(testing::RepoDataPath("hardware/gpus.json"));
  return table;
}

std::string ErrorOf(const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(SymmetricEigen, DecomposesAKnownMatrix) {
  // Eigenvalues of [[2,1,0],[1,2,0],[0,0,5]] are 5, 3, 1.
  SymmetricEigen eigen = DecomposeSymmetric({{2, 1, 0}, {1, 2, 0}, {0, 0, 5}});
  ASSERT_EQ(eigen.values.size(), 3u);
  EXPECT_NEAR(eigen.values[0], 5.0, 1e-12);
  EXPECT_NEAR(eigen.values[1], 3.0, 1e-12);
  EXPECT_NEAR(eigen.values[2], 1.0, 1e-12);
  EXPECT_NEAR(eigen.vectors[0][2], 1.0, 1e-12);
  EXPECT_NEAR(eigen.vectors[1][0], std::sqrt(0.5), 1e-12);
  EXPECT_NEAR(eigen.vectors[1][1], std::sqrt(0.5), 1e-12);
  EXPECT_NEAR(std::abs(eigen.vectors[2][0]), std::sqrt(0.5), 1e-12);
  EXPECT_NEAR(eigen.vectors[2][0], -eigen.vectors[2][1], 1e-12);
  EXPECT_THROW(DecomposeSymmetric({{1, 2}, {3, 4}}), Error);
}

TEST(SymmetricEigen, ReconstructsARandomMatrix) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal;
  const size_t n = 12;
  std::vector<std::vector<double>> a(n, std::vector<double>(n));
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i; j < n; ++j) a[i][j] = a[j][i] = normal(rng);
  }
  SymmetricEigen eigen = DecomposeSymmetric(a);
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      double sum = 0.0;  // (V Λ Vᵀ)[i][j]
      for (size_t k = 0; k < n; ++k)
        sum += eigen.vectors[k][i] * eigen.values[k] * eigen.vectors[k][j];
      EXPECT_NEAR(sum, a[i][j], 1e-10);
    }
  }
  for (size_t k = 1; k < n; ++k) EXPECT_GE(eigen.values[k - 1], eigen.values[k]);
}

// n points in d dimensions that lie on a `rank`-dimensional subspace, plus tiny noise.
std::vector<std::vector<double>> LowRank(size_t n, size_t d, size_t rank, double noise) {
  std::mt19937_64 rng(42);
  std::normal_distribution<double> normal;
  std::vector<std::vector<double>> basis(rank, std::vector<double>(d));
  for (auto& row : basis) {
    for (double& x : row) x = normal(rng);
  }
  std::vector<std::vector<double>> rows(n, std::vector<double>(d, 0.0));
  for (auto& row : rows) {
    for (size_t r = 0; r < rank; ++r) {
      double weight = normal(rng) * (3.0 + r);
      for (size_t j = 0; j < d; ++j) row[j] += weight * basis[r][j];
    }
    for (size_t j = 0; j < d; ++j) row[j] += 5.0 + noise * normal(rng);
  }
  return rows;
}

TEST(Pca, ProjectingOntoAllComponentsAndBackIsExact) {
  std::vector<std::vector<double>> rows = LowRank(40, 9, 9, 0.0);
  Pca pca = Pca::Fit(rows);
  ASSERT_EQ(pca.dimensions(), 9);
  for (const auto& row : rows) {
    std::vector<double> back = pca.Reconstruct(pca.Project(row, 9));
    for (size_t j = 0; j < row.size(); ++j) EXPECT_NEAR(back[j], row[j], 1e-9);
  }
  EXPECT_LT(pca.ReconstructionRmse(rows, 9), 1e-10);
  EXPECT_NEAR(pca.ExplainedVariance(9), 1.0, 1e-12);
  // Fewer components lose information, monotonically.
  for (int k = 1; k < 9; ++k) {
    EXPECT_GE(pca.ReconstructionRmse(rows, k), pca.ReconstructionRmse(rows, k + 1) - 1e-12);
  }
  EXPECT_GT(pca.ReconstructionRmse(rows, 1), 0.1);
}

TEST(Pca, ReconstructionErrorIsTheDiscardedVariance) {
  std::vector<std::vector<double>> rows = LowRank(50, 6, 6, 0.0);
  Pca pca = Pca::Fit(rows);
  for (int k = 0; k <= 6; ++k) {
    double discarded = 0.0;
    for (int i = k; i < 6; ++i) discarded += pca.eigenvalues[i];
    EXPECT_NEAR(pca.ReconstructionRmse(rows, k), std::sqrt(discarded / 6.0), 1e-9) << k;
  }
}

TEST(Pca, RejectsRaggedOrEmptyInput) {
  EXPECT_THROW(Pca::Fit({}), Error);
  EXPECT_THROW(Pca::Fit({{1, 2}, {3}}), Error);
  Pca pca = Pca::Fit({{1, 2}, {3, 5}});
  EXPECT_THROW(pca.Project({1, 2, 3}, 1), Error);
  EXPECT_THROW(pca.Project({1, 2}, 3), Error);
}

// A table of synthetic GPUs whose standardised features have rank 3: after its transform, every
// feature is a fixed linear combination of three free parameters. Offsets and scales keep the
// rounding of integral fields far below the criterion's 0.005.
std::vector<GpuSpec> SyntheticGpus(size_t count) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<std::array<double, 3>> directions;
  for (size_t f = 0; f < DefaultBlueprintFeatures().size(); ++f) {
    directions.push_back({uniform(rng) - 0.5, uniform(rng) - 0.5, uniform(rng) - 0.5});
  }
  std::vector<GpuSpec> gpus;
  for (size_t i = 0; i < count; ++i) {
    std::array<double, 3> p = {uniform(rng), uniform(rng), uniform(rng)};
    GpuSpec gpu;
    gpu.name = "synthetic " + std::to_string(i);
    for (size_t f = 0; f < DefaultBlueprintFeatures().size(); ++f) {
      const BlueprintFeature& feature = DefaultBlueprintFeatures()[f];
      double u = 0.0;
      for (int r = 0; r < 3; ++r) u += directions[f][r] * p[r];
      double raw = feature.log_scale ? std::exp2(30.0 + u) - 1.0 : 1e7 + 1e6 * u;
      GpuNumericFieldByName(feature.field).set(gpu, raw);
    }
    gpus.push_back(gpu);
  }
  return gpus;
}

TEST(Blueprint, CriterionPicksTheRankOfALowRankTable) {
  std::vector<GpuSpec> gpus = SyntheticGpus(60);
  BlueprintOptions options;
  options.max_rmse = 0.005;
  Blueprint model = Blueprint::Fit(gpus, options);
  EXPECT_EQ(model.components(), 3)
      << "rmse by k: " << ::testing::PrintToString(model.rmse_by_components());
  EXPECT_LT(model.rmse_by_components()[2], 0.005);
  EXPECT_GT(model.rmse_by_components()[1], 0.005);
  BlueprintOptions by_variance;
  by_variance.criterion = ComponentCriterion::kExplainedVariance;
  by_variance.min_explained_variance = 0.95;
  EXPECT_LE(model.ComponentsFor(by_variance), 3);
  BlueprintOptions fixed;
  fixed.criterion = ComponentCriterion::kFixed;
  fixed.components = 5;
  EXPECT_EQ(model.ComponentsFor(fixed), 5);
  fixed.components = 99;
  EXPECT_THROW(model.ComponentsFor(fixed), Error);
}

TEST(Blueprint, FitsTheShippedTableAndLeavesConstantFeaturesOut) {
  Blueprint model = Blueprint::Fit(Shipped().CatalogGpus());
  // Every GPU allows 1024 threads per block: no information, left out.
  EXPECT_TRUE(model.constant_features().count("max_threads_per_block"));
  EXPECT_EQ(model.dimensions() + static_cast<int>(model.constant_features().size()),
            static_cast<int>(DefaultBlueprintFeatures().size()));
  ASSERT_GE(model.components(), 1);
  ASSERT_LE(model.components(), model.dimensions());
  // The paper's criterion: the chosen k is the first below 0.5 % RMSE (or all of them).
  int k = model.components();
  if (k < model.dimensions()) {
    EXPECT_LT(model.rmse_by_components()[k - 1], 0.005);
  }
  if (k > 1) {
    EXPECT_GE(model.rmse_by_components()[k - 2], 0.005);
  }
  // Standardised features have mean 0 and variance 1 over the table.
  std::vector<double> mean(model.dimensions(), 0.0), square(model.dimensions(), 0.0);
  for (const GpuSpec& gpu : Shipped().CatalogGpus()) {
    std::vector<double> z = model.Standardize(gpu);
    for (int j = 0; j < model.dimensions(); ++j) {
      mean[j] += z[j] / Shipped().CatalogGpus().size();
      square[j] += z[j] * z[j] / Shipped().CatalogGpus().size();
    }
  }
  for (int j = 0; j < model.dimensions(); ++j) {
    EXPECT_NEAR(mean[j], 0.0, 1e-9);
    EXPECT_NEAR(square[j], 1.0, 1e-9);
  }
  // Different GPUs get different Blueprints.
  EXPECT_NE(model.Embed(Shipped().Lookup("A100")), model.Embed(Shipped().Lookup("RTX_3090")));
}

TEST(Blueprint, ModelFileRoundTripsAndOtherVersionsAreRefused) {
  Blueprint model = Blueprint::Fit(Shipped().CatalogGpus());
  std::string path = testing::MakeTempDir("glimpse-blueprint") + "/blueprint.json";
  model.Save(path);
  Blueprint loaded = Blueprint::Load(path);
  EXPECT_EQ(loaded.components(), model.components());
  for (const char* name : {"A100", "MI250X", "NVIDIA GeForce GTX 680"}) {
    std::vector<double> a = model.Embed(Shipped().Lookup(name)),
                        b = loaded.Embed(Shipped().Lookup(name));
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) EXPECT_DOUBLE_EQ(a[i], b[i]) << name;
  }
  Json json = model.ToJson();
  json["version"] = kBlueprintVersion + 1;
  std::string message = ErrorOf([&] { Blueprint::FromJson(json, "old.json"); });
  EXPECT_NE(message.find("version " + std::to_string(kBlueprintVersion + 1)), std::string::npos)
      << message;
  EXPECT_NE(message.find("glimpse hw fit"), std::string::npos) << message;
  json = model.ToJson();
  json["format"] = "something-else";
  EXPECT_THROW(Blueprint::FromJson(json, "x.json"), Error);
  json = model.ToJson();
  json["pca"]["basis"].erase(0);
  EXPECT_THROW(Blueprint::FromJson(json, "x.json"), Error);
}

TEST(Blueprint, EmbedsAGpuThatIsNotInTheTable) {
  Blueprint model = Blueprint::Fit(Shipped().CatalogGpus());
  // A made-up successor of the H100: more SMs, faster memory, bigger L2.
  GpuSpec future = Shipped().Lookup("NVIDIA H100 80GB HBM3");
  future.name = "Hypothetical X200";
  future.aliases.clear();
  future.sm_count = 160;
  future.memory_bandwidth_gb_per_s = 8000;
  future.memory_bytes = 192LL << 30;
  future.l2_bytes = 128LL << 20;
  future.fp32_flops = 2.0 * 160 * 128 * 2100e6;
  future.fp16_flops = 2 * future.fp32_flops;
  ASSERT_EQ(Shipped().Find(future.name), nullptr);
  std::vector<double> embedding = model.Embed(future);
  ASSERT_EQ(static_cast<int>(embedding.size()), model.components());
  for (double x : embedding) EXPECT_TRUE(std::isfinite(x));
  // It lands nearer its parent than a small consumer card does.
  auto distance = [&](const std::vector<double>& a, const std::vector<double>& b) {
    double sum = 0.0;
    for (size_t i = 0; i < a.size(); ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
    return std::sqrt(sum);
  };
  std::vector<double> h100 = model.Embed(Shipped().Lookup("NVIDIA H100 80GB HBM3"));
  std::vector<double> gtx = model.Embed(Shipped().Lookup("NVIDIA GeForce GTX 750 Ti"));
  EXPECT_LT(distance(embedding, h100), distance(embedding, gtx));

  GpuSpec incomplete = future;
  incomplete.sm_count = 0;
  std::string message = ErrorOf([&] { model.Embed(incomplete); });
  EXPECT_NE(message.find("sm_count"), std::string::npos) << message;
  EXPECT_NE(message.find("Hypothetical X200"), std::string::npos) << message;
}

TEST(Blueprint, ShippedModelMatchesTheShippedTable) {
  // data/hardware/blueprint.json is made by `glimpse hw fit` on the catalog GPUs; a change to them
  // without a refit shows here. The GPUs derived from the Wikipedia lists are embedded by it.
  ASSERT_GT(Shipped().gpus().size(), Shipped().CatalogGpus().size());
  Blueprint shipped = Blueprint::Load(testing::RepoDataPath("hardware/blueprint.json"));
  Blueprint refit = Blueprint::Fit(Shipped().CatalogGpus(), shipped.options());
  EXPECT_EQ(shipped.components(), refit.components());
  EXPECT_EQ(shipped.training_gpus().size(), Shipped().CatalogGpus().size());
  for (const GpuSpec& gpu : Shipped().CatalogGpus()) {
    std::vector<double> a = shipped.Embed(gpu), b = refit.Embed(gpu);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-9) << gpu.name;
  }
}

TEST(Blueprint, GpusDerivedFromTheListsAreEmbeddedNotFitted) {
  Blueprint shipped = Blueprint::Load(testing::RepoDataPath("hardware/blueprint.json"));
  const GpuSpec& k20 = Shipped().Lookup("Tesla K20m");
  EXPECT_EQ(k20.listing, "wikipedia");
  for (const GpuSpec& gpu : Shipped().CatalogGpus()) EXPECT_EQ(gpu.listing, "catalog");
  std::vector<double> embedding = shipped.Embed(k20);
  ASSERT_EQ(static_cast<int>(embedding.size()), shipped.components());
  for (double x : embedding) EXPECT_TRUE(std::isfinite(x));
  EXPECT_NE(embedding, shipped.Embed(Shipped().Lookup("NVIDIA GeForce GTX 680")));
}

}  // namespace
}  // namespace glimpse
