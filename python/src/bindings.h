// The parts of the extension module glimpse._core, one per area of the C++ API (docs/python.md),
// and the conversions they share.
#pragma once

#include <nanobind/nanobind.h>

#include <string>
#include <vector>

#include "glimpse/measure.h"
#include "glimpse/space.h"
#include "glimpse/tuning_loop.h"

namespace glimpse::python {

void BindSpace(nanobind::module_& m);     // Space
void BindTuner(nanobind::module_& m);     // Tuner, known_tuners, tuner_description
void BindRecorded(nanobind::module_& m);  // RecordedSpace, load_recorded
void BindDatabase(nanobind::module_& m);  // Database
void BindHardware(nanobind::module_& m);  // gpu, known_gpus, local_cpu
void BindTune(nanobind::module_& m);      // tune, tune_recorded
void BindMeasurer(nanobind::module_& m);  // Measurer

// A configuration as a dict by knob name ⇄ glimpse's Config; errors name `where`.
Config ConfigFromPython(const ConfigSpace& space, nanobind::handle config,
                        const std::string& where);
nanobind::dict ConfigToPython(const ConfigSpace& space, const Config& config);
nanobind::list ConfigsToPython(const ConfigSpace& space, const std::vector<Config>& configs);

// A measurement reported from Python: a time in seconds, or None / inf / nan for a failure (with
// `status`, one of status_names(), "unknown" when empty).
MeasureResult ResultFromPython(nanobind::handle time, const std::string& status,
                               const std::string& where);

// A tuning run's summary as a dict (docs/python.md).
nanobind::dict SummaryToPython(const ConfigSpace& space, const TuneSummary& summary);

}  // namespace glimpse::python
