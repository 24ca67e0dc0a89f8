// The artifact file GpuBuilder writes for each kernel and glimpse_gpu_worker reads (the request's
// "artifact" of glimpse/worker_protocol.h is its path): parsed here so that both sides, and the
// tests, share one reading.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "glimpse/json.h"

namespace glimpse::cuda {

// The artifact file (JSON) of one built kernel.
struct GpuArtifact {
  std::string cubin;   // path of the module image (cubin, or NUL-free PTX text)
  std::string symbol;  // the __global__ function (extern "C")
  std::array<int64_t, 3> grid = {1, 1, 1};
  std::array<int64_t, 3> block = {1, 1, 1};
  int num_inputs = 0;        // operator inputs; the kernel takes them, [prepared,] then the output
  bool has_prepare = false;  // <symbol>_prepare exists and is launched once, untimed
  std::array<int64_t, 3> prepare_grid = {1, 1, 1};
  std::array<int64_t, 3> prepare_block = {1, 1, 1};
  int64_t prepared_floats = 0;
};

// Reads the artifact; throws Error naming `where` (the file) and the missing or malformed field.
// A relative `cubin` path is taken relative to the artifact file's folder.
GpuArtifact GpuArtifactFromJson(const Json& json, const std::string& where);
GpuArtifact ReadGpuArtifact(const std::string& path);

}  // namespace glimpse::cuda
