// Deep Gaussian-process transfer learning (glimpse/dgp_tuner.h).
//
// Map: Init (the encoder, a fresh model; Pretrain on the context's history) · Pretrain (the source
// model on drawn history records; the target model starts as its copy) · PlanTuningSet (the
// pretrained model's best candidates, the rest random) · Propose (tuning set, then expected
// improvement over Candidates) · UpdateModel (MAP adaptation when due, else conditioning) ·
// Observe (records with the source model's prediction).
#include "glimpse/dgp_tuner.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numbers>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/model_search.h"
#include "glimpse/random.h"
#include "model/config_encoding.h"
#include "model/deep_kernel.h"

namespace glimpse {

namespace model {

namespace {

// The prior precision while pretraining: weak weight decay towards the random initialisation.
constexpr double kPretrainPrecision = 1e-2;
// The latent standard deviation under which EI is the plain improvement.
constexpr double kMinSigma = 1e-9;

struct Observation {
  Config config;
  bool ok = false;
  double log_time = 0.0;    // log seconds, when ok
  double prior_mean = 0.0;  // the source model's prediction m(x), 0 without transfer
};

bool Succeeded(const MeasureResult& result) {
  return result.ok() && std::isfinite(result.time_s) && result.time_s > 0.0;
}

double NormalPdf(double z) { return std::exp(-0.5 * z * z) / std::sqrt(2.0 * std::numbers::pi); }
double NormalCdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// Expected improvement below `best` (minimisation) of N(mean, variance) with margin xi.
double ExpectedImprovement(double mean, double variance, double best, double xi) {
  const double sigma = std::sqrt(std::max(variance, 0.0));
  const double improvement = best - mean - xi;
  if (sigma < kMinSigma) return std::max(improvement, 0.0);
  const double z = improvement / sigma;
  return improvement * NormalCdf(z) + sigma * NormalPdf(z);
}

class DgpTuner : public Tuner {
 public:
  explicit DgpTuner(DgpTunerOptions options) : options_(std::move(options)) { options_.Validate(); }

  std::string Name() const override { return "dgp"; }
  using Tuner::Init;
  void Init(const TuningContext& context) override;
  std::vector<Config> Propose(size_t n) override;
  void Observe(const std::vector<Config>& configs,
               const std::vector<MeasureResult>& results) override;

 private:
  std::vector<size_t> Widths() const;
  void Pretrain(const TransferHistory& history);
  void PlanTuningSet();
  void UpdateModel();
  void Standardise();
  DeepKernelData TrainingData(const std::vector<size_t>& rows) const;
  std::vector<Config> Candidates();
  std::vector<double> SourceMean(const std::vector<Config>& configs) const;
  std::optional<Config> RandomFresh() { return sampler_.Next(rng_, visited_); }
  bool HandOut(const Config& config, std::vector<Config>& out) {
    if (!visited_.insert(config).second) return false;
    out.push_back(config);
    return true;
  }
  void RequireInit(const char* call) const {
    if (space_ == nullptr) throw Error("tuner 'dgp': " + std::string(call) + " before Init");
  }

  DgpTunerOptions options_;
  const ConfigSpace* space_ = nullptr;
  Rng rng_;
  ConfigEncoder encoder_;
  ConfigSet visited_;  // proposed or observed
  UnvisitedSampler sampler_;
  std::unique_ptr<DeepKernelGp> source_;  // pretrained on the history; null without transfer
  std::unique_ptr<DeepKernelGp> model_;   // the run's
  std::vector<double> reference_;         // the MAP prior's centre
  double y_mean_ = 0.0, y_scale_ = 1.0;   // log-time standardisation
  std::vector<Observation> observations_;
  bool tuning_planned_ = false;
  std::vector<Config> tuning_set_;  // the model's picks of the tuning set
  size_t tuning_pt_ = 0;
  size_t tuning_random_left_ = 0;  // random members of the tuning set still to hand out
  bool adapted_ = false;
  size_t adapted_at_ = 0;      // observations at the last adaptation
  size_t conditioned_at_ = 0;  // observations the model is conditioned on
};

std::vector<size_t> DgpTuner::Widths() const {
  std::vector<size_t> widths{encoder_.width()};
  for (int l = 0; l < options_.hidden_layers; ++l) {
    widths.push_back(static_cast<size_t>(options_.hidden_width));
  }
  widths.push_back(static_cast<size_t>(options_.feature_width));
  return widths;
}

void DgpTuner::Init(const TuningContext& context) {
  space_ = &context.task->space;
  rng_.seed(context.seed);
  encoder_ = ConfigEncoder(*space_);
  if (encoder_.width() == 0) throw Error("tuner 'dgp': the task's space has no knobs");
  visited_.clear();
  sampler_.Reset(space_);
  source_.reset();
  observations_.clear();
  tuning_planned_ = false;
  tuning_set_.clear();
  tuning_pt_ = 0;
  tuning_random_left_ = 0;
  adapted_ = false;
  adapted_at_ = conditioned_at_ = 0;
  y_mean_ = 0.0;
  y_scale_ = 1.0;
  model_ = std::make_unique<DeepKernelGp>(Widths());
  model_->InitRandom(rng_);
  if (context.knowledge.history.size() >= static_cast<size_t>(options_.min_history_records)) {
    Pretrain(context.knowledge.history);
  }
  reference_ = model_->params();
  model_->Condition(TrainingData({}));
}

void DgpTuner::Pretrain(const TransferHistory& history) {
  for (size_t i = 0; i < history.size(); ++i) {
    if (!space_->InRange(history[i].first)) {
      throw Error("tuner 'dgp': history record " + std::to_string(i) +
                  " is not a configuration of this task's space");
    }
  }
  // history_samples records drawn without replacement (a partial Fisher–Yates shuffle).
  std::vector<size_t> order(history.size());
  std::iota(order.begin(), order.end(), size_t{0});
  const size_t drawn = std::min(order.size(), static_cast<size_t>(options_.history_samples));
  for (size_t i = 0; i < drawn; ++i)
    std::swap(order[i], order[i + UniformIndex(rng_, order.size() - i)]);
  order.resize(drawn);

  std::vector<Config> configs;
  std::vector<double> log_times;
  std::vector<bool> ok;
  double sum = 0.0, sum_sq = 0.0, worst = -std::numeric_limits<double>::infinity();
  size_t successes = 0;
  for (size_t index : order) {
    const auto& [config, result] = history[index];
    configs.push_back(config);
    ok.push_back(Succeeded(result));
    log_times.push_back(ok.back() ? std::log(result.time_s) : 0.0);
    if (ok.back()) {
      ++successes;
      sum += log_times.back();
      sum_sq += log_times.back() * log_times.back();
      worst = std::max(worst, log_times.back());
    }
  }
  if (successes < 2) return;  // nothing to learn a landscape from
  y_mean_ = sum / static_cast<double>(successes);
  const double variance = sum_sq / static_cast<double>(successes) - y_mean_ * y_mean_;
  y_scale_ = variance > 1e-12 ? std::sqrt(variance) : 1.0;

  DeepKernelData data;
  data.inputs = encoder_.Encode(configs);
  for (size_t i = 0; i < configs.size(); ++i) {
    data.targets.push_back(((ok[i] ? log_times[i] : worst) - y_mean_) / y_scale_);
  }
  data.prior_mean.assign(configs.size(), 0.0);

  source_ = std::make_unique<DeepKernelGp>(Widths());
  source_->InitRandom(rng_);
  DeepKernelFitOptions fit;
  fit.steps = options_.pretrain_steps;
  fit.learning_rate = options_.learning_rate;
  fit.batch = static_cast<size_t>(options_.pretrain_batch);
  fit.prior_precision = kPretrainPrecision;
  const std::vector<double> init = source_->params();
  source_->Fit(data, init, fit, rng_);  // ends conditioned on every drawn record

  // The run's model: the pretrained network and hyperparameters, y = 1·m(x) + 0 + f(h(x)).
  *model_ = *source_;
  std::vector<double>& theta = model_->params();
  theta[theta.size() - 2] = 1.0;
  theta[theta.size() - 1] = 0.0;
}

std::vector<double> DgpTuner::SourceMean(const std::vector<Config>& configs) const {
  std::vector<double> mean(configs.size(), 0.0);
  if (source_ && !configs.empty()) {
    source_->Predict(encoder_.Encode(configs), std::vector<double>(configs.size(), 0.0), &mean,
                     nullptr);
  }
  return mean;
}

void DgpTuner::Standardise() {
  if (source_) return;  // the history's standardisation stays
  double sum = 0.0, sum_sq = 0.0;
  size_t successes = 0;
  for (const Observation& o : observations_) {
    if (!o.ok) continue;
    ++successes;
    sum += o.log_time;
    sum_sq += o.log_time * o.log_time;
  }
  if (successes == 0) return;
  y_mean_ = sum / static_cast<double>(successes);
  const double variance = sum_sq / static_cast<double>(successes) - y_mean_ * y_mean_;
  y_scale_ = variance > 1e-12 ? std::sqrt(variance) : 1.0;
}

DeepKernelData DgpTuner::TrainingData(const std::vector<size_t>& rows) const {
  double worst = -std::numeric_limits<double>::infinity();
  for (const Observation& o : observations_) {
    if (o.ok) worst = std::max(worst, o.log_time);
  }
  DeepKernelData data;
  for (size_t row : rows) {
    const Observation& o = observations_[row];
    if (!o.ok && !std::isfinite(worst)) continue;  // no success yet to stand in for a failure
    encoder_.Append(o.config, data.inputs);
    data.targets.push_back(((o.ok ? o.log_time : worst) - y_mean_) / y_scale_);
    data.prior_mean.push_back(o.prior_mean);
  }
  return data;
}

void DgpTuner::UpdateModel() {
  const size_t n = observations_.size();
  std::vector<size_t> all(n);
  std::iota(all.begin(), all.end(), size_t{0});
  if (!adapted_ || n >= adapted_at_ + static_cast<size_t>(options_.adapt_every)) {
    Standardise();
    std::vector<size_t> rows = all;
    const size_t cap = static_cast<size_t>(options_.adapt_max_points);
    if (rows.size() > cap) {
      for (size_t i = 0; i < cap; ++i) std::swap(rows[i], rows[i + UniformIndex(rng_, n - i)]);
      rows.resize(cap);
    }
    DeepKernelFitOptions fit;
    fit.steps = options_.adapt_steps;
    fit.learning_rate = options_.learning_rate;
    fit.prior_precision = options_.prior_precision;
    model_->Fit(TrainingData(rows), reference_, fit, rng_);
    if (rows.size() != n) model_->Condition(TrainingData(all));
    adapted_ = true;
    adapted_at_ = conditioned_at_ = n;
  } else if (conditioned_at_ != n) {
    model_->Condition(TrainingData(all));
    conditioned_at_ = n;
  }
}

std::vector<Config> DgpTuner::Candidates() {
  ConfigSet seen;
  std::vector<Config> pool;
  // Every unvisited neighbour of the best observations (the search's local part).
  std::vector<size_t> ranked;
  for (size_t i = 0; i < observations_.size(); ++i) {
    if (observations_[i].ok) ranked.push_back(i);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [&](size_t a, size_t b) {
    return observations_[a].log_time < observations_[b].log_time;
  });
  ranked.resize(std::min(ranked.size(), static_cast<size_t>(options_.local_top)));
  for (size_t i : ranked) {
    for (Config& neighbour : space_->Neighbours(observations_[i].config, true)) {
      if (!visited_.count(neighbour) && seen.insert(neighbour).second) {
        pool.push_back(std::move(neighbour));
      }
    }
  }
  // Random unvisited valid configurations (the global part).
  for (int draw = 0; draw < options_.pool_size; ++draw) {
    std::optional<Config> config = space_->SampleValid(rng_);
    if (!config) break;
    if (!visited_.count(*config) && seen.insert(*config).second) pool.push_back(std::move(*config));
  }
  if (pool.empty()) {
    // Mostly visited: the sampler finds the rest (exactly, for enumerable spaces).
    if (std::optional<Config> config = RandomFresh()) pool.push_back(std::move(*config));
  }
  return pool;
}

void DgpTuner::PlanTuningSet() {
  tuning_planned_ = true;
  const size_t size = static_cast<size_t>(options_.tuning_set_size);
  size_t guided = 0;
  if (source_) {
    guided = static_cast<size_t>(
        std::llround(static_cast<double>(size) * (1.0 - options_.tuning_random_fraction)));
    std::vector<Config> pool = Candidates();
    std::vector<double> mean;
    model_->Predict(encoder_.Encode(pool), SourceMean(pool), &mean, nullptr);
    std::vector<size_t> order(pool.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return mean[a] < mean[b]; });
    for (size_t i = 0; i < order.size() && tuning_set_.size() < guided; ++i) {
      tuning_set_.push_back(pool[order[i]]);
    }
  }
  tuning_random_left_ = size - std::min(size, tuning_set_.size());
}

std::vector<Config> DgpTuner::Propose(size_t n) {
  RequireInit("Propose");
  if (!tuning_planned_) PlanTuningSet();
  std::vector<Config> out;
  for (; tuning_pt_ < tuning_set_.size() && out.size() < n; ++tuning_pt_) {
    HandOut(tuning_set_[tuning_pt_], out);
  }
  while (out.size() < n && tuning_random_left_ > 0) {
    std::optional<Config> config = RandomFresh();
    if (!config) return out;  // the space is exhausted
    --tuning_random_left_;
    HandOut(*config, out);
  }
  const bool any_success = std::any_of(observations_.begin(), observations_.end(),
                                       [](const Observation& o) { return o.ok; });
  if (out.size() < n && any_success) {
    UpdateModel();
    std::vector<Config> pool = Candidates();
    std::vector<double> mean, variance;
    model_->Predict(encoder_.Encode(pool), SourceMean(pool), &mean, &variance);
    double best = std::numeric_limits<double>::infinity();
    for (const Observation& o : observations_) {
      if (o.ok) best = std::min(best, (o.log_time - y_mean_) / y_scale_);
    }
    std::vector<double> ei(pool.size());
    for (size_t i = 0; i < pool.size(); ++i) {
      ei[i] = ExpectedImprovement(mean[i], variance[i], best, options_.exploration);
    }
    std::vector<size_t> order(pool.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      if (ei[a] != ei[b]) return ei[a] > ei[b];
      return mean[a] < mean[b];
    });
    for (size_t i = 0; i < order.size() && out.size() < n; ++i) HandOut(pool[order[i]], out);
  }
  // Before any success, or when the candidates ran short: random unvisited configurations.
  while (out.size() < n) {
    std::optional<Config> config = RandomFresh();
    if (!config) break;
    HandOut(*config, out);
  }
  return out;
}

void DgpTuner::Observe(const std::vector<Config>& configs,
                       const std::vector<MeasureResult>& results) {
  RequireInit("Observe");
  if (configs.size() != results.size()) {
    throw Error("tuner 'dgp': Observe got " + std::to_string(configs.size()) +
                " configurations but " + std::to_string(results.size()) + " results");
  }
  for (size_t i = 0; i < configs.size(); ++i) {
    if (!space_->InRange(configs[i])) {
      throw Error("tuner 'dgp': observed configuration " + std::to_string(i) +
                  " is not in the task's space");
    }
  }
  const std::vector<double> prior = SourceMean(configs);
  for (size_t i = 0; i < configs.size(); ++i) {
    Observation o;
    o.config = configs[i];
    o.ok = Succeeded(results[i]);
    o.log_time = o.ok ? std::log(results[i].time_s) : 0.0;
    o.prior_mean = prior[i];
    observations_.push_back(std::move(o));
    visited_.insert(configs[i]);  // also covers records of a resumed run
  }
}

}  // namespace

}  // namespace model

std::unique_ptr<Tuner> MakeDgpTuner(const DgpTunerOptions& options) {
  return std::make_unique<model::DgpTuner>(options);
}

}  // namespace glimpse
