// Tunes dense:M=4,N=8,K=16 on this CPU with the random strategy for 4 measurements, through an
// installed glimpse; prints the best time and exits 0 when a candidate was measured correctly.
#include <glimpse/cpu.h>
#include <glimpse/tuner.h>
#include <glimpse/tuning_loop.h>

#include <iostream>

int main() {
  glimpse::Task task = glimpse::MakeCpuTask(glimpse::ParseOperator("dense:M=4,N=8,K=16"));
  std::unique_ptr<glimpse::Tuner> tuner = glimpse::MakeTuner("random");
  glimpse::CpuBuilder builder;
  glimpse::CpuRunnerOptions run_options;
  run_options.flush_bytes = 1 << 20;
  glimpse::CpuRunner runner(run_options);
  glimpse::TuneOptions options;
  options.max_measurements = 4;
  options.batch_size = 4;
  options.progress = glimpse::ProgressMode::kQuiet;
  glimpse::TuneSummary summary = glimpse::Tune(task, *tuner, builder, runner, nullptr, options);
  std::cout << "measured " << summary.measurements << ", ok "
            << summary.by_status[glimpse::MeasureStatus::kOk] << ", best "
            << summary.best_time_s * 1e6 << " us\n";
  return summary.by_status[glimpse::MeasureStatus::kOk] > 0 ? 0 : 1;
}
