// MeasureCorpus (glimpse/corpus_measure.h): operator by operator, its uniform sample and then a
// short tuning run, through the tuning loop (Tune), so that batches, statuses, progress and the
// per-batch commits are the loop's own.
//
// Map: per operator → MakeTask (no template: noted, skipped) → the sample minus the database's
// records → Tune with a tuner that proposes exactly that list (resume off: the list is already
// what is missing) → the tuning run (resume on, budget = records held + what its strategy still
// owes) → the records added, counted from the database.
#include "glimpse/corpus_measure.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <ostream>
#include <set>
#include <thread>

#include "glimpse/build_support.h"
#include "glimpse/error.h"
#include "glimpse/json_fields.h"
#include "glimpse/tuner.h"

namespace glimpse {

const char* const kCorpusUniformStrategy = "corpus-uniform";

namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Proposes a fixed list, in order: the operator's sample that the database does not hold yet.
class ListTuner : public Tuner {
 public:
  explicit ListTuner(std::vector<Config> list) : list_(std::move(list)) {}
  std::string Name() const override { return kCorpusUniformStrategy; }
  using Tuner::Init;
  void Init(const TuningContext&) override { next_ = 0; }
  std::vector<Config> Propose(size_t n) override {
    std::vector<Config> out;
    while (out.size() < n && next_ < list_.size()) out.push_back(list_[next_++]);
    return out;
  }
  void Observe(const std::vector<Config>&, const std::vector<MeasureResult>&) override {}

 private:
  std::vector<Config> list_;
  size_t next_ = 0;
};

// The runs the database remembers (its note "perf_corpus.runs"), oldest first; a note this build
// cannot read counts as none and is replaced when the run's note is appended.
Json StoredRunNotes(const Database& database) {
  if (std::optional<std::string> held = database.GetNote("perf_corpus.runs")) {
    try {
      Json runs = Json::parse(*held);
      if (runs.is_array()) return runs;
    } catch (const Json::exception&) {
    }
  }
  return Json::array();
}

// The protocol's fields, the CPU and the template versions where `earlier` (the last run's note)
// and `now` differ, as `flush: "0: …" then, "1: …" now`; empty when they agree.
std::vector<std::string> ProtocolChanges(const Json& earlier, const Json& now) {
  std::vector<std::string> changes;
  const auto compare = [&](const std::string& name, const Json& a, const Json& b) {
    if (a != b) changes.push_back(name + ": " + a.dump() + " then, " + b.dump() + " now");
  };
  const Json& before = earlier.contains("protocol") ? earlier["protocol"] : Json::object();
  const Json& after = now.contains("protocol") ? now["protocol"] : Json::object();
  for (const auto& [key, value] : after.items()) {
    if (key == "overlap_builds") continue;  // how the work is scheduled, not how it is timed
    compare(key, before.contains(key) ? before[key] : Json(nullptr), value);
  }
  const auto cpu = [](const Json& note) {
    return note.contains("machine") ? StringOr(note["machine"], "cpu") : std::string();
  };
  if (!cpu(earlier).empty()) compare("cpu", cpu(earlier), cpu(now));
  // The programs a configuration stands for.
  if (earlier.contains("template_versions") && now.contains("template_versions")) {
    compare("template_versions", earlier["template_versions"], now["template_versions"]);
  }
  return changes;
}

// Throws Error naming the database and the differences when `runs` (StoredRunNotes) end with a run
// of another protocol than `run_note`'s.
void CheckSameProtocol(const Database& database, const Json& runs, const Json& run_note) {
  if (runs.empty()) return;
  const std::vector<std::string> changes = ProtocolChanges(runs.back(), run_note);
  if (changes.empty()) return;
  std::string list;
  for (const std::string& change : changes) list += (list.empty() ? "" : "; ") + change;
  throw Error(database.path() +
              ": its corpus was measured with another protocol than this run's (" + list +
              "). One corpus keeps one protocol, since its times are the model's labels: measure "
              "into a new database, run the build that measured it, or pass "
              "--allow-protocol-change to mix them (every run's protocol stays in the notes)");
}

}  // namespace

CorpusMeasureReport MeasureCorpus(const Target& target,
                                  const std::vector<CorpusOperator>& operators,
                                  const CorpusMeasureOptions& options, Database& database,
                                  const Json& run_note) {
  if (options.per_operator < 0 || options.tuned_best < 0) {
    throw Error("the per-operator sample and the tuning run's budget must not be negative");
  }
  if (options.tuned_best > 0) MakeTuner(options.tuner);  // an unknown strategy fails before work
  const Clock::time_point start = Clock::now();
  CorpusMeasureReport report;
  report.planned = static_cast<int64_t>(operators.size());
  report.stop_reason = "done";
  Json runs = StoredRunNotes(database);
  if (!options.allow_protocol_change) CheckSameProtocol(database, runs, run_note);
  runs.push_back(run_note);
  database.SetNote("perf_corpus.runs", runs.dump());
  std::unique_ptr<Builder> builder = target.MakeBuilder(options.work_dir);

  // Seconds left of the time budget; +inf without one.
  auto left = [&] {
    return options.time_budget_s > 0 ? options.time_budget_s - SecondsSince(start)
                                     : std::numeric_limits<double>::infinity();
  };
  for (size_t i = 0; i < operators.size(); ++i) {
    if (options.max_operators > 0 && static_cast<int64_t>(i) >= options.max_operators) {
      report.stop_reason = "max operators";
      break;
    }
    if (left() <= 0) {
      report.stop_reason = "time budget";
      break;
    }
    const CorpusOperator& op = operators[i];
    CorpusOperatorOutcome outcome;
    outcome.op_text = op.op_text;
    const std::string where =
        fmt::format("operator {}/{}: {}", i + 1, operators.size(), op.op_text);
    Task task;
    try {
      task = target.MakeTask(op.op);
    } catch (const Error& error) {
      outcome.error = error.what();
      if (options.log != nullptr) *options.log << where << ": skipped, " << outcome.error << "\n";
      report.operators.push_back(std::move(outcome));
      continue;
    }
    outcome.workload_key = task.WorkloadKey();

    const std::vector<TuningRecord> before = database.Records(outcome.workload_key, task.device);
    std::set<std::string> held;
    int64_t max_id = 0, tuned_held = 0;
    for (const TuningRecord& record : before) {
      held.insert(record.config_hash);
      max_id = std::max(max_id, record.id);
      tuned_held += record.strategy == options.tuner;
    }
    std::vector<Config> missing;
    const std::vector<Config> sample =
        SampleUniformConfigs(task.space, static_cast<size_t>(options.per_operator),
                             CorpusOperatorSeed(options.seed, op.op_text));
    for (const Config& config : sample) {
      if (!held.count(HashToHex(task.space.Hash(config)))) missing.push_back(config);
    }
    outcome.sampled = static_cast<int64_t>(sample.size());
    outcome.already = outcome.sampled - static_cast<int64_t>(missing.size());
    const int64_t tuned_owed = std::max<int64_t>(0, options.tuned_best - tuned_held);
    if (options.log != nullptr) {
      *options.log << fmt::format("{}: {} sampled, {} already measured; {} {} to go\n", where,
                                  outcome.sampled, outcome.already, tuned_owed, options.tuner);
    }

    TuneOptions tune;
    tune.batch_size = options.batch;
    tune.seed = CorpusOperatorSeed(options.seed, op.op_text);
    tune.progress = options.progress;
    std::unique_ptr<Runner> runner = target.MakeRunner(task, options.run_timeout(op.op));
    if (!missing.empty() && left() > 0) {
      tune.max_measurements = static_cast<int64_t>(missing.size());
      tune.max_seconds = std::isfinite(left()) ? left() : 0.0;
      tune.resume = false;  // `missing` already leaves out what the database holds
      ListTuner uniform(std::move(missing));
      Tune(task, uniform, *builder, *runner, &database, tune);
    }
    if (tuned_owed > 0 && left() > 0) {
      // Warmed by every record of the operator (resume), which also count towards the loop's
      // budget: the budget is what is held plus what the tuning run still owes.
      const auto held_now =
          static_cast<int64_t>(database.Records(outcome.workload_key, task.device).size());
      tune.max_measurements = held_now + tuned_owed;
      tune.max_seconds = std::isfinite(left()) ? left() : 0.0;
      tune.resume = true;
      std::unique_ptr<Tuner> tuner = MakeTuner(options.tuner);
      Tune(task, *tuner, *builder, *runner, &database, tune);
    }

    outcome.best_time_s = std::numeric_limits<double>::infinity();
    for (const TuningRecord& record : database.Records(outcome.workload_key, task.device)) {
      ++outcome.records;
      if (record.status == MeasureStatus::kOk) {
        outcome.best_time_s = std::min(outcome.best_time_s, record.time_s);
      }
      if (record.id <= max_id) continue;
      ++outcome.measured;
      outcome.ok += record.status == MeasureStatus::kOk;
    }
    report.measured += outcome.measured;
    report.ok += outcome.ok;
    report.operators.push_back(std::move(outcome));
  }
  if (report.stop_reason == "done" && left() <= 0) report.stop_reason = "time budget";
  report.elapsed_s = SecondsSince(start);
  return report;
}

std::string GlimpseRevision() {
#ifdef GLIMPSE_GIT_REVISION
  return GLIMPSE_GIT_REVISION;
#else
  return "unknown";
#endif
}

Json CpuCorpusRunNote(const CpuTargetOptions& target, const CorpusMeasureOptions& options) {
  const CpuRunnerOptions runner;  // the protocol's settings: the corpus measures with the defaults
  const std::vector<int> cpus = process::AllowedCpus();
  return Json{
      {"started_at", static_cast<double>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                             std::chrono::system_clock::now().time_since_epoch())
                                             .count()) /
                         1000.0},
      {"machine",
       {{"cpu", CpuDeviceName()},
        {"cpus", cpus.size()},
        {"online_cpus", std::thread::hardware_concurrency()},
        {"glimpse_revision", GlimpseRevision()}}},
      {"protocol",
       {{"threads", target.threads == 0 ? static_cast<int>(cpus.size()) : target.threads},
        {"warmup", runner.warmup},
        {"min_repeats", runner.min_repeats},
        {"min_time_s", runner.min_time_s},
        {"max_repeats", runner.max_repeats},
        {"flush_bytes", runner.flush_bytes},
        // Which flush: 0 was a memset of the buffer by one thread (glibc's non-temporal stores
        // left data cached), 1 the sweep of glimpse/cache_flush.h by every thread.
        {"flush",
         "1: every thread of the kernel's team loads and stores each line of its slice "
         "of 2 x the last-level cache (at most 128 MiB) between timed runs"},
        {"rtol", runner.rtol},
        {"time", "median of the timed runs; the output is checked against the reference first"},
        {"compiler", CpuBuilderOptions{}.compiler},
        {"compiler_flags", DefaultCpuCompilerFlags()},
        {"overlap_builds", target.overlap_builds}}},
      {"template_versions", {{"cpu", kCpuTemplateVersion}}},
      {"settings",
       {{"per_operator", options.per_operator},
        {"tuned_best", options.tuned_best},
        {"tuner", options.tuner},
        {"seed", options.seed},
        {"batch", options.batch}}}};
}

}  // namespace glimpse
