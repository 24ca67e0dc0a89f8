// Metrics of tuning runs (see glimpse/evaluation.h and docs/bench-results.md): pure functions of
// RunRecords and the space's optimum.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "glimpse/error.h"
#include "glimpse/evaluation.h"

namespace glimpse {

namespace {

constexpr double kTolerance = 1e-9;  // relative, so that a tie with the optimum reaches 1.0
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool Reaches(double best_time_s, double optimum_s, double fraction) {
  return optimum_s / best_time_s >= fraction * (1.0 - kTolerance);
}

// The measurement count a run that never got there is counted at.
double RunBudget(const RunRecord& run) {
  if (run.stop_reason == "space exhausted" || run.max_measurements <= 0) {
    return static_cast<double>(run.measurements);
  }
  return static_cast<double>(run.max_measurements);
}

// True when the run's best-so-far at `checkpoint` is known: the budget reaches it, or the run
// exhausted the space (its best cannot change any more).
bool CoversCheckpoint(const RunRecord& run, int64_t checkpoint) {
  if (run.stop_reason == "space exhausted") return true;
  if (run.max_measurements > 0) return checkpoint <= run.max_measurements;
  return checkpoint <= run.measurements;
}

}  // namespace

double Quantile(std::vector<double> values, double q) {
  if (values.empty()) return kNaN;
  std::sort(values.begin(), values.end());
  const double position = q * static_cast<double>(values.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(position));
  const size_t above = std::min(below + 1, values.size() - 1);
  const double weight = position - static_cast<double>(below);
  return values[below] + weight * (values[above] - values[below]);
}

Quantiles ComputeQuantiles(const std::vector<double>& values) {
  return {Quantile(values, 0.5), Quantile(values, 0.25), Quantile(values, 0.75)};
}

double PerformanceAt(const RunRecord& run, double optimum_s, int64_t measurement) {
  double best = 0.0;
  for (const CurvePoint& point : run.best_curve) {
    if (point.measurement > measurement) break;
    best = optimum_s / point.best_time_s;
  }
  return best;
}

Reach MeasurementsToFraction(const RunRecord& run, double optimum_s, double fraction) {
  for (const CurvePoint& point : run.best_curve) {
    if (Reaches(point.best_time_s, optimum_s, fraction)) {
      return {static_cast<double>(point.measurement), true};
    }
  }
  return {RunBudget(run), false};
}

Reach SimulatedSecondsToFraction(const RunRecord& run, double optimum_s, double fraction) {
  for (const CurvePoint& point : run.best_curve) {
    if (Reaches(point.best_time_s, optimum_s, fraction)) return {point.simulated_s, true};
  }
  return {run.simulated_s, false};
}

RunSummary SummarizeRuns(const std::vector<const RunRecord*>& runs, double optimum_s,
                         const StudySettings& settings) {
  RunSummary summary;
  if (runs.empty()) return summary;
  summary.space = runs.front()->space;
  summary.tool = runs.front()->tool;
  summary.strategy = runs.front()->strategy;
  summary.runs = static_cast<int64_t>(runs.size());

  auto reach_quantiles = [&](auto&& reach_of) {
    std::vector<double> values;
    ReachQuantiles out;
    for (const RunRecord* run : runs) {
      Reach reach = reach_of(*run);
      values.push_back(reach.value);
      if (!reach.reached) ++out.not_reached;
    }
    out.q = ComputeQuantiles(values);
    return out;
  };
  for (double fraction : settings.fractions) {
    summary.measurements_to_fraction[fraction] = reach_quantiles(
        [&](const RunRecord& run) { return MeasurementsToFraction(run, optimum_s, fraction); });
  }
  summary.simulated_s_to_95 = reach_quantiles(
      [&](const RunRecord& run) { return SimulatedSecondsToFraction(run, optimum_s, 0.95); });

  for (int64_t checkpoint : settings.checkpoints) {
    std::vector<double> values;
    for (const RunRecord* run : runs) {
      if (CoversCheckpoint(*run, checkpoint)) {
        values.push_back(PerformanceAt(*run, optimum_s, checkpoint));
      }
    }
    if (!values.empty()) summary.fraction_at[checkpoint] = ComputeQuantiles(values);
  }

  std::vector<double> failed, cpu, batch, batch_best;
  for (const RunRecord* run : runs) {
    // Holes of a partial recording are not the kernel's failures (RunRecord::not_recorded).
    failed.push_back(run->measurements > 0 ? static_cast<double>(run->failed - run->not_recorded) /
                                                 static_cast<double>(run->measurements)
                                           : 0.0);
    if (!std::isnan(run->tuner_cpu_s)) cpu.push_back(run->tuner_cpu_s);
    batch.insert(batch.end(), run->first_batch_performance.begin(),
                 run->first_batch_performance.end());
    if (!run->first_batch_performance.empty()) {
      batch_best.push_back(*std::max_element(run->first_batch_performance.begin(),
                                             run->first_batch_performance.end()));
    }
  }
  summary.failed_fraction = ComputeQuantiles(failed);
  summary.tuner_cpu_s = ComputeQuantiles(cpu);
  summary.first_batch = ComputeQuantiles(batch);
  summary.first_batch_best_median = Quantile(batch_best, 0.5);
  return summary;
}

void Summarize(StudyResults& results) {
  std::map<std::string, double> optimum;
  for (const SpaceInfo& space : results.spaces) optimum[space.id] = space.optimum_s;
  // Grouped in order of first appearance of the space, then tool and strategy.
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<const RunRecord*>> groups;
  for (const RunRecord& run : results.runs) {
    if (!optimum.count(run.space)) {
      throw Error("run of space '" + run.space + "' (" + run.tool + " " + run.strategy + ", seed " +
                  std::to_string(run.seed) + "): the space is not in 'spaces'");
    }
    groups[{run.space, run.tool, run.strategy}].push_back(&run);
  }
  results.summaries.clear();
  for (const SpaceInfo& space : results.spaces) {
    for (auto& [key, runs] : groups) {
      if (std::get<0>(key) != space.id) continue;
      std::sort(runs.begin(), runs.end(),
                [](const RunRecord* a, const RunRecord* b) { return a->seed < b->seed; });
      results.summaries.push_back(SummarizeRuns(runs, space.optimum_s, results.settings));
    }
  }
}

}  // namespace glimpse
