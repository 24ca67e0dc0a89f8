// XGBoost models are checked before XGBoost reads them (model/xgboost_model_check.h): a model
// XGBoost wrote loads and predicts as before, and each corruption XGBoost's own loader would
// crash on or mis-read — a repeated tree id (two threads loading into one slot: a double free,
// found by the model_file fuzz target), short node arrays, children outside the tree or reached
// twice, a split on a feature the model lacks, an output group out of range — is an Error naming
// the field.
#include "model/xgboost_model_check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "glimpse/json.h"
#include "model/xgboost_api.h"
#include "test_errors.h"

namespace glimpse::model {
namespace {

using glimpse::testing::ErrorMessageOf;

constexpr size_t kRows = 64;
constexpr size_t kCols = 3;

std::vector<float> Rows() {
  std::vector<float> values;
  for (size_t i = 0; i < kRows; ++i) {
    values.push_back(static_cast<float>(i % 8));
    values.push_back(static_cast<float>((i * 5) % 7));
    values.push_back(static_cast<float>(i) * 0.25f);
  }
  return values;
}

// A small booster's JSON, as XGBoost writes it: 4 trees of depth 3.
Json TrainedModel() {
  const std::vector<float> values = Rows();
  XgbMatrix train(values, kRows, kCols);
  std::vector<float> labels;
  for (size_t i = 0; i < kRows; ++i) {
    labels.push_back(values[i * kCols] * 2.0f - values[i * kCols + 1] +
                     std::sin(values[i * 3 + 2]));
  }
  train.SetFloatInfo("label", labels);
  XgbBooster booster(&train);
  booster.SetParam("nthread", "1");
  booster.SetParam("max_depth", "3");
  booster.SetParam("verbosity", "0");
  for (int round = 0; round < 4; ++round) booster.UpdateOneIter(round, train);
  return Json::parse(booster.SaveJson());
}

Json& Trees(Json& model) { return model["learner"]["gradient_booster"]["model"]["trees"]; }

std::string LoadError(const Json& model) {
  return ErrorMessageOf([&] {
    XgbBooster booster(nullptr);
    booster.LoadJson(model.dump());
  });
}

// The root's left child, itself split (the test's trees have depth 3).
int64_t InternalChild(const Json& tree) {
  const int64_t left = tree["left_children"][0].get<int64_t>();
  EXPECT_GT(left, 0);
  EXPECT_GE(tree["left_children"][left].get<int64_t>(), 0) << "node " << left << " is a leaf";
  return left;
}

TEST(XgboostModelCheckTest, AModelXgboostWroteLoadsAndPredictsTheSame) {
  Json model = TrainedModel();
  ASSERT_EQ(Trees(model).size(), 4u);
  EXPECT_NO_THROW(CheckXgbModelJson(model));

  XgbMatrix data(Rows(), kRows, kCols);
  XgbBooster first(nullptr);
  first.LoadJson(model.dump());
  XgbBooster second(nullptr);
  second.LoadJson(first.SaveJson());
  const std::vector<float> a = first.PredictMargin(data);
  ASSERT_EQ(a.size(), kRows);
  EXPECT_EQ(a, second.PredictMargin(data));
  // Not a constant model: the check did not accept a degenerate tree set.
  EXPECT_NE(a.front(), a.back());
}

TEST(XgboostModelCheckTest, ATreeIdUsedTwiceIsRefused) {
  Json model = TrainedModel();
  Trees(model)[2]["id"] = 1;
  const std::string message = LoadError(model);
  EXPECT_NE(message.find("learner.gradient_booster.model.trees[2].id"), std::string::npos)
      << message;
  EXPECT_NE(message.find("1 is the id of an earlier tree too"), std::string::npos) << message;

  Trees(model)[2]["id"] = 4;  // outside 0..3
  EXPECT_NE(LoadError(model).find("trees[2].id: expected an integer in [0, 4)"), std::string::npos)
      << LoadError(model);
}

TEST(XgboostModelCheckTest, ANodeArrayOfTheWrongLengthIsRefused) {
  for (const char* field :
       {"left_children", "right_children", "split_indices", "parents", "default_left",
        "split_conditions", "base_weights", "loss_changes", "sum_hessian", "split_type"}) {
    Json model = TrainedModel();
    Json& tree = Trees(model)[1];
    const int64_t nodes = std::stoll(tree["tree_param"]["num_nodes"].get<std::string>());
    tree[field].erase(tree[field].size() - 1);
    const std::string message = LoadError(model);
    EXPECT_NE(message.find(std::string("trees[1].") + field + ": " + std::to_string(nodes - 1) +
                           " entries; tree_param.num_nodes says " + std::to_string(nodes)),
              std::string::npos)
        << field << ": " << message;
  }
  Json model = TrainedModel();
  Trees(model)[0].erase("sum_hessian");
  EXPECT_NE(LoadError(model).find("trees[0]: missing field 'sum_hessian'"), std::string::npos)
      << LoadError(model);
}

TEST(XgboostModelCheckTest, ChildrenOutsideTheTreeOrReachedTwiceAreRefused) {
  {
    Json model = TrainedModel();
    Json& tree = Trees(model)[0];
    const int64_t nodes = static_cast<int64_t>(tree["left_children"].size());
    tree["right_children"][0] = nodes;
    const std::string message = LoadError(model);
    EXPECT_NE(message.find("trees[0] node 0: child " + std::to_string(nodes) +
                           " is outside the tree's nodes 1.." + std::to_string(nodes - 1)),
              std::string::npos)
        << message;
  }
  {
    Json model = TrainedModel();
    Json& tree = Trees(model)[0];
    const int64_t node = InternalChild(tree);
    tree["right_children"][node] = node;  // a loop: prediction would never leave it
    EXPECT_NE(LoadError(model).find("trees[0] node " + std::to_string(node) + ": child " +
                                    std::to_string(node) + " is reached twice"),
              std::string::npos)
        << LoadError(model);
  }
  {
    Json model = TrainedModel();
    Json& tree = Trees(model)[0];
    tree["right_children"][0] = 0;  // back to the root
    EXPECT_NE(LoadError(model).find("node 0: child 0 is outside"), std::string::npos)
        << LoadError(model);
  }
  {
    Json model = TrainedModel();
    Json& tree = Trees(model)[0];
    const int64_t node = InternalChild(tree);
    tree["right_children"][node] = -1;
    EXPECT_NE(LoadError(model).find("one child only"), std::string::npos) << LoadError(model);
  }
}

TEST(XgboostModelCheckTest, ASplitOnAMissingFeatureOrABadOutputGroupIsRefused) {
  Json model = TrainedModel();
  Trees(model)[3]["split_indices"][0] = 3;
  EXPECT_NE(LoadError(model).find("trees[3] node 0: splits on feature 3; the model has 3 features"),
            std::string::npos)
      << LoadError(model);

  model = TrainedModel();
  Trees(model)[1]["split_conditions"][0] = std::numeric_limits<double>::infinity();
  EXPECT_NE(LoadError(model).find("trees[1].split_conditions[0]: expected a finite number"),
            std::string::npos)
      << LoadError(model);

  model = TrainedModel();
  model["learner"]["gradient_booster"]["model"]["tree_info"][2] = 1;
  EXPECT_NE(LoadError(model).find("model.tree_info[2]: expected an output group in [0, 1)"),
            std::string::npos)
      << LoadError(model);
}

TEST(XgboostModelCheckTest, ParametersMustBeIntegersInRange) {
  Json model = TrainedModel();
  Trees(model)[0]["tree_param"]["num_nodes"] = "7x";
  EXPECT_NE(LoadError(model).find("trees[0].tree_param.num_nodes: '7x' is not an integer"),
            std::string::npos)
      << LoadError(model);

  model = TrainedModel();
  Trees(model)[0]["tree_param"]["num_nodes"] = "0";
  EXPECT_NE(LoadError(model).find("num_nodes: 0 is outside"), std::string::npos)
      << LoadError(model);

  model = TrainedModel();
  model["learner"]["gradient_booster"]["model"]["gbtree_model_param"]["num_trees"] = "5";
  EXPECT_NE(LoadError(model).find("expected an array of gbtree_model_param.num_trees = 5 trees"),
            std::string::npos)
      << LoadError(model);
}

TEST(XgboostModelCheckTest, CategoricalSplitsOtherBoostersAndNonJsonAreRefused) {
  Json model = TrainedModel();
  Trees(model)[0]["split_type"][0] = 1;
  EXPECT_NE(LoadError(model).find("split_type[0]: a categorical split"), std::string::npos)
      << LoadError(model);

  model = TrainedModel();
  model["learner"]["gradient_booster"]["name"] = "gblinear";
  EXPECT_NE(LoadError(model).find("\"gblinear\" is not a booster glimpse reads; accepted: "
                                  "\"gbtree\", \"dart\""),
            std::string::npos)
      << LoadError(model);

  const std::string message = ErrorMessageOf([] {
    XgbBooster booster(nullptr);
    booster.LoadJson(std::string("{\"learner\": "));
  });
  EXPECT_EQ(message.rfind("XGBoost model: not JSON", 0), 0u) << message;
}

}  // namespace
}  // namespace glimpse::model
