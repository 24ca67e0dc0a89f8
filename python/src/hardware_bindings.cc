// What glimpse knows of hardware: the GPU table (datasheet figures the Blueprint is made of) and
// this machine's CPU.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

#include "bindings.h"
#include "glimpse/hardware.h"
#include "py_json.h"

namespace nb = nanobind;

namespace glimpse::python {

void BindHardware(nb::module_& m) {
  m.def(
      "gpu",
      [](const std::string& name) { return ToPython(GpuTable::Default().Lookup(name).ToJson()); },
      nb::arg("name"),
      "The GPU table's entry for any name a driver, a tool or a file reports ('NVIDIA GeForce "
      "RTX 3090', 'RTX_3090', 'A100'), as a dict; an unknown name raises glimpse.Error listing "
      "the closest ones.");
  m.def(
      "known_gpus",
      [] {
        std::vector<std::string> names;
        for (const GpuSpec& gpu : GpuTable::Default().gpus()) names.push_back(gpu.name);
        return names;
      },
      "The GPU table's canonical names.");
  m.def(
      "local_cpu", [] { return ToPython(DescribeLocalCpu().ToJson()); },
      "This machine's CPU: model, cores, caches, vector ISA.");
  m.def("data_dir", &GlimpseDataDir, "The data folder glimpse reads (GPU table, models).");
}

}  // namespace glimpse::python
