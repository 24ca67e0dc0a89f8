#include "transfer.h"

#include "glimpse/error.h"

namespace glimpse::cli {

TransferHistory HistoryFromFiles(const std::vector<std::string>& files,
                                 const RecordedSourceFlags& source,
                                 std::shared_ptr<const RecordedSpace> target) {
  if (files.empty()) return {};
  // The target first, then the other devices: leave the target (index 0) out.
  std::vector<std::shared_ptr<const RecordedSpace>> group = {std::move(target)};
  for (const std::string& path : files) {
    RecordedSourceFlags other = source;
    other.path = path;
    other.device.clear();
    group.push_back(std::make_shared<RecordedSpace>(other.Load()));
  }
  return LeaveOneDeviceOutHistory(group, 0);
}

TransferHistory HistoryFromDatabase(const Database& database, const RecordedSpace& target) {
  const ConfigSpace& space = target.space;
  Task task = target.MakeTask();
  TransferHistory history;
  for (const TuningRecord& record : database.Records(task.WorkloadKey())) {
    if (record.device == task.device) continue;  // those are resumed, not transferred
    Config config;
    try {
      config = space.ConfigFromJson(record.config);
    } catch (const Error&) {
      continue;  // a record of an older definition of the space
    }
    if (!space.IsValid(config)) continue;
    MeasureResult result;
    result.status = record.status;
    result.time_s = record.time_s;
    result.compile_time_s = record.compile_time_s;
    result.cost_s = record.cost_s;
    history.emplace_back(std::move(config), std::move(result));
  }
  return history;
}

void CheckLearnsFromHistory(const std::string& tuner_name) {
  if (TraitsOfTuner(tuner_name).learns_from_history) return;
  throw Error("--transfer-from needs a strategy that learns from history; '" + tuner_name +
              "' does not (these do: " +
              TunersWith([](const TunerTraits& traits) { return traits.learns_from_history; }) +
              ")");
}

}  // namespace glimpse::cli
