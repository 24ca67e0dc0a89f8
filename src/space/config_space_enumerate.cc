// Enumeration of a ConfigSpace: CountValid, ValidIndices and the cached list SampleValid draws
// from on small spaces. Each group of knobs connected by restrictions is walked on its own
// (counts multiply, lists combine), and a big walk is split over the hardware threads by the
// values of its first levels.
#include <algorithm>
#include <thread>

#include "glimpse/error.h"
#include "space/config_space_impl.h"

namespace glimpse {

using space_internal::SaturatingMul;

uint64_t ConfigSpace::Impl::PrefixTasks(const std::vector<size_t>& levels, size_t* prefix_len,
                                        unsigned* threads) const {
  uint64_t sub_raw = 1;
  for (size_t p : levels) sub_raw = SaturatingMul(sub_raw, knobs[order[p]].size());
  *threads = std::thread::hardware_concurrency();
  if (*threads == 0 || sub_raw < (uint64_t{1} << 20)) *threads = 1;
  // The first level, then more while there are fewer than 16 tasks per thread (at most 4096).
  *prefix_len = 0;
  uint64_t tasks = 1;
  while (*prefix_len < levels.size() && tasks < uint64_t{16} * *threads) {
    uint64_t next = tasks * knobs[order[levels[*prefix_len]]].size();
    if (*prefix_len > 0 && next > 4096) break;
    tasks = next;
    ++*prefix_len;
  }
  return tasks;
}

template <class Body>
size_t ConfigSpace::Impl::ForEachPrefix(const std::vector<size_t>& levels, Body&& body) const {
  size_t prefix_len;
  unsigned threads;
  const uint64_t tasks = PrefixTasks(levels, &prefix_len, &threads);
  auto worker = [&](std::atomic<size_t>* next_task) {
    std::vector<Scalar> slots(static_cast<size_t>(std::max(total_slots, 1)));
    std::vector<uint32_t> idx(knobs.size(), 0);
    std::vector<uint32_t> prefix(prefix_len);
    for (size_t t; (t = next_task->fetch_add(1)) < tasks;) {
      size_t rest = t;
      for (size_t l = prefix_len; l-- > 0;) {
        size_t size = knobs[order[levels[l]]].size();
        prefix[l] = static_cast<uint32_t>(rest % size);
        rest /= size;
      }
      body(t, prefix.data(), prefix_len, slots.data(), idx.data());
    }
  };
  std::atomic<size_t> next{0};
  threads = static_cast<unsigned>(std::min<uint64_t>(threads, tasks));
  if (threads <= 1) {
    worker(&next);
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker, &next);
    for (std::thread& th : pool) th.join();
  }
  return static_cast<size_t>(tasks);
}

template <class Result, class OnLeaf>
std::vector<Result> ConfigSpace::Impl::WalkTasks(const std::vector<size_t>& levels,
                                                 OnLeaf&& on_leaf) const {
  size_t prefix_len_unused;
  unsigned threads_unused;
  std::vector<Result> results(PrefixTasks(levels, &prefix_len_unused, &threads_unused));
  ForEachPrefix(levels, [&](size_t task, const uint32_t* prefix, size_t prefix_len, Scalar* slots,
                            uint32_t* idx) {
    // Built in a local and stored once: the tasks' results sit side by side in memory, and
    // threads writing to neighbouring ones at every leaf would contend for their cache lines.
    Result result{};
    Walk(
        levels, slots, idx, [&] { on_leaf(result, idx); }, prefix, prefix_len);
    results[task] = std::move(result);
  });
  return results;
}

std::vector<uint64_t> ConfigSpace::Impl::EnumerateValid() const {
  if (raw_saturated) {
    throw Error("ValidIndices: the space has more than 2^64 raw configurations");
  }
  std::vector<uint64_t> result;
  if (!ConstantsPass()) return result;
  // Each group of connected restricted knobs on its own: the partial dense indices (sums of
  // index × stride over the group's knobs) of its valid assignments. Then each free knob as a
  // group of all its values. The valid dense indices are all sums of one entry of each group.
  std::vector<std::vector<uint64_t>> groups;
  for (const std::vector<size_t>& levels : components) {
    const std::vector<std::vector<uint64_t>> lists = WalkTasks<std::vector<uint64_t>>(
        levels, [&](std::vector<uint64_t>& list, const uint32_t* idx) {
          uint64_t partial = 0;
          for (size_t p : levels) partial += idx[order[p]] * strides[order[p]];
          list.push_back(partial);
        });
    std::vector<uint64_t> group;
    size_t size = 0;
    for (const auto& list : lists) size += list.size();
    if (size == 0) return result;
    group.reserve(size);
    for (const auto& list : lists) group.insert(group.end(), list.begin(), list.end());
    groups.push_back(std::move(group));
  }
  for (size_t p = restricted_levels; p < order.size(); ++p) {
    const size_t k = order[p];
    std::vector<uint64_t> group(knobs[k].size());
    for (uint64_t v = 0; v < group.size(); ++v) group[v] = v * strides[k];
    groups.push_back(std::move(group));
  }
  std::vector<uint64_t> sums{0};
  for (const std::vector<uint64_t>& group : groups) {
    std::vector<uint64_t> next;
    next.reserve(sums.size() * group.size());
    for (uint64_t a : sums)
      for (uint64_t b : group) next.push_back(a + b);
    sums.swap(next);
  }
  // The walk's order is not the dense order. Sort: through a bitmap over the raw space when that
  // is no bigger than the list itself (dense results), by comparison otherwise.
  if (raw_size / 64 <= sums.size()) {
    std::vector<uint64_t> bitmap((raw_size + 63) / 64, 0);
    for (uint64_t i : sums) bitmap[i >> 6] |= uint64_t{1} << (i & 63);
    size_t out = 0;
    for (size_t w = 0; w < bitmap.size(); ++w) {
      for (uint64_t word = bitmap[w]; word; word &= word - 1) {
        sums[out++] =
            (static_cast<uint64_t>(w) << 6) + static_cast<uint64_t>(__builtin_ctzll(word));
      }
    }
  } else {
    std::sort(sums.begin(), sums.end());
  }
  return sums;
}

const std::vector<uint64_t>& ConfigSpace::Impl::ValidCache() const {
  const std::vector<uint64_t>* cached = valid_cache.load(std::memory_order_acquire);
  if (cached) return *cached;
  std::lock_guard<std::mutex> lock(cache_mutex);
  cached = valid_cache.load(std::memory_order_acquire);
  if (cached) return *cached;
  valid_owner = std::make_unique<std::vector<uint64_t>>(EnumerateValid());
  valid_cache.store(valid_owner.get(), std::memory_order_release);
  return *valid_owner;
}

uint64_t ConfigSpace::CountValid() const {
  const Impl& s = *impl_;
  if (!s.ConstantsPass()) return 0;
  uint64_t total = 1;
  for (size_t p = s.restricted_levels; p < s.order.size(); ++p)
    total = SaturatingMul(total, s.knobs[s.order[p]].size());
  for (const std::vector<size_t>& levels : s.components) {
    if (total == 0) break;
    const std::vector<uint64_t> counts =
        s.WalkTasks<uint64_t>(levels, [](uint64_t& count, const uint32_t*) { ++count; });
    uint64_t count = 0;
    for (uint64_t c : counts) count += c;
    total = SaturatingMul(total, count);
  }
  return total;
}

std::vector<uint64_t> ConfigSpace::ValidIndices() const { return impl_->EnumerateValid(); }

}  // namespace glimpse
