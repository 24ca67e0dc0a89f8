// XgbTunerOptions from the command line's JSON and their validation.
#include <algorithm>
#include <string>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/model_tuner.h"
#include "glimpse/strategy_options.h"
#include "model/tuner_internal.h"

namespace glimpse {

namespace model {

namespace {

std::optional<std::string> StringOption(const Json& options, const std::string& tuner,
                                        const std::string& key) {
  if (!options.is_object() || !options.contains(key)) return std::nullopt;
  const Json& value = options.at(key);
  if (!value.is_string()) {
    throw Error("tuner '" + tuner + "': option '" + key + "' must be a string (got " +
                value.dump() + ")");
  }
  return value.get<std::string>();
}

int IntValue(const Json& options, const std::string& tuner, const std::string& key, int fallback) {
  std::optional<int64_t> value = tuner::IntOption(options, tuner, key);
  if (!value) return fallback;
  if (*value < INT32_MIN || *value > INT32_MAX) {
    throw Error("tuner '" + tuner + "': option '" + key + "' is out of range (" +
                std::to_string(*value) + ")");
  }
  return static_cast<int>(*value);
}

}  // namespace

XgbTunerOptions ApplyJsonOptions(XgbTunerOptions options, const Json& json,
                                 const std::string& tuner_name) {
  tuner::CheckOptionKeys(
      json, tuner_name,
      {"budget_rounds", "diversity_filter_ratio", "e0_size", "e0_valid", "feature_type",
       "log_interval", "loss_type", "min_seed_records", "n_parallel", "n_samples", "num_threads",
       "optimizer", "plan_size", "pretrained", "sa_early_stop", "sa_n_iter", "sa_parallel_size",
       "validity_init"});
  options.plan_size = IntValue(json, tuner_name, "plan_size", options.plan_size);
  options.budget_rounds = IntValue(json, tuner_name, "budget_rounds", options.budget_rounds);
  options.num_threads = IntValue(json, tuner_name, "num_threads", options.num_threads);
  options.log_interval = IntValue(json, tuner_name, "log_interval", options.log_interval);
  options.sa_parallel_size =
      IntValue(json, tuner_name, "sa_parallel_size", options.sa_parallel_size);
  options.sa_n_iter = IntValue(json, tuner_name, "sa_n_iter", options.sa_n_iter);
  options.sa_early_stop = IntValue(json, tuner_name, "sa_early_stop", options.sa_early_stop);
  options.min_seed_records =
      IntValue(json, tuner_name, "min_seed_records", options.min_seed_records);
  options.n_parallel = IntValue(json, tuner_name, "n_parallel", options.n_parallel);
  options.n_samples = IntValue(json, tuner_name, "n_samples", options.n_samples);
  options.e0_size = IntValue(json, tuner_name, "e0_size", options.e0_size);
  options.e0_valid = IntValue(json, tuner_name, "e0_valid", options.e0_valid);
  if (json.is_object() && json.contains("validity_init")) {
    const Json& value = json.at("validity_init");
    if (!value.is_boolean()) {
      throw Error("tuner '" + tuner_name + "': option 'validity_init' must be true or false (got " +
                  value.dump() + ")");
    }
    options.validity_init = value.get<bool>();
  }
  if (auto value = StringOption(json, tuner_name, "loss_type")) options.loss_type = *value;
  if (auto value = StringOption(json, tuner_name, "feature_type")) options.feature_type = *value;
  if (auto value = StringOption(json, tuner_name, "optimizer")) options.optimizer = *value;
  if (auto value = StringOption(json, tuner_name, "pretrained")) options.pretrained = *value;
  if (json.is_object() && json.contains("diversity_filter_ratio") &&
      !json.at("diversity_filter_ratio").is_null()) {
    options.diversity_filter_ratio =
        tuner::NumberOption(json, tuner_name, "diversity_filter_ratio");
  }
  options.Validate(tuner_name);
  return options;
}

}  // namespace model

XgbTunerOptions XgbTunerOptions::FromJson(const Json& options, const std::string& tuner_name) {
  return model::ApplyJsonOptions(XgbTunerOptions{}, options, tuner_name);
}

int XgbTunerOptions::PlanSizeForBudget(int64_t max_measurements) const {
  // A plan shorter than this gives the model too few new points per fit to be worth one.
  constexpr int64_t kShortestBudgetPlan = 8;
  if (budget_rounds <= 0 || max_measurements <= 0) return plan_size;
  const int64_t round = (max_measurements + budget_rounds - 1) / budget_rounds;
  return static_cast<int>(
      std::min<int64_t>(plan_size, std::max<int64_t>(round, kShortestBudgetPlan)));
}

void XgbTunerOptions::Validate(const std::string& tuner_name) const {
  const std::string prefix = "tuner '" + tuner_name + "': option '";
  auto at_least = [&](const char* key, int value, int minimum) {
    if (value < minimum) {
      throw Error(prefix + key + "' must be ≥ " + std::to_string(minimum) + " (got " +
                  std::to_string(value) + ")");
    }
  };
  at_least("plan_size", plan_size, 1);
  at_least("budget_rounds", budget_rounds, 0);
  at_least("num_threads", num_threads, 0);
  at_least("log_interval", log_interval, 0);
  at_least("sa_parallel_size", sa_parallel_size, 1);
  at_least("sa_n_iter", sa_n_iter, 0);
  at_least("sa_early_stop", sa_early_stop, 1);
  at_least("min_seed_records", min_seed_records, 0);
  at_least("n_parallel", n_parallel, 1);
  at_least("n_samples", n_samples, 1);
  at_least("e0_size", e0_size, 1);
  at_least("e0_valid", e0_valid, 0);
  if (e0_valid > e0_size) {
    throw Error(prefix + "e0_valid' must be ≤ e0_size (" + std::to_string(e0_size) + "; got " +
                std::to_string(e0_valid) + ")");
  }
  if (loss_type != "rank" && loss_type != "reg") {
    throw Error(prefix + "loss_type' is '" + loss_type + "'; accepted: rank, reg");
  }
  if (feature_type != "knob" && feature_type != "index") {
    throw Error(prefix + "feature_type' is '" + feature_type + "'; accepted: knob, index");
  }
  if (pretrained != "base" && pretrained != "first-plan" && pretrained != "choose") {
    throw Error(prefix + "pretrained' is '" + pretrained + "'; accepted: base, first-plan, choose");
  }
  if (optimizer != "sa") {
    throw Error(prefix + "optimizer' is '" + optimizer + "'; accepted: sa");
  }
  if (diversity_filter_ratio && !(*diversity_filter_ratio >= 1.0)) {
    throw Error(prefix + "diversity_filter_ratio' must be ≥ 1 (got " +
                std::to_string(*diversity_filter_ratio) + ")");
  }
}

}  // namespace glimpse
