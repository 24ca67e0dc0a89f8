// The feature names, the JSON form and the refusal of a model made for other features.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "glimpse/error.h"
#include "glimpse/program_graph.h"

namespace glimpse {
namespace {
namespace gf = graph_feature;
using E = AffineExpr;

TEST(FeatureNamesTest, OneUniqueNamePerIndexAsTheTableSays) {
  const std::vector<std::string>& names = ProgramGraphFeatureNames();
  ASSERT_EQ(names.size(), static_cast<size_t>(kProgramGraphFeatureWidth));
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
  EXPECT_EQ(names[gf::kType + 4], "type.multiply_add");
  EXPECT_EQ(names[gf::kDepth], "depth");
  EXPECT_EQ(names[gf::kLoopKind + 2], "loop.kind.vectorized");
  EXPECT_EQ(names[gf::kLoopLogStatements], "loop.log_statements");
  EXPECT_EQ(names[gf::kTensorRole + 3], "tensor.role.prepared");
  EXPECT_EQ(names[gf::kTensorScope + 2], "tensor.scope.local");
  EXPECT_EQ(names[gf::kAccessStride + 3], "access.stride3");
  EXPECT_EQ(names[gf::kAccessLogFootprint], "access.log_footprint0");
  EXPECT_EQ(names[gf::kAccessAccumulator], "access.accumulator");
  EXPECT_EQ(names[gf::kStmtRelu], "stmt.relu");
  EXPECT_EQ(names[gf::kTileLogSize + 3], "tile.log_size3");
  EXPECT_EQ(names[gf::kTileLogProduct], "tile.log_product");
}

TEST(ScalingTest, CountsAndStridesAreLogScaled) {
  EXPECT_FLOAT_EQ(LogCount(0), 0);
  EXPECT_FLOAT_EQ(LogCount(1023), 10);
  EXPECT_FLOAT_EQ(SignedLog(-7), -3);
  EXPECT_FLOAT_EQ(SignedLog(7), 3);
}

TEST(GraphJsonTest, HoldsTheNodesEdgesAndVersion) {
  LoopNest nest;
  nest.name = "scale";
  const int x = nest.AddTensor({"x", {4}, "N", DType::kFloat32, TensorRole::kInput, 0});
  const int y = nest.AddTensor({"y", {4}, "N", DType::kFloat32, TensorRole::kOutput});
  Stmt copy{StmtKind::kCopy, {y, {E::Var("i")}}, {x, {E::Var("i")}}};
  copy.relu = true;
  nest.body.push_back(NestLoops({{"i", 4, LoopKind::kVectorized}}, {Node::MakeStmt(copy)}));
  const Json json = ProgramGraphToJson(BuildProgramGraph(nest));
  EXPECT_EQ(json.at("format"), "glimpse-program-graph");
  EXPECT_EQ(json.at("feature_version"), kProgramGraphFeatureVersion);
  ASSERT_EQ(json.at("nodes").size(), 6u);  // x y i copy load store
  EXPECT_EQ(json.at("nodes")[3].at("type"), "copy");
  EXPECT_EQ(json.at("nodes")[3].at("features")[gf::kStmtRelu], 1.0);
  EXPECT_EQ(json.at("nodes")[2].at("features").size(),
            static_cast<size_t>(kProgramGraphFeatureWidth));
  EXPECT_EQ(json.at("edges").at("nesting"), Json::parse("[[2, 3]]"));
  EXPECT_EQ(json.at("edges").at("data_flow"), Json::parse("[[0, 4], [4, 3], [3, 5], [5, 1]]"));
  EXPECT_EQ(json.at("feature_names").size(), static_cast<size_t>(kProgramGraphFeatureWidth));
}

TEST(VersionTest, AModelOfOtherFeaturesIsRefusedWithTheCommandThatRemakesIt) {
  EXPECT_NO_THROW(CheckProgramGraphVersion(kProgramGraphFeatureVersion, "models/perf.json"));
  const int old = kProgramGraphFeatureVersion + 1;
  try {
    CheckProgramGraphVersion(old, "models/perf.json");
    FAIL() << "a model of version " << old << " was accepted";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("models/perf.json"), std::string::npos) << message;
    EXPECT_NE(message.find("version " + std::to_string(old)), std::string::npos) << message;
    EXPECT_NE(message.find("version " + std::to_string(kProgramGraphFeatureVersion)),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("glimpse train perf-model"), std::string::npos) << message;
  }
  EXPECT_THROW(CheckProgramGraphVersion(-1, "models/perf.json"), Error);  // no version at all
}

}  // namespace
}  // namespace glimpse
