// The outcome of a task and the report of a multi-task run (glimpse/tune_tasks.h).
#include <cmath>
#include <limits>

#include "glimpse/tune_tasks.h"

namespace glimpse {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

}  // namespace

std::string TaskOutcome::Status() const {
  if (!error.empty() || !summary) return no_template || error.empty() ? "no-template" : "refused";
  if (build_only) {
    auto ok = summary->by_status.find(MeasureStatus::kOk);
    return ok != summary->by_status.end() && ok->second > 0 ? "built" : "all-failed";
  }
  return summary->best_config ? "tuned" : "all-failed";
}

double TaskOutcome::BestTime() const {
  return Status() == "tuned" ? summary->best_time_s : kInfinity;
}

LatencyEstimate EstimateLatency(const TasksReport& report) {
  LatencyEstimate estimate;
  for (const TaskOutcome& outcome : report.tasks) {
    if (outcome.Status() != "tuned") continue;
    estimate.seconds += static_cast<double>(outcome.task.weight) * outcome.BestTime();
    ++estimate.tasks;
  }
  return estimate;
}

Json TasksReportToJson(const TasksReport& report) {
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
  out["batch"] = report.batch > 0 ? Json(report.batch) : Json(nullptr);
  out["tuner_options"] = report.tuner_options;
  out["database"] = report.database.empty() ? Json(nullptr) : Json(report.database);
  out["tasks"] = Json::array();
  for (const TaskOutcome& outcome : report.tasks) {
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
    if (outcome.template_seeds > 0) task["template_seeds"] = outcome.template_seeds;
    if (!outcome.siblings.empty()) {
      Json from = Json::array();
      for (size_t j : outcome.siblings) from.push_back(j + 1);
      task["siblings"] = {{"tasks", from},
                          {"seeds", outcome.sibling_seeds},
                          {"history_records", outcome.history_records}};
    }
    if (!outcome.sweep_from.empty()) {
      Json from = Json::array();
      for (size_t j : outcome.sweep_from) from.push_back(j + 1);
      task["sibling_sweep"] = {{"tasks", from},
                               {"measured", outcome.sweep_measured},
                               {"best_before_s", std::isfinite(outcome.best_before_sweep_s)
                                                     ? Json(outcome.best_before_sweep_s)
                                                     : Json(nullptr)}};
    }
    if (outcome.rechecked > 0) {
      task["recheck"] = {{"measured", outcome.rechecked},
                         {"best_before_s", std::isfinite(outcome.best_before_sweep_s)
                                               ? Json(outcome.best_before_sweep_s)
                                               : Json(nullptr)}};
    }
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
      task["build_s"] = s.batches.build_s;
      task["build_waited_s"] = s.batches.build_waited_s;
      task["run_s"] = s.batches.run_s;
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

}  // namespace glimpse
