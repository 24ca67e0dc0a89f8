// ConfigSpace::Impl, shared by the space's sources (see config_space.cc for the map): the
// definition, the slots and the plan, and the inline checks every hot path runs.
//
// Checks. Every knob value's restriction variables are precomputed as Scalars (one table per
// knob), so an evaluation copies them into a small scratch array (on the stack; thread-local only
// beyond 256 variables) — IsValid, SampleValid, Neighbours and the enumerations share no mutable
// state and may run concurrently on one space. A restriction whose knobs have at most 2^16 value
// combinations is evaluated once per combination when it is added and then decided by a bit
// lookup on the value indices; the others run the expression bytecode.
//
// What runs per configuration (WriteKnob, Holds, ValidInRange, Walk, ...) is defined here, in the
// class, so that it inlines into IsValid, SampleValid and the enumerations in their own files.
#pragma once

#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "glimpse/space.h"

namespace glimpse {

namespace space_internal {

constexpr int kStackSlots = 256;

inline uint64_t SaturatingMul(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return UINT64_MAX;
  return r;
}

// The calling thread's scratch of at least `slots` slot values (config_space.cc). Out of line
// so that the rare big-space path does not bloat the hot functions SlotBuffer is inlined into.
Scalar* ThreadLocalSlots(int slots);

// A scratch array of slot values: on the stack for ordinary spaces, thread-local beyond that.
class SlotBuffer {
 public:
  explicit SlotBuffer(int slots) {
    if (slots <= kStackSlots) {
      data_ = reinterpret_cast<Scalar*>(local_);
    } else {
      data_ = ThreadLocalSlots(slots);
    }
  }
  Scalar* Data() { return data_; }

 private:
  // Raw storage: every slot is written before it is read, and a Scalar array would be
  // zero-initialised on each call.
  alignas(Scalar) unsigned char local_[sizeof(Scalar) * kStackSlots];
  Scalar* data_;
};

}  // namespace space_internal

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

  // The plan (config_space_plan.cc).
  void Rebuild();
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

  // The configuration at a dense index below raw_size (DenseOf's inverse).
  Config ConfigOf(uint64_t index) const {
    Config config;
    config.indices.resize(knobs.size());
    for (size_t k = knobs.size(); k-- > 0;) {
      uint64_t size = knobs[k].size();
      config.indices[k] = static_cast<uint32_t>(index % size);
      index /= size;
    }
    return config;
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

  // Walks `levels` (non-empty) task by task (ForEachPrefix), calling on_leaf(result, idx) at
  // each leaf with the result of that leaf's task. One result per task, so that the results do
  // not depend on the threads.
  template <class Result, class OnLeaf>
  std::vector<Result> WalkTasks(const std::vector<size_t>& levels, OnLeaf&& on_leaf) const;

  // Enumeration (config_space_enumerate.cc).
  std::vector<uint64_t> EnumerateValid() const;
  const std::vector<uint64_t>& ValidCache() const;
};

}  // namespace glimpse
