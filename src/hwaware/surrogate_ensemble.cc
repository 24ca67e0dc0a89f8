// The Glimpse tuner's surrogate (glimpse/glimpse_tuner.h): XGBoost regressors on bootstrap
// resamples of the observations; their mean is the prediction, their spread the uncertainty.
//
// Units. Every member sees the scores divided by the largest score of ALL the observations, so
// that the incumbent is 1 and a failure 0 for every member. The XGBoost cost model divides its
// labels by their maximum once more inside (cost_model.h); a resample that missed the incumbent
// has a smaller maximum r ≤ 1 and learns labels in units of r. Its predictions are multiplied by
// r, which brings every member back to the common unit; without it, members that missed the
// incumbent would overstate every score and inflate the spread.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "glimpse/cost_model.h"
#include "glimpse/error.h"
#include "glimpse/glimpse_tuner.h"

namespace glimpse {
namespace {

// Early stopping of a member: a-recall@k on its own training rows (cost_model.h). A small k
// follows the head of the ranking, which is what the annealer and the acquisition look at.
constexpr int kMemberRecallK = 16;
// The member seeds apart from the ensemble's resampling stream.
constexpr uint64_t kMemberSeedStride = 0x9E37'79B9'7F4A'7C15ULL;
constexpr uint64_t kSeedMask = 0x7FFF'FFFF;

}  // namespace

struct SurrogateEnsemble::Impl {
  const ConfigSpace* space = nullptr;
  SurrogateOptions options;
  Rng rng;
  uint64_t seed = 0;
  std::vector<std::unique_ptr<CostModel>> members;
  std::vector<double> member_scale;  // r of each member (see the file comment)
  bool fitted = false;
};

SurrogateEnsemble::SurrogateEnsemble(const ConfigSpace& space, SurrogateOptions options,
                                     uint64_t seed)
    : impl_(std::make_unique<Impl>()) {
  if (options.members < 1) {
    throw Error(fmt::format("surrogate: members must be ≥ 1 (got {})", options.members));
  }
  if (options.num_boost_round < 1) {
    throw Error(
        fmt::format("surrogate: num_boost_round must be ≥ 1 (got {})", options.num_boost_round));
  }
  FeatureKindFromName(options.feature_type);  // Error naming the accepted values
  impl_->space = &space;
  impl_->options = std::move(options);
  impl_->rng.seed(seed);
  impl_->seed = seed;
}

SurrogateEnsemble::~SurrogateEnsemble() = default;
SurrogateEnsemble::SurrogateEnsemble(SurrogateEnsemble&&) noexcept = default;
SurrogateEnsemble& SurrogateEnsemble::operator=(SurrogateEnsemble&&) noexcept = default;

void SurrogateEnsemble::Fit(const std::vector<Config>& configs, const std::vector<double>& scores) {
  if (configs.empty()) throw Error("surrogate: Fit needs at least one observation");
  if (configs.size() != scores.size()) {
    throw Error(fmt::format("surrogate: Fit got {} configurations but {} scores", configs.size(),
                            scores.size()));
  }
  double max_score = 0.0;
  for (size_t i = 0; i < scores.size(); ++i) {
    if (!std::isfinite(scores[i]) || scores[i] < 0.0) {
      throw Error(
          fmt::format("surrogate: score {} is {}; scores must be finite and ≥ 0 (0 for "
                      "failures)",
                      i, scores[i]));
    }
    max_score = std::max(max_score, scores[i]);
  }
  const double scale = max_score > 0.0 ? 1.0 / max_score : 0.0;
  Impl& m = *impl_;
  const size_t n = configs.size();
  m.members.clear();
  m.member_scale.clear();
  for (int member = 0; member < m.options.members; ++member) {
    std::vector<Config> rows(n);
    std::vector<double> labels(n);
    double resample_max = 0.0;
    for (size_t i = 0; i < n; ++i) {
      const size_t pick = UniformIndex(m.rng, n);
      rows[i] = configs[pick];
      labels[i] = scores[pick] * scale;
      resample_max = std::max(resample_max, labels[i]);
    }
    XgbCostModelOptions xgb;
    xgb.loss_type = "reg";
    xgb.feature_type = m.options.feature_type;
    xgb.num_threads = m.options.num_threads;
    xgb.num_boost_round = m.options.num_boost_round;
    xgb.recall_k = kMemberRecallK;
    // XGBoost reads its seed as a signed integer.
    xgb.seed = (m.seed + kMemberSeedStride * static_cast<uint64_t>(member + 1)) & kSeedMask;
    std::unique_ptr<CostModel> model = MakeXgbCostModel(*m.space, xgb);
    model->Fit(rows, labels);
    m.members.push_back(std::move(model));
    m.member_scale.push_back(resample_max);
  }
  m.fitted = true;
}

bool SurrogateEnsemble::IsFitted() const { return impl_ && impl_->fitted; }

SurrogateEnsemble::Prediction SurrogateEnsemble::Predict(const std::vector<Config>& configs) const {
  if (!IsFitted()) throw Error("surrogate: Predict before Fit; fit it on observations first");
  const Impl& m = *impl_;
  Prediction out;
  out.mean.assign(configs.size(), 0.0);
  out.std.assign(configs.size(), 0.0);
  if (configs.empty()) return out;
  // Two passes over the members' predictions: the mean, then the squared deviations from it.
  std::vector<std::vector<double>> predictions;
  predictions.reserve(m.members.size());
  for (size_t k = 0; k < m.members.size(); ++k) {
    std::vector<double> p = m.members[k]->Predict(configs);
    for (double& value : p) value *= m.member_scale[k];
    for (size_t i = 0; i < p.size(); ++i) out.mean[i] += p[i];
    predictions.push_back(std::move(p));
  }
  const double count = static_cast<double>(m.members.size());
  for (double& value : out.mean) value /= count;
  for (const std::vector<double>& p : predictions) {
    for (size_t i = 0; i < p.size(); ++i) out.std[i] += (p[i] - out.mean[i]) * (p[i] - out.mean[i]);
  }
  for (double& value : out.std) value = std::sqrt(value / count);
  return out;
}

}  // namespace glimpse
