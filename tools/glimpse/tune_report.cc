#include "tune_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <sstream>

#include "format.h"
#include "tune_flags.h"

namespace glimpse::cli {

namespace {

// The first layer's name, and how many more share the operator: "layer1.0.conv1 +3".
std::string LayerSummary(const ModelTask& task) {
  if (task.layers.empty()) return "";
  std::string text = task.layers.front();
  if (task.layers.size() > 1) text += fmt::format(" +{}", task.layers.size() - 1);
  return text;
}

// "time: 6.9 min for 1,200 new measurements (2.90/s): building 61 %, running 33 %, the strategy
// 4 %, the rest 2 %" — shares of the wall-clock; with overlapped builds, the building the run
// waited for and, beside it, all of it ("building 12 % waited for (of 48 % built)"). Nothing
// for a run that measured nothing new.
std::string TimeSplit(const TasksReport& report) {
  double elapsed = 0, waited = 0, run = 0, tuner = 0, build = 0;
  int64_t fresh = 0;
  for (const TaskOutcome& outcome : report.tasks) {
    if (!outcome.summary) continue;
    const TuneSummary& s = *outcome.summary;
    elapsed += s.elapsed_s;
    build += s.batches.build_s;
    waited += s.batches.build_waited_s;
    run += s.batches.run_s;
    tuner += s.tuner_s;
    fresh += s.measurements - s.resumed;
  }
  if (fresh == 0 || elapsed <= 0) return "";
  const auto share = [elapsed](double part) { return 100.0 * part / elapsed; };
  std::string line = fmt::format(
      "time: {} for {} new measurement{} ({:.2f}/s): building {:.0f} %{}, {} {:.0f} %, the "
      "strategy {:.0f} %, the rest {:.0f} %",
      FormatDuration(elapsed), FormatCount(fresh), fresh == 1 ? "" : "s", fresh / elapsed,
      share(waited),
      build > waited * 1.01 ? fmt::format(" waited for (of {:.0f} % built)", share(build)) : "",
      report.build_only ? "checking" : "running", share(run), share(tuner),
      std::max(0.0, share(elapsed - waited - run - tuner)));
  return line;
}

}  // namespace

std::string CompactOp(const std::string& op_text) {
  size_t colon = op_text.find(':');
  if (colon == std::string::npos) return op_text;
  std::string out = op_text.substr(0, colon + 1);
  std::stringstream fields(op_text.substr(colon + 1));
  std::string field;
  bool first = true;
  for (; std::getline(fields, field, ',');) {
    if (field == "stride=1" || field == "pad=0" || field == "dilation=1" || field == "bias=0" ||
        field == "relu=0") {
      continue;
    }
    out += (first ? "" : ",") + field;
    first = false;
  }
  return out;
}

void PrintTasksReport(const TasksReport& report, std::ostream& out) {
  const bool model = !report.model.empty();
  std::string what = model ? fmt::format("{}: {} distinct operators of {} layers", report.model,
                                         report.tasks.size(), report.layers)
                           : fmt::format("{} operator{}", report.tasks.size(),
                                         report.tasks.size() == 1 ? "" : "s");
  std::string budget = report.budget_kind == "global"
                           ? fmt::format("{} measurements shared by the tasks", report.budget)
                       : report.budget_kind == "per-task"
                           ? fmt::format("{} measurements per task", report.budget)
                           : "the time budget per task";
  out << fmt::format("\n{} on {}{}\n", what, report.device,
                     report.arch.empty() || report.device.find(report.arch) != std::string::npos
                         ? ""
                         : fmt::format(" ({})", report.arch));
  if (report.build_only) {
    out << "build only: candidates were compiled and checked against the device limits, not run\n";
  }
  if (report.batch > 0) budget += fmt::format(" in rounds of {}", report.batch);
  std::string options;
  for (const auto& [name, value] : report.tuner_options.items()) {
    options += fmt::format("{}{}={}", options.empty() ? ", options " : " ", name,
                           value.is_string() ? value.get<std::string>() : value.dump());
  }
  out << fmt::format("strategy {} (seed {}{}), {}\n\n", report.tuner, report.seed, options, budget);

  std::vector<std::string> header = {"#", "operator"};
  if (model) header.push_back("layers");
  for (const char* h : {"weight", "GFLOP/s", "best", "measured", "failures", "time"}) {
    header.push_back(h);
  }
  Table table(header);
  table.AlignLeft({"operator", "layers", "failures"});
  for (size_t i = 0; i < report.tasks.size(); ++i) {
    const TaskOutcome& outcome = report.tasks[i];
    std::vector<std::string> row = {std::to_string(i + 1), CompactOp(outcome.task.op_text)};
    if (model) row.push_back(LayerSummary(outcome.task));
    row.push_back(std::to_string(outcome.task.weight));
    const std::string status = outcome.Status();
    if (status == "no-template" || status == "refused") {
      row.insert(row.end(), {status == "refused" ? "refused" : "no template", "-", "-", "-", "-"});
    } else {
      const TuneSummary& s = *outcome.summary;
      if (status == "tuned") {
        row.push_back(fmt::format("{:.2f}", outcome.task.Flops() / s.best_time_s / 1e9));
        row.push_back(FormatDuration(s.best_time_s));
      } else if (status == "built") {
        row.insert(row.end(), {"not run", "-"});
      } else {
        row.insert(row.end(), {"all failed", "-"});
      }
      std::string measured = FormatCount(s.measurements);
      if (s.resumed > 0) measured += fmt::format(" ({} new)", s.measurements - s.resumed);
      row.push_back(measured);
      std::string failures = StatusBreakdown(s.by_status);
      row.push_back(failures.empty() ? "0" : failures);
      row.push_back(FormatDuration(s.elapsed_s));
    }
    table.AddRow(std::move(row));
  }
  table.Print(out);

  for (size_t i = 0; i < report.tasks.size(); ++i) {
    if (!report.tasks[i].error.empty()) {
      out << fmt::format("#{}: {}\n", i + 1, report.tasks[i].error);
    }
  }
  LatencyEstimate estimate = EstimateLatency(report);
  const std::string label =
      model ? "estimated latency of " + report.model : std::string("Σ weight × best time");
  const std::string excluded =
      "the fused epilogues included; pooling and the other operators without a template not";
  if (report.build_only) {
    out << fmt::format("\n{}: none, a build-only run measures no time\n", label);
  } else if (estimate.tasks == report.tasks.size()) {
    out << fmt::format("\n{}: {} (Σ weight × best time over {} task{}; {})\n", label,
                       FormatDuration(estimate.seconds), estimate.tasks,
                       estimate.tasks == 1 ? "" : "s", excluded);
  } else if (estimate.tasks == 0) {
    out << fmt::format("\n{}: none, no task has a result\n", label);
  } else {
    out << fmt::format(
        "\n{}: incomplete, {} of {} tasks have no result; the {} tuned sum to {} "
        "({})\n",
        label, report.tasks.size() - estimate.tasks, report.tasks.size(), estimate.tasks,
        FormatDuration(estimate.seconds), excluded);
  }
  const std::string split = TimeSplit(report);
  if (!split.empty()) out << split << "\n";
  out << fmt::format("database: {}\n",
                     report.database.empty() ? "none (--no-db)" : report.database);
}

}  // namespace glimpse::cli
