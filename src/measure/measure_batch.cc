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
#include <chrono>
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
                                        const std::vector<MeasureInput>& inputs, bool overlap,
                                        BatchTimes* times) {
  BatchTimes local;
  BatchTimes& t = times != nullptr ? *times : local;
  // Runs `work` and adds its wall-clock to `seconds` (from whichever thread runs it).
  const auto timed = [](double& seconds, const auto& work) {
    const auto start = std::chrono::steady_clock::now();
    auto result = work();
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  };
  const size_t wave = builder.WaveSize();
  if (!overlap || !runner.TimesBesideBuilds() || wave == 0 || inputs.size() <= wave) {
    double build_s = 0;
    std::vector<BuildResult> builds = timed(build_s, [&] { return BuildChecked(builder, inputs); });
    t.build_s += build_s;
    t.build_waited_s += build_s;
    return timed(t.run_s, [&] { return RunChecked(runner, inputs, builds); });
  }
  std::vector<std::vector<MeasureInput>> waves;
  for (size_t start = 0; start < inputs.size(); start += wave) {
    const size_t end = std::min(inputs.size(), start + wave);
    waves.emplace_back(inputs.begin() + static_cast<std::ptrdiff_t>(start),
                       inputs.begin() + static_cast<std::ptrdiff_t>(end));
  }
  std::vector<MeasureResult> results;
  results.reserve(inputs.size());
  double first_build_s = 0;
  std::vector<BuildResult> built =
      timed(first_build_s, [&] { return BuildChecked(builder, waves[0]); });
  t.build_s += first_build_s;
  t.build_waited_s += first_build_s;
  for (size_t w = 0; w < waves.size(); ++w) {
    // The next wave builds on another thread while this one is measured here. Should the run
    // throw, the future's destructor waits for the build before the error leaves.
    // Declared before the future, so that it outlives the build the future's destructor waits
    // for should the run throw.
    double next_build_s = 0;
    std::future<std::vector<BuildResult>> next;
    if (w + 1 < waves.size()) {
      next = std::async(std::launch::async, [&builder, &waves, w, &next_build_s, &timed] {
        return timed(next_build_s, [&] { return BuildChecked(builder, waves[w + 1]); });
      });
    }
    std::vector<MeasureResult> measured =
        timed(t.run_s, [&] { return RunChecked(runner, waves[w], built); });
    results.insert(results.end(), std::make_move_iterator(measured.begin()),
                   std::make_move_iterator(measured.end()));
    if (next.valid()) {
      double waited_s = 0;
      built = timed(waited_s, [&] { return next.get(); });
      t.build_s += next_build_s;
      t.build_waited_s += waited_s;
    }
  }
  return results;
}

}  // namespace glimpse
