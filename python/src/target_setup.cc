#include "target_setup.h"

#include <unistd.h>

#include <filesystem>
#include <optional>

#include "glimpse/cpu.h"
#include "glimpse/cuda.h"
#include "glimpse/error.h"
#include "glimpse/ops.h"
#include "glimpse/replay.h"

namespace fs = std::filesystem;

namespace glimpse::python {

ScratchDir::ScratchDir() {
  std::string pattern = (fs::temp_directory_path() / "glimpse-python-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw Error("cannot create a kernel folder under " + fs::temp_directory_path().string());
  }
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

TargetSetup SetUpTarget(const TargetChoice& choice) {
  TargetSetup setup;
  double timeout_s = choice.timeout_s;
  if (choice.target == "replay") {
    if (choice.recorded.empty()) {
      throw Error("target 'replay' needs recorded=PATH (a recorded space)");
    }
    ReplayOptions options;
    options.pace_ms = choice.pace_ms;
    auto replay = std::make_unique<ReplayTarget>(
        std::make_shared<RecordedSpace>(LoadRecordedSpace(choice.recorded)), options);
    setup.task = replay->RecordedTask();
    setup.target = std::move(replay);
  } else {
    const Operator op = ParseOperator(choice.op);
    if (choice.target == "cpu") {
      CpuTargetOptions options;
      options.threads = choice.threads;
      setup.target = std::make_unique<CpuTarget>(options);
    } else if (choice.target == "cuda") {
      std::optional<CudaDeviceInfo> device;
      if (std::string reason = CudaUnavailableReason(); reason.empty()) {
        device = QueryCudaDevice(0);
      } else if (!choice.build_only) {
        throw Error(reason + " (build_only=True compiles and checks kernels without one)");
      }
      CudaTargetOptions options;
      options.arch = !choice.arch.empty() ? choice.arch : device ? device->Arch() : "sm_90";
      options.build_only = choice.build_only;
      setup.target = std::make_unique<CudaTarget>(options, device);
    } else {
      throw Error("target '" + choice.target + "' is not known; accepted: cpu, cuda, replay");
    }
    setup.task = setup.target->MakeTask(op);  // Error: no template, or too big to measure
    if (timeout_s <= 0) timeout_s = 10.0 + 4.0 * OperatorFlops(op) / 1e9;
  }
  setup.scratch = std::make_unique<ScratchDir>();
  setup.builder = setup.target->MakeBuilder(setup.scratch->path());
  setup.runner = setup.target->MakeRunner(setup.task, timeout_s);
  return setup;
}

}  // namespace glimpse::python
