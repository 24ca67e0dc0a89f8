// The evaluation metrics of glimpse/perf_eval.h: MAPE with the 5 µs cut, Kendall's τ-b within
// operators, top-k slowdown; all of them over a set of records and per operator kind.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <string>

#include "glimpse/error.h"
#include "glimpse/perf_eval.h"

namespace glimpse {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void CheckSizes(size_t a, size_t b, const char* what) {
  if (a != b) {
    throw Error(std::string(what) + ": " + std::to_string(a) + " records but " + std::to_string(b) +
                " predictions");
  }
}

// Per operator, the positions of its ok records, operators in first-appearance order.
std::vector<std::vector<size_t>> OkRecordsByOperator(
    const std::vector<const PerfCorpusRecord*>& records) {
  std::map<std::string, size_t> slot;
  std::vector<std::vector<size_t>> groups;
  for (size_t i = 0; i < records.size(); ++i) {
    if (!records[i]->ok()) continue;
    auto [it, fresh] = slot.emplace(records[i]->op, groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  return groups;
}

double Median(std::vector<double> values) {
  if (values.empty()) return kNaN;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

}  // namespace

double Mape(const std::vector<double>& measured, const std::vector<double>& predicted,
            double min_time_s) {
  CheckSizes(measured.size(), predicted.size(), "Mape");
  double sum = 0.0;
  int64_t count = 0;
  for (size_t i = 0; i < measured.size(); ++i) {
    if (!(measured[i] >= min_time_s) || measured[i] <= 0.0) continue;
    sum += std::abs(predicted[i] - measured[i]) / measured[i];
    ++count;
  }
  return count == 0 ? kNaN : 100.0 * sum / static_cast<double>(count);
}

double MapeOfRecords(const std::vector<const PerfCorpusRecord*>& records,
                     const std::vector<double>& predicted, double min_time_s) {
  CheckSizes(records.size(), predicted.size(), "MapeOfRecords");
  std::vector<double> m;
  std::vector<double> p;
  for (size_t i = 0; i < records.size(); ++i) {
    if (!records[i]->ok()) continue;
    m.push_back(records[i]->time_s);
    p.push_back(predicted[i]);
  }
  return Mape(m, p, min_time_s);
}

int64_t MapeCount(const std::vector<const PerfCorpusRecord*>& records, double min_time_s) {
  return std::count_if(records.begin(), records.end(), [&](const PerfCorpusRecord* r) {
    return r->ok() && r->time_s >= min_time_s && r->time_s > 0.0;
  });
}

double KendallTauB(const std::vector<double>& x, const std::vector<double>& y) {
  CheckSizes(x.size(), y.size(), "KendallTauB");
  const size_t n = x.size();
  if (n < 2) return kNaN;
  // O(n²): an operator holds a few hundred records, so this costs microseconds per operator.
  int64_t concordant = 0;
  int64_t discordant = 0;
  int64_t tied_x = 0;
  int64_t tied_y = 0;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      const double dx = x[i] - x[j];
      const double dy = y[i] - y[j];
      if (dx == 0.0) ++tied_x;
      if (dy == 0.0) ++tied_y;
      if (dx == 0.0 || dy == 0.0) continue;
      if ((dx > 0.0) == (dy > 0.0)) {
        ++concordant;
      } else {
        ++discordant;
      }
    }
  }
  const double pairs = static_cast<double>(n) * static_cast<double>(n - 1) / 2.0;
  const double denominator =
      std::sqrt((pairs - static_cast<double>(tied_x)) * (pairs - static_cast<double>(tied_y)));
  if (denominator == 0.0) return kNaN;
  return static_cast<double>(concordant - discordant) / denominator;
}

WithinOperatorTau KendallTauWithinOperator(const std::vector<const PerfCorpusRecord*>& records,
                                           const std::vector<double>& predicted) {
  CheckSizes(records.size(), predicted.size(), "KendallTauWithinOperator");
  double sum = 0.0;
  int64_t count = 0;
  for (const std::vector<size_t>& group : OkRecordsByOperator(records)) {
    if (group.size() < 2) continue;
    std::vector<double> m;
    std::vector<double> p;
    for (size_t i : group) {
      m.push_back(records[i]->time_s);
      p.push_back(predicted[i]);
    }
    if (std::all_of(m.begin(), m.end(), [&](double t) { return t == m.front(); })) continue;
    const double tau = KendallTauB(m, p);
    sum += std::isnan(tau) ? 0.0 : tau;  // NaN here: every prediction tied
    ++count;
  }
  return {count == 0 ? kNaN : sum / static_cast<double>(count), count};
}

TopKSlowdown TopKSlowdownOf(const std::vector<const PerfCorpusRecord*>& records,
                            const std::vector<double>& predicted, int k) {
  CheckSizes(records.size(), predicted.size(), "TopKSlowdownOf");
  if (k < 1) throw Error("top-k slowdown: k must be at least 1, got " + std::to_string(k));
  std::vector<double> slowdowns;
  for (std::vector<size_t> group : OkRecordsByOperator(records)) {
    double best = std::numeric_limits<double>::infinity();
    for (size_t i : group) best = std::min(best, records[i]->time_s);
    std::stable_sort(group.begin(), group.end(),
                     [&](size_t a, size_t b) { return predicted[a] < predicted[b]; });
    double best_of_top = std::numeric_limits<double>::infinity();
    const size_t top = std::min(group.size(), static_cast<size_t>(k));
    for (size_t r = 0; r < top; ++r) best_of_top = std::min(best_of_top, records[group[r]]->time_s);
    slowdowns.push_back(best_of_top / best);
  }
  TopKSlowdown out;
  out.operators = static_cast<int64_t>(slowdowns.size());
  out.mean = slowdowns.empty() ? kNaN
                               : std::accumulate(slowdowns.begin(), slowdowns.end(), 0.0) /
                                     static_cast<double>(slowdowns.size());
  out.median = Median(slowdowns);
  return out;
}

PerfMetrics ScorePredictions(const std::vector<const PerfCorpusRecord*>& records,
                             const std::vector<double>& predicted) {
  CheckSizes(records.size(), predicted.size(), "ScorePredictions");
  PerfMetrics out;
  out.mape = MapeOfRecords(records, predicted);
  out.mape_records = MapeCount(records);
  out.tau = KendallTauWithinOperator(records, predicted);
  out.top1 = TopKSlowdownOf(records, predicted, 1);
  out.top5 = TopKSlowdownOf(records, predicted, 5);
  out.top10 = TopKSlowdownOf(records, predicted, 10);
  std::set<std::string> ops;
  for (const PerfCorpusRecord* r : records) {
    if (!r->ok()) continue;
    ++out.records;
    ops.insert(r->op);
  }
  out.operators = static_cast<int64_t>(ops.size());
  return out;
}

namespace {

// The metrics of each group of records, groups sorted by key.
template <typename Key>
std::vector<PerfGroupMetrics> ScoreGroups(const std::vector<const PerfCorpusRecord*>& records,
                                          const std::vector<double>& predicted, Key key,
                                          const char* what) {
  CheckSizes(records.size(), predicted.size(), what);
  std::map<std::string, std::pair<std::vector<const PerfCorpusRecord*>, std::vector<double>>>
      groups;
  for (size_t i = 0; i < records.size(); ++i) {
    auto& [group_records, group_predicted] = groups[key(*records[i])];
    group_records.push_back(records[i]);
    group_predicted.push_back(predicted[i]);
  }
  std::vector<PerfGroupMetrics> out;
  for (const auto& [group, side] : groups) {
    out.push_back({group, ScorePredictions(side.first, side.second)});
  }
  return out;
}

}  // namespace

std::vector<PerfGroupMetrics> ScorePredictionsByKind(
    const std::vector<const PerfCorpusRecord*>& records, const std::vector<double>& predicted) {
  return ScoreGroups(
      records, predicted, [](const PerfCorpusRecord& r) { return r.kind; },
      "ScorePredictionsByKind");
}

std::vector<PerfGroupMetrics> ScorePredictionsByOperator(
    const std::vector<const PerfCorpusRecord*>& records, const std::vector<double>& predicted) {
  return ScoreGroups(
      records, predicted, [](const PerfCorpusRecord& r) { return r.op; },
      "ScorePredictionsByOperator");
}

}  // namespace glimpse
