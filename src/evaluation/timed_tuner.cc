#include "evaluation/timed_tuner.h"

#include <ctime>
#include <limits>

namespace glimpse::evaluation {

double ThreadCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

void TimedTuner::Init(const TuningContext& context) {
  const double start = ThreadCpuSeconds();
  inner_->Init(context);
  cpu_s_ += ThreadCpuSeconds() - start;
}

std::vector<Config> TimedTuner::Propose(size_t n) {
  const double start = ThreadCpuSeconds();
  std::vector<Config> proposed = inner_->Propose(n);
  cpu_s_ += ThreadCpuSeconds() - start;
  return proposed;
}

void TimedTuner::Observe(const std::vector<Config>& configs,
                         const std::vector<MeasureResult>& results) {
  const double start = ThreadCpuSeconds();
  inner_->Observe(configs, results);
  cpu_s_ += ThreadCpuSeconds() - start;
  for (const MeasureResult& result : results) {
    observed_times_.push_back(result.ok() ? result.time_s
                                          : std::numeric_limits<double>::infinity());
  }
}

void TimedTuner::Finish() {
  const double start = ThreadCpuSeconds();
  inner_->Finish();
  cpu_s_ += ThreadCpuSeconds() - start;
}

}  // namespace glimpse::evaluation
