// `glimpse tune`: one tuning run of one task (replay of a recorded space for now).
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "commands.h"
#include "format.h"
#include "glimpse/database.h"
#include "glimpse/error.h"
#include "glimpse/replay.h"
#include "glimpse/tuner.h"
#include "glimpse/tuning_loop.h"
#include "recorded_source.h"
#include "transfer.h"
#include "tuner_options.h"

namespace glimpse::cli {
namespace {

struct TuneFlags {
  RecordedSourceFlags source;
  std::string tuner = "ga";
  std::vector<std::string> tuner_options;
  int64_t budget = 200;
  double time_budget_s = 0.0;
  int64_t early_stopping = 0;
  int batch = 16;
  uint64_t seed = 0;
  bool noise = false;
  double pace_ms = 0.0;
  std::string database = Database::DefaultPath();
  bool no_database = false;
  bool no_resume = false;
  std::string progress = "auto";
  bool json = false;
  TransferFlags transfer;
};

ProgressMode ParseProgress(const std::string& text) {
  if (text == "auto") return ProgressMode::kAuto;
  if (text == "live") return ProgressMode::kLive;
  if (text == "log") return ProgressMode::kLog;
  if (text == "quiet") return ProgressMode::kQuiet;
  throw Error("--progress: unknown mode '" + text + "'; known: auto, live, log, quiet");
}

std::string StatusBreakdown(const TuneSummary& summary) {
  std::string text;
  for (const auto& [status, count] : summary.by_status) {
    if (status == MeasureStatus::kOk || count == 0) continue;
    text += (text.empty() ? "" : ", ") + fmt::format("{} {}", count, StatusName(status));
  }
  return text;
}

Json SummaryToJson(const TuneFlags& flags, const Task& task, const RecordedSpace& recorded,
                   const TuneSummary& summary) {
  Json out;
  out["task"] = task.name;
  out["workload_key"] = task.WorkloadKey();
  out["device"] = task.device;
  out["space_file"] = recorded.source_path;
  out["tuner"] = flags.tuner;
  out["seed"] = flags.seed;
  out["measurements"] = summary.measurements;
  out["resumed"] = summary.resumed;
  out["failed"] = summary.failed;
  Json by_status = Json::object();
  for (const auto& [status, count] : summary.by_status) by_status[StatusName(status)] = count;
  out["by_status"] = by_status;
  if (summary.best_config) {
    out["best"] = {{"config", task.space.ConfigToJson(*summary.best_config)},
                   {"time_s", summary.best_time_s}};
  } else {
    out["best"] = nullptr;
  }
  if (auto optimum = recorded.Best()) {
    out["recorded_optimum_s"] = optimum->second.time_s;
    if (summary.best_config) {
      out["fraction_of_optimum"] = optimum->second.time_s / summary.best_time_s;
    }
  }
  out["tuning_time_s"] = summary.tuning_time_s;
  out["tuning_time_simulated"] = true;
  out["elapsed_s"] = summary.elapsed_s;
  out["tuner_s"] = summary.tuner_s;
  out["stop_reason"] = summary.stop_reason;
  out["database"] = flags.no_database ? Json(nullptr) : Json(flags.database);
  return out;
}

void PrintSummary(const TuneFlags& flags, const Task& task, const RecordedSpace& recorded,
                  const TuneSummary& summary) {
  auto& out = std::cout;
  out << fmt::format("\n{} on {}\n", task.name, task.device);
  auto line = [&](const std::string& label, const std::string& value) {
    out << fmt::format("  {:<15} {}\n", label, value);
  };
  line("replayed from", recorded.source_path);
  line("strategy", fmt::format("{} (seed {})", flags.tuner, flags.seed));
  std::string measured = fmt::format("{}", FormatCount(summary.measurements));
  if (summary.resumed > 0) {
    measured += fmt::format(" ({} resumed from the database, {} new)", summary.resumed,
                            summary.measurements - summary.resumed);
  }
  line("measurements", measured);
  std::string failed = FormatCount(summary.failed);
  if (summary.failed > 0) failed += " (" + StatusBreakdown(summary) + ")";
  line("failed", failed);
  if (summary.best_config) {
    std::string best = FormatDuration(summary.best_time_s);
    if (auto optimum = recorded.Best()) {
      best += fmt::format("   (recorded optimum {}: {:.1f} % of its performance)",
                          FormatDuration(optimum->second.time_s),
                          100.0 * optimum->second.time_s / summary.best_time_s);
    }
    line("best time", best);
    line("best config", task.space.ConfigToString(*summary.best_config));
  } else {
    line("best time", "none: no configuration measured successfully");
  }
  line("tuning time", fmt::format("{} simulated (recorded compile + benchmark time)",
                                  FormatDuration(summary.tuning_time_s)));
  line("wall-clock", fmt::format("{} (of which the strategy {})",
                                 FormatDuration(summary.elapsed_s),
                                 FormatDuration(summary.tuner_s)));
  line("stopped by", summary.stop_reason);
  line("database",
       flags.no_database ? "none (--no-db)"
                         : fmt::format("{} (workload {})", flags.database, task.WorkloadKey()));
}

void RunTune(const TuneFlags& flags, bool budget_given) {
  // Everything the user can get wrong is checked before the database is touched, so a bad
  // command never leaves a database behind.
  auto recorded = std::make_shared<RecordedSpace>(flags.source.Load());
  Task task = recorded->MakeTask();

  TuneOptions options;
  options.max_measurements = (budget_given || flags.time_budget_s == 0.0) ? flags.budget : 0;
  options.max_seconds = flags.time_budget_s;
  options.early_stopping = flags.early_stopping;
  options.batch_size = flags.batch;
  options.seed = flags.seed;
  options.resume = !flags.no_resume;
  options.progress = ParseProgress(flags.progress);
  options.Validate();

  Json tuner_options = ParseTunerOptions(flags.tuner_options);
  std::unique_ptr<Tuner> tuner = MakeTuner(flags.tuner, tuner_options);
  if (flags.transfer.from_database && flags.no_database) {
    throw Error("--transfer-from-db needs the database: drop --no-db");
  }

  ReplayOptions replay;
  replay.noise = flags.noise;
  replay.seed = flags.seed;
  replay.pace_ms = flags.pace_ms;
  if (flags.pace_ms < 0) throw Error("--pace-ms must be ≥ 0 (got " + fmt::format("{}", flags.pace_ms) + ")");
  ReplayRunner runner(recorded, replay);
  NullBuilder builder;

  // Validity-driven initialisation (Rieber et al.) checks configurations against the recorded
  // statuses, charged their compile time, before the first model: a checker, not the runner.
  const bool validity_init = tuner_options.value("validity_init", false) == true;
  std::shared_ptr<ReplayValidityChecker> checker;
  if (validity_init) checker = std::make_shared<ReplayValidityChecker>(recorded);

  // Everything about the transfer that can fail is checked before a database file is created.
  TransferHistory history;
  if (flags.transfer.Enabled()) {
    MakeModelTuner(flags.tuner, tuner_options, {}, checker);
    history = HistoryFromFiles(flags.transfer.files, flags.source, recorded);
  }
  std::optional<Database> database;
  if (!flags.no_database) database.emplace(flags.database);
  if (flags.transfer.from_database) {
    TransferHistory stored = HistoryFromDatabase(*database, *recorded);
    history.insert(history.end(), stored.begin(), stored.end());
  }
  if (flags.transfer.Enabled() && options.progress != ProgressMode::kQuiet) {
    std::cerr << fmt::format("transfer: {} records of other devices\n", history.size());
  }
  const bool xgb = flags.tuner == "xgb" || flags.tuner == "xgb-reg";
  if (flags.transfer.Enabled() || (validity_init && xgb)) {
    tuner = MakeModelTuner(flags.tuner, tuner_options, std::move(history), checker);
  }

  TuneSummary summary =
      Tune(task, *tuner, builder, runner, database ? &*database : nullptr, options);
  if (flags.json) {
    Json out = SummaryToJson(flags, task, *recorded, summary);
    if (checker) {
      out["validity_checks"] = checker->checks();
      out["presampling_s"] = checker->charged_s();
    }
    std::cout << out.dump(2) << "\n";
  } else {
    PrintSummary(flags, task, *recorded, summary);
    if (checker) {
      std::cout << fmt::format("  {:<15} {} configurations checked, {} simulated (not counted as "
                               "measurements)\n",
                               "validity checks", checker->checks(),
                               FormatDuration(checker->charged_s()));
    }
  }
}

}  // namespace

void AddTuneCommand(CLI::App& app) {
  auto flags = std::make_shared<TuneFlags>();
  CLI::App* command = app.add_subcommand(
      "tune", "Tune one task: search its space, measure candidates, keep every result");
  flags->source.AddTo(command, /*positional=*/false);
  command->add_option("--tuner", flags->tuner,
                      "search strategy; 'glimpse tune --list-tuners' shows them")
      ->capture_default_str();
  command->add_option("--tuner-option", flags->tuner_options,
                      "strategy option as key=value, e.g. population=50 (repeatable)");
  auto* budget = command->add_option("--budget", flags->budget,
                                     "number of measurements, failures included (resumed records "
                                     "count too)")
                     ->capture_default_str();
  command->add_option("--time-budget", flags->time_budget_s,
                      "tuning-time budget in seconds (simulated for replay); with it alone, no "
                      "measurement budget applies");
  command->add_option("--early-stopping", flags->early_stopping,
                      "stop after this many measurements without improvement (0: off)");
  command->add_option("--batch", flags->batch, "configurations measured per round")
      ->capture_default_str();
  command->add_option("--seed", flags->seed, "random seed")->capture_default_str();
  command->add_flag("--noise", flags->noise,
                    "replay: draw each time from the recorded samples instead of their mean");
  command->add_option("--pace-ms", flags->pace_ms,
                      "replay: real milliseconds spent per measurement (demonstrations, tests)");
  command->add_option("--db", flags->database, "tuning database file ($GLIMPSE_DB)")
      ->capture_default_str();
  command->add_flag("--no-db", flags->no_database, "keep nothing: do not open a database");
  command->add_flag("--no-resume", flags->no_resume,
                    "do not warm the strategy with this task's records already in the database");
  command->add_option("--progress", flags->progress, "auto, live, log or quiet")
      ->capture_default_str();
  command->add_flag("--json", flags->json, "print the result as JSON");
  command->add_option("--transfer-from", flags->transfer.files,
                      "transfer learning (xgb, xgb-reg): a recorded space of the same kernel on "
                      "another device, read with this run's --t1/--restrict (repeatable)");
  command->add_flag("--transfer-from-db", flags->transfer.from_database,
                    "transfer learning (xgb, xgb-reg): this workload's records of other devices "
                    "in the database");
  command->add_flag_callback(
      "--list-tuners",
      [] {
        for (const std::string& name : KnownTuners()) {
          std::cout << fmt::format("{:<10} {}\n", name, TunerDescription(name));
        }
        throw CLI::Success();
      },
      "list the search strategies and exit");
  command->callback([flags, budget] { RunTune(*flags, budget->count() > 0); });
}

}  // namespace glimpse::cli
