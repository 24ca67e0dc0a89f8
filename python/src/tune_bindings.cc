// glimpse.tune and glimpse.tune_recorded: the tuning loop (glimpse/tuning_loop.h) on a target — an
// operator on this CPU or an NVIDIA GPU, or a recorded space replayed — with a database.
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "bindings.h"
#include "glimpse/cpu.h"
#include "glimpse/cuda.h"
#include "glimpse/database.h"
#include "glimpse/error.h"
#include "glimpse/ops.h"
#include "glimpse/replay.h"
#include "glimpse/target.h"
#include "glimpse/tuner.h"
#include "py_json.h"

namespace nb = nanobind;
namespace fs = std::filesystem;

namespace glimpse::python {
namespace {

// A folder for the candidates' sources and shared objects, removed afterwards.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "glimpse-python-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      throw Error("cannot create a kernel folder under " + fs::temp_directory_path().string());
    }
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

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
        const Operator parsed = ParseOperator(op);
        std::unique_ptr<Target> made;
        if (target == "cpu") {
          CpuTargetOptions options;
          options.threads = threads;
          made = std::make_unique<CpuTarget>(options);
        } else if (target == "cuda") {
          std::optional<CudaDeviceInfo> device;
          if (std::string reason = CudaUnavailableReason(); reason.empty()) {
            device = QueryCudaDevice(0);
          } else if (!build_only) {
            throw Error(reason + " (build_only=True compiles and checks kernels without one)");
          }
          CudaTargetOptions options;
          options.arch = !arch.empty() ? arch : device ? device->Arch() : "sm_90";
          options.build_only = build_only;
          made = std::make_unique<CudaTarget>(options, device);
        } else {
          throw Error("target '" + target + "' is not known; accepted: cpu, cuda");
        }
        const Task task = made->MakeTask(parsed);  // Error: no template, or too big to measure
        ScratchDir scratch;
        std::unique_ptr<Builder> builder = made->MakeBuilder(scratch.path());
        const double run_timeout =
            timeout_s > 0 ? timeout_s : 10.0 + 4.0 * OperatorFlops(parsed) / 1e9;
        std::unique_ptr<Runner> runner = made->MakeRunner(task, run_timeout);
        const TunerTraits traits = TraitsOfTuner(tuner);
        if (traits.checks_validity) {
          setup.options.knowledge.validity_checker =
              made->MakeValidityChecker(task, scratch.path());
        }
        if (traits.reads_device) {
          std::vector<std::string> notes;
          setup.options.knowledge.gpu = made->DescribeDevice(notes);
        }
        return RunLoop(task, setup, *builder, *runner);
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
