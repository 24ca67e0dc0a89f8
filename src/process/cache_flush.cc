// CacheFlusher and the flush size (glimpse/cache_flush.h): the sweep, the operands' clflush.
#include "glimpse/cache_flush.h"

#include <emmintrin.h>
#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "glimpse/error.h"

namespace glimpse {

int64_t ReadCacheSizeBytes(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text.empty()) return 0;
  int64_t value = std::atoll(text.c_str());
  if (text.back() == 'K') value <<= 10;
  if (text.back() == 'M') value <<= 20;
  if (text.back() == 'G') value <<= 30;
  return value;
}

int64_t LastLevelCacheBytes() {
  int64_t best = 0;
  for (int index = 0; index < 8; ++index) {
    best = std::max(best, ReadCacheSizeBytes("/sys/devices/system/cpu/cpu0/cache/index" +
                                             std::to_string(index) + "/size"));
  }
  return best;
}

int64_t DefaultCacheFlushBytes() {
  constexpr int64_t kMaxBytes = int64_t{128} << 20;
  const int64_t cache = LastLevelCacheBytes();
  return std::min(2 * (cache > 0 ? cache : int64_t{32} << 20), kMaxBytes);
}

void CacheFlusher::FreeDeleter::operator()(unsigned char* p) const { std::free(p); }

CacheFlusher::CacheFlusher(int64_t bytes) { Resize(bytes); }

CacheFlusher::~CacheFlusher() = default;

void CacheFlusher::Resize(int64_t bytes) {
  if (bytes < 0) throw Error("cache flush: negative size " + std::to_string(bytes));
  const int64_t rounded = (bytes + kCacheLineBytes - 1) / kCacheLineBytes * kCacheLineBytes;
  if (rounded == bytes_) return;
  buffer_.reset();
  bytes_ = 0;
  if (rounded == 0) return;
  auto* memory = static_cast<unsigned char*>(
      std::aligned_alloc(kCacheLineBytes, static_cast<size_t>(rounded)));
  if (memory == nullptr) {
    throw Error("cache flush: cannot allocate " + std::to_string(rounded) + " bytes");
  }
  buffer_.reset(memory);
  bytes_ = rounded;
  // The pages are touched here, by the threads that will sweep them, so that the first timed run
  // does not also pay for the page faults (and each thread's slice lives on its own node).
  const int64_t lines = bytes_ / kCacheLineBytes;
#pragma omp parallel
  {
    const int64_t threads = omp_get_num_threads(), thread = omp_get_thread_num();
    const int64_t begin = lines * thread / threads, end = lines * (thread + 1) / threads;
    std::memset(memory + begin * kCacheLineBytes, 0,
                static_cast<size_t>((end - begin) * kCacheLineBytes));
  }
}

namespace {

// Calls visit(address) with one address inside each 64-byte line that holds a byte of `operand`
// (the line's first byte inside the operand), the default OpenMP team splitting the lines into
// contiguous slices.
template <typename Visit>
void ForEachLineInParallel(const FlushedOperand& operand, Visit visit) {
  if (operand.data == nullptr || operand.bytes == 0) return;
  const auto start = reinterpret_cast<uintptr_t>(operand.data);
  const auto first = start / static_cast<uintptr_t>(kCacheLineBytes);
  const auto last = (start + operand.bytes - 1) / static_cast<uintptr_t>(kCacheLineBytes);
  const auto lines = static_cast<int64_t>(last - first + 1);
#pragma omp parallel
  {
    const int64_t threads = omp_get_num_threads(), thread = omp_get_thread_num();
    const int64_t begin = lines * thread / threads, end = lines * (thread + 1) / threads;
    for (int64_t i = begin; i < end; ++i) {
      const uintptr_t line = (first + static_cast<uintptr_t>(i)) * kCacheLineBytes;
      visit(std::max(line, start));
    }
  }
}

void FlushLines(const std::vector<FlushedOperand>& operands) {
  for (const FlushedOperand& operand : operands) {
    ForEachLineInParallel(operand,
                          [](uintptr_t address) { _mm_clflush(reinterpret_cast<void*>(address)); });
  }
  _mm_mfence();
}

}  // namespace

void CacheFlusher::Flush(const std::vector<FlushedOperand>& operands) {
  if (bytes_ == 0) return;  // no flush at all (the protocol's flush_bytes < 0)
  ++sweeps_;
  const unsigned char increment = static_cast<unsigned char>(sweeps_);
  unsigned char* const base = buffer_.get();
  const int64_t lines = bytes_ / kCacheLineBytes;
#pragma omp parallel
  {
    const int64_t threads = omp_get_num_threads(), thread = omp_get_thread_num();
    const int64_t begin = lines * thread / threads, end = lines * (thread + 1) / threads;
    // volatile: one ordinary load and store per line, never merged into a memset (which would
    // bring back the non-temporal stores this class exists to avoid) nor dropped.
    volatile unsigned char* line = base + begin * kCacheLineBytes;
    for (int64_t i = begin; i < end; ++i, line += kCacheLineBytes) {
      *line = static_cast<unsigned char>(*line + increment);
    }
  }
  FlushLines(operands);
}

void CacheFlusher::Warm(const std::vector<FlushedOperand>& operands) {
  if (bytes_ == 0 || operands.empty()) return;
  for (const FlushedOperand& operand : operands) {
    ForEachLineInParallel(operand, [](uintptr_t address) {
      // volatile: the load and the store are both made, never folded away.
      volatile unsigned char* byte = reinterpret_cast<unsigned char*>(address);
      *byte = *byte;
    });
  }
  _mm_mfence();
}

}  // namespace glimpse
