// glimpse/clblast_best.h — CLBlast's best configurations per device
// (../shared/datasets/clblast_best: one record per kernel and device, no times) as training targets
// of the prior generator: a wide, shallow complement to the recorded spaces, which are deep (every
// configuration measured) but cover few GPUs. CLBlast's Xgemm records are configurations of the
// recorded `gemm` spaces' kernel, so each record of a GPU the table knows says which value of each
// knob was best there — one more (Blueprint → configuration) example per device.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "glimpse/hardware.h"
#include "glimpse/json.h"
#include "glimpse/prior_generator.h"
#include "glimpse/space.h"

namespace glimpse {

struct ClblastRecord {
  std::string kernel;        // "Xgemm"
  std::string device;        // the name the OpenCL driver reports
  std::string vendor;        // "NVIDIA", "AMD", "Intel", …
  std::string architecture;  // CLBlast's grouping ("SM8.6", "Ellesmere")
  Json params;               // knob → value
};

// Reads a clblast_best file (JSON, gzip or not: {"records": [...]}, each record with the string
// fields above and an object `params`). Error naming the file, and the record and field of a
// malformed one.
std::vector<ClblastRecord> LoadClblastBest(const std::string& path);

struct ClblastPriorOptions {
  std::string kernel = "Xgemm";  // the CLBlast kernel whose records become examples
  // Per knob, target = (1 − smoothing) · one-hot(record's value) + smoothing · uniform: one best
  // configuration is a sharper statement than a recorded space's top 2 %, and CLBlast tuned at
  // another problem size; 0 keeps the one-hot.
  double smoothing = 0.5;
  // CLBlast's Xgemm tuning size (m = n = k = 1024), as the recorded gemm files give theirs (the
  // matrix's two sides).
  std::vector<double> problem_size = {1024, 1024};
};

// The records of `options.kernel` as examples of the kernel space `name` with `space`'s knobs, for
// the GPUs `table` knows and `keep` accepts (the leaving out of a held-out GPU, architecture or
// vendor), each embedded with `blueprint`. A knob of one value has that value as its target; a
// record that lacks a knob of several values, or whose value is not one of them, is skipped, as
// are devices the table does not know and a second record of a GPU. What is skipped is named in
// `skipped` ("device: why") when given.
std::vector<PriorTrainingExample> MakeClblastPriorExamples(
    const std::vector<ClblastRecord>& records, const ConfigSpace& space, const std::string& name,
    const Blueprint& blueprint, const GpuTable& table,
    const std::function<bool(const GpuSpec&)>& keep, const ClblastPriorOptions& options = {},
    std::vector<std::string>* skipped = nullptr);

}  // namespace glimpse
