// ForEachInParallel: every index once, and an exception in a worker reaches the caller instead of
// ending the process (a compiler that cannot be started throws inside the builder's workers).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "glimpse/build_support.h"

namespace glimpse::process {
namespace {

TEST(ForEachInParallelTest, EveryIndexRunsOnce) {
  std::mutex mutex;
  std::multiset<size_t> seen;
  ForEachInParallel(100, 4, [&](size_t i) {
    std::lock_guard<std::mutex> lock(mutex);
    seen.insert(i);
  });
  ASSERT_EQ(seen.size(), 100u);
  for (size_t i = 0; i < 100; ++i) EXPECT_EQ(seen.count(i), 1u) << i;
}

TEST(ForEachInParallelTest, TheFirstExceptionReachesTheCallerAndStopsTheRest) {
  std::atomic<int> calls{0};
  try {
    ForEachInParallel(1000, 2, [&](size_t i) {
      ++calls;
      if (i == 3) throw std::runtime_error("index 3 failed");
      // Work that takes a while, as a compile does: without it the other thread could run all
      // 1000 trivial calls in the microseconds the exception takes to be caught (seen in CI).
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
    FAIL() << "no exception reached the caller";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "index 3 failed");
  }
  // Nothing is handed out after the failure: at most the calls already running finish.
  EXPECT_LT(calls.load(), 1000);
}

}  // namespace
}  // namespace glimpse::process
