// glimpse/validity.h — validity checks that are cheap compared with a measurement.
//
// Rieber et al. ("Hardware-aware initialization", ../shared/papers/rieber-2022-hw-aware-
// initialization.txt, Sec. IV) classify configurations as valid or invalid before tuning, with a
// check that costs far less than building and timing a candidate (their VTA compiler, without
// running). A ValidityChecker is that check. It never measures and its calls are not measurements:
// they are charged as their own cost (the presampling time of a run), not as trials.
//
// Implementations: ReplayValidityChecker (a recorded space's status, at the recorded compile
// time). A compile-only check for the CPU templates and an NVRTC / resource check for the CUDA
// templates implement the same interface.
//
// Units: seconds.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "glimpse/measure.h"
#include "glimpse/space.h"

namespace glimpse {

struct RecordedSpace;  // glimpse/replay.h

struct ValidityResult {
  bool valid = false;
  // kOk when valid; otherwise why it is not (compile-device, runtime-device, unknown, …).
  MeasureStatus status = MeasureStatus::kUnknown;
  double cost_s = 0.0;  // what this check cost (simulated for replay)
};

class ValidityChecker {
 public:
  virtual ~ValidityChecker() = default;
  // One result per configuration, in order. Configurations are points of the checker's space;
  // one outside the space's ranges is an Error.
  virtual std::vector<ValidityResult> Check(const std::vector<Config>& configs) = 0;
};

// The check of a compile-only validity checker, for any target: a configuration that breaks a
// restriction is invalid (instantiation) at no cost; the others are built with `builder` and are
// valid when their build is ok, at the cost of its compile time. One out of the space's ranges
// is an Error naming the task.
std::vector<ValidityResult> CheckByBuilding(const Task& task, Builder& builder,
                                            const std::vector<Config>& configs);

// The recorded status of a replayed space: ok → valid; compile-*, runtime-*, unknown and any
// other recorded failure → invalid; a valid configuration the file lacks → invalid (status
// unknown), as the ReplayRunner treats it. Each check is charged the entry's recorded compile
// time only (no benchmark time); a missing one the median recorded compile time of the file (what
// the ReplayRunner charges for it). A configuration that breaks a restriction is invalid
// (instantiation) at no cost. Not thread-safe: one checker per run.
class ReplayValidityChecker : public ValidityChecker {
 public:
  explicit ReplayValidityChecker(std::shared_ptr<const RecordedSpace> recorded);
  std::vector<ValidityResult> Check(const std::vector<Config>& configs) override;

  int64_t checks() const { return checks_; }       // configurations checked so far
  double charged_s() const { return charged_s_; }  // the sum of their cost_s

 private:
  std::shared_ptr<const RecordedSpace> recorded_;
  double missing_cost_s_ = 0.0;
  int64_t checks_ = 0;
  double charged_s_ = 0.0;
};

}  // namespace glimpse
