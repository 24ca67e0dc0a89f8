// bench/cpu_baselines/reference.h — inputs and a double-precision reference for checking library
// outputs, with the tolerance glimpse's runner applies to generated kernels (docs/cpu-tuning.md
// "Correctness check"). Written for this benchmark alone so that it does not depend on the
// library's private sources.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "glimpse/ops.h"

namespace glimpse::baselines {

// The operator's inputs in kernel order (cpu.h), float32, uniform in [-1, 1] from
// std::mt19937_64(seed) drawn input after input — the data glimpse's worker uses.
std::vector<std::vector<float>> MakeInputs(const Operator& op, uint64_t seed);

// Per output element (row-major, OperatorOutputShape order): the exact value in double precision
// (bias and ReLU applied) and the magnitude Σ|a·b| (+ |bias|) of the terms that made it.
struct Reference {
  std::vector<double> output;
  std::vector<double> magnitude;
};
// Plain loop nests, parallel over the outer output dimension with OpenMP.
Reference ComputeReference(const Operator& op, const std::vector<std::vector<float>>& inputs);

// An element passes when it is finite and |out − ref| ≤ rtol · (|ref| + magnitude / √L), L the
// reduction length. max_ratio is the largest |out − ref| / (|ref| + magnitude / √L) seen, so
// max_ratio / rtol says how close the output came to failing.
struct CheckResult {
  bool passed = true;
  int64_t first_bad = -1;  // index of the first failing element, −1 when all pass
  double max_ratio = 0;
  std::string message;  // "passed (max |err| / scale 3.1e-07, rtol 1e-03)" or "FAILED: …"
};
CheckResult CheckOutput(const Reference& reference, const float* output, int64_t count,
                        int64_t reduction_length, double rtol = 1e-3);

// Shows that CheckOutput can fail: the reference of a small dense operator rounded to float must
// pass, and the same output with one element moved by the size of one missing term (magnitude /
// L) must fail. Returns "" when both hold, else what went wrong.
std::string SelfTestChecker();

}  // namespace glimpse::baselines
