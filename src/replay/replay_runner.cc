// ReplayRunner: measurements looked up in a recorded space, charged simulated wall-clock.
#include <algorithm>
#include <chrono>
#include <limits>
#include <thread>
#include <utility>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/replay.h"
#include "replay/recorded_file.h"

namespace glimpse {

ReplayRunner::ReplayRunner(std::shared_ptr<const RecordedSpace> recorded, ReplayOptions options)
    : recorded_(std::move(recorded)), options_(options), rng_(options.seed) {
  if (!recorded_) throw Error("ReplayRunner needs a recorded space");
  missing_cost_s_ = recorded_->MedianCompileTime();
}

std::vector<MeasureResult> ReplayRunner::Run(const std::vector<MeasureInput>& inputs,
                                             const std::vector<BuildResult>& builds) {
  if (builds.size() != inputs.size()) {
    throw Error("ReplayRunner::Run: " + std::to_string(inputs.size()) + " inputs but " +
                std::to_string(builds.size()) + " build results");
  }
  const ConfigSpace& space = recorded_->space;
  std::vector<MeasureResult> results(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    MeasureResult& result = results[i];
    const BuildResult& build = builds[i];
    if (build.status != MeasureStatus::kOk) {
      result.status = build.status;
      result.error = build.error;
      result.compile_time_s = build.compile_time_s;
      result.cost_s = build.compile_time_s;
      continue;
    }
    const Config& config = inputs[i].config;
    if (!space.InRange(config)) {
      throw Error("ReplayRunner: configuration with " + std::to_string(config.indices.size()) +
                  " knob indices is not a point of the recorded space of " +
                  recorded_->source_path);
    }
    if (!space.IsValid(config)) {
      // Never proposed by a correct strategy, and not a measurement: nothing is charged.
      result.status = MeasureStatus::kInstantiation;
      result.error = "breaks a restriction of the recorded space";
      continue;
    }
    ++measurements_;
    if (options_.pace_ms > 0.0) {
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(options_.pace_ms));
    }
    auto found = recorded_->entries.find(space.ToDenseIndex(config));
    if (found == recorded_->entries.end()) {
      ++not_recorded_;
      result.status = MeasureStatus::kUnknown;
      result.error = "not in the recorded space";
      result.compile_time_s = missing_cost_s_;
      result.cost_s = missing_cost_s_;
      continue;
    }
    const RecordedEntry& entry = found->second;
    result.status = entry.status;
    result.compile_time_s = entry.compile_time_s;
    result.cost_s = entry.compile_time_s + entry.benchmark_time_s;
    if (entry.status == MeasureStatus::kOk) {
      result.samples_s = entry.samples_s;
      result.time_s = entry.time_s;
      if (options_.noise && !entry.samples_s.empty()) {
        result.time_s = entry.samples_s[UniformIndex(rng_, entry.samples_s.size())];
      }
    } else {
      result.time_s = std::numeric_limits<double>::infinity();
      result.error = replay_internal::RecordedFailureText(entry.status);
    }
  }
  return results;
}

}  // namespace glimpse
