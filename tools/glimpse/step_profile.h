// The per-step profile `glimpse run --profile` prints (step_profile.cc): where a compiled model's
// time goes — its tuned kernels, the other operators, the layout reorders — from the harness's
// JSON.
#pragma once

#include <iosfwd>

#include "glimpse/json.h"

namespace glimpse::cli {

// Prints `profile` (the harness's {"runs", "steps": [{"name", "kind", "median_s"}]}) measured at
// `threads`: the time per kind of step and the `slowest` slowest steps. Throws Error when the
// JSON lacks a field.
void PrintStepProfile(const Json& profile, int threads, int slowest, std::ostream& out);

}  // namespace glimpse::cli
