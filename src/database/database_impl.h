// What database.cc and json_lines.cc share: the open connection and the row ↔ struct mapping.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "database/sqlite.h"
#include "glimpse/database.h"

namespace glimpse {

struct Database::Impl {
  std::string path;
  std::unique_ptr<database::Connection> connection;
  // Guards the connection: one transaction at a time, whichever thread calls.
  mutable std::mutex mutex;
};

namespace database {

// Reads a row of "SELECT key, name, description, space FROM workloads …".
WorkloadEntry ReadWorkload(const Statement& row, const std::string& path);

// The columns ReadRecord expects, in order, for "SELECT <kRecordColumns> FROM records …".
extern const char* const kRecordColumns;
TuningRecord ReadRecord(const Statement& row, const std::string& path);

// Inserts records with one prepared statement. Call inside a transaction; the caller checks that
// the records' workloads exist (the foreign key only backs that check up).
class RecordWriter {
 public:
  explicit RecordWriter(Connection& connection);
  // Inserts `record` (its id is ignored) and returns the id it was given.
  int64_t Insert(const TuningRecord& record);

 private:
  Connection& connection_;
  Statement insert_;
};

// Inserts the workload unless its key exists; returns whether it was inserted.
bool InsertWorkload(Connection& connection, const WorkloadEntry& workload);
bool WorkloadExists(Connection& connection, const std::string& key);

// Seconds since the Unix epoch, now.
double NowSeconds();

}  // namespace database
}  // namespace glimpse
