// glimpse.Measurer: builds and measures configurations of one operator on a target, for a tuning
// loop run elsewhere — in Python, or spread over machines (glimpse.ray: one Measurer per worker).
// What the loop of glimpse/tuning_loop.h does between Propose and Observe, and nothing else.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "glimpse/cpu.h"
#include "glimpse/cuda.h"
#include "glimpse/error.h"
#include "glimpse/ops.h"
#include "glimpse/replay.h"
#include "glimpse/target.h"
#include "py_json.h"

namespace nb = nanobind;
namespace fs = std::filesystem;

namespace glimpse::python {
namespace {

double NowSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

class Measurer {
 public:
  Measurer(const std::string& op, const std::string& target, const std::string& recorded,
           int threads, double timeout_s, bool build_only, const std::string& arch,
           double pace_ms) {
    if (target == "replay") {
      if (recorded.empty()) throw Error("target 'replay' needs recorded=PATH (a recorded space)");
      ReplayOptions options;
      options.pace_ms = pace_ms;
      auto space = std::make_shared<RecordedSpace>(LoadRecordedSpace(recorded));
      auto replay = std::make_unique<ReplayTarget>(space, options);
      task_ = replay->RecordedTask();
      target_ = std::move(replay);
    } else {
      const Operator parsed = ParseOperator(op);
      if (target == "cpu") {
        CpuTargetOptions options;
        options.threads = threads;
        target_ = std::make_unique<CpuTarget>(options);
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
        target_ = std::make_unique<CudaTarget>(options, device);
      } else {
        throw Error("target '" + target + "' is not known; accepted: cpu, cuda, replay");
      }
      task_ = target_->MakeTask(parsed);
      if (timeout_s <= 0) timeout_s = 10.0 + 4.0 * OperatorFlops(parsed) / 1e9;
    }
    std::string pattern = (fs::temp_directory_path() / "glimpse-measure-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      throw Error("cannot create a kernel folder under " + fs::temp_directory_path().string());
    }
    work_dir_ = pattern;
    builder_ = target_->MakeBuilder(work_dir_);
    runner_ = target_->MakeRunner(task_, timeout_s);
  }
  ~Measurer() {
    std::error_code ignored;
    fs::remove_all(work_dir_, ignored);
  }
  Measurer(const Measurer&) = delete;
  Measurer& operator=(const Measurer&) = delete;

  nb::list Measure(const nb::list& configs) {
    std::vector<MeasureInput> inputs;
    for (size_t i = 0; i < configs.size(); ++i) {
      inputs.push_back(MeasureInput{
          &task_, ConfigFromPython(task_.space, configs[i], "configs[" + std::to_string(i) + "]")});
    }
    std::vector<MeasureResult> results;
    double started = 0, finished = 0;
    {
      nb::gil_scoped_release release;
      started = NowSeconds();
      std::vector<BuildResult> builds = builder_->Build(inputs);
      results = runner_->Run(inputs, builds);
      finished = NowSeconds();
    }
    nb::list out;
    for (const MeasureResult& result : results) {
      nb::dict dict;
      dict["status"] = StatusName(result.status);
      dict["time_s"] = result.ok() ? nb::object(nb::float_(result.time_s)) : nb::none();
      dict["samples_s"] = result.samples_s;
      dict["compile_time_s"] = result.compile_time_s;
      dict["cost_s"] = result.cost_s;
      dict["error"] = result.error;
      dict["started_at"] = started;
      dict["finished_at"] = finished;
      out.append(dict);
    }
    return out;
  }

  nb::dict Workload() const {
    nb::dict dict;
    dict["key"] = task_.WorkloadKey();
    dict["name"] = task_.name;
    dict["description"] = ToPython(task_.description);
    dict["space"] = ToPython(task_.space.ToJson());
    return dict;
  }
  const std::string& device() const { return task_.device; }
  const ConfigSpace& space() const { return task_.space; }

 private:
  std::unique_ptr<Target> target_;
  Task task_;
  std::string work_dir_;
  std::unique_ptr<Builder> builder_;
  std::unique_ptr<Runner> runner_;
};

}  // namespace

void BindMeasurer(nb::module_& m) {
  nb::class_<Measurer>(m, "Measurer",
                       "Builds and measures configurations of one operator on a target "
                       "(cpu, cuda, or a recorded space replayed).")
      .def(nb::init<const std::string&, const std::string&, const std::string&, int, double, bool,
                    const std::string&, double>(),
           nb::arg("op") = "", nb::arg("target") = "cpu", nb::arg("recorded") = "",
           nb::arg("threads") = 0, nb::arg("timeout_s") = 0.0, nb::arg("build_only") = false,
           nb::arg("arch") = "", nb::arg("pace_ms") = 0.0,
           "op: an operator ('dense:M=64,N=64,K=64') for cpu/cuda; recorded: a recorded space "
           "for target 'replay' (pace_ms: real milliseconds per replayed measurement).")
      .def("measure", &Measurer::Measure, nb::arg("configs"),
           "Builds and measures the configurations; one result dict per configuration: status, "
           "time_s (None unless ok), samples_s, compile_time_s, cost_s, error, started_at, "
           "finished_at. A failing candidate is a result, never an exception.")
      .def_prop_ro("workload", &Measurer::Workload,
                   "The task as the database keeps it: key, name, description, space.")
      .def_prop_ro("device", &Measurer::device)
      .def_prop_ro("space", &Measurer::space);
}

}  // namespace glimpse::python
