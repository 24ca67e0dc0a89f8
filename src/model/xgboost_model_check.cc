#include "model/xgboost_model_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/whole_number.h"

namespace glimpse::model {
namespace {

[[noreturn]] void Fail(const std::string& where, const std::string& what) {
  throw Error(fmt::format("XGBoost model: {}: {}", where, what));
}

const Json& Field(const Json& object, const std::string& name, const std::string& where) {
  if (!object.is_object()) Fail(where, "expected an object");
  auto it = object.find(name);
  if (it == object.end()) Fail(where, fmt::format("missing field '{}'", name));
  return *it;
}

// XGBoost writes its parameters as decimal strings ("num_nodes": "101").
int64_t IntegerParameter(const Json& object, const std::string& name, const std::string& where,
                         int64_t min, int64_t max) {
  const Json& value = Field(object, name, where);
  const std::string path = where + "." + name;
  int64_t parsed = 0;
  if (value.is_number_integer()) {
    parsed = value.get<int64_t>();
  } else if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    const std::optional<int64_t> number = WholeNumber<int64_t>(text);
    if (!number) Fail(path, fmt::format("'{}' is not an integer", text));
    parsed = *number;
  } else {
    Fail(path, "expected an integer (as a string, the way XGBoost writes it)");
  }
  if (parsed < min || parsed > max) {
    Fail(path, fmt::format("{} is outside [{}, {}]", parsed, min, max));
  }
  return parsed;
}

// A number XGBoost can read back: JSON has no infinity (a huge literal parses as one, and would
// be written out as null).
bool Finite(const Json& value) { return value.is_number() && std::isfinite(value.get<double>()); }

enum class Element { kInteger, kNumber };

// A per-node array: present, `count` entries long, each of the kind XGBoost reads it as.
const Json& NodeArray(const Json& tree, const std::string& name, const std::string& where,
                      int64_t count, Element kind) {
  const Json& array = Field(tree, name, where);
  const std::string path = where + "." + name;
  if (!array.is_array()) Fail(path, "expected an array");
  if (static_cast<int64_t>(array.size()) != count) {
    Fail(path, fmt::format("{} entries; tree_param.num_nodes says {}", array.size(), count));
  }
  for (size_t i = 0; i < array.size(); ++i) {
    const bool ok = kind == Element::kInteger ? array[i].is_number_integer() : Finite(array[i]);
    if (!ok) {
      Fail(fmt::format("{}[{}]", path, i),
           kind == Element::kInteger ? "expected an integer" : "expected a finite number");
    }
  }
  return array;
}

void CheckTree(const Json& tree, const std::string& where, int64_t num_feature) {
  if (!tree.is_object()) Fail(where, "expected an object");
  const Json& param = Field(tree, "tree_param", where);
  const int64_t n = IntegerParameter(param, "num_nodes", where + ".tree_param", 1, INT32_MAX);
  IntegerParameter(param, "size_leaf_vector", where + ".tree_param", 0, 1);

  const Json& left = NodeArray(tree, "left_children", where, n, Element::kInteger);
  const Json& right = NodeArray(tree, "right_children", where, n, Element::kInteger);
  const Json& feature = NodeArray(tree, "split_indices", where, n, Element::kInteger);
  NodeArray(tree, "parents", where, n, Element::kInteger);
  NodeArray(tree, "default_left", where, n, Element::kInteger);
  for (const char* name : {"split_conditions", "base_weights", "loss_changes", "sum_hessian"}) {
    NodeArray(tree, name, where, n, Element::kNumber);
  }
  if (tree.contains("split_type")) {
    const Json& type = NodeArray(tree, "split_type", where, n, Element::kInteger);
    for (size_t i = 0; i < type.size(); ++i) {
      if (type[i].get<int64_t>() != 0) {
        Fail(fmt::format("{}.split_type[{}]", where, i),
             "a categorical split; glimpse's models have numerical splits only");
      }
    }
  }
  for (const char* name :
       {"categories", "categories_nodes", "categories_segments", "categories_sizes"}) {
    if (tree.contains(name) && !(tree.at(name).is_array() && tree.at(name).empty())) {
      Fail(where + "." + name, "expected an empty array (glimpse's models have no categories)");
    }
  }

  // Walk the tree from its root: every child index inside the tree, a node reached at most once
  // (no loops, no shared children), both children or none. Unreached nodes are deleted ones.
  std::vector<bool> reached(static_cast<size_t>(n), false);
  std::vector<int64_t> pending = {0};
  reached[0] = true;
  while (!pending.empty()) {
    const int64_t node = pending.back();
    pending.pop_back();
    const int64_t l = left[node].get<int64_t>();
    const int64_t r = right[node].get<int64_t>();
    const std::string at = fmt::format("{} node {}", where, node);
    if (l == -1 && r == -1) continue;  // a leaf
    if (l == -1 || r == -1) Fail(at, fmt::format("one child only (left {}, right {})", l, r));
    const int64_t f = feature[node].get<int64_t>();
    if (f < 0 || f >= num_feature) {
      Fail(at, fmt::format("splits on feature {}; the model has {} features", f, num_feature));
    }
    for (int64_t child : {l, r}) {
      if (child <= 0 || child >= n) {
        Fail(at, fmt::format("child {} is outside the tree's nodes 1..{}", child, n - 1));
      }
      if (reached[child]) Fail(at, fmt::format("child {} is reached twice", child));
      reached[child] = true;
      pending.push_back(child);
    }
  }
}

void CheckTrees(const Json& model, const std::string& where, int64_t num_feature, int64_t groups) {
  const Json& param = Field(model, "gbtree_model_param", where);
  const int64_t count =
      IntegerParameter(param, "num_trees", where + ".gbtree_model_param", 0, INT32_MAX);
  const Json& trees = Field(model, "trees", where);
  if (!trees.is_array() || static_cast<int64_t>(trees.size()) != count) {
    Fail(where + ".trees",
         fmt::format("expected an array of gbtree_model_param.num_trees = {} trees", count));
  }
  const Json& info = Field(model, "tree_info", where);
  if (!info.is_array() || static_cast<int64_t>(info.size()) != count) {
    Fail(where + ".tree_info", fmt::format("expected an array of {} output groups", count));
  }
  std::vector<bool> seen(static_cast<size_t>(count), false);
  for (int64_t t = 0; t < count; ++t) {
    const std::string at = fmt::format("{}.trees[{}]", where, t);
    if (!info[t].is_number_integer() || info[t].get<int64_t>() < 0 ||
        info[t].get<int64_t>() >= groups) {
      Fail(fmt::format("{}.tree_info[{}]", where, t),
           fmt::format("expected an output group in [0, {})", groups));
    }
    const Json& id = Field(trees[t], "id", at);
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() >= count) {
      Fail(at + ".id", fmt::format("expected an integer in [0, {})", count));
    }
    if (seen[id.get<int64_t>()]) {
      Fail(at + ".id", fmt::format("{} is the id of an earlier tree too", id.get<int64_t>()));
    }
    seen[id.get<int64_t>()] = true;
    CheckTree(trees[t], at, num_feature);
  }
}

}  // namespace

void CheckXgbModelJson(const Json& model) {
  const Json& learner = Field(model, "learner", "model");
  const Json& param = Field(learner, "learner_model_param", "learner");
  const std::string param_at = "learner.learner_model_param";
  const int64_t num_feature = IntegerParameter(param, "num_feature", param_at, 0, INT32_MAX);
  int64_t groups = 1;
  for (const char* name : {"num_class", "num_target"}) {
    if (param.contains(name)) {
      groups = std::max(groups, IntegerParameter(param, name, param_at, 0, 1 << 20));
    }
  }
  const Json& booster = Field(learner, "gradient_booster", "learner");
  const std::string booster_at = "learner.gradient_booster";
  const Json& name = Field(booster, "name", booster_at);
  if (name == "gbtree") {
    CheckTrees(Field(booster, "model", booster_at), booster_at + ".model", num_feature, groups);
  } else if (name == "dart") {
    const Json& gbtree = Field(booster, "gbtree", booster_at);
    const Json& model_json = Field(gbtree, "model", booster_at + ".gbtree");
    CheckTrees(model_json, booster_at + ".gbtree.model", num_feature, groups);
    const Json& weights = Field(booster, "weight_drop", booster_at);
    const bool numbers = weights.is_array() && std::all_of(weights.begin(), weights.end(), Finite);
    if (!numbers || weights.size() != model_json.at("trees").size()) {
      Fail(booster_at + ".weight_drop", "expected one number per tree");
    }
  } else {
    Fail(booster_at + ".name",
         fmt::format("{} is not a booster glimpse reads; accepted: \"gbtree\", \"dart\"",
                     name.dump()));
  }
}

}  // namespace glimpse::model
