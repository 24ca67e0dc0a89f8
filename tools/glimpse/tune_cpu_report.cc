#include "tune_cpu_report.h"

#include <fmt/format.h>

#include <limits>
#include <ostream>
#include <sstream>

#include "format.h"
#include "tune_flags.h"

namespace glimpse::cli {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Σ weight × best time over the tuned tasks, and how many tasks that covers.
struct LatencyEstimate {
  double seconds = 0;
  size_t tasks = 0;
};

LatencyEstimate EstimateLatency(const CpuTuneReport& report) {
  LatencyEstimate estimate;
  for (const CpuTaskOutcome& outcome : report.tasks) {
    if (outcome.Status() != "tuned") continue;
    estimate.seconds += static_cast<double>(outcome.task.weight) * outcome.BestTime();
    ++estimate.tasks;
  }
  return estimate;
}

// The first layer's name, and how many more share the operator: "layer1.0.conv1 +3".
std::string LayerSummary(const ModelTask& task) {
  if (task.layers.empty()) return "";
  std::string text = task.layers.front();
  if (task.layers.size() > 1) text += fmt::format(" +{}", task.layers.size() - 1);
  return text;
}

}  // namespace

std::string CpuTaskOutcome::Status() const {
  if (!error.empty() || !summary) return "no-template";
  if (build_only) {
    auto ok = summary->by_status.find(MeasureStatus::kOk);
    return ok != summary->by_status.end() && ok->second > 0 ? "built" : "all-failed";
  }
  return summary->best_config ? "tuned" : "all-failed";
}

double CpuTaskOutcome::BestTime() const {
  return Status() == "tuned" ? summary->best_time_s : kInfinity;
}

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

void PrintCpuReport(const CpuTuneReport& report, std::ostream& out) {
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
  out << fmt::format("strategy {} (seed {}), {}\n\n", report.tuner, report.seed, budget);

  std::vector<std::string> header = {"#", "operator"};
  if (model) header.push_back("layers");
  for (const char* h : {"weight", "GFLOP/s", "best", "measured", "failures", "time"}) {
    header.push_back(h);
  }
  Table table(header);
  table.AlignLeft({"operator", "layers", "failures"});
  for (size_t i = 0; i < report.tasks.size(); ++i) {
    const CpuTaskOutcome& outcome = report.tasks[i];
    std::vector<std::string> row = {std::to_string(i + 1), CompactOp(outcome.task.op_text)};
    if (model) row.push_back(LayerSummary(outcome.task));
    row.push_back(std::to_string(outcome.task.weight));
    const std::string status = outcome.Status();
    if (status == "no-template") {
      row.insert(row.end(), {"no template", "-", "-", "-", "-"});
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
      "ReLU, residual adds, pooling and other untuned elementwise ops are not included";
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
  out << fmt::format("database: {}\n",
                     report.database.empty() ? "none (--no-db)" : report.database);
}

Json CpuReportToJson(const CpuTuneReport& report) {
  Json out;
  out["target"] = report.target;
  out["device"] = report.device;
  if (!report.arch.empty()) out["arch"] = report.arch;
  out["build_only"] = report.build_only;
  out["model"] = report.model.empty() ? Json(nullptr) : Json(report.model);
  out["layers"] = report.layers;
  out["tuner"] = report.tuner;
  out["seed"] = report.seed;
  out["budget"] = {{"kind", report.budget_kind}, {"measurements", report.budget}};
  out["database"] = report.database.empty() ? Json(nullptr) : Json(report.database);
  out["tasks"] = Json::array();
  for (const CpuTaskOutcome& outcome : report.tasks) {
    Json task;
    task["op"] = outcome.task.op_text;
    task["operator"] = OperatorName(outcome.task.op);
    task["status"] = outcome.Status();
    task["weight"] = outcome.task.weight;
    task["layers"] = outcome.task.layers;
    task["flops"] = outcome.task.Flops();
    task["workload_key"] =
        outcome.workload_key.empty() ? Json(nullptr) : Json(outcome.workload_key);
    task["budget"] = outcome.budget;
    if (!outcome.error.empty()) task["error"] = outcome.error;
    if (outcome.summary) {
      const TuneSummary& s = *outcome.summary;
      task["measurements"] = s.measurements;
      task["resumed"] = s.resumed;
      task["failed"] = s.failed;
      Json by_status = Json::object();
      for (const auto& [status, count] : s.by_status) by_status[StatusName(status)] = count;
      task["by_status"] = by_status;
      task["tuning_time_s"] = s.tuning_time_s;
      task["elapsed_s"] = s.elapsed_s;
      task["tuner_s"] = s.tuner_s;
      task["stop_reason"] = s.stop_reason;
    }
    if (outcome.Status() == "tuned") {
      task["best"] = {{"time_s", outcome.BestTime()},
                      {"gflops", outcome.task.Flops() / outcome.BestTime() / 1e9},
                      {"config", outcome.best_config}};
    } else {
      task["best"] = nullptr;
    }
    out["tasks"].push_back(std::move(task));
  }
  LatencyEstimate estimate = EstimateLatency(report);
  const bool complete = !report.build_only && estimate.tasks == report.tasks.size();
  out["estimated_latency_s"] = complete ? Json(estimate.seconds) : Json(nullptr);
  out["latency"] = {{"tuned_tasks", estimate.tasks},
                    {"tasks", report.tasks.size()},
                    {"sum_of_tuned_s", estimate.seconds},
                    {"note",
                     "sum over tasks of weight x best time; ReLU, residual adds, pooling "
                     "and other elementwise ops are not tuned and not included"}};
  return out;
}

}  // namespace glimpse::cli
