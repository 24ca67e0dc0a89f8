// The protocol between a runner and the worker process it measures candidates in, the same for
// every target (glimpse_cpu_worker, glimpse_gpu_worker): one JSON object per line, both ways.
//
// The worker first says hello:
//   {"ready": true, "device": "NVIDIA H100 80GB HBM3", "l2_bytes": 52428800}
// or, when it cannot start, {"ready": false, "error": "…", "no_device": bool} and exits.
// "no_device": true when there is no usable device at all (the runner fails every candidate with
// the error and starts no other worker); false when this start failed but a later one may not.
// Then, per request line
//   {"artifact": "…", "op": {OperatorToJson…}, "warmup": 1, "min_repeats": 3, "min_time_s": 0.05,
//    "max_repeats": 200, "flush_bytes": 0, "rtol": 0.001, "seed": 1, "warm_activations": false}
// it answers {"status": <a MeasureStatus name>, "samples": [s, …], "error": "…", "fatal": bool}.
// "fatal": true means the worker cannot measure again (a GPU fault leaves the CUDA context
// unusable): it exits after answering and the runner starts a fresh one for the next candidate.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "glimpse/json.h"
#include "glimpse/measure.h"
#include "glimpse/ops.h"
#include "glimpse/task.h"

namespace glimpse::process {

struct WorkerHello {
  bool ready = true;
  std::string device;    // the device's name, when the worker knows it
  int64_t l2_bytes = 0;  // 0: not reported
  std::string error;     // why it did not start (ready false)
  bool no_device = false;
};

Json WorkerHelloToJson(const WorkerHello& hello);
// Throws Error naming the malformed field.
WorkerHello WorkerHelloFromJson(const Json& json);

// One measurement request.
struct MeasureRequest {
  std::string artifact;  // what the target's builder produced ("/path/unit.so:symbol", a file)
  Operator op;
  int warmup = 1;
  int min_repeats = 3;
  double min_time_s = 0.05;
  int max_repeats = 200;
  // Bytes written between timed runs to flush the caches; ≤ 0: none. The GPU worker reads 0 as
  // "twice the device's L2" and < 0 as none.
  int64_t flush_bytes = 0;
  double rtol = 1e-3;
  uint64_t seed = 1;  // of the random inputs
  // After each flush, the operator's activation inputs (those not constant: the data, the residual)
  // are brought back into the caches, as the layers before leave them in a model; the weights and
  // the output stay flushed. The CPU worker only (the GPU worker refuses it). Absent: false.
  bool warm_activations = false;
};

// The request for `build` of `input`'s operator, with the timing fields of a runner's `options`
// (warmup, min_repeats, min_time_s, max_repeats, rtol, data_seed). Throws Error when the task's
// description is not an operator.
template <typename RunnerOptions>
MeasureRequest MakeMeasureRequest(const MeasureInput& input, const BuildResult& build,
                                  const RunnerOptions& options, int64_t flush_bytes) {
  MeasureRequest request;
  request.artifact = build.artifact;
  request.op = OperatorFromJson(input.task->description);
  request.warmup = options.warmup;
  request.min_repeats = options.min_repeats;
  request.min_time_s = options.min_time_s;
  request.max_repeats = options.max_repeats;
  request.flush_bytes = flush_bytes;
  request.rtol = options.rtol;
  request.seed = options.data_seed;
  return request;
}

Json MeasureRequestToJson(const MeasureRequest& request);
// Throws Error naming the missing or malformed field.
MeasureRequest MeasureRequestFromJson(const Json& json);

struct MeasureAnswer {
  MeasureStatus status = MeasureStatus::kUnknown;
  std::vector<double> samples;  // seconds, one per timed run (status ok)
  std::string error;
  bool fatal = false;
};

Json MeasureAnswerToJson(const MeasureAnswer& answer);
// Throws Error for a missing or unknown status, or malformed samples.
MeasureAnswer MeasureAnswerFromJson(const Json& json);

// One line of the protocol (without its newline): `message` as compact JSON, with any invalid
// UTF-8 in its strings (a compiler's message or a path in another encoding) replaced by U+FFFD,
// so that writing a line never throws.
std::string ProtocolLine(const Json& message);

// The worker's side after its hello: reads request lines from `in` until end of file, answers
// each on `out` (flushed) with `measure`'s answer. A request that cannot be read, or a `measure`
// that throws, is answered with status unknown and the error. Returns after a fatal answer.
void ServeRequests(std::istream& in, std::ostream& out,
                   const std::function<MeasureAnswer(const MeasureRequest&)>& measure);

}  // namespace glimpse::process
