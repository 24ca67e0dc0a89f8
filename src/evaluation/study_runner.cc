// RunStudy (see glimpse/evaluation.h).
//
// Map: CheckStrategies (every tuner made once: unknown names fail before any work) → LoadSpaces
// (every file once, in parallel; optimum, valid count; leave-one-device-out histories) → the job
// list (space × seed × strategy, so that every stretch of the list mixes strategies and the ETA
// holds) → the journal (runs already finished with the same settings are skipped) → ParallelFor
// over the jobs: RunOne = Tune() on a ReplayTarget (ReplayRunner, NullBuilder), no database, the
// strategy wrapped in a TimedTuner, quietly → journal line + progress → the results, summarised,
// written atomically.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <ctime>
#include <exception>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "evaluation/journal.h"
#include "evaluation/timed_tuner.h"
#include "glimpse/error.h"
#include "glimpse/evaluation.h"
#include "glimpse/model_tuner.h"
#include "glimpse/progress.h"
#include "glimpse/tuning_loop.h"
#include "glimpse/validity.h"

namespace glimpse {

namespace {

using evaluation::RunKey;
using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Runs body(i) for i in [0, n) on `threads` threads. The first exception stops handing out work
// and is rethrown once every thread has finished.
template <typename Body>
void ParallelFor(size_t n, int threads, Body&& body) {
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto worker = [&] {
    for (;;) {
      const size_t i = next.fetch_add(1);
      if (i >= n || failed.load()) return;
      try {
        body(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        failed = true;
      }
    }
  };
  const size_t count = std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(threads), n));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < count; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& thread : pool) thread.join();
  if (error) std::rethrow_exception(error);
}

// Rounded to 1e-6: simulated seconds to microseconds, performances to a millionth of the optimum's
// — far below what the recorded times resolve — so that a full study's file stays a few MB.
double Round6(double value) { return std::round(value * 1e6) / 1e6; }

struct LoadedSpace {
  SpaceInfo info;
  size_t group = 0;     // index in study.groups
  size_t position = 0;  // index of the file in its group
  std::shared_ptr<const RecordedSpace> recorded;
  std::shared_ptr<const Task> task;
  // By transfer mode name, for the modes the study's strategies use.
  std::map<std::string, std::shared_ptr<const TransferHistory>> histories;
};

std::string SpaceId(const std::string& group, const std::string& file) {
  std::string name = file.substr(file.find_last_of('/') + 1);
  for (const char* suffix : {".gz", ".json"}) {
    const std::string s = suffix;
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
      name.resize(name.size() - s.size());
    }
  }
  return group + "/" + name;
}

std::string UtcNow() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

// The device a space id names: "A100" for "convolution_milo/A100".
std::string DeviceOfSpaceId(const std::string& id) { return id.substr(id.find('/') + 1); }

void CheckStrategies(const StudyConfig& study) {
  RegisterModelTuners();
  // Options are checked as the first space's runs will see them (placeholders substituted).
  std::string device = "device", group = "group";
  if (!study.groups.empty()) {
    group = study.groups[0].name;
    if (!study.groups[0].files.empty()) {
      device = DeviceOfSpaceId(SpaceId(group, study.groups[0].files[0]));
    }
  }
  for (size_t i = 0; i < study.strategies.size(); ++i) {
    const StudyStrategy& strategy = study.strategies[i];
    try {
      const Json options = SubstituteRunPlaceholders(strategy.options, device, group);
      Json checked = options;
      if (strategy.validity_init) checked["validity_init"] = true;
      MakeTuner(strategy.tuner, checked);
      const TunerTraits traits = TraitsOfTuner(strategy.tuner);
      if (!strategy.transfer.empty() && !traits.learns_from_history) {
        throw Error("'transfer' needs a strategy that learns from history; '" + strategy.tuner +
                    "' does not (these do: " +
                    TunersWith([](const TunerTraits& t) { return t.learns_from_history; }) + ")");
      }
      if (strategy.validity_init && !traits.checks_validity) {
        throw Error("'validity_init' needs a strategy that presamples validity; '" +
                    strategy.tuner + "' does not (these do: " +
                    TunersWith([](const TunerTraits& t) { return t.checks_validity; }) + ")");
      }
    } catch (const Error& error) {
      throw Error(study.path + ": strategies[" + std::to_string(i) + "] '" + strategy.name +
                  "': " + error.what());
    }
  }
}

std::vector<LoadedSpace> LoadSpaces(const StudyConfig& study, int threads,
                                    const std::set<std::string>& transfer_modes) {
  std::vector<LoadedSpace> spaces;
  for (size_t g = 0; g < study.groups.size(); ++g) {
    for (size_t f = 0; f < study.groups[g].files.size(); ++f) {
      LoadedSpace space;
      space.group = g;
      space.position = f;
      space.info.group = study.groups[g].name;
      space.info.file = study.groups[g].files[f];
      space.info.id = SpaceId(space.info.group, space.info.file);
      spaces.push_back(std::move(space));
    }
  }
  ParallelFor(spaces.size(), threads, [&](size_t i) {
    LoadedSpace& space = spaces[i];
    const StudyGroup& group = study.groups[space.group];
    ReplayLoadOptions load;
    if (!group.t1.empty()) load.t1_path = study.Resolve(group.t1);
    load.restrictions = group.restrictions;
    auto recorded =
        std::make_shared<RecordedSpace>(LoadRecordedSpace(study.Resolve(space.info.file), load));
    const uint64_t valid = recorded->space.CountValid();
    if (valid == 0) {
      std::string restrictions;
      for (const std::string& r : recorded->space.restrictions()) {
        restrictions += (restrictions.empty() ? "'" : ", '") + r + "'";
      }
      throw Error(study.path + ": " + space.info.file + ": no configuration of its " +
                  std::to_string(recorded->space.RawSize()) +
                  " satisfies the restrictions (the file's, the T1 file's and the group's: " +
                  restrictions + "), so there is nothing to tune");
    }
    auto best = recorded->Best();
    if (!best) {
      throw Error(study.path + ": " + space.info.file +
                  ": no configuration was recorded ok, so no optimum to compare with");
    }
    space.info.device = recorded->device_name;
    space.info.optimum_s = best->second.time_s;
    space.info.valid = static_cast<int64_t>(valid);
    space.info.recorded_ok = recorded->CountByStatus()[MeasureStatus::kOk];
    space.task = std::make_shared<const Task>(recorded->MakeTask());
    space.recorded = std::move(recorded);
  });
  if (!transfer_modes.empty()) {
    ParallelFor(spaces.size(), threads, [&](size_t i) {
      std::vector<std::shared_ptr<const RecordedSpace>> group;
      for (const LoadedSpace& other : spaces) {
        if (other.group == spaces[i].group) group.push_back(other.recorded);
      }
      for (const std::string& name : transfer_modes) {
        const TransferMode mode = ParseTransferMode(name);
        spaces[i].histories[name] = std::make_shared<const TransferHistory>(TransferHistoryFrom(
            group, spaces[i].position, TransferSources(group, spaces[i].position, mode)));
      }
    });
  }
  return spaces;
}

// Everything that shapes a run's outcome, for the journal.
Json RunSettingsKey(const StudyConfig& study, const StudyStrategy& strategy,
                    const StudyGroup& group, bool noise) {
  Json key = {
      {"max_measurements", study.max_measurements},
      {"max_seconds", study.max_seconds},
      {"batch_size", study.batch_size},
      {"first_batch", study.first_batch},
      {"noise", noise},
      {"strategy",
       {{"tuner", strategy.tuner}, {"options", strategy.options}, {"transfer", strategy.transfer}}},
      {"group", {{"files", group.files}, {"t1", group.t1}, {"restrictions", group.restrictions}}}};
  // Only when set, so that journals written before the key existed still resume.
  if (strategy.validity_init) key["strategy"]["validity_init"] = true;
  return key;
}

RunRecord RunOne(const StudyConfig& study, const LoadedSpace& space, const StudyStrategy& strategy,
                 uint64_t seed, bool noise) {
  ReplayOptions replay;
  replay.noise = noise;
  replay.seed = seed;
  const ReplayTarget target(space.recorded, replay);
  std::shared_ptr<ReplayValidityChecker> checker;  // validity_init: its checks are presampling
  Json tuner_options =
      SubstituteRunPlaceholders(strategy.options, DeviceOfSpaceId(space.info.id), space.info.group);
  TargetKnowledge knowledge;
  if (!strategy.transfer.empty()) knowledge.history = *space.histories.at(strategy.transfer);
  if (strategy.validity_init) {
    checker = target.MakeReplayValidityChecker(*space.task);
    knowledge.validity_checker = checker;
    tuner_options["validity_init"] = true;
  }
  std::unique_ptr<Tuner> inner = MakeTuner(strategy.tuner, tuner_options);
  evaluation::TimedTuner tuner(std::move(inner));

  // The replay runner itself (what target.MakeRunner makes), for its count of configurations the
  // file lacks.
  auto runner = std::make_unique<ReplayRunner>(space.recorded, replay);
  std::unique_ptr<Builder> builder = target.MakeBuilder("");
  TuneOptions options;
  options.max_measurements = study.max_measurements;
  options.max_seconds = study.max_seconds;
  options.batch_size = study.batch_size;
  options.seed = seed;
  options.resume = false;
  options.progress = ProgressMode::kQuiet;
  options.knowledge = std::move(knowledge);
  TuneSummary summary = Tune(*space.task, tuner, *builder, *runner, nullptr, options);

  RunRecord run;
  run.space = space.info.id;
  run.strategy = strategy.name;
  run.seed = seed;
  run.measurements = summary.measurements;
  run.failed = summary.failed;
  run.not_recorded = runner->not_recorded();
  run.stop_reason = summary.stop_reason;
  // Checks are not measurements: they happen before the first one and only shift the clock.
  const double presampling_s = checker ? checker->charged_s() : 0.0;
  run.presampling_s = Round6(presampling_s);
  run.simulated_s = Round6(presampling_s + summary.tuning_time_s);
  run.tuner_cpu_s = tuner.cpu_s();
  run.wall_s = summary.elapsed_s;
  run.max_measurements = study.max_measurements;
  double best = std::numeric_limits<double>::infinity();
  for (const TrajectoryPoint& point : summary.trajectory) {
    if (point.best_time_s < best) {
      best = point.best_time_s;
      run.best_curve.push_back(
          {point.measurement, Round6(presampling_s + point.tuning_time_s), best});
    }
  }
  const std::vector<double>& times = tuner.observed_times();
  const size_t first = std::min(times.size(), static_cast<size_t>(study.first_batch));
  for (size_t i = 0; i < first; ++i) {
    run.first_batch_performance.push_back(
        std::isfinite(times[i]) ? Round6(space.info.optimum_s / times[i]) : 0.0);
  }
  return run;
}

// "bench: 120/1400 runs (35 from the journal), 2.5 min elapsed, ETA 12.1 min".
class StudyProgress {
 public:
  StudyProgress(std::ostream& stream, double log_interval_s, int64_t total, int64_t resumed)
      : stream_(stream),
        mode_(loop::ResolveProgressMode(ProgressMode::kAuto, stream)),
        log_interval_s_(log_interval_s),
        total_(total),
        resumed_(resumed),
        done_(resumed) {}

  void RunFinished() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++done_;
    const double interval = mode_ == ProgressMode::kLive ? 0.2 : log_interval_s_;
    if (done_ < total_ && SecondsSince(last_) < interval) return;
    last_ = Clock::now();
    const double elapsed = SecondsSince(start_);
    const int64_t new_done = done_ - resumed_;
    std::string line = "bench: " + std::to_string(done_) + "/" + std::to_string(total_) + " runs";
    if (resumed_ > 0) line += " (" + std::to_string(resumed_) + " from the journal)";
    line += ", " + loop::FormatDuration(elapsed) + " elapsed";
    if (new_done > 0 && done_ < total_) {
      const double eta =
          elapsed / static_cast<double>(new_done) * static_cast<double>(total_ - done_);
      line += ", ETA " + loop::FormatDuration(eta);
    }
    if (mode_ == ProgressMode::kLive) {
      stream_ << "\r\x1b[K" << line << (done_ == total_ ? "\n" : "");
    } else {
      stream_ << line << '\n';
    }
    stream_ << std::flush;
  }

 private:
  std::ostream& stream_;
  ProgressMode mode_;
  double log_interval_s_;
  int64_t total_, resumed_, done_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_ = Clock::now();
  std::mutex mutex_;
};

}  // namespace

Json SubstituteRunPlaceholders(const Json& options, const std::string& device,
                               const std::string& group) {
  if (options.is_string()) {
    std::string text = options.get<std::string>();
    auto replace_all = [&text](const std::string& placeholder, const std::string& value) {
      for (size_t at = text.find(placeholder); at != std::string::npos;
           at = text.find(placeholder, at + value.size())) {
        text.replace(at, placeholder.size(), value);
      }
    };
    replace_all("{device}", device);
    replace_all("{group}", group);
    return text;
  }
  if (options.is_object() || options.is_array()) {
    Json out = options;
    for (auto& element : out) element = SubstituteRunPlaceholders(element, device, group);
    return out;
  }
  return options;
}

StudyResults RunStudy(const StudyConfig& study, const StudyRunOptions& options) {
  if (options.output_path.empty()) throw Error("bench run: an output path is needed (-o FILE)");
  std::ostream& stream = options.progress ? *options.progress : std::cerr;
  const int threads = options.jobs > 0
                          ? options.jobs
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  CheckStrategies(study);
  std::set<std::string> transfer_modes;
  for (const StudyStrategy& strategy : study.strategies) {
    if (!strategy.transfer.empty()) transfer_modes.insert(strategy.transfer);
  }
  const bool transfer = !transfer_modes.empty();
  if (transfer) {
    for (const StudyGroup& group : study.groups) {
      if (group.files.size() < 2) {
        stream << "bench: warning: group '" << group.name
               << "' has one device: transfer-learning strategies get no history there\n";
      }
    }
  }
  const Clock::time_point start = Clock::now();
  std::vector<LoadedSpace> spaces = LoadSpaces(study, threads, transfer_modes);
  stream << "bench: loaded " << spaces.size() << " spaces in "
         << loop::FormatDuration(SecondsSince(start)) << "\n";

  struct Job {
    size_t space, strategy;
    uint64_t seed;
    Json key;
    std::optional<RunRecord> result;
  };
  std::vector<Job> jobs;
  for (size_t s = 0; s < spaces.size(); ++s) {
    for (int seed = 0; seed < study.seeds; ++seed) {
      for (size_t k = 0; k < study.strategies.size(); ++k) {
        jobs.push_back({s, k, static_cast<uint64_t>(seed),
                        RunSettingsKey(study, study.strategies[k], study.groups[spaces[s].group],
                                       options.noise),
                        std::nullopt});
      }
    }
  }

  const std::string journal_path = options.output_path + ".partial.jsonl";
  int64_t resumed = 0;
  if (options.resume) {
    evaluation::JournalContents journal = evaluation::ReadJournal(journal_path);
    for (Job& job : jobs) {
      auto it = journal.runs.find(
          RunKey{spaces[job.space].info.id, study.strategies[job.strategy].name, job.seed});
      if (it != journal.runs.end() && it->second.first == job.key) {
        job.result = it->second.second;
        ++resumed;
      }
    }
    if (journal.unreadable_lines > 0) {
      stream << "bench: " << journal.unreadable_lines << " unreadable line(s) in " << journal_path
             << " ignored (their runs are redone)\n";
    }
  }
  evaluation::JournalWriter journal(journal_path, !options.resume);
  StudyProgress progress(stream, options.log_interval_s, static_cast<int64_t>(jobs.size()),
                         resumed);

  std::vector<size_t> pending;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (!jobs[i].result) pending.push_back(i);
  }
  if (pending.empty()) {
    stream << "bench: all " << jobs.size() << " runs are in the journal " << journal_path << "\n";
  }
  ParallelFor(pending.size(), threads, [&](size_t p) {
    Job& job = jobs[pending[p]];
    const LoadedSpace& space = spaces[job.space];
    const StudyStrategy& strategy = study.strategies[job.strategy];
    try {
      job.result = RunOne(study, space, strategy, job.seed, options.noise);
    } catch (const std::exception& error) {
      throw Error("run " + space.info.id + " " + strategy.name + " seed " +
                  std::to_string(job.seed) + ": " + error.what());
    }
    journal.Append(job.key, *job.result);
    progress.RunFinished();
  });

  StudyResults results;
  results.created = UtcNow();
  results.machine = MachineDescription();
  results.command = options.command;
  results.settings.max_measurements = study.max_measurements;
  results.settings.max_seconds = study.max_seconds;
  results.settings.seeds = study.seeds;
  results.settings.first_batch = study.first_batch;
  results.settings.checkpoints = study.checkpoints;
  results.settings.fractions = study.fractions;
  results.settings.leave_one_device_out = transfer;
  results.settings.batch_size = study.batch_size;
  results.settings.noise = options.noise;
  for (const LoadedSpace& space : spaces) results.spaces.push_back(space.info);
  for (Job& job : jobs) {
    job.result->tool = "glimpse";
    results.runs.push_back(std::move(*job.result));
  }
  Summarize(results);
  WriteResults(results, options.output_path);
  return results;
}

}  // namespace glimpse
