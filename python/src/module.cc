// The extension module glimpse._core. glimpse's errors (a bad file, an unknown knob, a bad option)
// arrive in Python as glimpse.Error, a ValueError, with the C++ message.
#include <nanobind/nanobind.h>

#include "bindings.h"
#include "glimpse/error.h"
#include "glimpse/glimpse_tuner.h"
#include "glimpse/model_tuner.h"

namespace nb = nanobind;

NB_MODULE(_core, m) {
  m.doc() = "glimpse's C++ core (docs/python.md); import glimpse, not this module";
  nb::exception<glimpse::Error>(m, "Error", PyExc_ValueError);
  glimpse::RegisterModelTuners();
  glimpse::RegisterGlimpseTuner();
  glimpse::python::BindSpace(m);
  glimpse::python::BindTuner(m);
  glimpse::python::BindRecorded(m);
  glimpse::python::BindDatabase(m);
  glimpse::python::BindHardware(m);
  glimpse::python::BindTune(m);
  glimpse::python::BindMeasurer(m);
}
