#include "glimpse/measure.h"

#include <array>
#include <string>

#include "glimpse/error.h"

namespace glimpse {

namespace {
constexpr std::array<const char*, kNumMeasureStatuses> kStatusNames = {
    "ok",           "instantiation", "compile-host", "compile-device", "runtime-device",
    "wrong-answer", "build-timeout", "run-timeout",  "unknown"};
}  // namespace

const char* StatusName(MeasureStatus status) {
  auto index = static_cast<size_t>(status);
  return index < kStatusNames.size() ? kStatusNames[index] : "unknown";
}

MeasureStatus StatusFromName(const std::string& name) {
  for (size_t i = 0; i < kStatusNames.size(); ++i) {
    if (name == kStatusNames[i]) return static_cast<MeasureStatus>(i);
  }
  std::string known;
  for (const char* n : kStatusNames) known += (known.empty() ? "" : ", ") + std::string(n);
  throw Error("unknown measurement status '" + name + "'; known: " + known);
}

std::future<std::vector<BuildResult>> Builder::BuildAsync(std::vector<MeasureInput> inputs) {
  return std::async(std::launch::async,
                    [this, inputs = std::move(inputs)] { return Build(inputs); });
}

std::future<std::vector<MeasureResult>> Runner::RunAsync(std::vector<MeasureInput> inputs,
                                                         std::vector<BuildResult> builds) {
  return std::async(std::launch::async,
                    [this, inputs = std::move(inputs), builds = std::move(builds)] {
                      return Run(inputs, builds);
                    });
}

std::vector<BuildResult> NullBuilder::Build(const std::vector<MeasureInput>& inputs) {
  return std::vector<BuildResult>(inputs.size());
}

std::vector<MeasureResult> BuildOnlyRunner::Run(const std::vector<MeasureInput>& inputs,
                                                const std::vector<BuildResult>& builds) {
  if (inputs.size() != builds.size()) {
    throw Error("build-only runner: " + std::to_string(inputs.size()) + " inputs but " +
                std::to_string(builds.size()) + " builds");
  }
  std::vector<MeasureResult> results(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    MeasureResult& result = results[i];
    result.status = builds[i].status;
    result.error = builds[i].error;
    result.compile_time_s = builds[i].compile_time_s;
    result.cost_s = builds[i].compile_time_s;
    result.time_s = std::numeric_limits<double>::infinity();
  }
  return results;
}

}  // namespace glimpse
