// Leave-one-device-out transfer-learning history (see glimpse/evaluation.h).
#include <algorithm>

#include "glimpse/error.h"
#include "glimpse/evaluation.h"

namespace glimpse {

TransferHistory LeaveOneDeviceOutHistory(
    const std::vector<std::shared_ptr<const RecordedSpace>>& group, size_t held_out) {
  if (held_out >= group.size()) {
    throw Error("held-out device " + std::to_string(held_out) + " of a group of " +
                std::to_string(group.size()));
  }
  const ConfigSpace& target = group[held_out]->space;
  const uint64_t target_fingerprint = target.Fingerprint();
  TransferHistory history;
  for (size_t i = 0; i < group.size(); ++i) {
    if (i == held_out) continue;
    const RecordedSpace& other = *group[i];
    // Same definition (the usual case: one T1 file per group): indices mean the same point.
    const bool same_space = other.space.Fingerprint() == target_fingerprint;
    // Dense-index order, so that the history (and the base model fitted on it) is reproducible.
    std::vector<uint64_t> indices;
    indices.reserve(other.entries.size());
    for (const auto& [index, entry] : other.entries) indices.push_back(index);
    std::sort(indices.begin(), indices.end());
    for (uint64_t index : indices) {
      const RecordedEntry& entry = other.entries.at(index);
      Config config = other.space.FromDenseIndex(index);
      if (!same_space) {
        try {
          config = target.ConfigFromJson(other.space.ConfigToJson(config));
        } catch (const Error&) {
          continue;  // a value or knob this space lacks
        }
      }
      if (!target.IsValid(config)) continue;
      MeasureResult result;
      result.status = entry.status;
      if (result.ok()) result.time_s = entry.time_s;
      result.compile_time_s = entry.compile_time_s;
      result.cost_s = entry.compile_time_s + entry.benchmark_time_s;
      history.emplace_back(std::move(config), std::move(result));
    }
  }
  return history;
}

}  // namespace glimpse
