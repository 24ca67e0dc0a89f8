// AutoTVM's XGBoostCostModel on XGBoost's C API.
//
// Map: features (ConfigSpace::WriteFeatures → float32 rows) · Fit (normalise scores by their
// maximum, shuffle rows, optional discounted base-model margin, boost round by round with
// AutoTVM's a-recall@k early stopping) · Predict (margins, plus the base margin) · Save/Load (a
// JSON file wrapping XGBoost's JSON model with the feature version).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <thread>

#include "glimpse/cost_model.h"
#include "glimpse/error.h"
#include "glimpse/json_fields.h"
#include "glimpse/random.h"
#include "model/ranking.h"
#include "model/xgboost_api.h"

namespace glimpse {

namespace {

constexpr const char* kFileFormat = "glimpse-cost-model";
constexpr const char* kModelFamily = "glimpse-xgb/1";
// AutoTVM: the base model's margin is discounted by 2^(−n/64) and dropped under 0.05.
constexpr double kBaseDiscountSamples = 64.0;
constexpr double kMinBaseDiscount = 0.05;

class XgbCostModel : public CostModel {
 public:
  XgbCostModel(const ConfigSpace& space, XgbCostModelOptions options)
      : space_(space),
        options_(std::move(options)),
        kind_(FeatureKindFromName(options_.feature_type)),
        width_(space.FeatureWidth(kind_)),
        rng_(options_.seed) {}

  std::string FeatureVersion() const override {
    return std::string(kModelFamily) + " features=" + options_.feature_type +
           " width=" + std::to_string(width_) + " space=" + HashToHex(space_.Fingerprint());
  }

  void Fit(const std::vector<Config>& configs, const std::vector<double>& scores) override;
  std::vector<double> Predict(const std::vector<Config>& configs) const override;
  bool IsFitted() const override { return booster_ != nullptr; }

  void SetBaseModel(std::shared_ptr<const CostModel> base) override { base_ = std::move(base); }
  bool HasBaseModel() const override { return base_ != nullptr; }

  void Save(const std::string& path) const override;
  void Load(const std::string& path) override;

 private:
  int Threads() const {
    if (options_.num_threads > 0) return options_.num_threads;
    return std::max(1u, std::thread::hardware_concurrency());
  }
  double BaseDiscount() const {
    return 1.0 / std::pow(2.0, static_cast<double>(sample_size_) / kBaseDiscountSamples);
  }
  std::vector<float> Features(const std::vector<Config>& configs) const;
  // discount · base.Predict(configs), as float margins.
  std::vector<float> BaseMargin(const std::vector<Config>& configs) const;
  void SetParams(model::XgbBooster& booster) const;

  const ConfigSpace& space_;
  XgbCostModelOptions options_;
  FeatureKind kind_;
  int width_;
  Rng rng_;
  std::unique_ptr<model::XgbBooster> booster_;
  std::shared_ptr<const CostModel> base_;
  size_t sample_size_ = 0;  // training rows of the last Fit (drives the base discount)
};

std::vector<float> XgbCostModel::Features(const std::vector<Config>& configs) const {
  std::vector<float> out(configs.size() * width_);
  std::vector<double> row(width_);
  for (size_t i = 0; i < configs.size(); ++i) {
    space_.WriteFeatures(configs[i], kind_, row.data());
    std::copy(row.begin(), row.end(), out.begin() + i * width_);
  }
  return out;
}

std::vector<float> XgbCostModel::BaseMargin(const std::vector<Config>& configs) const {
  std::vector<double> base = base_->Predict(configs);
  const double discount = BaseDiscount();
  std::vector<float> margin(base.size());
  for (size_t i = 0; i < base.size(); ++i) margin[i] = static_cast<float>(discount * base[i]);
  return margin;
}

void XgbCostModel::SetParams(model::XgbBooster& booster) const {
  // AutoTVM's xgb_params; everything else stays at XGBoost's defaults.
  booster.SetParam("max_depth", "3");
  booster.SetParam("gamma", "0.0001");
  booster.SetParam("min_child_weight", "1");
  booster.SetParam("subsample", "1.0");
  booster.SetParam("eta", "0.3");
  booster.SetParam("lambda", "1.0");
  booster.SetParam("alpha", "0");
  booster.SetParam("objective", options_.loss_type == "reg" ? "reg:squarederror" : "rank:pairwise");
  booster.SetParam("nthread", std::to_string(Threads()));
  booster.SetSeed(options_.seed);
  booster.SetParam("verbosity", "0");
}

void XgbCostModel::Fit(const std::vector<Config>& configs, const std::vector<double>& scores) {
  if (configs.size() != scores.size()) {
    throw Error("cost model: Fit got " + std::to_string(configs.size()) + " configurations but " +
                std::to_string(scores.size()) + " scores; give one score per configuration");
  }
  if (configs.empty()) throw Error("cost model: Fit needs at least one configuration");
  double max_score = 0.0;
  for (size_t i = 0; i < scores.size(); ++i) {
    if (!std::isfinite(scores[i]) || scores[i] < 0.0) {
      throw Error("cost model: score " + std::to_string(i) + " is " + std::to_string(scores[i]) +
                  "; scores must be finite and ≥ 0 (0 for failed configurations)");
    }
    max_score = std::max(max_score, scores[i]);
  }
  // AutoTVM: y / max(y_max, 1e-8), rows in a random permutation.
  const double scale = 1.0 / std::max(max_score, 1e-8);
  std::vector<size_t> order(configs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[UniformIndex(rng_, i)]);
  std::vector<Config> rows(configs.size());
  std::vector<float> labels(configs.size());
  for (size_t i = 0; i < order.size(); ++i) {
    rows[i] = configs[order[i]];
    labels[i] = static_cast<float>(scores[order[i]] * scale);
  }
  sample_size_ = rows.size();

  model::XgbMatrix train(Features(rows), rows.size(), width_);
  train.SetFloatInfo("label", labels);
  if (base_ != nullptr) {
    if (BaseDiscount() < kMinBaseDiscount) {
      base_.reset();
    } else {
      train.SetFloatInfo("base_margin", BaseMargin(rows));
    }
  }

  auto booster = std::make_unique<model::XgbBooster>(&train);
  SetParams(*booster);
  // AutoTVM's custom_callback: evaluate a-recall@k on the training set after every round; stop
  // once `early_stopping_rounds` rounds passed without a strictly better score. All trees are
  // kept (the booster is not cut back to the best round), as in AutoTVM.
  model::AverageRecall metric(labels, static_cast<size_t>(options_.recall_k));
  double best_score = -std::numeric_limits<double>::infinity();
  int best_round = 0;
  for (int round = 0; round < options_.num_boost_round; ++round) {
    booster->UpdateOneIter(round, train);
    const double score = metric.Score(booster->PredictMargin(train));
    if (options_.log_interval > 0 && round % options_.log_interval == 0) {
      std::clog << "XGB iter: " << round << "\ttr-a-recall@" << options_.recall_k << ": " << score
                << "\n";
    }
    if (score > best_score) {
      best_score = score;
      best_round = round;
    } else if (round - best_round >= options_.early_stopping_rounds) {
      break;
    }
  }
  booster_ = std::move(booster);
}

std::vector<double> XgbCostModel::Predict(const std::vector<Config>& configs) const {
  if (booster_ == nullptr) {
    throw Error("cost model: Predict before Fit or Load; fit the model on measurements first");
  }
  if (configs.empty()) return {};
  model::XgbMatrix data(Features(configs), configs.size(), width_);
  if (base_ != nullptr) data.SetFloatInfo("base_margin", BaseMargin(configs));
  std::vector<float> margin = booster_->PredictMargin(data);
  return std::vector<double>(margin.begin(), margin.end());
}

void XgbCostModel::Save(const std::string& path) const {
  if (booster_ == nullptr) {
    throw Error("cost model: cannot save to '" + path + "' before Fit or Load");
  }
  Json file = {{"format", kFileFormat},
               {"feature_version", FeatureVersion()},
               {"loss_type", options_.loss_type},
               {"sample_size", sample_size_},
               {"booster", Json::parse(booster_->SaveJson())}};
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw Error("cost model: cannot open '" + path + "' for writing");
  out << file.dump() << "\n";
  out.close();
  if (!out) throw Error("cost model: writing '" + path + "' failed");
}

void XgbCostModel::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cost model file '" + path + "': cannot open it for reading");
  std::stringstream buffer;
  buffer << in.rdbuf();
  Json file = Json::parse(buffer.str(), nullptr, /*allow_exceptions=*/false);
  if (file.is_discarded() || !file.is_object() || StringOr(file, "format") != kFileFormat ||
      !file.contains("feature_version") || !file["feature_version"].is_string() ||
      !file.contains("booster")) {
    throw Error("cost model file '" + path +
                "': not a glimpse cost model (expected a JSON "
                "object with format \"" +
                kFileFormat + "\", feature_version and booster)");
  }
  const std::string version = file["feature_version"].get<std::string>();
  if (version != FeatureVersion()) {
    throw Error("cost model file '" + path + "': feature version '" + version +
                "' does not match this model's '" + FeatureVersion() + "'");
  }
  auto booster = std::make_unique<model::XgbBooster>(nullptr);
  booster->LoadJson(file["booster"]);
  booster->SetParam("nthread", std::to_string(Threads()));
  booster_ = std::move(booster);
  sample_size_ = file.contains("sample_size") && file["sample_size"].is_number_unsigned()
                     ? file["sample_size"].get<size_t>()
                     : 0;
  base_.reset();
}

}  // namespace

void XgbCostModelOptions::Validate() const {
  if (loss_type != "rank" && loss_type != "reg") {
    throw Error("cost model: loss_type '" + loss_type + "' is unknown; accepted: rank, reg");
  }
  FeatureKindFromName(feature_type);
  if (num_threads < 0) throw Error("cost model: num_threads must be ≥ 0 (0: every core)");
  if (num_boost_round < 1) throw Error("cost model: num_boost_round must be ≥ 1");
  if (early_stopping_rounds < 1) throw Error("cost model: early_stopping_rounds must be ≥ 1");
  if (recall_k < 1) throw Error("cost model: recall_k must be ≥ 1");
  if (log_interval < 0) throw Error("cost model: log_interval must be ≥ 0 (0: silent)");
}

FeatureKind FeatureKindFromName(const std::string& feature_type) {
  if (feature_type == "knob") return FeatureKind::kKnobValues;
  if (feature_type == "index") return FeatureKind::kKnobIndices;
  throw Error("cost model: feature_type '" + feature_type + "' is unknown; accepted: knob, index");
}

std::unique_ptr<CostModel> MakeXgbCostModel(const ConfigSpace& space,
                                            const XgbCostModelOptions& options) {
  options.Validate();
  return std::make_unique<XgbCostModel>(space, options);
}

}  // namespace glimpse
