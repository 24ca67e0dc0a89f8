// Evicting a kernel's data from the CPU caches before a timed run — the same flush for glimpse's
// kernels (the CPU worker) and for the libraries they are compared with (bench/cpu_baselines), so
// that "cold" means the same thing on both sides (docs/cpu-tuning.md, "Cache flush").
//
// Two ways a flush can fail to evict, both measured by bench/bench_cache_flush:
//   - memset of a large buffer: glibc writes it with non-temporal stores, which bypass the caches
//     and leave the kernel's data where it was;
//   - a sweep by one thread: it evicts that core's private L1 and L2 only, while the kernel's other
//     threads find their slices still there.
// So every thread of the OpenMP team the kernels run with (the worker pins it, one thread per CPU)
// loads and stores one byte of each 64-byte line of its own slice of the buffer: an ordinary store
// needs the line in that core's caches, so the buffer displaces what was there, level by level.
// The stores leave the lines dirty; the next kernel pays for writing some of them back, as it
// would after any other work — the same for every kernel measured.
// A sweep displaces most of what was cached but not provably all of it: a last-level cache that
// keeps reused lines over lines streamed once (Zen's L3 does) can hold on to a kernel's operands,
// which every timed run reads again (bench/results/cpu_instruments.md). So the operands the caller
// names are then flushed line by line (clflush: out of every level of every core, by the
// instruction's definition).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace glimpse {

// A buffer a kernel reads or writes.
struct FlushedOperand {
  const void* data = nullptr;
  size_t bytes = 0;
};

class CacheFlusher {
 public:
  // `bytes`: the buffer swept (the protocol uses twice the last-level cache); 0 flushes nothing,
  // operands included.
  explicit CacheFlusher(int64_t bytes = 0);
  ~CacheFlusher();
  CacheFlusher(const CacheFlusher&) = delete;
  CacheFlusher& operator=(const CacheFlusher&) = delete;

  // Reallocates when the size differs (a no-op otherwise).
  void Resize(int64_t bytes);
  int64_t bytes() const { return bytes_; }

  // One sweep over the whole buffer by the default OpenMP team (its threads split the lines in
  // contiguous slices; adds the sweep's number to the first byte of every line), then every line
  // of `operands` flushed (clflush, the team's threads splitting each operand), then a fence.
  void Flush(const std::vector<FlushedOperand>& operands = {});

  // Brings `operands` back into the caches after a flush, as the layer that wrote them leaves them
  // in a model: the default OpenMP team splits each operand into contiguous slices, and each thread
  // loads and stores back one byte of every line of its slice (the values do not change; the lines
  // end dirty in that core's caches, as a producer's stores leave them). Then a fence. Does nothing
  // when the flusher flushes nothing (size 0): then everything is already as warm as it gets.
  void Warm(const std::vector<FlushedOperand>& operands);

  // How many sweeps so far, and the buffer, for the tests that check every line was written.
  int sweeps() const { return sweeps_; }
  const unsigned char* data() const { return buffer_.get(); }

 private:
  struct FreeDeleter {
    void operator()(unsigned char* p) const;
  };
  std::unique_ptr<unsigned char, FreeDeleter> buffer_;
  int64_t bytes_ = 0;
  int sweeps_ = 0;
};

// The cache line size the sweep steps by.
constexpr int64_t kCacheLineBytes = 64;

// A sysfs cache size file ("48K", "2048K", "480M") in bytes; 0 when it cannot be read.
int64_t ReadCacheSizeBytes(const std::string& path);
// Bytes of the largest cache sysfs lists for CPU 0, or 0 when sysfs says nothing.
int64_t LastLevelCacheBytes();

// The protocol's flush size: twice the last-level cache (32 MiB assumed when sysfs says nothing),
// at most 128 MiB — a virtual machine may report its host socket's whole L3 (480 MiB seen on a
// 2-CPU guest), and sweeping twice that before every timed run would run candidates into their
// timeouts.
int64_t DefaultCacheFlushBytes();

}  // namespace glimpse
