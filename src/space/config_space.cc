// ConfigSpace: knobs × restrictions; indexing, validity, sampling, enumeration, features, JSON.
//
// The plan. Every restriction is bound to the "slots" of the knobs' variables (all knobs' variable
// names in knob order). The knobs are put in an assignment order chosen so that restrictions can
// be checked early: each restriction is attached to the position of the last of its knobs in that
// order. Sampling draws knobs in that order and restarts from scratch at the first violated
// restriction (exactly uniform: a complete draw is uniform over the raw space and is accepted iff
// it is valid). Enumeration walks the same order depth-first and skips every subtree below a
// violated restriction. Knobs that appear in no restriction come last and are never walked;
// groups of knobs connected by restrictions are enumerated group by group (counts multiply, lists
// combine), and a big walk is split over the hardware threads by the values of its first levels.
//
// Checks. Every knob value's restriction variables are precomputed as Scalars (one table per
// knob), so an evaluation copies them into a small scratch array (on the stack; thread-local only
// beyond 256 variables) — IsValid, SampleValid, Neighbours and the enumerations share no mutable
// state and may run concurrently on one space. A restriction whose knobs have at most 2^16 value
// combinations is evaluated once per combination when it is added and then decided by a bit
// lookup on the value indices; the others run the expression bytecode.
//
// Small spaces. SampleValid on a space of at most 2^22 raw configurations (see
// space_internal::EnumerationThreshold) enumerates the valid dense indices once, lazily and
// thread-safely, and draws uniformly from that list; max_attempts does not apply there (nullopt
// means the space has no valid configuration). Larger spaces use the rejection sampler.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <numeric>
#include <thread>

#include "glimpse/error.h"
#include "glimpse/space.h"
#include "space/space_internal.h"

namespace glimpse {

namespace space_internal {
namespace {
std::atomic<uint64_t> g_enumeration_threshold{uint64_t{1} << 22};
}  // namespace
uint64_t EnumerationThreshold() { return g_enumeration_threshold.load(std::memory_order_relaxed); }
void SetEnumerationThreshold(uint64_t raw_size) {
  g_enumeration_threshold.store(raw_size, std::memory_order_relaxed);
}
}  // namespace space_internal

namespace {

using space_internal::Fnv1a;

// Above this many scalars a knob's variables are not tabulated (10! permutations); they are then
// written by Knob::WriteVariables on demand.
constexpr size_t kMaxTableScalars = size_t{1} << 22;
constexpr int kStackSlots = 256;

uint64_t SaturatingMul(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return UINT64_MAX;
  return r;
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += (text.empty() ? "" : ", ") + n;
  return text.empty() ? "(none)" : text;
}

std::string ListSomeValues(const Knob& knob, size_t limit = 8) {
  std::string text;
  for (size_t i = 0; i < knob.size() && i < limit; ++i) {
    text += (i ? ", " : "") + KnobValueToString(knob.ValueAt(i));
  }
  if (knob.size() > limit) text += ", ... (" + std::to_string(knob.size()) + " values)";
  return text;
}

}  // namespace

struct ConfigSpace::Impl {
  // Definition.
  std::vector<Knob> knobs;
  std::vector<std::string> restriction_texts;
  std::vector<Expression> exprs;
  // Slots.
  std::vector<std::string> slot_names;
  std::vector<int> slot_offset;             // per knob
  std::vector<int> slot_count;              // per knob
  std::vector<std::vector<Scalar>> tables;  // per knob: size × count scalars, or empty
  int total_slots = 0;
  // Sizes.
  std::vector<uint64_t> strides;  // dense-index stride per knob
  uint64_t raw_size = 1;
  bool raw_saturated = false;
  // Plan.
  std::vector<std::vector<size_t>> restriction_knobs;  // per restriction
  std::vector<uint32_t> constant_restrictions;         // no variables
  std::vector<size_t> order;                           // assignment order (all knobs)
  std::vector<std::vector<uint32_t>> checks;           // per order position
  size_t restricted_levels = 0;  // order[0..restricted_levels) are the knobs in restrictions
  std::vector<std::vector<size_t>> components;  // order positions, per connected group
  std::vector<size_t> by_name;                  // knob positions sorted by name
  // Truth tables of restrictions over few knob values (see BuildTable): a bit per combination of
  // the restriction's knobs' value indices. Restrictions without one are evaluated.
  struct Table {
    std::vector<size_t> knobs;      // the restriction's knobs
    std::vector<uint64_t> strides;  // mixed radix over them
    std::vector<uint64_t> bits;     // empty: not tabulated
  };
  std::vector<Table> restriction_tables;  // per restriction
  std::vector<uint8_t> needs_slots;       // per knob: read by an evaluated restriction

  // Lazily enumerated valid dense indices (SampleValid on small spaces). Not copied.
  mutable std::mutex cache_mutex;
  mutable std::atomic<const std::vector<uint64_t>*> valid_cache{nullptr};
  mutable std::unique_ptr<std::vector<uint64_t>> valid_owner;

  Impl() = default;
  Impl(const Impl& o)
      : knobs(o.knobs),
        restriction_texts(o.restriction_texts),
        exprs(o.exprs),
        slot_names(o.slot_names),
        slot_offset(o.slot_offset),
        slot_count(o.slot_count),
        tables(o.tables),
        total_slots(o.total_slots),
        strides(o.strides),
        raw_size(o.raw_size),
        raw_saturated(o.raw_saturated),
        restriction_knobs(o.restriction_knobs),
        constant_restrictions(o.constant_restrictions),
        order(o.order),
        checks(o.checks),
        restricted_levels(o.restricted_levels),
        components(o.components),
        by_name(o.by_name),
        restriction_tables(o.restriction_tables),
        needs_slots(o.needs_slots) {}

  void InvalidateCaches() {
    valid_cache.store(nullptr, std::memory_order_release);
    valid_owner.reset();
  }

  void WriteKnob(size_t k, uint32_t index, Scalar* slots) const {
    const int count = slot_count[k];
    Scalar* out = slots + slot_offset[k];
    const std::vector<Scalar>& table = tables[k];
    if (!table.empty()) {
      const Scalar* src = table.data() + static_cast<size_t>(index) * static_cast<size_t>(count);
      if (count == 1)
        *out = *src;
      else
        std::memcpy(static_cast<void*>(out), src, sizeof(Scalar) * static_cast<size_t>(count));
    } else {
      knobs[k].WriteVariables(index, out);
    }
  }

  // Whether restriction r holds: a table lookup by the knobs' value indices `idx` (per knob), or
  // an evaluation over the slot values (which must hold the restriction's knobs).
  bool Holds(uint32_t r, const uint32_t* idx, const Scalar* slots) const {
    const Table& t = restriction_tables[r];
    if (!t.bits.empty()) {
      uint64_t i = 0;
      for (size_t j = 0; j < t.knobs.size(); ++j) i += idx[t.knobs[j]] * t.strides[j];
      return (t.bits[i >> 6] >> (i & 63)) & 1;
    }
    return exprs[r].Satisfied(slots);
  }

  bool ChecksPass(const std::vector<uint32_t>& ids, const uint32_t* idx,
                  const Scalar* slots) const {
    for (uint32_t r : ids) {
      if (!Holds(r, idx, slots)) return false;
    }
    return true;
  }

  bool ConstantsPass() const {
    for (uint32_t r : constant_restrictions) {
      if (!exprs[r].Satisfied(nullptr)) return false;
    }
    return true;
  }

  void BuildTable(uint32_t r);
  void OrderChecks();

  bool InRange(const Config& config) const {
    if (config.indices.size() != knobs.size()) return false;
    for (size_t k = 0; k < knobs.size(); ++k) {
      if (config.indices[k] >= knobs[k].size()) return false;
    }
    return true;
  }

  // Validity of an in-range config, in assignment order with early exit.
  bool ValidInRange(const Config& config, Scalar* slots) const {
    if (!ConstantsPass()) return false;
    for (size_t p = 0; p < restricted_levels; ++p) {
      size_t k = order[p];
      if (needs_slots[k]) WriteKnob(k, config.indices[k], slots);
      if (!ChecksPass(checks[p], config.indices.data(), slots)) return false;
    }
    return true;
  }

  uint64_t DenseOf(const Config& config) const {
    uint64_t dense = 0;
    for (size_t k = 0; k < knobs.size(); ++k) dense += config.indices[k] * strides[k];
    return dense;
  }

  // Depth-first walk over `levels` (order positions), skipping subtrees under a violated check.
  // `idx` (per knob) holds the current assignment at each leaf; on_leaf() is called per leaf.
  // The first `prefix_len` levels are fixed to the values in `prefix`.
  template <class OnLeaf>
  void Walk(const std::vector<size_t>& levels, Scalar* slots, uint32_t* idx, OnLeaf&& on_leaf,
            const uint32_t* prefix = nullptr, size_t prefix_len = 0) const {
    const size_t m = levels.size();
    if (m == 0) {
      on_leaf();
      return;
    }
    std::vector<uint32_t> cur(m, 0);
    std::vector<uint32_t> end(m);
    for (size_t l = 0; l < m; ++l) end[l] = static_cast<uint32_t>(knobs[order[levels[l]]].size());
    for (size_t l = 0; l < prefix_len && l < m; ++l) {
      cur[l] = prefix[l];
      end[l] = prefix[l] + 1;
    }
    size_t l = 0;
    while (true) {
      if (cur[l] >= end[l]) {
        if (l == 0) break;
        --l;
        ++cur[l];
        continue;
      }
      const size_t p = levels[l];
      const size_t k = order[p];
      if (needs_slots[k]) WriteKnob(k, cur[l], slots);
      idx[k] = cur[l];
      if (ChecksPass(checks[p], idx, slots)) {
        if (l + 1 == m) {
          on_leaf();
          ++cur[l];
        } else {
          ++l;
          cur[l] = l < prefix_len ? prefix[l] : 0;
        }
      } else {
        ++cur[l];
      }
    }
  }

  // Splits a walk over `levels` (non-empty) into tasks: the combinations of the values of its
  // first few levels, enough of them to keep the threads busy. Returns the number of tasks; calls
  // body(task, prefix, prefix_len, slots, idx) for each, spread over worker threads when the
  // space under them is big enough to be worth it. Each thread has its own scratch; `body` must
  // only write to per-task results.
  template <class Body>
  size_t ForEachPrefix(const std::vector<size_t>& levels, Body&& body) const;
  // The number of tasks ForEachPrefix makes of `levels`, and their prefix length.
  uint64_t PrefixTasks(const std::vector<size_t>& levels, size_t* prefix_len,
                       unsigned* threads) const;

  void Rebuild();
  std::vector<uint64_t> EnumerateValid() const;
  const std::vector<uint64_t>& ValidCache() const;
};

namespace {

// A scratch array of slot values: on the stack for ordinary spaces, thread-local beyond that.
class SlotBuffer {
 public:
  explicit SlotBuffer(int slots) {
    if (slots <= kStackSlots) {
      data_ = reinterpret_cast<Scalar*>(local_);
    } else {
      thread_local std::vector<Scalar> heap;
      if (heap.size() < static_cast<size_t>(slots)) heap.resize(static_cast<size_t>(slots));
      data_ = heap.data();
    }
  }
  Scalar* Data() { return data_; }

 private:
  // Raw storage: every slot is written before it is read, and a Scalar array would be
  // zero-initialised on each call.
  alignas(Scalar) unsigned char local_[sizeof(Scalar) * kStackSlots];
  Scalar* data_;
};

}  // namespace

void ConfigSpace::Impl::Rebuild() {
  InvalidateCaches();
  const size_t n = knobs.size();
  // Sizes and strides (last knob fastest).
  strides.assign(n, 1);
  raw_size = 1;
  raw_saturated = false;
  for (size_t k = n; k-- > 0;) {
    strides[k] = raw_size;
    uint64_t next = SaturatingMul(raw_size, knobs[k].size());
    if (next == UINT64_MAX) raw_saturated = true;
    raw_size = next;
  }
  // Restriction → knobs.
  std::vector<size_t> slot_owner(static_cast<size_t>(total_slots));
  for (size_t k = 0; k < n; ++k) {
    for (int s = 0; s < slot_count[k]; ++s)
      slot_owner[static_cast<size_t>(slot_offset[k]) + static_cast<size_t>(s)] = k;
  }
  restriction_knobs.assign(exprs.size(), {});
  restriction_tables.resize(exprs.size());
  constant_restrictions.clear();
  for (size_t r = 0; r < exprs.size(); ++r) {
    std::vector<size_t>& rk = restriction_knobs[r];
    for (const std::string& var : exprs[r].Variables()) {
      auto it = std::find(slot_names.begin(), slot_names.end(), var);
      rk.push_back(slot_owner[static_cast<size_t>(it - slot_names.begin())]);
    }
    std::sort(rk.begin(), rk.end());
    rk.erase(std::unique(rk.begin(), rk.end()), rk.end());
    if (rk.empty()) constant_restrictions.push_back(static_cast<uint32_t>(r));
  }
  // Assignment order: greedy. Knobs with one value first (free to assign), then the knob that
  // completes the most restrictions, then the one most involved in pending restrictions (weighted
  // by how close they are to completion), then the smaller knob.
  std::vector<std::vector<uint32_t>> knob_restrictions(n);
  for (size_t r = 0; r < exprs.size(); ++r)
    for (size_t k : restriction_knobs[r]) knob_restrictions[k].push_back(static_cast<uint32_t>(r));
  std::vector<bool> assigned(n, false);
  std::vector<size_t> missing(exprs.size());
  for (size_t r = 0; r < exprs.size(); ++r) missing[r] = restriction_knobs[r].size();
  order.clear();
  checks.clear();
  std::vector<size_t> restricted;
  for (size_t k = 0; k < n; ++k)
    if (!knob_restrictions[k].empty()) restricted.push_back(k);
  while (order.size() < restricted.size()) {
    size_t best = SIZE_MAX;
    double best_key[4] = {0, 0, 0, 0};
    for (size_t k : restricted) {
      if (assigned[k]) continue;
      double completes = 0, involvement = 0;
      for (uint32_t r : knob_restrictions[k]) {
        if (missing[r] == 1) completes += 1;
        involvement += 1.0 / static_cast<double>(missing[r]);
      }
      double key[4] = {knobs[k].size() == 1 ? 1.0 : 0.0, completes, involvement,
                       -static_cast<double>(knobs[k].size())};
      if (best == SIZE_MAX || std::lexicographical_compare(best_key, best_key + 4, key, key + 4)) {
        best = k;
        std::copy(key, key + 4, best_key);
      }
    }
    assigned[best] = true;
    order.push_back(best);
    checks.emplace_back();
    for (uint32_t r : knob_restrictions[best]) {
      if (--missing[r] == 0) checks.back().push_back(r);
    }
  }
  restricted_levels = order.size();
  for (size_t k = 0; k < n; ++k) {
    if (knob_restrictions[k].empty()) {
      order.push_back(k);
      checks.emplace_back();
    }
  }
  // Connected groups of restricted knobs (union-find over restrictions).
  std::vector<size_t> parent(n);
  std::iota(parent.begin(), parent.end(), size_t{0});
  auto find = [&](size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (const auto& rk : restriction_knobs)
    for (size_t i = 1; i < rk.size(); ++i) parent[find(rk[i])] = find(rk[0]);
  components.clear();
  std::vector<int64_t> component_of_root(n, -1);
  for (size_t p = 0; p < restricted_levels; ++p) {
    size_t root = find(order[p]);
    if (component_of_root[root] < 0) {
      component_of_root[root] = static_cast<int64_t>(components.size());
      components.emplace_back();
    }
    components[static_cast<size_t>(component_of_root[root])].push_back(p);
  }
  // Name order for Hash.
  by_name.resize(n);
  std::iota(by_name.begin(), by_name.end(), size_t{0});
  std::sort(by_name.begin(), by_name.end(),
            [&](size_t a, size_t b) { return knobs[a].name() < knobs[b].name(); });
  OrderChecks();
}

// A restriction over knobs whose value combinations number at most kMaxTableBits is evaluated
// once per combination when it is added; checks are then a bit lookup. (Knobs are only ever
// appended, so a restriction's knobs and their value indices never change afterwards.)
void ConfigSpace::Impl::BuildTable(uint32_t r) {
  constexpr uint64_t kMaxTableBits = uint64_t{1} << 16;
  Table& t = restriction_tables[r];
  t = Table{};
  t.knobs = restriction_knobs[r];
  if (t.knobs.empty()) return;  // constant: evaluated (once per call) instead
  uint64_t combos = 1;
  t.strides.assign(t.knobs.size(), 0);
  for (size_t j = t.knobs.size(); j-- > 0;) {
    t.strides[j] = combos;
    combos = SaturatingMul(combos, knobs[t.knobs[j]].size());
  }
  if (combos > kMaxTableBits) return;
  std::vector<uint64_t> bits((combos + 63) / 64, 0);
  SlotBuffer buffer(total_slots);
  Scalar* slots = buffer.Data();
  std::vector<uint32_t> idx(t.knobs.size(), 0);
  for (uint64_t i = 0; i < combos; ++i) {
    uint64_t rest = i;
    for (size_t j = 0; j < t.knobs.size(); ++j) {
      idx[j] = static_cast<uint32_t>(rest / t.strides[j]);
      rest %= t.strides[j];
      WriteKnob(t.knobs[j], idx[j], slots);
    }
    if (exprs[r].Satisfied(slots)) bits[i >> 6] |= uint64_t{1} << (i & 63);
  }
  t.bits = std::move(bits);
}

// Tabulated checks first at each level (a lookup is cheaper than an evaluation), and which knobs
// the evaluated restrictions read.
void ConfigSpace::Impl::OrderChecks() {
  for (std::vector<uint32_t>& ids : checks) {
    std::stable_sort(ids.begin(), ids.end(), [&](uint32_t a, uint32_t b) {
      return !restriction_tables[a].bits.empty() && restriction_tables[b].bits.empty();
    });
  }
  needs_slots.assign(knobs.size(), 0);
  for (size_t r = 0; r < exprs.size(); ++r) {
    if (!restriction_tables[r].bits.empty()) continue;
    for (size_t k : restriction_knobs[r]) needs_slots[k] = 1;
  }
}

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
    size_t prefix_len_unused;
    unsigned threads_unused;
    // One list per task, so that the result does not depend on the threads.
    std::vector<std::vector<uint64_t>> lists(
        PrefixTasks(levels, &prefix_len_unused, &threads_unused));
    ForEachPrefix(levels, [&](size_t task, const uint32_t* prefix, size_t prefix_len, Scalar* slots,
                              uint32_t* idx) {
      std::vector<uint64_t>& list = lists[task];
      Walk(
          levels, slots, idx,
          [&] {
            uint64_t partial = 0;
            for (size_t p : levels) partial += idx[order[p]] * strides[order[p]];
            list.push_back(partial);
          },
          prefix, prefix_len);
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

// ---------------------------------------------------------------------------------------------

ConfigSpace::ConfigSpace() : impl_(std::make_unique<Impl>()) {}
ConfigSpace::~ConfigSpace() = default;
ConfigSpace::ConfigSpace(const ConfigSpace& other) : impl_(std::make_unique<Impl>(*other.impl_)) {}
ConfigSpace& ConfigSpace::operator=(const ConfigSpace& other) {
  if (this != &other) impl_ = std::make_unique<Impl>(*other.impl_);
  return *this;
}
ConfigSpace::ConfigSpace(ConfigSpace&&) noexcept = default;
ConfigSpace& ConfigSpace::operator=(ConfigSpace&&) noexcept = default;

void ConfigSpace::AddKnob(Knob knob) {
  Impl& s = *impl_;
  for (const Knob& existing : s.knobs) {
    if (existing.name() == knob.name()) {
      throw Error("duplicate knob '" + knob.name() + "'");
    }
  }
  std::vector<std::string> names = knob.VariableNames();
  for (const std::string& name : names) {
    if (std::find(s.slot_names.begin(), s.slot_names.end(), name) != s.slot_names.end()) {
      throw Error("knob '" + knob.name() + "': restriction name '" + name +
                  "' is already used by another knob");
    }
  }
  int count = static_cast<int>(names.size());
  s.slot_offset.push_back(s.total_slots);
  s.slot_count.push_back(count);
  s.total_slots += count;
  s.slot_names.insert(s.slot_names.end(), names.begin(), names.end());
  std::vector<Scalar> table;
  if (knob.size() * static_cast<size_t>(count) <= kMaxTableScalars) {
    table.resize(knob.size() * static_cast<size_t>(count));
    for (size_t i = 0; i < knob.size(); ++i)
      knob.WriteVariables(i, table.data() + i * static_cast<size_t>(count));
  }
  s.tables.push_back(std::move(table));
  s.knobs.push_back(std::move(knob));
  s.Rebuild();
}

void ConfigSpace::AddRestriction(const std::string& expression) {
  Expression e = Expression::Parse(expression);
  e.Bind(impl_->slot_names);
  impl_->restriction_texts.push_back(expression);
  impl_->exprs.push_back(std::move(e));
  impl_->Rebuild();
  impl_->BuildTable(static_cast<uint32_t>(impl_->exprs.size() - 1));
  impl_->OrderChecks();
}

const std::vector<Knob>& ConfigSpace::knobs() const { return impl_->knobs; }
size_t ConfigSpace::NumKnobs() const { return impl_->knobs.size(); }
const std::vector<std::string>& ConfigSpace::restrictions() const {
  return impl_->restriction_texts;
}

size_t ConfigSpace::KnobIndex(const std::string& name) const {
  const auto& knobs = impl_->knobs;
  for (size_t k = 0; k < knobs.size(); ++k) {
    if (knobs[k].name() == name) return k;
  }
  std::vector<std::string> names;
  names.reserve(knobs.size());
  for (const Knob& knob : knobs) names.push_back(knob.name());
  throw Error("unknown knob '" + name + "'; known: " + JoinNames(names));
}

uint64_t ConfigSpace::RawSize() const { return impl_->raw_size; }

double ConfigSpace::RawSizeLog10() const {
  double total = 0.0;
  for (const Knob& knob : impl_->knobs) total += std::log10(static_cast<double>(knob.size()));
  return total;
}

uint64_t ConfigSpace::ToDenseIndex(const Config& config) const {
  const Impl& s = *impl_;
  if (s.raw_saturated) throw Error("dense index: the space has more than 2^64 raw configurations");
  if (!s.InRange(config)) throw Error("dense index: configuration out of range");
  return s.DenseOf(config);
}

Config ConfigSpace::FromDenseIndex(uint64_t index) const {
  const Impl& s = *impl_;
  if (s.raw_saturated) throw Error("dense index: the space has more than 2^64 raw configurations");
  if (index >= s.raw_size) {
    throw Error("dense index " + std::to_string(index) + " out of range (raw size " +
                std::to_string(s.raw_size) + ")");
  }
  Config config;
  config.indices.resize(s.knobs.size());
  for (size_t k = s.knobs.size(); k-- > 0;) {
    uint64_t size = s.knobs[k].size();
    config.indices[k] = static_cast<uint32_t>(index % size);
    index /= size;
  }
  return config;
}

bool ConfigSpace::InRange(const Config& config) const { return impl_->InRange(config); }

bool ConfigSpace::IsValid(const Config& config) const {
  const Impl& s = *impl_;
  if (!s.InRange(config)) return false;
  SlotBuffer buffer(s.total_slots);
  return s.ValidInRange(config, buffer.Data());
}

std::optional<Config> ConfigSpace::SampleValid(Rng& rng, uint64_t max_attempts) const {
  const Impl& s = *impl_;
  if (!s.ConstantsPass()) return std::nullopt;
  if (!s.raw_saturated && s.raw_size <= space_internal::EnumerationThreshold()) {
    const std::vector<uint64_t>& valid = s.ValidCache();
    if (valid.empty()) return std::nullopt;
    return FromDenseIndex(valid[UniformIndex(rng, valid.size())]);
  }
  SlotBuffer buffer(s.total_slots);
  Scalar* slots = buffer.Data();
  Config config;
  config.indices.resize(s.knobs.size());
  const size_t levels = s.order.size();
  for (uint64_t attempt = 0; attempt < max_attempts; ++attempt) {
    bool ok = true;
    for (size_t p = 0; p < levels; ++p) {
      const size_t k = s.order[p];
      const uint32_t v = static_cast<uint32_t>(UniformIndex(rng, s.knobs[k].size()));
      config.indices[k] = v;
      if (p < s.restricted_levels) {
        if (s.needs_slots[k]) s.WriteKnob(k, v, slots);
        if (!s.ChecksPass(s.checks[p], config.indices.data(), slots)) {
          ok = false;
          break;
        }
      }
    }
    if (ok) return config;
  }
  return std::nullopt;
}

Config ConfigSpace::SampleRaw(Rng& rng) const {
  Config config;
  config.indices.resize(impl_->knobs.size());
  for (size_t k = 0; k < impl_->knobs.size(); ++k) {
    config.indices[k] = static_cast<uint32_t>(UniformIndex(rng, impl_->knobs[k].size()));
  }
  return config;
}

uint64_t ConfigSpace::CountValid() const {
  const Impl& s = *impl_;
  if (!s.ConstantsPass()) return 0;
  uint64_t total = 1;
  for (size_t p = s.restricted_levels; p < s.order.size(); ++p)
    total = SaturatingMul(total, s.knobs[s.order[p]].size());
  for (const std::vector<size_t>& levels : s.components) {
    if (total == 0) break;
    size_t prefix_len_unused;
    unsigned threads_unused;
    std::vector<uint64_t> counts(s.PrefixTasks(levels, &prefix_len_unused, &threads_unused), 0);
    s.ForEachPrefix(levels, [&](size_t task, const uint32_t* prefix, size_t prefix_len,
                                Scalar* slots, uint32_t* idx) {
      uint64_t local = 0;
      s.Walk(
          levels, slots, idx, [&] { ++local; }, prefix, prefix_len);
      counts[task] = local;
    });
    uint64_t count = 0;
    for (uint64_t c : counts) count += c;
    total = SaturatingMul(total, count);
  }
  return total;
}

std::vector<uint64_t> ConfigSpace::ValidIndices() const { return impl_->EnumerateValid(); }

std::vector<Config> ConfigSpace::Neighbours(const Config& config, bool valid_only) const {
  const Impl& s = *impl_;
  std::vector<Config> result;
  if (!s.InRange(config)) return result;
  SlotBuffer buffer(s.total_slots);
  Config candidate = config;
  for (size_t k = 0; k < s.knobs.size(); ++k) {
    for (uint32_t v : s.knobs[k].NeighbourIndices(config.indices[k])) {
      candidate.indices[k] = v;
      if (!valid_only || s.ValidInRange(candidate, buffer.Data())) result.push_back(candidate);
    }
    candidate.indices[k] = config.indices[k];
  }
  return result;
}

Config ConfigSpace::RandomWalk(const Config& start, int steps, Rng& rng) const {
  Config current = start;
  for (int step = 0; step < steps; ++step) {
    std::vector<Config> next = Neighbours(current, true);
    if (next.empty()) break;
    current = std::move(next[UniformIndex(rng, next.size())]);
  }
  return current;
}

int ConfigSpace::FeatureWidth(FeatureKind kind) const {
  if (kind == FeatureKind::kKnobIndices) return static_cast<int>(impl_->knobs.size());
  int width = 0;
  for (const Knob& knob : impl_->knobs) width += knob.FeatureWidth();
  return width;
}

std::vector<std::string> ConfigSpace::FeatureNames(FeatureKind kind) const {
  std::vector<std::string> names;
  for (const Knob& knob : impl_->knobs) {
    if (kind == FeatureKind::kKnobIndices) {
      names.push_back(knob.name());
    } else {
      std::vector<std::string> vars = knob.VariableNames();
      names.insert(names.end(), vars.begin(), vars.end());
    }
  }
  return names;
}

void ConfigSpace::WriteFeatures(const Config& config, FeatureKind kind, double* out) const {
  const Impl& s = *impl_;
  if (!s.InRange(config)) throw Error("features: configuration out of range");
  for (size_t k = 0; k < s.knobs.size(); ++k) {
    if (kind == FeatureKind::kKnobIndices) {
      *out++ = static_cast<double>(config.indices[k]);
    } else {
      s.knobs[k].WriteFeatures(config.indices[k], out);
      out += s.knobs[k].FeatureWidth();
    }
  }
}

std::vector<double> ConfigSpace::Features(const Config& config, FeatureKind kind) const {
  std::vector<double> features(static_cast<size_t>(FeatureWidth(kind)));
  WriteFeatures(config, kind, features.data());
  return features;
}

uint64_t ConfigSpace::Hash(const Config& config) const {
  const Impl& s = *impl_;
  if (!s.InRange(config)) throw Error("hash: configuration out of range");
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (size_t k : s.by_name) {
    hash = Fnv1a(s.knobs[k].name(), hash);
    hash = Fnv1a("=", hash);
    hash = Fnv1a(space_internal::CanonicalValueText(s.knobs[k].ValueAt(config.indices[k])), hash);
    hash = Fnv1a(";", hash);
  }
  return hash;
}

uint64_t ConfigSpace::Fingerprint() const { return Fnv1a(ToJson().dump()); }

Json ConfigSpace::ConfigToJson(const Config& config) const {
  const Impl& s = *impl_;
  if (!s.InRange(config)) throw Error("configuration out of range for this space");
  Json json = Json::object();
  for (size_t k = 0; k < s.knobs.size(); ++k) {
    json[s.knobs[k].name()] = KnobValueToJson(s.knobs[k].ValueAt(config.indices[k]));
  }
  return json;
}

Config ConfigSpace::ConfigFromJson(const Json& json) const {
  const Impl& s = *impl_;
  if (!json.is_object()) {
    throw Error("configuration: expected a JSON object of knob values, found " + json.dump());
  }
  Config config;
  config.indices.assign(s.knobs.size(), UINT32_MAX);
  for (const auto& [name, value] : json.items()) {
    size_t k;
    try {
      k = KnobIndex(name);
    } catch (const Error& e) {
      throw Error(std::string("configuration: ") + e.what());
    }
    std::optional<size_t> index = s.knobs[k].IndexOfJson(value);
    if (!index) {
      throw Error("configuration: knob '" + name + "' has no value " + value.dump() +
                  "; its values: " + ListSomeValues(s.knobs[k]));
    }
    config.indices[k] = static_cast<uint32_t>(*index);
  }
  for (size_t k = 0; k < s.knobs.size(); ++k) {
    if (config.indices[k] == UINT32_MAX) {
      throw Error("configuration: missing knob '" + s.knobs[k].name() + "'");
    }
  }
  return config;
}

std::string ConfigSpace::ConfigToString(const Config& config) const {
  const Impl& s = *impl_;
  if (!s.InRange(config)) throw Error("configuration out of range for this space");
  std::string text;
  for (size_t k = 0; k < s.knobs.size(); ++k) {
    if (k) text += ", ";
    text += s.knobs[k].name() + "=" + KnobValueToString(s.knobs[k].ValueAt(config.indices[k]));
  }
  return text;
}

Json ConfigSpace::ToJson() const {
  Json knobs = Json::array();
  for (const Knob& knob : impl_->knobs) knobs.push_back(knob.ToJson());
  Json restrictions = Json::array();
  for (const std::string& r : impl_->restriction_texts) restrictions.push_back(r);
  return Json{{"knobs", std::move(knobs)}, {"restrictions", std::move(restrictions)}};
}

ConfigSpace ConfigSpace::FromJson(const Json& json) {
  if (!json.is_object()) throw Error("space: expected a JSON object, found " + json.dump());
  auto knobs_it = json.find("knobs");
  if (knobs_it == json.end() || !knobs_it->is_array()) {
    throw Error("space: field 'knobs' missing or not an array");
  }
  ConfigSpace space;
  for (size_t i = 0; i < knobs_it->size(); ++i) {
    try {
      space.AddKnob(Knob::FromJson((*knobs_it)[i]));
    } catch (const Error& e) {
      throw Error("space: knobs[" + std::to_string(i) + "]: " + e.what());
    }
  }
  auto restrictions_it = json.find("restrictions");
  if (restrictions_it != json.end()) {
    if (!restrictions_it->is_array()) throw Error("space: field 'restrictions' must be an array");
    for (size_t i = 0; i < restrictions_it->size(); ++i) {
      const Json& r = (*restrictions_it)[i];
      if (!r.is_string()) {
        throw Error("space: restrictions[" + std::to_string(i) + "] must be a string, found " +
                    r.dump());
      }
      try {
        space.AddRestriction(r.get<std::string>());
      } catch (const Error& e) {
        throw Error("space: restrictions[" + std::to_string(i) + "]: " + e.what());
      }
    }
  }
  return space;
}

size_t ConfigHasher::operator()(const Config& config) const {
  uint64_t hash = 0x9e3779b97f4a7c15ULL ^ config.indices.size();
  for (uint32_t v : config.indices) {
    hash ^= v + 0x9e3779b97f4a7c15ULL + (hash << 6) + (hash >> 2);
  }
  return static_cast<size_t>(hash);
}

std::string HashToHex(uint64_t hash) {
  static const char kDigits[] = "0123456789abcdef";
  std::string text(16, '0');
  for (int i = 15; i >= 0; --i) {
    text[static_cast<size_t>(i)] = kDigits[hash & 0xf];
    hash >>= 4;
  }
  return text;
}

}  // namespace glimpse
