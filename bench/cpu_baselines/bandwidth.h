// bench/cpu_baselines/bandwidth.h — the read bandwidth of each level of this CPU's memory, for the
// roofline's machine profile (glimpse/perf_predictor.h, data/hardware/cpu_machine_profile.json):
// one pinned thread per CPU sums its own buffer with vector loads over and over; a buffer that
// fits a level (and not the one above) is read from that level. Bandwidth is all threads' bytes
// over the sample's wall-clock, first start to last end.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol.h"

namespace glimpse::baselines {

struct BandwidthLevel {
  std::string name;         // "L1", "L2", "L3", "DRAM"
  int64_t cache_bytes = 0;  // the level's size as sysfs says (0: main memory)
  int64_t buffer_bytes_per_thread = 0;
};

struct BandwidthResult {
  BandwidthLevel level;
  std::string isa;  // the loads' width: "avx512f" or "avx2"
  std::vector<int> cpus;
  int64_t passes = 0;  // reads of the whole buffer per thread and sample
  std::vector<double> samples_s;
  double median_s = 0;
  double gbs = 0;       // 10⁹ bytes/s, all threads, at the median
  double best_gbs = 0;  // at the fastest sample
};

// The data caches of cpu0 from sysfs (level, size in bytes, whether shared by several CPUs) and
// a buffer per thread for each level: half of L1d, half of L2, 4 × L2 for L3 (past L2 and within
// any L3 this size of core has), and for main memory max(1 GiB, 2 × L3) over all threads.
std::vector<BandwidthLevel> DefaultBandwidthLevels(int threads);

// Each level on all `cpus` at once; `protocol` decides warm-up and repeats (no flush: the
// buffers are the point). A sample is calibrated to about 5 ms.
std::vector<BandwidthResult> MeasureReadBandwidth(const std::vector<BandwidthLevel>& levels,
                                                  const std::vector<int>& cpus,
                                                  const Protocol& protocol);

}  // namespace glimpse::baselines
