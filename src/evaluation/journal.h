// The journal of a study: one JSON line per finished run, appended as runs finish, so that a
// killed study resumes where it stopped. Each line is {"key": …, "run": …}; the key holds every
// setting that shapes the run's outcome (budget, batch size, noise, the strategy's definition,
// the group's files and restrictions), and a line whose key differs from the current one is not
// reused.
#pragma once

#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "glimpse/evaluation.h"

namespace glimpse::evaluation {

// (space id, strategy, seed)
using RunKey = std::tuple<std::string, std::string, uint64_t>;

struct JournalContents {
  std::map<RunKey, std::pair<Json, RunRecord>> runs;  // the last line of each run: key, record
  int64_t unreadable_lines = 0;                       // e.g. a line cut short by a kill
};

// Reads `path`; an absent file is empty.
JournalContents ReadJournal(const std::string& path);

class JournalWriter {
 public:
  // `truncate`: start a new journal instead of appending.
  JournalWriter(const std::string& path, bool truncate);
  // Thread-safe; the line is flushed before returning.
  void Append(const Json& key, const RunRecord& run);

 private:
  std::string path_;
  std::mutex mutex_;
  std::ofstream out_;
};

}  // namespace glimpse::evaluation
