// MeasureBatch (glimpse/measure.h): build and measure one batch, overlapping the two in waves
// where the runner's timings allow it.
//
//   serial:   build [0..n) ─────────▶ run [0..n) ─────────▶
//   overlap:  build w0 ─▶ build w1 ─▶ build w2 ─▶
//                         run w0 ───▶ run w1 ───▶ run w2 ─▶
//
// Each wave is built by the same builder and run by the same runner as in the serial form, in the
// same order, so a candidate's result does not depend on the overlap; only the batch's wall-clock
// does.
#include <algorithm>
#include <future>
#include <string>

#include "glimpse/error.h"
#include "glimpse/measure.h"

namespace glimpse {

namespace {

void CheckCount(const char* who, size_t got, size_t want) {
  if (got != want) {
    throw Error(std::string(who) + " returned " + std::to_string(got) + " results for " +
                std::to_string(want) + " configurations");
  }
}

std::vector<BuildResult> BuildChecked(Builder& builder, const std::vector<MeasureInput>& inputs) {
  std::vector<BuildResult> builds = builder.Build(inputs);
  CheckCount("builder", builds.size(), inputs.size());
  return builds;
}

std::vector<MeasureResult> RunChecked(Runner& runner, const std::vector<MeasureInput>& inputs,
                                      const std::vector<BuildResult>& builds) {
  std::vector<MeasureResult> results = runner.Run(inputs, builds);
  CheckCount("runner", results.size(), inputs.size());
  return results;
}

}  // namespace

std::vector<MeasureResult> MeasureBatch(Builder& builder, Runner& runner,
                                        const std::vector<MeasureInput>& inputs, bool overlap) {
  const size_t wave = builder.WaveSize();
  if (!overlap || !runner.TimesBesideBuilds() || wave == 0 || inputs.size() <= wave) {
    return RunChecked(runner, inputs, BuildChecked(builder, inputs));
  }
  std::vector<std::vector<MeasureInput>> waves;
  for (size_t start = 0; start < inputs.size(); start += wave) {
    const size_t end = std::min(inputs.size(), start + wave);
    waves.emplace_back(inputs.begin() + static_cast<std::ptrdiff_t>(start),
                       inputs.begin() + static_cast<std::ptrdiff_t>(end));
  }
  std::vector<MeasureResult> results;
  results.reserve(inputs.size());
  std::vector<BuildResult> built = BuildChecked(builder, waves[0]);
  for (size_t w = 0; w < waves.size(); ++w) {
    // The next wave builds on another thread while this one is measured here. Should the run
    // throw, the future's destructor waits for the build before the error leaves.
    std::future<std::vector<BuildResult>> next;
    if (w + 1 < waves.size()) {
      next = std::async(std::launch::async,
                        [&builder, &waves, w] { return BuildChecked(builder, waves[w + 1]); });
    }
    std::vector<MeasureResult> measured = RunChecked(runner, waves[w], built);
    results.insert(results.end(), std::make_move_iterator(measured.begin()),
                   std::make_move_iterator(measured.end()));
    if (next.valid()) built = next.get();
  }
  return results;
}

}  // namespace glimpse
