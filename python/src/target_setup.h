// What glimpse.tune and glimpse.Measurer both set up: a target (cpu, cuda, or a recorded space
// replayed), one task on it, its builder and runner, and the kernel folder they write to.
#pragma once

#include <memory>
#include <string>

#include "glimpse/measure.h"
#include "glimpse/target.h"
#include "glimpse/task.h"

namespace glimpse::python {

struct TargetChoice {
  std::string op;        // for cpu and cuda: 'dense:M=64,N=64,K=64'
  std::string target;    // cpu, cuda, replay
  std::string recorded;  // for replay: the recorded space's path
  int threads = 0;       // cpu: the runner's threads (0: all)
  double timeout_s = 0;  // per run; 0: 10 s + 4 s per GFLOP
  bool build_only = false;
  std::string arch;    // cuda: what to compile for ("" : the device's, else sm_90)
  double pace_ms = 0;  // replay: real milliseconds per measurement
};

// A folder for the candidates' sources and shared objects, removed with it.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct TargetSetup {
  std::unique_ptr<Target> target;
  Task task;
  std::unique_ptr<ScratchDir> scratch;
  std::unique_ptr<Builder> builder;
  std::unique_ptr<Runner> runner;
};

// Errors (glimpse::Error) name an unknown target, a bad operator, a missing device, a task that
// has no template or cannot fit the machine — before anything is built.
TargetSetup SetUpTarget(const TargetChoice& choice);

}  // namespace glimpse::python
