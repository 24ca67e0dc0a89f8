// Transfer-learning histories of the studies: which devices of a group a run may learn from, and
// their entries mapped into the run's space (see glimpse/evaluation.h).
#include <algorithm>
#include <iterator>

#include "glimpse/enum_name.h"
#include "glimpse/error.h"
#include "glimpse/evaluation.h"
#include "glimpse/hardware.h"

namespace glimpse {

namespace {

// In TransferMode's order.
constexpr const char* kTransferModeNames[] = {"leave-one-device-out", "leave-one-architecture-out",
                                              "leave-one-vendor-out"};

void CheckHeldOut(size_t held_out, size_t size) {
  if (held_out >= size) {
    throw Error("held-out device " + std::to_string(held_out) + " of a group of " +
                std::to_string(size));
  }
}

// What `mode` compares between two devices: their architecture or their vendor.
std::string FamilyOf(const std::string& device, TransferMode mode) {
  const GpuSpec* gpu = GpuTable::Default().Find(device);
  if (gpu == nullptr) {
    throw Error(std::string(TransferModeName(mode)) + ": the recorded device '" + device +
                "' is not in the GPU table (glimpse hw list), so its " +
                (mode == TransferMode::kOtherArchitectures ? "architecture" : "vendor") +
                " is unknown");
  }
  return mode == TransferMode::kOtherArchitectures ? gpu->architecture : GpuVendorName(gpu->vendor);
}

}  // namespace

const char* TransferModeName(TransferMode mode) {
  return EnumName(mode, kTransferModeNames, "unknown transfer mode");
}

TransferMode ParseTransferMode(const std::string& name) {
  for (size_t i = 0; i < std::size(kTransferModeNames); ++i) {
    if (name == kTransferModeNames[i]) return static_cast<TransferMode>(i);
  }
  std::string known;
  for (const char* mode : kTransferModeNames)
    known += std::string(known.empty() ? "" : ", ") + mode;
  throw Error("unknown mode '" + name + "'; known: " + known);
}

std::vector<size_t> TransferSources(const std::vector<std::shared_ptr<const RecordedSpace>>& group,
                                    size_t held_out, TransferMode mode) {
  CheckHeldOut(held_out, group.size());
  std::string held_family;
  if (mode != TransferMode::kOtherDevices) {
    held_family = FamilyOf(group[held_out]->device_name, mode);
  }
  std::vector<size_t> sources;
  for (size_t i = 0; i < group.size(); ++i) {
    if (i == held_out) continue;
    if (mode != TransferMode::kOtherDevices &&
        FamilyOf(group[i]->device_name, mode) == held_family) {
      continue;
    }
    sources.push_back(i);
  }
  return sources;
}

TransferHistory LeaveOneDeviceOutHistory(
    const std::vector<std::shared_ptr<const RecordedSpace>>& group, size_t held_out) {
  return TransferHistoryFrom(group, held_out,
                             TransferSources(group, held_out, TransferMode::kOtherDevices));
}

TransferHistory TransferHistoryFrom(const std::vector<std::shared_ptr<const RecordedSpace>>& group,
                                    size_t held_out, const std::vector<size_t>& sources) {
  CheckHeldOut(held_out, group.size());
  const ConfigSpace& target = group[held_out]->space;
  const uint64_t target_fingerprint = target.Fingerprint();
  TransferHistory history;
  for (size_t i : sources) {
    if (i == held_out || i >= group.size()) {
      throw Error("transfer source " + std::to_string(i) + " of a group of " +
                  std::to_string(group.size()) + " held out at " + std::to_string(held_out));
    }
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
