// glimpse.RecordedSpace: a brute-forced space measured on one device (a Kernel Tuner cache or a T4
// file, glimpse/replay.h), to look configurations up in and to tune on without the device.
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <string>
#include <vector>

#include "bindings.h"
#include "glimpse/error.h"
#include "glimpse/replay.h"
#include "py_json.h"

namespace nb = nanobind;

namespace glimpse::python {
namespace {

nb::dict EntryToPython(const RecordedEntry& entry) {
  nb::dict dict;
  dict["status"] = StatusName(entry.status);
  dict["time_s"] =
      entry.status == MeasureStatus::kOk ? nb::object(nb::float_(entry.time_s)) : nb::none();
  dict["samples_s"] = entry.samples_s;
  dict["compile_time_s"] = entry.compile_time_s;
  dict["benchmark_time_s"] = entry.benchmark_time_s;
  return dict;
}

}  // namespace

void BindRecorded(nb::module_& m) {
  nb::class_<RecordedSpace>(m, "RecordedSpace",
                            "A space measured on one device, read from a Kernel Tuner cache "
                            "(.json or .json.gz) or a T4 results file.")
      .def_ro("path", &RecordedSpace::source_path)
      .def_ro("device_name", &RecordedSpace::device_name)
      .def_ro("kernel_name", &RecordedSpace::kernel_name)
      .def_prop_ro("problem_size",
                   [](const RecordedSpace& recorded) { return ToPython(recorded.problem_size); })
      .def_ro("space", &RecordedSpace::space)
      .def("__len__", [](const RecordedSpace& recorded) { return recorded.entries.size(); })
      .def(
          "counts",
          [](const RecordedSpace& recorded) {
            nb::dict counts;
            for (const auto& [status, count] : recorded.CountByStatus()) {
              counts[StatusName(status)] = count;
            }
            return counts;
          },
          "Entries by status.")
      .def(
          "best",
          [](const RecordedSpace& recorded) -> nb::object {
            auto best = recorded.Best();
            if (!best) return nb::none();
            return nb::make_tuple(
                ConfigToPython(recorded.space, recorded.space.FromDenseIndex(best->first)),
                best->second.time_s);
          },
          "(config, seconds) of the fastest ok entry, or None.")
      .def(
          "lookup",
          [](const RecordedSpace& recorded, nb::handle config) -> nb::object {
            Config parsed = ConfigFromPython(recorded.space, config, "config");
            auto it = recorded.entries.find(recorded.space.ToDenseIndex(parsed));
            if (it == recorded.entries.end()) return nb::none();
            return EntryToPython(it->second);
          },
          nb::arg("config"),
          "The entry of a configuration: {status, time_s (None unless ok), samples_s, "
          "compile_time_s, benchmark_time_s}, or None when the file lacks it.")
      .def(
          "entries",
          [](const RecordedSpace& recorded) {
            nb::list list;
            for (const auto& [index, entry] : recorded.entries) {
              list.append(nb::make_tuple(
                  ConfigToPython(recorded.space, recorded.space.FromDenseIndex(index)),
                  EntryToPython(entry)));
            }
            return list;
          },
          "Every (config, entry) pair, in no particular order.")
      .def("__repr__", [](const RecordedSpace& recorded) {
        return "RecordedSpace('" + recorded.source_path + "', device '" + recorded.device_name +
               "', " + std::to_string(recorded.entries.size()) + " entries)";
      });

  m.def(
      "load_recorded",
      [](const std::string& path, const std::string& t1, const std::string& device,
         const std::vector<std::string>& restrictions) {
        ReplayLoadOptions options;
        options.t1_path = t1;
        options.device_name = device;
        options.restrictions = restrictions;
        std::shared_ptr<RecordedSpace> recorded;
        {
          nb::gil_scoped_release release;
          recorded = std::make_shared<RecordedSpace>(LoadRecordedSpace(path, options));
        }
        return recorded;
      },
      nb::arg("path"), nb::arg("t1") = "", nb::arg("device") = "",
      nb::arg("restrictions") = std::vector<std::string>{},
      "Reads a recorded space. t1: a T1 file with the knobs and restrictions; device: names the "
      "GPU when the file does not; restrictions: extra Kernel Tuner expressions.");
}

}  // namespace glimpse::python
