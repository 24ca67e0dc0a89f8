// Training the validity ensemble (validity_ensemble.h):
//
//   GroupSpaces            recorded spaces → kernel spaces (name + knob names), one per GPU
//   FeaturesOf             single knobs (and, as an option, products of two knobs)
//   BestThreshold          per GPU and direction: the one-sided threshold of best balanced accuracy
//   FitRidge               Blueprint → threshold across the training GPUs (dual form, n × n)
//   TrainKernel            direction choice, the generator, the always-valid predictors
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "glimpse/error.h"
#include "glimpse/validity_ensemble.h"
#include "hwaware/ensemble_internal.h"

namespace glimpse {
namespace {

struct Feature {
  std::string name;
  std::vector<std::string> knobs;
  FeatureScale scale;
  bool derived;
};

std::vector<Feature> FeaturesOf(const ConfigSpace& space, bool derived) {
  std::vector<Feature> out;
  std::vector<size_t> log2_knobs;
  for (size_t i = 0; i < space.NumKnobs(); ++i) {
    const Knob& knob = space.knobs()[i];
    std::optional<FeatureScale> scale = hwaware::ScaleOfKnob(knob);
    if (!scale) continue;
    out.push_back({knob.name(), {knob.name()}, *scale, false});
    // Products only make sense of positive numbers (threads = bx · by, tile areas, …).
    if (*scale == FeatureScale::kLog2 && knob.kind() == KnobKind::kOrdered) log2_knobs.push_back(i);
  }
  if (derived) {
    for (size_t a = 0; a < log2_knobs.size(); ++a) {
      for (size_t b = a + 1; b < log2_knobs.size(); ++b) {
        const std::string& x = space.knobs()[log2_knobs[a]].name();
        const std::string& y = space.knobs()[log2_knobs[b]].name();
        out.push_back({x + "*" + y, {x, y}, FeatureScale::kLog2, true});
      }
    }
  }
  return out;
}

// Per distinct feature value (ascending): how many recorded failures and ok entries have it.
struct ValueCounts {
  std::vector<double> values;
  std::vector<int64_t> failures, ok;
  int64_t total_failures = 0, total_ok = 0;
};

ValueCounts CountValues(const RecordedSpace& recorded, const Feature& feature) {
  std::vector<size_t> positions;
  std::vector<std::vector<double>> contributions;
  for (const std::string& name : feature.knobs) {
    size_t p = recorded.space.KnobIndex(name);
    positions.push_back(p);
    contributions.push_back(hwaware::KnobContributions(recorded.space.knobs()[p], feature.scale));
  }
  std::map<double, std::pair<int64_t, int64_t>> counts;
  for (const auto& [index, entry] : recorded.entries) {
    Config config = recorded.space.FromDenseIndex(index);
    double x = hwaware::FactorIdentity(feature.scale);
    for (size_t f = 0; f < positions.size(); ++f) {
      x = hwaware::CombineFactors(feature.scale, x, contributions[f][config.indices[positions[f]]]);
    }
    auto& c = counts[x];
    (entry.status == MeasureStatus::kOk ? c.second : c.first)++;
  }
  ValueCounts out;
  for (const auto& [x, c] : counts) {
    out.values.push_back(x);
    out.failures.push_back(c.first);
    out.ok.push_back(c.second);
    out.total_failures += c.first;
    out.total_ok += c.second;
  }
  return out;
}

struct Threshold {
  double value = 0.0;
  double balanced_accuracy = 0.5;
};

// A threshold between values[j] and values[j + 1]; j = −1 and j = m − 1 are half a step beyond
// the ends, so that "rejects nothing" and "rejects everything" are thresholds like the others
// (and a GPU without failures teaches the generator "beyond the range").
double Cut(const std::vector<double>& v, int j) {
  int m = static_cast<int>(v.size());
  double step = m >= 2 ? (j < 0 ? v[1] - v[0] : v[m - 1] - v[m - 2]) : 1.0;
  if (j < 0) return v[0] - step / 2;
  if (j >= m - 1) return v[m - 1] + step / 2;
  return (v[j] + v[j + 1]) / 2;
}

// The best one-sided threshold of `direction` on one GPU's counts. Ties go to the threshold that
// rejects less (scanning from "rejects nothing" inwards, replacing only on a strict gain).
Threshold BestThreshold(const ValueCounts& c, ThresholdDirection direction,
                        double false_rejection_weight) {
  int m = static_cast<int>(c.values.size());
  bool above = direction == ThresholdDirection::kInvalidAbove;
  if (c.total_failures == 0) return {Cut(c.values, above ? m - 1 : -1), 0.5};
  if (c.total_ok == 0) return {Cut(c.values, above ? -1 : m - 1), 1.0};
  // Score: recall − weight × false-rejection rate (weight 1: balanced accuracy − 0.5, doubled).
  auto recall = [&](int64_t f) { return static_cast<double>(f) / c.total_failures; };
  auto false_rate = [&](int64_t o) { return static_cast<double>(o) / c.total_ok; };
  Threshold best{Cut(c.values, above ? m - 1 : -1), 0.5};
  double best_score = 0.0;
  int64_t f = 0, o = 0;  // rejected so far
  auto consider = [&](int j) {
    double s = recall(f) - false_rejection_weight * false_rate(o);
    if (s > best_score + 1e-12) {
      best_score = s;
      best = {Cut(c.values, j), 0.5 * (recall(f) + 1.0 - false_rate(o))};
    }
  };
  if (above) {
    // Threshold between j and j + 1 rejects values j + 1 .. m − 1.
    for (int j = m - 2; j >= -1; --j) {
      f += c.failures[j + 1];
      o += c.ok[j + 1];
      consider(j);
    }
  } else {
    // Threshold between j and j + 1 rejects values 0 .. j.
    for (int j = 0; j <= m - 1; ++j) {
      f += c.failures[j];
      o += c.ok[j];
      consider(j);
    }
  }
  return best;
}

// Ridge regression y ≈ wᵀx + b with an unpenalised intercept, in the dual form
// w = Xcᵀ (Xc Xcᵀ + λ I)⁻¹ yc, which needs only an n × n solve for n training GPUs.
void FitRidge(const std::vector<std::vector<double>>& x, const std::vector<double>& y,
              double lambda, std::vector<double>* w, double* b) {
  size_t n = x.size(), d = x[0].size();
  std::vector<double> mean_x(d, 0.0);
  double mean_y = 0.0;
  for (size_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < d; ++k) mean_x[k] += x[i][k] / n;
    mean_y += y[i] / n;
  }
  // A = Xc Xcᵀ + λI, augmented with yc.
  std::vector<std::vector<double>> a(n, std::vector<double>(n + 1, 0.0));
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      double dot = 0.0;
      for (size_t k = 0; k < d; ++k) dot += (x[i][k] - mean_x[k]) * (x[j][k] - mean_x[k]);
      a[i][j] = dot + (i == j ? lambda : 0.0);
    }
    a[i][n] = y[i] - mean_y;
  }
  // Gaussian elimination with partial pivoting; A is symmetric positive definite for λ > 0.
  for (size_t col = 0; col < n; ++col) {
    size_t pivot = col;
    for (size_t r = col + 1; r < n; ++r) {
      if (std::abs(a[r][col]) > std::abs(a[pivot][col])) pivot = r;
    }
    std::swap(a[col], a[pivot]);
    for (size_t r = 0; r < n; ++r) {
      if (r == col) continue;
      double factor = a[r][col] / a[col][col];
      for (size_t c = col; c <= n; ++c) a[r][c] -= factor * a[col][c];
    }
  }
  std::vector<double> alpha(n);
  for (size_t i = 0; i < n; ++i) alpha[i] = a[i][n] / a[i][i];
  w->assign(d, 0.0);
  for (size_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < d; ++k) (*w)[k] += alpha[i] * (x[i][k] - mean_x[k]);
  }
  *b = mean_y;
  for (size_t k = 0; k < d; ++k) *b -= (*w)[k] * mean_x[k];
}

struct GpuSpace {
  const ValidityTrainingSpace* space;
  std::vector<double> theta;  // Blueprint
  int64_t failures = 0;
};

KnobPredictor TrainPredictor(const Feature& feature, const std::vector<GpuSpace>& gpus,
                             const ValidityEnsembleOptions& options) {
  KnobPredictor p;
  p.feature = feature.name;
  p.knobs = feature.knobs;
  p.scale = feature.scale;
  std::vector<ValueCounts> counts;
  int with_failures = 0;
  for (const GpuSpace& g : gpus) {
    counts.push_back(CountValues(*g.space->recorded, feature));
    with_failures += counts.back().total_failures > 0 && counts.back().total_ok > 0;
  }
  // The direction that separates best on average over the GPUs whose space has both kinds.
  ThresholdDirection best_direction = ThresholdDirection::kNever;
  double best_mean = 0.0;
  std::vector<Threshold> best_thresholds;
  for (ThresholdDirection direction :
       {ThresholdDirection::kInvalidAbove, ThresholdDirection::kInvalidBelow}) {
    std::vector<Threshold> thresholds;
    double sum = 0.0;
    for (const ValueCounts& c : counts) {
      thresholds.push_back(BestThreshold(c, direction, options.false_rejection_weight));
      if (c.total_failures > 0 && c.total_ok > 0) sum += thresholds.back().balanced_accuracy;
    }
    double mean = with_failures ? sum / with_failures : 0.5;
    if (best_direction == ThresholdDirection::kNever || mean > best_mean + 1e-12) {
      best_direction = direction;
      best_mean = mean;
      best_thresholds = thresholds;
    }
  }
  p.mean_balanced_accuracy = best_mean;
  for (size_t i = 0; i < gpus.size(); ++i) {
    p.training.push_back({gpus[i].space->gpu.name, best_thresholds[i].value,
                          best_thresholds[i].balanced_accuracy, counts[i].total_failures});
  }
  if (with_failures == 0) {
    p.note = "no training GPU has both recorded failures and valid configurations";
    return p;
  }
  if (best_mean < options.min_balanced_accuracy) {
    p.note = fmt::format("separates no failures: best mean balanced accuracy {:.3f} < {:.3f}",
                         best_mean, options.min_balanced_accuracy);
    return p;
  }
  p.direction = best_direction;
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  for (size_t i = 0; i < gpus.size(); ++i) {
    x.push_back(gpus[i].theta);
    y.push_back(best_thresholds[i].value);
  }
  FitRidge(x, y, options.ridge_lambda, &p.weights, &p.bias);
  if (options.clamp_to_training) {
    p.clamped = true;
    p.min_threshold = *std::min_element(y.begin(), y.end());
    p.max_threshold = *std::max_element(y.begin(), y.end());
  }
  return p;
}

std::vector<std::string> KnobNames(const ConfigSpace& space) {
  std::vector<std::string> names;
  for (const Knob& knob : space.knobs()) names.push_back(knob.name());
  return names;
}

}  // namespace

ValidityEnsembleModel ValidityEnsembleModel::Train(const std::vector<ValidityTrainingSpace>& spaces,
                                                   const Blueprint& blueprint,
                                                   const ValidityEnsembleOptions& options) {
  if (spaces.empty()) throw Error("validity ensemble: no recorded spaces to train on");
  if (!(options.tau >= 0.0 && options.tau < 1.0)) {
    throw Error(fmt::format("tau {} is out of range; accepted: 0 ≤ tau < 1", options.tau));
  }
  if (!(options.false_rejection_weight > 0.0)) {
    throw Error(fmt::format("false rejection weight {} is out of range; accepted: > 0",
                            options.false_rejection_weight));
  }
  if (!(options.ridge_lambda > 0.0)) {
    throw Error(
        fmt::format("ridge lambda {} is out of range; accepted: > 0", options.ridge_lambda));
  }
  ValidityEnsembleModel model;
  model.options_ = options;
  model.blueprint_version_ = kBlueprintVersion;
  model.blueprint_components_ = blueprint.components();
  model.blueprint_training_gpus_ = blueprint.training_gpus();

  // Kernel spaces in order of first appearance: (name, sorted knob names) → spaces.
  std::vector<std::pair<std::string, std::set<std::string>>> keys;
  std::vector<std::vector<const ValidityTrainingSpace*>> groups;
  for (const ValidityTrainingSpace& s : spaces) {
    if (!s.recorded) throw Error("validity ensemble: a training space without a recorded space");
    std::string name = s.name.empty() ? s.recorded->kernel_name : s.name;
    std::vector<std::string> knobs = KnobNames(s.recorded->space);
    auto key = std::make_pair(name, std::set<std::string>(knobs.begin(), knobs.end()));
    auto it = std::find(keys.begin(), keys.end(), key);
    if (it == keys.end()) {
      keys.push_back(key);
      groups.emplace_back();
      it = keys.end() - 1;
    }
    auto& group = groups[it - keys.begin()];
    for (const ValidityTrainingSpace* other : group) {
      if (other->gpu.name == s.gpu.name) {
        throw Error(
            fmt::format("validity ensemble: kernel space '{}' has two recorded spaces of "
                        "{}: '{}' and '{}'; give one per GPU",
                        name, s.gpu.name, other->recorded->source_path, s.recorded->source_path));
      }
    }
    group.push_back(&s);
  }

  for (size_t g = 0; g < groups.size(); ++g) {
    KernelValidityModel kernel;
    const RecordedSpace& first = *groups[g][0]->recorded;
    kernel.name = keys[g].first;
    kernel.kernel = first.kernel_name;
    kernel.knobs = KnobNames(first.space);
    std::vector<GpuSpace> gpus;
    for (const ValidityTrainingSpace* s : groups[g]) {
      GpuSpace gs{s, blueprint.Embed(s->gpu), 0};
      for (const auto& [index, entry] : s->recorded->entries) {
        gs.failures += entry.status != MeasureStatus::kOk;
      }
      kernel.training.push_back({s->gpu.name, s->recorded->source_path,
                                 static_cast<int64_t>(s->recorded->entries.size()), gs.failures});
      gpus.push_back(std::move(gs));
    }
    // Features from the first space; every space of the group has the same knob names, and a
    // knob with one value in one file but more in another is judged by the first (rare).
    for (const Feature& feature : FeaturesOf(first.space, options.derived_features)) {
      KnobPredictor p = TrainPredictor(feature, gpus, options);
      // Derived predictors that separate nothing are left out rather than diluting the vote.
      if (feature.derived && !p.informative()) continue;
      kernel.predictors.push_back(std::move(p));
    }
    model.kernels_.push_back(std::move(kernel));
  }
  return model;
}

}  // namespace glimpse
