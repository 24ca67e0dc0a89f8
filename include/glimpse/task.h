// glimpse/task.h — what is being tuned: one operator (workload) on one device.
#pragma once

#include <string>

#include "glimpse/json.h"
#include "glimpse/space.h"

namespace glimpse {

struct Task {
  // Human-readable label, e.g. "convolution_kernel [4096, 4096]".
  std::string name;
  // The device the task is tuned for, as its tools name it ("NVIDIA A100-PCIE-40GB"). Records in
  // the database are keyed by it.
  std::string device;
  ConfigSpace space;
  // What defines the workload apart from its space: kernel name, problem size, operator shape…
  Json description = Json::object();

  // Stable key of the workload: a hash of `description` and the space's fingerprint, 16 hex
  // digits. The same operator and space give the same key on every machine.
  std::string WorkloadKey() const;
};

}  // namespace glimpse
