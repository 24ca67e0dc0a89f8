// glimpse/tuning_loop.h — the driver: tuner ⇄ builder/runner ⇄ database, under a budget.
//
// Each round the tuner proposes a batch, the builder builds it, the runner measures it, the
// database commits it (one transaction) and the tuner observes it. Before the first round, records
// of this task already in the database are given to the tuner (resume): they count towards the
// measurement budget and are never measured again.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "glimpse/database.h"
#include "glimpse/measure.h"
#include "glimpse/task.h"
#include "glimpse/tuner.h"

namespace glimpse {

enum class ProgressMode : uint8_t {
  kAuto,  // a live status line on a terminal, plain log lines otherwise
  kLive,
  kLog,
  kQuiet,
};

struct TuneOptions {
  int64_t max_measurements = 0;  // 0: no limit on the count (a time budget must then be set)
  double max_seconds = 0.0;      // 0: no limit; simulated seconds when the runner simulates
  int64_t early_stopping = 0;    // stop after this many measurements without improvement; 0: off
  int batch_size = 16;           // configurations proposed, built and measured together
  // Build a batch's next wave while measuring the current one where the runner's timings allow it
  // (Runner::TimesBesideBuilds); what is proposed, measured and observed stays the same.
  bool overlap_builds = true;
  uint64_t seed = 0;
  bool resume = true;  // warm the tuner with this task's records in the database
  // Configurations measured first, in rounds of their own before the strategy proposes (an
  // epilogue sibling's fastest, TuneTasksOptions::sibling_seeds): they count as measurements, are
  // recorded with the strategy "seed", and the strategy observes them like resumed records.
  // Invalid ones and ones already measured (resumed) are left out.
  std::vector<Config> seed_configs;
  // Stop once the seeds are measured (stop reason "seeds measured"), before the strategy proposes
  // anything: a pass that only measures given configurations (TuneTasksOptions::sibling_sweep).
  bool stop_after_seeds = false;
  // Measure the seeds even where this task has measured them already (recorded with the strategy
  // "recheck"): a pass that measures given configurations again in one sitting
  // (TuneTasksOptions::recheck). The database keeps every record; a configuration's time is its
  // fastest (Database::Best), so a second measurement can only lower it.
  bool remeasure_seeds = false;
  ProgressMode progress = ProgressMode::kAuto;
  std::ostream* progress_stream = nullptr;  // nullptr: std::cerr
  double log_interval_s = 5.0;              // kLog: a line at most this often (and at the end)
  // What the target knows besides the task (device description, validity check, history): given
  // to the strategy at Init with the task and the seed.
  TargetKnowledge knowledge;

  // Throws Error naming the field when a budget is ≤ 0 where it must be positive, or none is set.
  void Validate() const;
};

// Best-so-far after each measurement of this run (resumed records come first).
struct TrajectoryPoint {
  int64_t measurement = 0;   // 1-based count of measurements so far
  double tuning_time_s = 0;  // simulated or real seconds so far (see TuneOptions::max_seconds);
                             // 0 for resumed records, which cost nothing in this run
  double best_time_s = 0;    // +inf until the first ok measurement
};

struct TuneSummary {
  int64_t measurements = 0;  // resumed + new
  int64_t resumed = 0;
  int64_t failed = 0;
  std::map<MeasureStatus, int64_t> by_status;
  std::optional<Config> best_config;
  double best_time_s = 0;    // +inf when nothing succeeded
  double tuning_time_s = 0;  // sum of cost_s of this run's measurements (simulated for replay)
  double elapsed_s = 0;      // real wall-clock of this run
  double tuner_s = 0;        // real time spent in Propose and Observe
  BatchTimes batches;        // real time spent building and running this run's batches
  std::string stop_reason;   // "measurement budget", "time budget", "early stopping",
                             // "space exhausted", "seeds measured"
  std::vector<TrajectoryPoint> trajectory;
};

// Runs the loop. `database` may be null (nothing is stored, nothing resumed). The tuner is
// initialised here with options.seed.
TuneSummary Tune(const Task& task, Tuner& tuner, Builder& builder, Runner& runner,
                 Database* database, const TuneOptions& options);

}  // namespace glimpse
