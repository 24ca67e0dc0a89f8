// MeasureBatch: the same results with and without overlap, and with overlap the next wave really
// builds while the current one is measured.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/measure.h"

namespace glimpse {
namespace {

// One knob x with the values 0..9: a configuration's index is its value.
Task OneKnobTask() {
  Task task;
  task.name = "knob";
  std::vector<KnobValue> values;
  for (int64_t x = 0; x < 10; ++x) values.emplace_back(std::in_place_type<int64_t>, x);
  task.space.AddKnob(Knob::Ordered("x", values));
  return task;
}

int64_t X(const MeasureInput& input) { return input.config.indices.at(0); }

// Shared by the fake builder and runner: what happened, in order, and whether a build began while
// a run was going on.
struct Events {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::string> log;
  int builds_started = 0;
  bool running = false;
  bool build_started_while_running = false;
  // The second wave's build had begun when the first wave's run returned: the overlap, whichever
  // of the two threads the scheduler happened to start first.
  bool second_build_began_before_first_run_ended = false;
};

// "Builds" a candidate into the artifact "x=<value>"; an odd x fails to compile.
class FakeBuilder : public Builder {
 public:
  FakeBuilder(Events& events, size_t wave) : events_(events), wave_(wave) {}
  std::vector<BuildResult> Build(const std::vector<MeasureInput>& inputs) override {
    {
      std::lock_guard<std::mutex> lock(events_.mutex);
      ++events_.builds_started;
      if (events_.running) events_.build_started_while_running = true;
      events_.log.push_back("build " + std::to_string(inputs.size()));
    }
    events_.changed.notify_all();
    std::vector<BuildResult> builds;
    for (const MeasureInput& input : inputs) {
      const int64_t x = X(input);
      BuildResult build;
      if (x % 2 == 1) {
        build.status = MeasureStatus::kCompileHost;
        build.error = "odd";
      } else {
        build.artifact = "x=" + std::to_string(x);
      }
      builds.push_back(build);
    }
    return builds;
  }
  size_t WaveSize() const override { return wave_; }

 private:
  Events& events_;
  size_t wave_;
};

// Times a built candidate as 1 + x seconds. With `wait_for_next_build`, the run of the first wave
// waits (up to 60 s) for the second wave's build to begin: it never would without overlap. (With
// overlap that build may also begin before this run does, on a loaded machine: counting builds
// from the start, not from the run's, makes the wait end in both orders.)
class FakeRunner : public Runner {
 public:
  FakeRunner(Events& events, bool beside_builds, bool wait_for_next_build)
      : events_(events), beside_builds_(beside_builds), wait_(wait_for_next_build) {}
  std::vector<MeasureResult> Run(const std::vector<MeasureInput>& inputs,
                                 const std::vector<BuildResult>& builds) override {
    std::unique_lock<std::mutex> lock(events_.mutex);
    events_.running = true;
    events_.log.push_back("run " + std::to_string(inputs.size()));
    if (wait_ && ++runs_ == 1) {
      events_.changed.wait_for(lock, std::chrono::seconds(60),
                               [&] { return events_.builds_started >= 2; });
      events_.second_build_began_before_first_run_ended = events_.builds_started >= 2;
    }
    std::vector<MeasureResult> results;
    for (size_t i = 0; i < inputs.size(); ++i) {
      MeasureResult result;
      if (builds[i].status != MeasureStatus::kOk) {
        result.status = builds[i].status;
        result.error = builds[i].error;
      } else {
        const int64_t x = X(inputs[i]);
        if (builds[i].artifact != "x=" + std::to_string(x)) throw Error("wrong artifact");
        result.status = MeasureStatus::kOk;
        result.time_s = 1.0 + static_cast<double>(x);
      }
      results.push_back(result);
    }
    events_.running = false;
    return results;
  }
  bool TimesBesideBuilds() const override { return beside_builds_; }

 private:
  Events& events_;
  bool beside_builds_;
  bool wait_;
  int runs_ = 0;
};

std::vector<MeasureInput> AllInputs(const Task& task) {
  std::vector<MeasureInput> inputs;
  for (int64_t x = 0; x < 10; ++x) {
    inputs.push_back({&task, Config{{static_cast<uint32_t>(x)}}});
  }
  return inputs;
}

void ExpectSameResults(const std::vector<MeasureResult>& a, const std::vector<MeasureResult>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].status, b[i].status) << i;
    EXPECT_EQ(a[i].time_s, b[i].time_s) << i;
    EXPECT_EQ(a[i].error, b[i].error) << i;
  }
}

TEST(MeasureBatchTest, OverlappedWavesGiveTheSerialResultsInOrder) {
  const Task task = OneKnobTask();
  const std::vector<MeasureInput> inputs = AllInputs(task);

  Events serial_events;
  FakeBuilder serial_builder(serial_events, 3);
  FakeRunner serial_runner(serial_events, /*beside_builds=*/true, /*wait_for_next_build=*/false);
  std::vector<MeasureResult> serial =
      MeasureBatch(serial_builder, serial_runner, inputs, /*overlap=*/false);
  EXPECT_EQ(serial_events.log, (std::vector<std::string>{"build 10", "run 10"}));

  Events events;
  FakeBuilder builder(events, 3);
  FakeRunner runner(events, /*beside_builds=*/true, /*wait_for_next_build=*/true);
  std::vector<MeasureResult> overlapped = MeasureBatch(builder, runner, inputs, /*overlap=*/true);
  ExpectSameResults(serial, overlapped);
  EXPECT_EQ(overlapped[4].time_s, 5.0);
  EXPECT_EQ(overlapped[5].status, MeasureStatus::kCompileHost);
  EXPECT_EQ(events.builds_started, 4);  // waves of 3, 3, 3, 1
  EXPECT_TRUE(events.second_build_began_before_first_run_ended);
}

TEST(MeasureBatchTest, NoOverlapWhereTheRunnerTimesOnTheBuildersCpus) {
  const Task task = OneKnobTask();
  Events events;
  FakeBuilder builder(events, 3);
  FakeRunner runner(events, /*beside_builds=*/false, /*wait_for_next_build=*/false);
  MeasureBatch(builder, runner, AllInputs(task), /*overlap=*/true);
  EXPECT_EQ(events.log, (std::vector<std::string>{"build 10", "run 10"}));
  EXPECT_FALSE(events.build_started_while_running);
}

TEST(MeasureBatchTest, ABatchWithinOneWaveIsBuiltOnce) {
  const Task task = OneKnobTask();
  Events events;
  FakeBuilder builder(events, 16);
  FakeRunner runner(events, /*beside_builds=*/true, /*wait_for_next_build=*/false);
  MeasureBatch(builder, runner, AllInputs(task), /*overlap=*/true);
  EXPECT_EQ(events.log, (std::vector<std::string>{"build 10", "run 10"}));
}

// A runner that fails a wave: the error leaves MeasureBatch after the build in flight finished.
class ThrowingRunner : public Runner {
 public:
  std::vector<MeasureResult> Run(const std::vector<MeasureInput>& inputs,
                                 const std::vector<BuildResult>& builds) override {
    throw Error("runner broke");
  }
  bool TimesBesideBuilds() const override { return true; }
};

TEST(MeasureBatchTest, ARunnerErrorLeavesAfterTheBuildInFlight) {
  const Task task = OneKnobTask();
  Events events;
  FakeBuilder builder(events, 3);
  ThrowingRunner runner;
  EXPECT_THROW(MeasureBatch(builder, runner, AllInputs(task), /*overlap=*/true), Error);
  EXPECT_EQ(events.builds_started, 2);  // the first wave, and the second one in flight
}

// A builder and a runner that take a known time, to check where MeasureBatch says it went.
class SlowBuilder : public Builder {
 public:
  explicit SlowBuilder(size_t wave) : wave_(wave) {}
  std::vector<BuildResult> Build(const std::vector<MeasureInput>& inputs) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    std::vector<BuildResult> builds(inputs.size());
    for (BuildResult& build : builds) build.artifact = "ok";
    return builds;
  }
  size_t WaveSize() const override { return wave_; }

 private:
  size_t wave_;
};

class SlowRunner : public Runner {
 public:
  std::vector<MeasureResult> Run(const std::vector<MeasureInput>& inputs,
                                 const std::vector<BuildResult>& builds) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::vector<MeasureResult> results(inputs.size());
    for (MeasureResult& result : results) {
      result.status = MeasureStatus::kOk;
      result.time_s = 1e-3;
    }
    return results;
  }
  bool TimesBesideBuilds() const override { return true; }
};

TEST(MeasureBatchTest, TimesSayWhereTheBatchWent) {
  const Task task = OneKnobTask();
  SlowRunner runner;
  // Serially: one build and one run, and all of the build is waited for.
  SlowBuilder serial_builder(0);
  BatchTimes serial;
  MeasureBatch(serial_builder, runner, AllInputs(task), /*overlap=*/true, &serial);
  EXPECT_GE(serial.build_s, 0.030);
  EXPECT_EQ(serial.build_waited_s, serial.build_s);
  EXPECT_GE(serial.run_s, 0.020);
  // Overlapped in waves of 3: four builds and four runs, added to what the times held.
  SlowBuilder builder(3);
  BatchTimes overlapped = serial;
  MeasureBatch(builder, runner, AllInputs(task), /*overlap=*/true, &overlapped);
  EXPECT_GE(overlapped.build_s - serial.build_s, 4 * 0.030);
  EXPECT_GE(overlapped.run_s - serial.run_s, 4 * 0.020);
  EXPECT_GE(overlapped.build_waited_s - serial.build_waited_s, 0.030);  // the first wave at least
}

}  // namespace
}  // namespace glimpse
