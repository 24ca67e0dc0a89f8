// The cache flush's bookkeeping: sizes, and that a sweep reaches every line whatever the team size
// (a slice lost to the split between threads would leave a kernel's data cached there). Whether
// it evicts is a property of the machine, measured by bench/bench_cache_flush.
#include "glimpse/cache_flush.h"

#include <gtest/gtest.h>
#include <omp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <vector>

#include "glimpse/error.h"

namespace glimpse {
namespace {

// Every line's first byte holds the sum of the sweep numbers so far (1 + 2 + … + sweeps).
void ExpectEveryLineSwept(const CacheFlusher& flusher) {
  const int sweeps = flusher.sweeps();
  const auto expected = static_cast<unsigned char>(sweeps * (sweeps + 1) / 2);
  const int64_t lines = flusher.bytes() / kCacheLineBytes;
  int64_t missed = 0, first_missed = -1;
  for (int64_t i = 0; i < lines; ++i) {
    if (flusher.data()[i * kCacheLineBytes] != expected) {
      if (first_missed < 0) first_missed = i;
      ++missed;
    }
  }
  EXPECT_EQ(missed, 0) << "of " << lines << " lines, first missed: " << first_missed;
}

TEST(CacheFlusherTest, SizeIsRoundedUpToWholeLinesAndZeroFlushesNothing) {
  CacheFlusher empty;
  EXPECT_EQ(empty.bytes(), 0);
  empty.Flush();
  EXPECT_EQ(empty.sweeps(), 0);
  CacheFlusher flusher(1000);
  EXPECT_EQ(flusher.bytes(), 1024);
  flusher.Resize(64);
  EXPECT_EQ(flusher.bytes(), 64);
  flusher.Resize(0);
  EXPECT_EQ(flusher.bytes(), 0);
  EXPECT_THROW(flusher.Resize(-1), Error);
}

TEST(CacheFlusherTest, EverySweepReachesEveryLineForAnyTeamSize) {
  const int saved = omp_get_max_threads();
  // Line counts that do not divide evenly among the threads, and fewer lines than threads.
  for (int threads : {1, 2, 3, 7}) {
    omp_set_num_threads(threads);
    for (int64_t lines : {int64_t{1}, int64_t{5}, int64_t{1000}, int64_t{4099}}) {
      CacheFlusher flusher(lines * kCacheLineBytes);
      for (int sweep = 0; sweep < 3; ++sweep) flusher.Flush();
      EXPECT_EQ(flusher.sweeps(), 3);
      SCOPED_TRACE(testing::Message() << threads << " threads, " << lines << " lines");
      ExpectEveryLineSwept(flusher);
    }
  }
  omp_set_num_threads(saved);
}

TEST(CacheFlusherTest, FlushingOperandsLeavesTheirContentsAsTheyWere) {
  // clflush writes a dirty line back before it drops it: the values must survive, for operands
  // that start and end mid-line too.
  std::vector<float> values(1001);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.5f;
  const std::vector<float> before = values;
  CacheFlusher flusher(4096);
  flusher.Flush({{values.data() + 1, 999 * sizeof(float)}, {values.data(), sizeof(float)}});
  EXPECT_EQ(flusher.sweeps(), 1);
  EXPECT_EQ(values, before);
  // Without a flush buffer nothing happens at all (the protocol's "no flush").
  CacheFlusher none;
  none.Flush({{values.data(), values.size() * sizeof(float)}});
  EXPECT_EQ(none.sweeps(), 0);
  EXPECT_EQ(values, before);
}

TEST(CacheFlusherTest, WarmingOperandsLeavesTheirContentsAndTouchesNothingBeyondThem) {
  // An operand filling a page between two pages that cannot be read or written: a line touched
  // outside it would fault. Team sizes that do and do not divide its lines.
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* mapped =
      mmap(nullptr, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mapped, MAP_FAILED);
  auto* bytes = static_cast<unsigned char*>(mapped);
  ASSERT_EQ(mprotect(bytes, page, PROT_NONE), 0);
  ASSERT_EQ(mprotect(bytes + 2 * page, page, PROT_NONE), 0);
  unsigned char* operand = bytes + page;
  for (size_t i = 0; i < page; ++i) operand[i] = static_cast<unsigned char>(i * 7 + 3);
  const std::vector<unsigned char> before(operand, operand + page);
  CacheFlusher flusher(4096);
  const int threads = omp_get_max_threads();
  for (int team : {1, 2, 3, 7}) {
    omp_set_num_threads(team);
    flusher.Warm({{operand, page}, {operand + 5, 101}});
    EXPECT_EQ(std::vector<unsigned char>(operand, operand + page), before) << team << " threads";
  }
  omp_set_num_threads(threads);
  EXPECT_EQ(flusher.sweeps(), 0);  // warming is not a flush
  munmap(mapped, 3 * page);
}

TEST(CacheFlusherTest, WarmingAfterAFlushLeavesFloatOperandsAsTheyWere) {
  std::vector<float> values(1001);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.25f - 9.0f;
  const std::vector<float> before = values;
  CacheFlusher flusher(4096);
  const std::vector<FlushedOperand> operands = {{values.data() + 3, 990 * sizeof(float)}};
  flusher.Flush(operands);
  flusher.Warm(operands);
  EXPECT_EQ(values, before);
}

}  // namespace
}  // namespace glimpse
