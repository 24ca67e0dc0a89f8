// `glimpse tune --space FILE`: one tuning run of a recorded space, replayed.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "format.h"
#include "glimpse/database.h"
#include "glimpse/error.h"
#include "glimpse/glimpse_tuner.h"
#include "glimpse/replay.h"
#include "glimpse/tuner.h"
#include "glimpse/tuning_loop.h"
#include "glimpse/validity.h"
#include "transfer.h"
#include "tune_flags.h"
#include "tuner_options.h"

namespace glimpse::cli {
namespace {

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
  if (summary.failed > 0) failed += " (" + StatusBreakdown(summary.by_status) + ")";
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
  line("wall-clock", fmt::format("{} (of which the strategy {})", FormatDuration(summary.elapsed_s),
                                 FormatDuration(summary.tuner_s)));
  line("stopped by", summary.stop_reason);
  line("database", flags.no_database
                       ? "none (--no-db)"
                       : fmt::format("{} (workload {})", flags.database, task.WorkloadKey()));
}

}  // namespace

void RunReplayTune(const TuneFlags& flags) {
  // Everything the user can get wrong is checked before the database is touched, so a bad
  // command never leaves a database behind.
  auto recorded = std::make_shared<RecordedSpace>(flags.source.Load());
  if (recorded->entries.empty() && recorded->outside_restrictions > 0) {
    // A space the restrictions leave empty would only "stop: space exhausted" with nothing done.
    std::string restrictions;
    for (const std::string& r : recorded->space.restrictions()) {
      restrictions += (restrictions.empty() ? "'" : "; '") + r + "'";
    }
    throw Error(fmt::format(
        "{}: all {} recorded configurations break the restrictions ({}): nothing is left to tune",
        recorded->source_path, recorded->outside_restrictions, restrictions));
  }
  Task task = recorded->MakeTask();

  const bool budget_given = flags.Given("--budget");
  TuneOptions options =
      MakeTuneOptions(flags, (budget_given || flags.time_budget_s == 0.0) ? flags.budget : 0);

  Json tuner_options = ParseTunerOptions(flags.tuner_options);
  // The Glimpse tuner's models know a kernel space by its folder's name ("convolution_milo" for
  // convolution_milo/A100.json.gz), not by the kernel name inside the file.
  if (flags.tuner == "glimpse" && !tuner_options.contains("kernel")) {
    std::string folder = std::filesystem::path(flags.source.path).parent_path().filename().string();
    if (!folder.empty() && folder != "." && folder != "..") tuner_options["kernel"] = folder;
  }
  std::unique_ptr<Tuner> tuner = MakeTuner(flags.tuner, tuner_options);
  if (flags.transfer.from_database && flags.no_database) {
    throw Error("--transfer-from-db needs the database: drop --no-db");
  }

  ReplayOptions replay;
  replay.noise = flags.noise;
  replay.seed = flags.seed;
  replay.pace_ms = flags.pace_ms;
  if (flags.pace_ms < 0) {
    throw Error("--pace-ms must be ≥ 0 (got " + fmt::format("{}", flags.pace_ms) + ")");
  }
  const ReplayTarget target(recorded, replay);
  std::unique_ptr<Runner> runner = target.MakeRunner(task, options.max_seconds);
  std::unique_ptr<Builder> builder = target.MakeBuilder("");

  // Validity-driven initialisation (Rieber et al.) checks configurations against the recorded
  // statuses, charged their compile time, before the first model: a checker, not the runner.
  const bool validity_init = tuner_options.value("validity_init", false) == true;
  std::shared_ptr<ReplayValidityChecker> checker;
  if (validity_init) checker = target.MakeReplayValidityChecker(task);

  // Everything about the transfer that can fail is checked before a database file is created.
  TransferHistory history;
  if (flags.transfer.Enabled()) {
    CheckLearnsFromHistory(flags.tuner);
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
  options.knowledge.history = std::move(history);
  options.knowledge.validity_checker = checker;

  TuneSummary summary =
      Tune(task, *tuner, *builder, *runner, database ? &*database : nullptr, options);
  std::vector<std::string> components;
  if (tuner->Name() == "glimpse") components = GlimpseTunerComponents(*tuner);
  if (flags.json) {
    Json out = SummaryToJson(flags, task, *recorded, summary);
    if (!components.empty()) out["components"] = components;
    if (checker) {
      out["validity_checks"] = checker->checks();
      out["presampling_s"] = checker->charged_s();
    }
    std::cout << out.dump(2) << "\n";
  } else {
    PrintSummary(flags, task, *recorded, summary);
    for (size_t i = 0; i < components.size(); ++i) {
      std::cout << fmt::format("  {:<15} {}\n", i == 0 ? "components" : "", components[i]);
    }
    if (checker) {
      std::cout << fmt::format(
          "  {:<15} {} configurations checked, {} simulated (not counted as "
          "measurements)\n",
          "validity checks", checker->checks(), FormatDuration(checker->charged_s()));
    }
  }
}

}  // namespace glimpse::cli
