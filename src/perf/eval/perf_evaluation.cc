// The evaluation run (glimpse/perf_eval.h): splits × predictors, scored the same way, and its
// report as JSON and as tables.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>

#include "glimpse/error.h"
#include "glimpse/perf_eval.h"
#include "glimpse/perf_predictor.h"

namespace glimpse {

namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

int64_t Operators(const std::vector<const PerfCorpusRecord*>& records) {
  std::set<std::string> ops;
  for (const PerfCorpusRecord* r : records) ops.insert(r->op);
  return static_cast<int64_t>(ops.size());
}

// NaN as JSON null.
Json Number(double x) { return std::isfinite(x) ? Json(x) : Json(nullptr); }

Json TopKJson(const TopKSlowdown& t) {
  return {{"mean", Number(t.mean)}, {"median", Number(t.median)}, {"operators", t.operators}};
}

Json MetricsJson(const PerfMetrics& m) {
  return {{"mape_percent", Number(m.mape)},
          {"mape_records", m.mape_records},
          {"kendall_tau", Number(m.tau.mean)},
          {"tau_operators", m.tau.operators},
          {"top1_slowdown", TopKJson(m.top1)},
          {"top5_slowdown", TopKJson(m.top5)},
          {"top10_slowdown", TopKJson(m.top10)},
          {"records", m.records},
          {"operators", m.operators}};
}

Json GroupsJson(const std::vector<PerfGroupMetrics>& groups, const char* key) {
  Json out = Json::array();
  for (const PerfGroupMetrics& g : groups) {
    Json entry = MetricsJson(g.metrics);
    entry[key] = g.group;
    out.push_back(entry);
  }
  return out;
}

std::string Cell(double x, const char* format) {
  return std::isfinite(x) ? fmt::format(fmt::runtime(format), x) : std::string("—");
}

std::string TopKCell(const TopKSlowdown& t) {
  return Cell(t.mean, "{:.3f}") + "/" + Cell(t.median, "{:.3f}");
}

// Each predictor's metrics per group (kind or operator), one row per predictor and group. A
// `width` of 0 puts the group on a line of its own above its rows (operator texts are long).
std::string GroupTable(const std::vector<PerfPredictorScore>& scores, const char* what, int width,
                       std::vector<PerfGroupMetrics> PerfPredictorScore::*groups) {
  std::string out = fmt::format(
      "  per {}:\n  {:<14} {:<{}} {:>4} {:>9} {:>6} {:>13} {:>13} {:>13}\n", what, "predictor",
      width > 0 ? what : "", width, "ops", "MAPE %", "tau", "top-1", "top-5", "top-10");
  auto row = [&](const std::string& predictor, const std::string& group, const PerfMetrics& m) {
    return fmt::format("  {:<14} {:<{}} {:>4} {:>9} {:>6} {:>13} {:>13} {:>13}\n", predictor, group,
                       width, m.operators, Cell(m.mape, "{:.1f}"), Cell(m.tau.mean, "{:.3f}"),
                       TopKCell(m.top1), TopKCell(m.top5), TopKCell(m.top10));
  };
  if (width > 0) {
    for (const PerfPredictorScore& p : scores) {
      for (const PerfGroupMetrics& g : p.*groups) out += row(p.predictor, g.group, g.metrics);
    }
    return out;
  }
  // Grouped by operator: the group's name once, then every predictor's row.
  if (scores.empty()) return out;
  for (size_t i = 0; i < (scores.front().*groups).size(); ++i) {
    out += "  " + (scores.front().*groups)[i].group + "\n";
    for (const PerfPredictorScore& p : scores) {
      if (i < (p.*groups).size()) out += row(p.predictor, "", (p.*groups)[i].metrics);
    }
  }
  return out;
}

}  // namespace

PerfEvalReport EvaluatePerfPredictors(const PerfCorpus& corpus,
                                      const std::vector<std::string>& splits,
                                      const std::vector<std::string>& predictors,
                                      const PerfPredictorFactory& factory, double test_fraction,
                                      uint64_t seed, double train_operator_fraction) {
  PerfEvalReport report;
  report.corpus_header = corpus.header;
  report.seed = seed;
  report.test_fraction = test_fraction;
  report.train_operator_fraction = train_operator_fraction;
  // Every split first (they are pointers), so that a predictor with nothing to learn from is
  // refused before hours of fitting on the other splits.
  std::vector<PerfSplit> made;
  for (const std::string& split_name : splits) {
    made.push_back(MakePerfSplit(split_name, corpus, test_fraction, seed));
    ThinTrainingOperators(made.back(), train_operator_fraction, seed);
    if (!made.back().train.empty()) continue;
    for (const std::string& name : predictors) {
      if (factory(name)->LearnsFromRecords()) {
        throw Error("predictor '" + name + "' learns from the training side, and split '" +
                    split_name +
                    "' has none; score trained model files (file:MODEL.json) or the roofline "
                    "there");
      }
    }
  }
  for (const PerfSplit& split : made) {
    PerfSplitScores out;
    out.split = split.name;
    out.note = split.note;
    out.train_records = static_cast<int64_t>(split.train.size());
    out.test_records = static_cast<int64_t>(split.test.size());
    out.excluded_records = split.excluded;
    out.train_operators = Operators(split.train);
    out.test_operators = Operators(split.test);
    for (const std::string& name : predictors) {
      std::unique_ptr<PerfPredictor> predictor = factory(name);
      PerfPredictorScore score;
      score.predictor = predictor->Name();
      if (split.test.empty()) {
        score.metrics = ScorePredictions({}, {});  // NaN everywhere
        out.scores.push_back(score);
        continue;
      }
      auto start = std::chrono::steady_clock::now();
      predictor->Fit(split.train);
      score.fit_s = Seconds(start);
      start = std::chrono::steady_clock::now();
      const std::vector<double> predicted = predictor->PredictSeconds(split.test);
      score.predict_s = Seconds(start);
      if (predicted.size() != split.test.size()) {
        throw Error("predictor '" + score.predictor + "' returned " +
                    std::to_string(predicted.size()) + " predictions for " +
                    std::to_string(split.test.size()) + " records");
      }
      score.metrics = ScorePredictions(split.test, predicted);
      score.by_kind = ScorePredictionsByKind(split.test, predicted);
      score.by_operator = ScorePredictionsByOperator(split.test, predicted);
      score.details = predictor->Describe();
      out.scores.push_back(std::move(score));
    }
    report.splits.push_back(std::move(out));
  }
  return report;
}

Json PerfEvalReportToJson(const PerfEvalReport& report) {
  Json splits = Json::array();
  for (const PerfSplitScores& s : report.splits) {
    Json scores = Json::array();
    for (const PerfPredictorScore& p : s.scores) {
      Json score = MetricsJson(p.metrics);
      score["predictor"] = p.predictor;
      score["by_kind"] = GroupsJson(p.by_kind, "kind");
      if (report.per_operator) score["by_operator"] = GroupsJson(p.by_operator, "op");
      score["fit_s"] = p.fit_s;
      score["predict_s"] = p.predict_s;
      score["details"] = p.details;
      scores.push_back(score);
    }
    splits.push_back({{"split", s.split},
                      {"note", s.note},
                      {"train_records", s.train_records},
                      {"test_records", s.test_records},
                      {"excluded_records", s.excluded_records},
                      {"train_operators", s.train_operators},
                      {"test_operators", s.test_operators},
                      {"scores", scores}});
  }
  return {{"format", "glimpse-perf-eval"},
          {"version", 1},
          {"corpus", report.corpus},
          {"corpus_machine", report.corpus_header.value("machine", Json::object())},
          {"seed", report.seed},
          {"test_fraction", report.test_fraction},
          {"train_operator_fraction", report.train_operator_fraction},
          {"metrics",
           {{"mape", "percent over test records with a measured time >= 5 us"},
            {"kendall_tau", "tau-b within operator, mean over operators with >= 2 records"},
            {"topk_slowdown", "best measured of the k predicted fastest / operator's best"}}},
          {"splits", splits}};
}

std::string PerfEvalReportToText(const PerfEvalReport& report) {
  std::string out;
  for (const PerfSplitScores& s : report.splits) {
    out += fmt::format(
        "split {}: {}\n  train {} records ({} operators), test {} records ({} operators){}\n",
        s.split, s.note, s.train_records, s.train_operators, s.test_records, s.test_operators,
        s.excluded_records > 0 ? fmt::format(", {} left out", s.excluded_records) : "");
    out += fmt::format("  {:<14} {:>9} {:>6} {:>13} {:>13} {:>13} {:>8}\n", "predictor", "MAPE %",
                       "tau", "top-1", "top-5", "top-10", "fit s");
    out += fmt::format("  {:<14} {:>9} {:>6} {:>13} {:>13} {:>13} {:>8}\n", "", "(>=5us)", "",
                       "mean/median", "mean/median", "mean/median", "");
    for (const PerfPredictorScore& p : s.scores) {
      const PerfMetrics& m = p.metrics;
      out += fmt::format("  {:<14} {:>9} {:>6} {:>13} {:>13} {:>13} {:>8.2f}\n", p.predictor,
                         Cell(m.mape, "{:.1f}"), Cell(m.tau.mean, "{:.3f}"), TopKCell(m.top1),
                         TopKCell(m.top5), TopKCell(m.top10), p.fit_s);
    }
    const bool several_kinds = std::any_of(s.scores.begin(), s.scores.end(),
                                           [](const auto& p) { return p.by_kind.size() > 1; });
    if (several_kinds) {
      out += GroupTable(s.scores, "kind", 18, &PerfPredictorScore::by_kind);
    }
    if (report.per_operator) {
      out += GroupTable(s.scores, "operator", 0, &PerfPredictorScore::by_operator);
    }
    out += "\n";
  }
  return out;
}

}  // namespace glimpse
