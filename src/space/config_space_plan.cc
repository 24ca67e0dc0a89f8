// The plan of a ConfigSpace, rebuilt whenever a knob or a restriction is added.
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
#include <algorithm>
#include <numeric>

#include "space/config_space_impl.h"

namespace glimpse {

using space_internal::SaturatingMul;
using space_internal::SlotBuffer;

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

}  // namespace glimpse
