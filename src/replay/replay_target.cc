// ReplayTarget (glimpse/replay.h): a recorded space stands in for the device it was recorded on.
#include "glimpse/error.h"
#include "glimpse/replay.h"

namespace glimpse {

ReplayTarget::ReplayTarget(std::shared_ptr<const RecordedSpace> recorded, ReplayOptions options)
    : recorded_(std::move(recorded)), options_(options) {
  if (!recorded_) throw Error("replay target: no recorded space");
  recorded_key_ = RecordedTask().WorkloadKey();
}

Task ReplayTarget::MakeTask(const Operator& op) const {
  throw Error("replay target: " + recorded_->source_path +
              " is a recorded space, not a device with templates: its one task is the recorded "
              "kernel (tune it with --space), no operator can be tuned on it");
}

void ReplayTarget::CheckIsRecordedTask(const Task& task) const {
  if (task.WorkloadKey() != recorded_key_) {
    throw Error("replay target: task '" + task.name + "' is not the task recorded in " +
                recorded_->source_path);
  }
}

std::unique_ptr<Builder> ReplayTarget::MakeBuilder(const std::string& work_dir) const {
  return std::make_unique<NullBuilder>();
}

std::unique_ptr<Runner> ReplayTarget::MakeRunner(const Task& task, double timeout_s) const {
  CheckIsRecordedTask(task);
  return std::make_unique<ReplayRunner>(recorded_, options_);
}

std::shared_ptr<ReplayValidityChecker> ReplayTarget::MakeReplayValidityChecker(
    const Task& task) const {
  CheckIsRecordedTask(task);
  return std::make_shared<ReplayValidityChecker>(recorded_);
}

std::shared_ptr<ValidityChecker> ReplayTarget::MakeValidityChecker(
    const Task& task, const std::string& work_dir) const {
  return MakeReplayValidityChecker(task);
}

}  // namespace glimpse
