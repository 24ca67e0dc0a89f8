// The request GpuRunner sends its worker (src/cuda/worker/gpu_worker.cc) for each candidate, and
// the artifact file GpuBuilder writes for it: parsed here so that both sides, and the tests, share
// one reading. The worker links this file and no glimpse library.
//
// One JSON object per line, both ways. The worker first prints
//   {"ready": true, "device": "NVIDIA H100 80GB HBM3", "l2_bytes": 52428800}
// or, when it cannot start, {"ready": false, "error": "…", "no_device": bool} and exits:
// "no_device": true (error "no CUDA device: …") when there is no usable device at all (no driver,
// cuInit failed, no such ordinal), false when the device exists but CUDA could not start on it
// (context creation failed), which a later worker may overcome.
// Then, per request line
//   {"artifact": "/path/k3.json", "op": {OperatorToJson…}, "warmup": 1, "min_repeats": 3,
//    "min_time_s": 0.05, "max_repeats": 200, "flush_bytes": 0, "rtol": 0.001, "seed": 1}
// it answers {"status": "ok" | "wrong-answer" | "runtime-device" | "unknown",
// "samples": [s, …], "error": "…", "fatal": bool}. "fatal": true means the CUDA context is no
// longer usable (a fault in the kernel): the worker exits after answering and the runner starts
// a fresh one for the next candidate.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "glimpse/ops.h"
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

// One measurement request (the line the runner writes).
struct GpuMeasureRequest {
  std::string artifact;  // path of the artifact file
  Operator op;
  int warmup = 1;
  int min_repeats = 3;
  double min_time_s = 0.05;
  int max_repeats = 200;
  int64_t flush_bytes = 0;  // bytes memset between timed runs; 0: 2 × the device's L2; < 0: none
  double rtol = 1e-3;
  uint64_t seed = 1;
};

Json GpuMeasureRequestToJson(const GpuMeasureRequest& request);
// Throws Error naming the missing or malformed field.
GpuMeasureRequest GpuMeasureRequestFromJson(const Json& json);

}  // namespace glimpse::cuda
