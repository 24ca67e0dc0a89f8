// GlimpseTunerOptions from the command line's (or a study's) JSON, and their validation.
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/glimpse_tuner.h"
#include "glimpse/strategy_options.h"

namespace glimpse {
namespace {

constexpr const char* kTuner = "glimpse";

std::string Prefix(const std::string& key) {
  return fmt::format("tuner '{}': option '{}'", kTuner, key);
}

// A text option. An integer is taken as its digits, since `--tuner-option device=3090` arrives
// as a number.
void ReadString(const Json& json, const std::string& key, std::string* out) {
  if (!json.is_object() || !json.contains(key)) return;
  const Json& value = json.at(key);
  if (value.is_string()) {
    *out = value.get<std::string>();
  } else if (value.is_number_integer()) {
    *out = std::to_string(value.get<int64_t>());
  } else {
    throw Error(Prefix(key) + " must be a string (got " + value.dump() + ")");
  }
}

void ReadInt(const Json& json, const std::string& key, int* out) {
  std::optional<int64_t> value = tuner::IntOption(json, kTuner, key);
  if (!value) return;
  if (*value < INT32_MIN || *value > INT32_MAX) {
    throw Error(fmt::format("{} is out of range (got {})", Prefix(key), *value));
  }
  *out = static_cast<int>(*value);
}

void ReadBool(const Json& json, const std::string& key, bool* out) {
  if (!json.is_object() || !json.contains(key)) return;
  const Json& value = json.at(key);
  if (value.is_boolean()) {
    *out = value.get<bool>();
  } else if (value == "true" || value == "false") {
    *out = value == "true";
  } else {
    throw Error(Prefix(key) + " must be true or false (got " + value.dump() + ")");
  }
}

// The options that are plain fields, by key and type (the surrogate's two are nested).
using Options = GlimpseTunerOptions;
constexpr std::pair<const char*, std::string Options::*> kStringOptions[] = {
    {"prior_model", &Options::prior_model},
    {"validity_model", &Options::validity_model},
    {"acquisition_model", &Options::acquisition_model},
    {"acquisition", &Options::acquisition},
    {"device", &Options::device},
    {"kernel", &Options::kernel}};
constexpr std::pair<const char*, int Options::*> kIntOptions[] = {
    {"initial_size", &Options::initial_size},
    {"pool_size", &Options::pool_size},
    {"prior_pool_size", &Options::prior_pool_size},
    {"history_pool_size", &Options::history_pool_size},
    {"budget", &Options::budget},
    {"sa_parallel_size", &Options::sa_parallel_size},
    {"sa_n_iter", &Options::sa_n_iter},
    {"sa_early_stop", &Options::sa_early_stop}};
constexpr std::pair<const char*, bool Options::*> kBoolOptions[] = {
    {"quiet", &Options::quiet},
    {"use_history", &Options::use_history},
    {"history_rejects_failures", &Options::history_rejects_failures}};

}  // namespace

GlimpseTunerOptions GlimpseTunerOptions::FromJson(const Json& json) {
  tuner::CheckOptionKeys(json, kTuner,
                         {"acquisition",
                          "acquisition_model",
                          "budget",
                          "device",
                          "initial_size",
                          "kernel",
                          "pool_size",
                          "prior_model",
                          "prior_pool_size",
                          "history_pool_size",
                          "history_rejects_failures",
                          "use_history",
                          "quiet",
                          "sa_early_stop",
                          "sa_n_iter",
                          "sa_parallel_size",
                          "surrogate_members",
                          "surrogate_rounds",
                          "ucb_kappa",
                          "validity_model"});
  GlimpseTunerOptions options;
  for (const auto& [key, member] : kStringOptions) ReadString(json, key, &(options.*member));
  for (const auto& [key, member] : kIntOptions) ReadInt(json, key, &(options.*member));
  for (const auto& [key, member] : kBoolOptions) ReadBool(json, key, &(options.*member));
  if (auto kappa = tuner::NumberOption(json, kTuner, "ucb_kappa")) options.ucb_kappa = *kappa;
  ReadInt(json, "surrogate_members", &options.surrogate.members);
  ReadInt(json, "surrogate_rounds", &options.surrogate.num_boost_round);
  options.Validate();
  return options;
}

void GlimpseTunerOptions::Validate() const {
  auto at_least = [](const char* key, int value, int minimum) {
    if (value < minimum) {
      throw Error(fmt::format("{} must be ≥ {} (got {})", Prefix(key), minimum, value));
    }
  };
  at_least("initial_size", initial_size, 0);
  at_least("pool_size", pool_size, 1);
  at_least("prior_pool_size", prior_pool_size, 0);
  at_least("history_pool_size", history_pool_size, 0);
  at_least("budget", budget, 1);
  at_least("surrogate_members", surrogate.members, 1);
  at_least("surrogate_rounds", surrogate.num_boost_round, 1);
  at_least("sa_parallel_size", sa_parallel_size, 1);
  at_least("sa_n_iter", sa_n_iter, 0);
  at_least("sa_early_stop", sa_early_stop, 1);
  if (!std::isfinite(ucb_kappa) || ucb_kappa < 0.0) {
    throw Error(
        fmt::format("{} must be a finite number ≥ 0 (got {})", Prefix("ucb_kappa"), ucb_kappa));
  }
  if (acquisition != "" && acquisition != "ucb" && acquisition != "learned") {
    throw Error(
        fmt::format("{} is '{}'; accepted: ucb, learned", Prefix("acquisition"), acquisition));
  }
  const bool names_model = !acquisition_model.empty() && acquisition_model != "none";
  if (acquisition == "ucb" && names_model) {
    throw Error(
        fmt::format("{} is '{}', but acquisition \"ucb\" uses no model: drop one of the "
                    "two, or give acquisition \"learned\"",
                    Prefix("acquisition_model"), acquisition_model));
  }
  if (acquisition == "learned" && acquisition_model == "none") {
    throw Error(
        fmt::format("{} is \"none\", but acquisition \"learned\" needs the network: "
                    "give its file, or \"\" for the shipped one",
                    Prefix("acquisition_model")));
  }
  if (surrogate.num_threads < 0) {
    throw Error(fmt::format("tuner '{}': surrogate num_threads must be ≥ 0 (got {})", kTuner,
                            surrogate.num_threads));
  }
  if (surrogate.feature_type != "knob" && surrogate.feature_type != "index") {
    throw Error(fmt::format("tuner '{}': surrogate feature_type is '{}'; accepted: knob, index",
                            kTuner, surrogate.feature_type));
  }
}

bool GlimpseTunerOptions::UsesLearnedAcquisition() const {
  if (!acquisition.empty()) return acquisition == "learned";
  return !acquisition_model.empty() && acquisition_model != "none";
}

}  // namespace glimpse
