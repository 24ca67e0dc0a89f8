// The evaluation run (glimpse/perf_eval.h): splits × predictors, scored the same way, and its
// report as JSON and as tables.
#include <fmt/format.h>

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

std::string Cell(double x, const char* format) {
  return std::isfinite(x) ? fmt::format(fmt::runtime(format), x) : std::string("—");
}

}  // namespace

PerfEvalReport EvaluatePerfPredictors(const PerfCorpus& corpus,
                                      const std::vector<std::string>& splits,
                                      const std::vector<std::string>& predictors,
                                      const PerfPredictorFactory& factory, double test_fraction,
                                      uint64_t seed) {
  PerfEvalReport report;
  report.corpus_header = corpus.header;
  report.seed = seed;
  report.test_fraction = test_fraction;
  for (const std::string& split_name : splits) {
    const PerfSplit split = MakePerfSplit(split_name, corpus, test_fraction, seed);
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
        score.mape = std::nan("");
        score.tau.mean = score.top1.mean = score.top5.mean = score.top10.mean = std::nan("");
        score.top1.median = score.top5.median = score.top10.median = std::nan("");
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
      score.mape = MapeOfRecords(split.test, predicted);
      score.mape_records = MapeCount(split.test);
      score.tau = KendallTauWithinOperator(split.test, predicted);
      score.top1 = TopKSlowdownOf(split.test, predicted, 1);
      score.top5 = TopKSlowdownOf(split.test, predicted, 5);
      score.top10 = TopKSlowdownOf(split.test, predicted, 10);
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
      scores.push_back({{"predictor", p.predictor},
                        {"mape_percent", Number(p.mape)},
                        {"mape_records", p.mape_records},
                        {"kendall_tau", Number(p.tau.mean)},
                        {"tau_operators", p.tau.operators},
                        {"top1_slowdown", TopKJson(p.top1)},
                        {"top5_slowdown", TopKJson(p.top5)},
                        {"top10_slowdown", TopKJson(p.top10)},
                        {"fit_s", p.fit_s},
                        {"predict_s", p.predict_s},
                        {"details", p.details}});
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
      auto topk = [](const TopKSlowdown& t) {
        return Cell(t.mean, "{:.3f}") + "/" + Cell(t.median, "{:.3f}");
      };
      out += fmt::format("  {:<14} {:>9} {:>6} {:>13} {:>13} {:>13} {:>8.2f}\n", p.predictor,
                         Cell(p.mape, "{:.1f}"), Cell(p.tau.mean, "{:.3f}"), topk(p.top1),
                         topk(p.top5), topk(p.top10), p.fit_s);
    }
    out += "\n";
  }
  return out;
}

}  // namespace glimpse
