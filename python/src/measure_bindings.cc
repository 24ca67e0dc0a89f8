// glimpse.Measurer: builds and measures configurations of one operator on a target, for a tuning
// loop run elsewhere — in Python, or spread over machines (glimpse.ray: one Measurer per worker).
// What the loop of glimpse/tuning_loop.h does between Propose and Observe, and nothing else.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "bindings.h"
#include "glimpse/error.h"
#include "py_json.h"
#include "target_setup.h"

namespace nb = nanobind;

namespace glimpse::python {
namespace {

double NowSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

class Measurer {
 public:
  explicit Measurer(const TargetChoice& choice) : setup_(SetUpTarget(choice)) {}
  Measurer(const Measurer&) = delete;
  Measurer& operator=(const Measurer&) = delete;

  nb::list Measure(const nb::list& configs) {
    std::vector<MeasureInput> inputs;
    for (size_t i = 0; i < configs.size(); ++i) {
      inputs.push_back(MeasureInput{
          &setup_.task,
          ConfigFromPython(setup_.task.space, configs[i], "configs[" + std::to_string(i) + "]")});
    }
    std::vector<MeasureResult> results;
    double started = 0, finished = 0;
    {
      nb::gil_scoped_release release;
      started = NowSeconds();
      std::vector<BuildResult> builds = setup_.builder->Build(inputs);
      results = setup_.runner->Run(inputs, builds);
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
    dict["key"] = setup_.task.WorkloadKey();
    dict["name"] = setup_.task.name;
    dict["description"] = ToPython(setup_.task.description);
    dict["space"] = ToPython(setup_.task.space.ToJson());
    return dict;
  }
  const std::string& device() const { return setup_.task.device; }
  const ConfigSpace& space() const { return setup_.task.space; }

 private:
  TargetSetup setup_;
};

}  // namespace

void BindMeasurer(nb::module_& m) {
  nb::class_<Measurer>(m, "Measurer",
                       "Builds and measures configurations of one operator on a target "
                       "(cpu, cuda, or a recorded space replayed).")
      .def(
          "__init__",
          [](Measurer* self, const std::string& op, const std::string& target,
             const std::string& recorded, int threads, double timeout_s, bool build_only,
             const std::string& arch, double pace_ms) {
            new (self) Measurer(
                TargetChoice{op, target, recorded, threads, timeout_s, build_only, arch, pace_ms});
          },
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
