// Transfer learning for `glimpse tune` (AutoTVM's load_history): records of the same space
// measured on other devices warm the model-based strategies.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "glimpse/database.h"
#include "glimpse/evaluation.h"
#include "glimpse/json.h"
#include "glimpse/replay.h"
#include "glimpse/tuner.h"
#include "recorded_source.h"

namespace glimpse::cli {

struct TransferFlags {
  std::vector<std::string> files;  // recorded spaces of other devices (--transfer-from)
  bool from_database = false;      // this workload's records on other devices (--transfer-from-db)

  bool Enabled() const { return !files.empty() || from_database; }
};

// History for `target` from recorded files of other devices, read with the target's --t1 /
// --restrict and mapped by knob name. Error naming a file that cannot be read.
TransferHistory HistoryFromFiles(const std::vector<std::string>& files,
                                 const RecordedSourceFlags& source,
                                 std::shared_ptr<const RecordedSpace> target);

// History for `target` from the database: its workload's records on other devices.
TransferHistory HistoryFromDatabase(const Database& database, const RecordedSpace& target);

// Error "--transfer-from needs a strategy that learns from history; …" unless the registered
// strategy `tuner_name` does (TunerTraits::learns_from_history).
void CheckLearnsFromHistory(const std::string& tuner_name);

}  // namespace glimpse::cli
