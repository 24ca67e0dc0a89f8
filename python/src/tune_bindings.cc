// glimpse.tune and glimpse.tune_recorded: the tuning loop (glimpse/tuning_loop.h) on a target — an
// operator on this CPU or an NVIDIA GPU, or a recorded space replayed — with a database.
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "bindings.h"
#include "glimpse/database.h"
#include "glimpse/error.h"
#include "glimpse/replay.h"
#include "glimpse/target.h"
#include "glimpse/tuner.h"
#include "py_json.h"
#include "target_setup.h"

namespace nb = nanobind;

namespace glimpse::python {
namespace {

// What every tune call shares: the tuner (options checked before anything is written), the
// loop's options, the database.
struct LoopSetup {
  std::unique_ptr<Tuner> tuner;
  TuneOptions options;
  std::unique_ptr<Database> database;  // null: nothing stored, nothing resumed
};

LoopSetup SetUpLoop(const std::string& tuner, nb::handle tuner_options, int64_t budget,
                    uint64_t seed, int batch_size, const std::string& database, bool progress) {
  LoopSetup setup;
  Json options = tuner_options.is_none() ? Json::object() : ToJson(tuner_options, "tuner_options");
  if (!options.is_object()) throw Error("tuner_options: expected a dict of option → value");
  setup.tuner = MakeTuner(tuner, options);
  if (budget <= 0) throw Error("budget: expected a positive number of measurements");
  setup.options.max_measurements = budget;
  setup.options.seed = seed;
  setup.options.batch_size = batch_size;
  setup.options.progress = progress ? ProgressMode::kLog : ProgressMode::kQuiet;
  setup.options.Validate();
  if (!database.empty()) setup.database = std::make_unique<Database>(database);
  return setup;
}

nb::dict RunLoop(const Task& task, LoopSetup& setup, Builder& builder, Runner& runner) {
  TuneSummary summary;
  {
    nb::gil_scoped_release release;
    summary = Tune(task, *setup.tuner, builder, runner, setup.database.get(), setup.options);
  }
  nb::dict out = SummaryToPython(task.space, summary);
  out["workload_key"] = task.WorkloadKey();
  out["task"] = task.name;
  out["device"] = task.device;
  return out;
}

}  // namespace

nb::dict SummaryToPython(const ConfigSpace& space, const TuneSummary& summary) {
  nb::dict out;
  out["measurements"] = summary.measurements;
  out["resumed"] = summary.resumed;
  out["failed"] = summary.failed;
  nb::dict by_status;
  for (const auto& [status, count] : summary.by_status) by_status[StatusName(status)] = count;
  out["by_status"] = by_status;
  out["best_config"] =
      summary.best_config ? nb::object(ConfigToPython(space, *summary.best_config)) : nb::none();
  out["best_time_s"] = std::isfinite(summary.best_time_s) && summary.best_config
                           ? nb::object(nb::float_(summary.best_time_s))
                           : nb::none();
  out["tuning_time_s"] = summary.tuning_time_s;
  out["elapsed_s"] = summary.elapsed_s;
  out["tuner_s"] = summary.tuner_s;
  out["stop_reason"] = summary.stop_reason;
  nb::list trajectory;
  for (const TrajectoryPoint& point : summary.trajectory) {
    trajectory.append(nb::make_tuple(
        point.measurement, point.tuning_time_s,
        std::isfinite(point.best_time_s) ? nb::object(nb::float_(point.best_time_s)) : nb::none()));
  }
  out["trajectory"] = trajectory;
  return out;
}

void BindTune(nb::module_& m) {
  m.def(
      "tune",
      [](const std::string& op, const std::string& target, const std::string& tuner, int64_t budget,
         uint64_t seed, const std::string& database, nb::handle tuner_options, int batch_size,
         double timeout_s, int threads, bool build_only, const std::string& arch, bool progress) {
        LoopSetup setup =
            SetUpLoop(tuner, tuner_options, budget, seed, batch_size, database, progress);
        if (target == "replay") {
          throw Error("target 'replay': tune a recorded space with tune_recorded");
        }
        TargetSetup made =
            SetUpTarget(TargetChoice{op, target, "", threads, timeout_s, build_only, arch, 0.0});
        const TunerTraits traits = TraitsOfTuner(tuner);
        if (traits.checks_validity) {
          setup.options.knowledge.validity_checker =
              made.target->MakeValidityChecker(made.task, made.scratch->path());
        }
        if (traits.reads_device) {
          std::vector<std::string> notes;
          setup.options.knowledge.gpu = made.target->DescribeDevice(notes);
        }
        return RunLoop(made.task, setup, *made.builder, *made.runner);
      },
      nb::arg("op"), nb::arg("target") = "cpu", nb::arg("tuner") = "xgb", nb::arg("budget") = 64,
      nb::arg("seed") = 0, nb::arg("database") = "", nb::arg("tuner_options") = nb::none(),
      nb::arg("batch_size") = 16, nb::arg("timeout_s") = 0.0, nb::arg("threads") = 0,
      nb::arg("build_only") = false, nb::arg("arch") = "", nb::arg("progress") = false,
      "Tunes one operator ('dense:M=64,N=64,K=64', as `glimpse tune --op` reads it) on this CPU "
      "or an NVIDIA GPU (build_only: compile and check against the device's limits, no run). "
      "database: a path whose records are resumed and added to ('' keeps none). Returns the "
      "summary: best_config, best_time_s, measurements, failed, by_status, stop_reason, "
      "trajectory [(measurement, seconds so far, best time)].");

  m.def(
      "tune_recorded",
      [](std::shared_ptr<RecordedSpace> recorded, const std::string& tuner, int64_t budget,
         uint64_t seed, const std::string& database, nb::handle tuner_options, int batch_size,
         bool noise, bool progress) {
        LoopSetup setup =
            SetUpLoop(tuner, tuner_options, budget, seed, batch_size, database, progress);
        ReplayOptions replay;
        replay.noise = noise;
        replay.seed = seed;
        const ReplayTarget target(recorded, replay);
        const Task task = target.RecordedTask();
        std::unique_ptr<Builder> builder = target.MakeBuilder("");
        std::unique_ptr<Runner> runner = target.MakeRunner(task, 0.0);
        if (TraitsOfTuner(tuner).checks_validity) {
          setup.options.knowledge.validity_checker = target.MakeReplayValidityChecker(task);
        }
        return RunLoop(task, setup, *builder, *runner);
      },
      nb::arg("recorded"), nb::arg("tuner") = "glimpse", nb::arg("budget") = 64,
      nb::arg("seed") = 0, nb::arg("database") = "", nb::arg("tuner_options") = nb::none(),
      nb::arg("batch_size") = 16, nb::arg("noise") = false, nb::arg("progress") = false,
      "Tunes a recorded space (load_recorded) by replaying its measurements: what a run on its "
      "device would have found, and its simulated tuning time.");
}

}  // namespace glimpse::python
