// glimpse.Tuner: any registered strategy over a Space, driven by the caller — propose a batch,
// measure it however the caller likes, observe the results (the lifecycle of glimpse/tuner.h).
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "bindings.h"
#include "glimpse/error.h"
#include "glimpse/hardware.h"
#include "glimpse/task.h"
#include "glimpse/tuner.h"
#include "py_json.h"

namespace nb = nanobind;

namespace glimpse::python {
namespace {

// The tuner and the task it was initialised with (a Tuner keeps a pointer to its task).
class PythonTuner {
 public:
  PythonTuner(const std::string& name, const ConfigSpace& space, nb::handle options, uint64_t seed,
              const std::string& device, const std::string& kernel, nb::handle history)
      : name_(name), task_(std::make_unique<Task>()) {
    Json tuner_options = options.is_none() ? Json::object() : ToJson(options, "options");
    if (!tuner_options.is_object()) throw Error("options: expected a dict of option → value");
    tuner_ = MakeTuner(name, tuner_options);  // Error: unknown strategy or option
    task_->name = kernel.empty() ? "python" : kernel;
    task_->device = device;
    task_->space = space;
    task_->description = Json{{"kernel", kernel}, {"source", "python"}};

    TuningContext context{task_.get(), seed, {}};
    if (!device.empty()) {
      if (const GpuSpec* gpu = GpuTable::Default().Find(device)) {
        context.knowledge.gpu = std::make_shared<const GpuSpec>(*gpu);
      }
    }
    if (!history.is_none()) {
      size_t index = 0;
      for (nb::handle item : history) {
        const std::string where = "history[" + std::to_string(index++) + "]";
        if (!nb::isinstance<nb::tuple>(item) && !nb::isinstance<nb::list>(item)) {
          throw Error(where + ": expected a (config, time in seconds or None) pair");
        }
        nb::sequence pair = nb::borrow<nb::sequence>(item);
        if (nb::len(pair) != 2) {
          throw Error(where + ": expected a (config, time in seconds or None) pair");
        }
        context.knowledge.history.emplace_back(ConfigFromPython(space, pair[0], where + "[0]"),
                                               ResultFromPython(pair[1], "", where + "[1]"));
      }
    }
    tuner_->Init(context);
  }

  nb::list Propose(size_t n) {
    std::vector<Config> configs;
    {
      nb::gil_scoped_release release;
      configs = tuner_->Propose(n);
    }
    return ConfigsToPython(task_->space, configs);
  }

  void Observe(const nb::list& configs, const nb::list& times, nb::handle statuses) {
    if (configs.size() != times.size()) {
      throw Error("observe: " + std::to_string(configs.size()) + " configurations but " +
                  std::to_string(times.size()) + " times");
    }
    std::vector<std::string> status_names(configs.size());
    if (!statuses.is_none()) {
      status_names = nb::cast<std::vector<std::string>>(statuses);
      if (status_names.size() != configs.size()) {
        throw Error("observe: " + std::to_string(configs.size()) + " configurations but " +
                    std::to_string(status_names.size()) + " statuses");
      }
    }
    std::vector<Config> observed;
    std::vector<MeasureResult> results;
    for (size_t i = 0; i < configs.size(); ++i) {
      const std::string where = "observe: [" + std::to_string(i) + "]";
      observed.push_back(ConfigFromPython(task_->space, configs[i], where));
      results.push_back(ResultFromPython(times[i], status_names[i], where));
    }
    nb::gil_scoped_release release;
    tuner_->Observe(observed, results);
  }

  const std::string& name() const { return name_; }
  const ConfigSpace& space() const { return task_->space; }

 private:
  std::string name_;
  std::unique_ptr<Task> task_;
  std::unique_ptr<Tuner> tuner_;
};

}  // namespace

MeasureResult ResultFromPython(nb::handle time, const std::string& status,
                               const std::string& where) {
  MeasureResult result;
  double seconds = std::numeric_limits<double>::infinity();
  if (!time.is_none()) {
    try {
      seconds = nb::cast<double>(time);
    } catch (const nb::cast_error&) {
      throw Error(where + ": a time is a number of seconds, or None for a failure");
    }
  }
  const bool ok = std::isfinite(seconds) && seconds >= 0;
  if (ok) {
    if (!status.empty() && status != "ok") {
      throw Error(where + ": status '" + status + "' comes with a time; a failure has time None");
    }
    result.status = MeasureStatus::kOk;
    result.time_s = seconds;
    result.samples_s = {seconds};
    return result;
  }
  try {
    result.status = status.empty() ? MeasureStatus::kUnknown : StatusFromName(status);
  } catch (const Error& error) {
    throw Error(where + ": " + error.what());
  }
  if (result.status == MeasureStatus::kOk) {
    throw Error(where + ": status 'ok' needs a finite time of 0 seconds or more");
  }
  result.error = "reported as failed from Python";
  return result;
}

void BindTuner(nb::module_& m) {
  m.def("known_tuners", &KnownTuners, "The registered strategies' names, sorted.");
  m.def("tuner_description", &TunerDescription, nb::arg("name"));
  m.def(
      "status_names",
      [] {
        std::vector<std::string> names;
        for (int i = 0; i < kNumMeasureStatuses; ++i) {
          names.push_back(StatusName(static_cast<MeasureStatus>(i)));
        }
        return names;
      },
      "The statuses a measurement may have: 'ok' and the failures.");

  nb::class_<PythonTuner>(m, "Tuner",
                          "A strategy over a Space: propose(n) → configurations, "
                          "observe(configs, times) → it learns.")
      .def(nb::init<const std::string&, const ConfigSpace&, nb::handle, uint64_t,
                    const std::string&, const std::string&, nb::handle>(),
           nb::arg("name"), nb::arg("space"), nb::arg("options") = nb::none(), nb::arg("seed") = 0,
           nb::arg("device") = "", nb::arg("kernel") = "", nb::arg("history") = nb::none(),
           "name: one of known_tuners(); options: the strategy's options (as --tuner-option); "
           "device: the GPU's name (any name the GPU table knows: the hardware-aware strategies "
           "read its Blueprint); kernel: the kernel space the pretrained models know it by "
           "('gemm', 'convolution_milo', …); history: (config, seconds or None) measured "
           "elsewhere, for the strategies that learn from history.")
      .def("propose", &PythonTuner::Propose, nb::arg("n"),
           "At most n new valid configurations; fewer only when the space is exhausted.")
      .def("observe", &PythonTuner::Observe, nb::arg("configs"), nb::arg("times"),
           nb::arg("statuses") = nb::none(),
           "Measured results: times in seconds, None for a failure (statuses: its status names, "
           "'unknown' when omitted).")
      .def_prop_ro("name", &PythonTuner::name)
      .def_prop_ro("space", &PythonTuner::space)
      .def("__repr__", [](const PythonTuner& tuner) { return "Tuner('" + tuner.name() + "')"; });
}

}  // namespace glimpse::python
