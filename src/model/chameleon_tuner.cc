// Chameleon's adaptive sampling (Ahn et al., ICLR 2020) over the XGBoost tuner's machinery.
//
// Map: ChameleonOptions (JSON keys, validation) · ChameleonTuner::Init (the XGBoost cost model,
// the simulated annealing planner and the unvisited sampler of the xgb tuner) · Propose (hand out
// the plan cluster by cluster, the ε-greedy tail random, a new plan whenever one is used up) ·
// Observe (score 1/time or 0, as the xgb tuner) · MakePlan (refit when new results came in, SA
// candidates) · Cluster (k-means over k_min..k_max, k at the knee, one cluster per plan entry:
// members nearest the centroid first, plus the members' per-knob mode) · registration helper.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <numeric>

#include "glimpse/cost_model.h"
#include "glimpse/error.h"
#include "glimpse/model_search.h"
#include "glimpse/model_tuner.h"
#include "glimpse/strategy_options.h"
#include "model/kmeans.h"
#include "model/tuner_internal.h"

namespace glimpse {

namespace {

constexpr const char* kName = "chameleon";

std::optional<std::string> StringValue(const Json& options, const std::string& key) {
  if (!options.is_object() || !options.contains(key)) return std::nullopt;
  const Json& value = options.at(key);
  if (!value.is_string()) {
    throw Error(std::string("tuner '") + kName + "': option '" + key + "' must be a string (got " +
                value.dump() + ")");
  }
  return value.get<std::string>();
}

void ReadInt(const Json& options, const std::string& key, int& out) {
  std::optional<int64_t> value = tuner::IntOption(options, kName, key);
  if (!value) return;
  if (*value < INT32_MIN || *value > INT32_MAX) {
    throw Error(std::string("tuner '") + kName + "': option '" + key + "' is out of range (" +
                std::to_string(*value) + ")");
  }
  out = static_cast<int>(*value);
}

}  // namespace

ChameleonOptions ChameleonOptions::FromJson(const Json& json) {
  tuner::CheckOptionKeys(
      json, kName,
      {"candidate_ratio", "feature_type", "k_max", "k_min", "kmeans_max_iterations", "log_interval",
       "loss_type", "num_threads", "plan_size", "sa_early_stop", "sa_n_iter", "sa_parallel_size"});
  ChameleonOptions options;
  ReadInt(json, "plan_size", options.plan_size);
  ReadInt(json, "num_threads", options.num_threads);
  ReadInt(json, "log_interval", options.log_interval);
  ReadInt(json, "sa_parallel_size", options.sa_parallel_size);
  ReadInt(json, "sa_n_iter", options.sa_n_iter);
  ReadInt(json, "sa_early_stop", options.sa_early_stop);
  ReadInt(json, "k_min", options.k_min);
  ReadInt(json, "k_max", options.k_max);
  ReadInt(json, "kmeans_max_iterations", options.kmeans_max_iterations);
  if (auto value = StringValue(json, "loss_type")) options.loss_type = *value;
  if (auto value = StringValue(json, "feature_type")) options.feature_type = *value;
  if (auto value = tuner::NumberOption(json, kName, "candidate_ratio")) {
    options.candidate_ratio = *value;
  }
  options.Validate();
  return options;
}

void ChameleonOptions::Validate() const {
  // The model and planner options mean what they mean for the xgb tuner: validate them there.
  XgbTunerOptions model;
  model.plan_size = plan_size;
  model.loss_type = loss_type;
  model.feature_type = feature_type;
  model.num_threads = num_threads;
  model.log_interval = log_interval;
  model.sa_parallel_size = sa_parallel_size;
  model.sa_n_iter = sa_n_iter;
  model.sa_early_stop = sa_early_stop;
  model.Validate(kName);
  const std::string prefix = std::string("tuner '") + kName + "': option '";
  if (!(candidate_ratio >= 1.0) || !std::isfinite(candidate_ratio)) {
    throw Error(prefix + "candidate_ratio' must be a number ≥ 1 (got " +
                std::to_string(candidate_ratio) + ")");
  }
  if (k_min < 1) {
    throw Error(prefix + "k_min' must be ≥ 1 (got " + std::to_string(k_min) + ")");
  }
  if (k_max != 0 && k_max < k_min) {
    throw Error(prefix + "k_max' must be 0 (plan_size) or ≥ k_min = " + std::to_string(k_min) +
                " (got " + std::to_string(k_max) + ")");
  }
  if (kmeans_max_iterations < 1) {
    throw Error(prefix + "kmeans_max_iterations' must be ≥ 1 (got " +
                std::to_string(kmeans_max_iterations) + ")");
  }
}

namespace model {

namespace {

// One entry of a plan: a cluster of candidates.
struct PlannedCluster {
  std::vector<Config> members;  // nearest to the centroid first (ties: best predicted first)
  Config mode;                  // per knob, the members' most frequent value index
};

class ChameleonTuner : public Tuner {
 public:
  explicit ChameleonTuner(ChameleonOptions options) : options_(std::move(options)) {
    options_.Validate();
  }

  std::string Name() const override { return kName; }
  using Tuner::Init;
  void Init(const TuningContext& context) override;
  std::vector<Config> Propose(size_t n) override;
  void Observe(const std::vector<Config>& configs,
               const std::vector<MeasureResult>& results) override;

 private:
  bool MakePlan();
  std::vector<PlannedCluster> Cluster(const std::vector<Config>& candidates,
                                      ChameleonPlanInfo& info);
  std::optional<Config> PickFrom(const PlannedCluster& cluster) const;
  void RequireInit(const char* call) const {
    if (space_ == nullptr) {
      throw Error(std::string("tuner '") + kName + "': " + call + " before Init");
    }
  }

  ChameleonOptions options_;
  const ConfigSpace* space_ = nullptr;
  Rng rng_;
  ModelGuidedSearch search_;          // model, planner, sampler, scored observations
  std::vector<PlannedCluster> plan_;  // the current plan, best predicted representative first
  size_t plan_pt_ = 0;                // next entry of plan_
  size_t fitted_on_ = 0;              // observations the model was last fitted on (0: never)
};

void ChameleonTuner::Init(const TuningContext& context) {
  const Task& task = *context.task;
  const uint64_t seed = context.seed;
  space_ = &task.space;
  rng_.seed(seed);
  search_.Reset(*space_, options_, seed);
  plan_.clear();
  plan_pt_ = 0;
  fitted_on_ = 0;
}

std::vector<Config> ChameleonTuner::Propose(size_t n) {
  RequireInit("Propose");
  const size_t tail = PlanRandomTail(options_.plan_size);
  std::vector<Config> proposals;
  bool planner_dry = false;  // a plan came back empty in this call: do not ask again
  while (proposals.size() < n) {
    if (plan_pt_ >= plan_.size() && !planner_dry && !MakePlan()) planner_dry = true;
    std::optional<Config> pick;
    if (plan_pt_ >= plan_.size()) {
      pick = search_.sampler.Next(rng_,
                                  search_.visited);  // no model yet, or the planner found nothing
      if (!pick) break;                              // the space is exhausted
    } else {
      // ε-greedy: the last `tail` entries of a plan are random; at least one entry is planned.
      const size_t planned_slots = plan_.size() - std::min(tail, plan_.size() - 1);
      const size_t entry = plan_pt_++;
      if (entry >= planned_slots) {
        pick = search_.sampler.Next(rng_, search_.visited);
        if (!pick) break;
      } else {
        pick = PickFrom(plan_[entry]);
        if (!pick) continue;  // the whole cluster was observed after planning
      }
    }
    search_.visited.insert(*pick);
    proposals.push_back(std::move(*pick));
  }
  return proposals;
}

// The representative of a cluster; if it was observed after planning, Chameleon's sample
// synthesis (the members' per-knob mode) when that is a new valid configuration, else the nearest
// member not visited yet.
std::optional<Config> ChameleonTuner::PickFrom(const PlannedCluster& cluster) const {
  if (!search_.visited.count(cluster.members.front())) return cluster.members.front();
  if (!search_.visited.count(cluster.mode) && space_->IsValid(cluster.mode)) return cluster.mode;
  for (const Config& member : cluster.members) {
    if (!search_.visited.count(member)) return member;
  }
  return std::nullopt;
}

void ChameleonTuner::Observe(const std::vector<Config>& configs,
                             const std::vector<MeasureResult>& results) {
  RequireInit("Observe");
  search_.Record(*space_, kName, configs, results);
}

// Replaces the used-up plan. Returns false when there is no model yet (fewer than plan_size
// observations, or none succeeded: AutoTVM's condition for the first fit) or the planner found
// no unvisited candidate.
bool ChameleonTuner::MakePlan() {
  plan_.clear();
  plan_pt_ = 0;
  const size_t plan_size = static_cast<size_t>(options_.plan_size);
  if (search_.xs.size() < plan_size || !(search_.score_max > 0.0)) return false;
  ChameleonPlanInfo info;
  if (search_.xs.size() > fitted_on_) {
    search_.model->Fit(search_.xs, search_.ys);
    fitted_on_ = search_.xs.size();
    info.refitted = true;
  }
  const size_t wanted =
      std::max<size_t>(1, static_cast<size_t>(std::llround(plan_size * options_.candidate_ratio)));
  std::vector<Config> candidates =
      search_.optimizer->FindMaximums(*search_.model, wanted, search_.visited);
  info.candidates = candidates.size();
  if (!candidates.empty()) plan_ = Cluster(candidates, info);
  info.planned = plan_.size();
  if (options_.log_interval > 0) {
    std::clog << "chameleon plan: " << info.candidates << " candidates, k " << info.k << ", "
              << info.planned << " planned" << (info.refitted ? ", refitted" : "") << "\n";
  }
  if (options_.on_plan) options_.on_plan(info);
  return !plan_.empty();
}

std::vector<PlannedCluster> ChameleonTuner::Cluster(const std::vector<Config>& candidates,
                                                    ChameleonPlanInfo& info) {
  const size_t n = candidates.size();
  const size_t dims = static_cast<size_t>(space_->FeatureWidth(FeatureKind::kKnobIndices));
  PointSet raw{dims, {}};
  raw.values.resize(n * dims);
  for (size_t i = 0; i < n; ++i) {
    space_->WriteFeatures(candidates[i], FeatureKind::kKnobIndices, raw.values.data() + i * dims);
  }
  const PointSet points = Standardize(raw);

  const size_t k_cap = options_.k_max > 0 ? static_cast<size_t>(options_.k_max)
                                          : static_cast<size_t>(options_.plan_size);
  const size_t k_hi = std::min(k_cap, n);
  const size_t k_lo = std::min(static_cast<size_t>(options_.k_min), k_hi);
  std::vector<KMeansResult> runs;
  std::vector<double> ks;
  for (size_t k = k_lo; k <= k_hi; ++k) {
    runs.push_back(KMeans(points, k, rng_, options_.kmeans_max_iterations));
    ks.push_back(static_cast<double>(k));
    info.ks.push_back(k);
    info.inertia.push_back(runs.back().inertia);
  }
  const KMeansResult& chosen = runs[KneeIndex(ks, info.inertia)];
  info.k = chosen.centroids.size();

  // Members of each cluster, nearest to the centroid first; candidates are best predicted first,
  // so a stable sort breaks distance ties towards the better prediction.
  std::vector<std::vector<size_t>> members(info.k);
  for (size_t i = 0; i < n; ++i) members[chosen.assignment[i]].push_back(i);
  std::vector<PlannedCluster> plan;
  std::vector<size_t> representative;  // candidate rank of each planned cluster's first member
  for (size_t c = 0; c < info.k; ++c) {
    if (members[c].empty()) continue;
    const double* centre = chosen.centroids.row(c);
    std::vector<double> distance(n);
    for (size_t i : members[c]) distance[i] = SquaredDistance(points.row(i), centre, dims);
    std::stable_sort(members[c].begin(), members[c].end(),
                     [&](size_t a, size_t b) { return distance[a] < distance[b]; });
    PlannedCluster cluster;
    for (size_t i : members[c]) cluster.members.push_back(candidates[i]);
    // Per-knob mode; ties go to the value of the member nearest the centroid.
    cluster.mode = cluster.members.front();
    for (size_t knob = 0; knob < space_->NumKnobs(); ++knob) {
      std::map<uint32_t, size_t> counts;
      for (const Config& member : cluster.members) ++counts[member.indices[knob]];
      size_t best_count = 0;
      for (const Config& member : cluster.members) {
        const size_t count = counts[member.indices[knob]];
        if (count > best_count) {
          best_count = count;
          cluster.mode.indices[knob] = member.indices[knob];
        }
      }
    }
    plan.push_back(std::move(cluster));
    representative.push_back(members[c].front());
  }
  std::vector<size_t> order(plan.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return representative[a] < representative[b]; });
  std::vector<PlannedCluster> sorted;
  for (size_t index : order) sorted.push_back(std::move(plan[index]));
  return sorted;
}

}  // namespace

}  // namespace model

std::unique_ptr<Tuner> MakeChameleonTuner(const ChameleonOptions& options) {
  return std::make_unique<model::ChameleonTuner>(options);
}

}  // namespace glimpse
