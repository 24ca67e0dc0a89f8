// Database: opening, workloads, committing and querying records. JSON lines are in json_lines.cc.
#include <cstdlib>
#include <limits>
#include <set>

#include "database/database_impl.h"
#include "database/schema.h"
#include "glimpse/error.h"

namespace glimpse {

using database::Statement;
using database::Transaction;

MeasureResult ResultFromRecord(const TuningRecord& record) {
  MeasureResult result;
  result.status = record.status;
  result.time_s =
      record.status == MeasureStatus::kOk ? record.time_s : std::numeric_limits<double>::infinity();
  result.samples_s = record.samples_s;
  result.compile_time_s = record.compile_time_s;
  result.cost_s = record.cost_s;
  result.error = record.error;
  return result;
}

std::string Database::DefaultPath() {
  const char* env = std::getenv("GLIMPSE_DB");
  return env && *env ? std::string(env) : std::string("glimpse.db");
}

Database::Database(const std::string& path, bool create) : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  impl_->connection = database::OpenDatabase(
      path, create ? database::OpenMode::kCreate : database::OpenMode::kExisting);
}

Database::Database(const std::string& path, ReadOnly) : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  impl_->connection = database::OpenDatabase(path, database::OpenMode::kReadOnly);
}

Database::~Database() = default;

const std::string& Database::path() const { return impl_->path; }

void Database::PutWorkload(const WorkloadEntry& workload) {
  if (workload.key.empty()) {
    throw Error("database '" + impl_->path + "': workload '" + workload.name +
                "' has an empty key; use Task::WorkloadKey()");
  }
  std::lock_guard<std::mutex> lock(impl_->mutex);
  database::InsertWorkload(*impl_->connection, workload);
}

void Database::SetNote(const std::string& key, const std::string& value) {
  if (key.empty() || key.rfind("schema", 0) == 0 || key == "application") {
    throw Error("database '" + impl_->path + "': note key '" + key +
                "' is empty or reserved ('application', keys starting with 'schema')");
  }
  std::lock_guard<std::mutex> lock(impl_->mutex);
  Statement insert(*impl_->connection, "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)");
  insert.Bind(1, key).Bind(2, value).Run();
}

std::optional<std::string> Database::GetNote(const std::string& key) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  Statement select(*impl_->connection, "SELECT value FROM meta WHERE key = ?");
  select.Bind(1, key);
  if (!select.Step()) return std::nullopt;
  return select.Text(0);
}

std::optional<WorkloadEntry> Database::GetWorkload(const std::string& key) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  Statement select(*impl_->connection,
                   "SELECT key, name, description, space FROM workloads WHERE key = ?");
  select.Bind(1, key);
  if (!select.Step()) return std::nullopt;
  return database::ReadWorkload(select, impl_->path);
}

std::vector<WorkloadEntry> Database::Workloads() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  Statement select(*impl_->connection,
                   "SELECT key, name, description, space FROM workloads ORDER BY rowid");
  std::vector<WorkloadEntry> workloads;
  while (select.Step()) workloads.push_back(database::ReadWorkload(select, impl_->path));
  return workloads;
}

std::vector<int64_t> Database::CommitBatch(const std::vector<TuningRecord>& records) {
  std::vector<int64_t> ids;
  if (records.empty()) return ids;
  std::lock_guard<std::mutex> lock(impl_->mutex);
  database::Connection& connection = *impl_->connection;
  Transaction transaction(connection);
  std::set<std::string> known;
  for (size_t i = 0; i < records.size(); ++i) {
    const std::string& key = records[i].workload_key;
    if (known.count(key)) continue;
    if (!database::WorkloadExists(connection, key)) {
      throw Error("database '" + impl_->path + "': record " + std::to_string(i) +
                  " of the batch has unknown workload '" + key +
                  "' (PutWorkload it first); nothing of the batch was committed");
    }
    known.insert(key);
  }
  database::RecordWriter writer(connection);
  ids.reserve(records.size());
  for (const TuningRecord& record : records) ids.push_back(writer.Insert(record));
  transaction.Commit();
  return ids;
}

std::vector<TuningRecord> Database::Records(const std::string& workload_key,
                                            const std::string& device) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  Statement select(*impl_->connection,
                   std::string("SELECT ") + database::kRecordColumns +
                       " FROM records WHERE workload_key = ?1 AND (?2 = '' OR device = ?2)"
                       " ORDER BY id");
  select.Bind(1, workload_key).Bind(2, device);
  std::vector<TuningRecord> records;
  while (select.Step()) records.push_back(database::ReadRecord(select, impl_->path));
  return records;
}

std::vector<TuningRecord> Database::Best(const std::string& workload_key, const std::string& device,
                                         int k) const {
  std::vector<TuningRecord> best;
  if (k <= 0) return best;
  std::lock_guard<std::mutex> lock(impl_->mutex);
  // The fastest record of each configuration (earliest on ties), then the k fastest of those.
  // A NULL time_s is +inf: an ok record without a finite time cannot be among the best.
  std::string columns = database::kRecordColumns;
  Statement select(*impl_->connection,
                   "SELECT " + columns + " FROM (SELECT " + columns +
                       ", ROW_NUMBER() OVER (PARTITION BY config_hash ORDER BY time_s, id)"
                       " AS config_rank FROM records WHERE workload_key = ?1"
                       " AND (?2 = '' OR device = ?2) AND status = 'ok' AND time_s IS NOT NULL)"
                       " WHERE config_rank = 1 ORDER BY time_s, id LIMIT ?3");
  select.Bind(1, workload_key).Bind(2, device).Bind(3, static_cast<int64_t>(k));
  while (select.Step()) best.push_back(database::ReadRecord(select, impl_->path));
  return best;
}

std::vector<WorkloadSummary> Database::Summaries() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  // A workload without records still gets a line (device "", no records), so that `glimpse db
  // list` shows everything the database knows.
  Statement select(*impl_->connection,
                   "SELECT w.key, w.name, r.device, count(r.id),"
                   " coalesce(sum(CASE WHEN r.status != 'ok' THEN 1 ELSE 0 END), 0),"
                   " min(CASE WHEN r.status = 'ok' THEN r.time_s END)"
                   " FROM workloads w LEFT JOIN records r ON r.workload_key = w.key"
                   " GROUP BY w.key, r.device ORDER BY w.name, w.key, r.device");
  std::vector<WorkloadSummary> summaries;
  while (select.Step()) {
    WorkloadSummary summary;
    summary.workload_key = select.Text(0);
    summary.name = select.Text(1);
    summary.device = select.Text(2);
    summary.records = select.Int(3);
    summary.failed = select.Int(4);
    if (!select.IsNull(5)) summary.best_time_s = select.Double(5);
    summaries.push_back(std::move(summary));
  }
  return summaries;
}

}  // namespace glimpse
