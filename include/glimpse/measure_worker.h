// The runner's side of a measurement worker (glimpse/worker_protocol.h), for every target: start
// the worker and read its hello, send one request per candidate, wait for the answer with the
// candidate's deadline, and turn whatever happens into a status:
//   - a failed build passes through unmeasured;
//   - the worker's answer → its status, samples and error (the median sample is the time);
//   - no answer in time → run-timeout, the worker's process group is killed;
//   - end of file (the kernel took the worker down) → runtime-device with the signal or exit code;
//   - an answer that cannot be read, or with a status name this build does not know → unknown,
//     and the worker is replaced (its output can no longer be trusted to be in step);
//   - a fatal answer → its status, and the worker is replaced.
// A worker's start-up (loading a driver, creating a context) does not count against the
// candidate's timeout; it has its own. A worker that says it has no device at all fails every
// candidate with its reason, and no other is started. Writing to a dead worker does not raise
// SIGPIPE in this process (SIGPIPE is ignored unless the program handles it).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "glimpse/measure.h"
#include "glimpse/worker_protocol.h"

namespace glimpse::process {

struct MeasureWorkerOptions {
  std::string name = "the worker";     // begins messages: "the GPU worker died: signal 11 …"
  std::vector<std::string> argv;       // the worker and its arguments
  std::vector<std::string> extra_env;  // "NAME=value"
  double start_timeout_s = 60.0;       // for the hello
  double timeout_s = 10.0;             // per candidate, from the request to the answer
};

class MeasureWorker {
 public:
  explicit MeasureWorker(MeasureWorkerOptions options);
  ~MeasureWorker();
  MeasureWorker(const MeasureWorker&) = delete;
  MeasureWorker& operator=(const MeasureWorker&) = delete;

  // Measures one built candidate. `make_request` is called only for a successful build; an
  // Error it throws makes the candidate instantiation (the request cannot be written).
  MeasureResult Measure(const BuildResult& build,
                        const std::function<MeasureRequest()>& make_request);

  int workers_started() const;
  // The hello of the running (or last running) worker; default when none said hello yet.
  const WorkerHello& hello() const;
  // Non-empty once a worker said there is no usable device.
  const std::string& no_device_reason() const;
  // Stops the running worker, if any.
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The worker executable: `given`, else $`env`, else the first of `built_in` that exists (the one
// built beside the library, then the installed one), else the first non-empty of them; Error
// naming `runner`, the variable and `worker_path` when there is none.
std::string FindWorker(const std::string& given, const char* env,
                       const std::vector<std::string>& built_in, const std::string& runner);

// Runner::Run for a runner that measures one candidate at a time: `measure` for each input and
// its build, in order; Error naming `runner` when the two lists differ in length.
std::vector<MeasureResult> MeasureEach(
    const std::string& runner, const std::vector<MeasureInput>& inputs,
    const std::vector<BuildResult>& builds,
    const std::function<MeasureResult(const MeasureInput&, const BuildResult&)>& measure);

// The median of the samples (0 for none).
double MedianSample(std::vector<double> samples);

}  // namespace glimpse::process
