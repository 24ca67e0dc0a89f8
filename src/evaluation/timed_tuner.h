// A Tuner decorator for the evaluation harness: measures the strategy's own CPU time and keeps the
// per-measurement outcomes the tuning loop's summary does not (the first batch's performance).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "glimpse/tuner.h"

namespace glimpse::evaluation {

// CPU time of the calling thread in seconds (CLOCK_THREAD_CPUTIME_ID). Runs share the cores, so
// a run's wall-clock says more about its neighbours than about the strategy; its thread's CPU
// time does not. Strategies that compute on other threads (XGBoost with more than one thread)
// would be undercounted: the harness keeps the model tuners at their default of one thread.
double ThreadCpuSeconds();

class TimedTuner : public Tuner {
 public:
  explicit TimedTuner(std::unique_ptr<Tuner> inner) : inner_(std::move(inner)) {}

  std::string Name() const override { return inner_->Name(); }
  using Tuner::Init;
  void Init(const TuningContext& context) override;
  std::vector<Config> Propose(size_t n) override;
  void Observe(const std::vector<Config>& configs,
               const std::vector<MeasureResult>& results) override;
  void Finish() override;

  // CPU seconds spent in Init, Propose, Observe and Finish.
  double cpu_s() const { return cpu_s_; }
  // The time of every observed measurement in order; +inf for a failure.
  const std::vector<double>& observed_times() const { return observed_times_; }

 private:
  std::unique_ptr<Tuner> inner_;
  double cpu_s_ = 0.0;
  std::vector<double> observed_times_;
};

}  // namespace glimpse::evaluation
