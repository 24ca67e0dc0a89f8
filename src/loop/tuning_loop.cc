// The tuning loop (see glimpse/tuning_loop.h).
//
// Map: Tune() = Validate → Init tuner → [PutWorkload → Resume] → rounds until a stop reason:
//   round = Propose(n) → drop anything invalid or measured (defensive) → Build → Run (overlapped
//           in waves by MeasureBatch where the runner allows) →
//           CommitBatch (durability first) → Observe → Tally each result → progress line.
// The tally (Tally) is shared by resumed records and new measurements so both count the same way.
#include "glimpse/tuning_loop.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <iostream>
#include <limits>
#include <string>
#include <unordered_set>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/progress.h"

namespace glimpse {

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Seconds since the Unix epoch, for the records' timestamps.
double UnixNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

class Tally {
 public:
  explicit Tally(TuneSummary& summary) : summary_(summary) { summary_.best_time_s = kInfinity; }

  // Counts one measurement; `clock_s` is the tuning time at which it completed.
  void Add(const Config& config, const MeasureResult& result, double clock_s) {
    ++summary_.measurements;
    ++summary_.by_status[result.status];
    if (!result.ok()) ++summary_.failed;
    if (result.ok() && result.time_s < summary_.best_time_s) {
      summary_.best_time_s = result.time_s;
      summary_.best_config = config;
      last_improvement_ = summary_.measurements;
    }
    summary_.trajectory.push_back({summary_.measurements, clock_s, summary_.best_time_s});
  }

  // Measurements since the best time last improved (all of them when nothing succeeded).
  int64_t SinceImprovement() const { return summary_.measurements - last_improvement_; }

 private:
  TuneSummary& summary_;
  int64_t last_improvement_ = 0;
};

}  // namespace

TuneSummary Tune(const Task& task, Tuner& tuner, Builder& builder, Runner& runner,
                 Database* database, const TuneOptions& options) {
  options.Validate();
  const Clock::time_point start = Clock::now();
  const ConfigSpace& space = task.space;
  const bool simulated = runner.IsSimulated();
  std::ostream& stream = options.progress_stream ? *options.progress_stream : std::cerr;
  loop::ProgressReporter progress(options.progress, stream, task.name, options.max_measurements,
                                  options.log_interval_s);

  TuneSummary summary;
  Tally tally(summary);
  std::unordered_set<Config, ConfigHasher> measured;  // resumed or measured in this run

  auto state = [&] {
    loop::ProgressState s;
    s.measurements = summary.measurements;
    s.new_measurements = summary.measurements - summary.resumed;
    s.failed = summary.failed;
    s.best_time_s = summary.best_time_s;
    s.elapsed_s = SecondsSince(start);
    s.simulated_s = simulated ? summary.tuning_time_s : -1.0;
    return s;
  };
  // The clock the time budget reads: simulated seconds for replay, real seconds otherwise.
  auto tuning_clock = [&] { return simulated ? summary.tuning_time_s : SecondsSince(start); };
  auto timed = [&](auto&& call) {
    Clock::time_point before = Clock::now();
    call();
    summary.tuner_s += SecondsSince(before);
  };

  tuner.Init(TuningContext{&task, options.seed, options.knowledge, options.max_measurements});
  const std::string workload_key = task.WorkloadKey();
  if (database != nullptr) {
    database->PutWorkload({workload_key, task.name, task.description, space.ToJson()});
  }

  // Resume: this task's records on this device warm the tuner and count towards the budget.
  if (database != nullptr && options.resume) {
    std::vector<TuningRecord> records = database->Records(workload_key, task.device);
    std::vector<Config> configs;
    std::vector<MeasureResult> results;
    int64_t skipped = 0;
    std::string first_problem;
    for (const TuningRecord& record : records) {
      try {
        Config config = space.ConfigFromJson(record.config);
        if (!space.IsValid(config)) throw Error("breaks a restriction of the space");
        configs.push_back(std::move(config));
        results.push_back(ResultFromRecord(record));
      } catch (const Error& error) {
        if (skipped++ == 0) {
          first_problem = "record " + std::to_string(record.id) + ": " + error.what();
        }
      }
    }
    if (skipped > 0) {
      progress.Warning("warning: skipped " + std::to_string(skipped) + " of " +
                       std::to_string(records.size()) + " stored records of '" + task.name +
                       "' that no longer fit its space (first: " + first_problem + ")");
    }
    if (!configs.empty()) {
      timed([&] { tuner.Observe(configs, results); });
      for (size_t i = 0; i < configs.size(); ++i) {
        measured.insert(configs[i]);
        tally.Add(configs[i], results[i], 0.0);  // resumed records cost nothing in this run
        ++summary.resumed;
      }
    }
  }

  // The seeds left to measure: valid, distinct, not resumed (unless they are to be measured again).
  std::deque<Config> seeds;
  {
    std::unordered_set<Config, ConfigHasher> queued;
    for (const Config& config : options.seed_configs) {
      const bool fresh = options.remeasure_seeds || !measured.count(config);
      if (space.IsValid(config) && fresh && queued.insert(config).second) {
        seeds.push_back(config);
      }
    }
  }

  bool warned_bad_proposal = false;
  for (;;) {
    if (options.stop_after_seeds && seeds.empty()) {
      summary.stop_reason = "seeds measured";
      break;
    }
    if (options.max_measurements > 0 && summary.measurements >= options.max_measurements) {
      summary.stop_reason = "measurement budget";
      break;
    }
    // Checked before each round, so a round may overshoot the time budget by at most itself.
    if (options.max_seconds > 0.0 && tuning_clock() >= options.max_seconds) {
      summary.stop_reason = "time budget";
      break;
    }
    if (options.early_stopping > 0 && tally.SinceImprovement() >= options.early_stopping) {
      summary.stop_reason = "early stopping";
      break;
    }

    size_t n = static_cast<size_t>(options.batch_size);
    if (options.max_measurements > 0) {
      n = std::min<size_t>(n, static_cast<size_t>(options.max_measurements - summary.measurements));
    }
    std::vector<Config> proposed;
    const bool seeding = !seeds.empty();
    if (seeding) {
      while (!seeds.empty() && proposed.size() < n) {
        proposed.push_back(std::move(seeds.front()));
        seeds.pop_front();
      }
    } else {
      timed([&] { proposed = tuner.Propose(n); });
    }

    // A strategy must not propose invalid or measured configurations; should one do so anyway,
    // the loop refuses to spend measurements on them.
    std::vector<MeasureInput> inputs;
    size_t rejected = 0;
    for (Config& config : proposed) {
      if (inputs.size() >= n) break;
      const bool fresh = measured.insert(config).second || (seeding && options.remeasure_seeds);
      if (!space.IsValid(config) || !fresh) {
        ++rejected;
        continue;
      }
      inputs.push_back({&task, std::move(config)});
    }
    if (rejected > 0 && !warned_bad_proposal) {
      progress.Warning("warning: tuner '" + tuner.Name() + "' proposed " +
                       std::to_string(rejected) +
                       " invalid or already measured configurations; they were skipped");
      warned_bad_proposal = true;
    }
    if (inputs.empty()) {
      summary.stop_reason = "space exhausted";
      break;
    }

    const double started_at = UnixNow();
    std::vector<MeasureResult> results =
        MeasureBatch(builder, runner, inputs, options.overlap_builds, &summary.batches);
    const double finished_at = UnixNow();

    // Durability first: the batch is in the database before the tuner learns from it.
    if (database != nullptr) {
      std::vector<TuningRecord> records;
      records.reserve(inputs.size());
      for (size_t i = 0; i < inputs.size(); ++i) {
        const MeasureResult& result = results[i];
        TuningRecord record;
        record.workload_key = workload_key;
        record.device = task.device;
        record.config = space.ConfigToJson(inputs[i].config);
        record.config_hash = HashToHex(space.Hash(inputs[i].config));
        record.status = result.status;
        record.time_s = result.ok() ? result.time_s : kInfinity;
        record.samples_s = result.samples_s;
        record.compile_time_s = result.compile_time_s;
        record.cost_s = result.cost_s;
        record.error = result.error;
        record.strategy = !seeding ? tuner.Name() : options.remeasure_seeds ? "recheck" : "seed";
        record.started_at = started_at;
        record.finished_at = finished_at;
        records.push_back(std::move(record));
      }
      database->CommitBatch(records);
    }

    std::vector<Config> configs;
    configs.reserve(inputs.size());
    for (const MeasureInput& input : inputs) configs.push_back(input.config);
    timed([&] { tuner.Observe(configs, results); });

    const double real_clock = SecondsSince(start);
    for (size_t i = 0; i < configs.size(); ++i) {
      summary.tuning_time_s += results[i].cost_s;
      tally.Add(configs[i], results[i], simulated ? summary.tuning_time_s : real_clock);
    }
    progress.Update(state());
  }

  summary.elapsed_s = SecondsSince(start);
  progress.Finish(state(), summary.stop_reason);
  tuner.Finish();
  return summary;
}

}  // namespace glimpse
