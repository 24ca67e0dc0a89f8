// The mapping between TuningRecord / WorkloadEntry and rows of the `records` / `workloads` tables.
#include <chrono>
#include <cmath>
#include <limits>

#include "database/database_impl.h"
#include "glimpse/error.h"

namespace glimpse::database {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double ReadTime(const Statement& row, int column) {
  return row.IsNull(column) ? kInf : row.Double(column);
}

Json ParseColumn(const Statement& row, int column, const char* name, int64_t id,
                 const std::string& path) {
  Json parsed = Json::parse(row.Text(column), nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    throw Error("database '" + path + "': record " + std::to_string(id) + ": column '" + name +
                "' is not valid JSON");
  }
  return parsed;
}

// Non-finite samples are written as JSON null (JSON has no infinity) and read back as +inf.
std::string SamplesToJson(const std::vector<double>& samples) {
  Json array = Json::array();
  for (double sample : samples) {
    array.push_back(std::isfinite(sample) ? Json(sample) : Json(nullptr));
  }
  return array.dump();
}

}  // namespace

const char* const kRecordColumns =
    "id, workload_key, device, config, config_hash, status, time_s, samples, compile_time_s, "
    "cost_s, error, strategy, started_at, finished_at";

TuningRecord ReadRecord(const Statement& row, const std::string& path) {
  TuningRecord record;
  record.id = row.Int(0);
  record.workload_key = row.Text(1);
  record.device = row.Text(2);
  record.config = ParseColumn(row, 3, "config", record.id, path);
  record.config_hash = row.Text(4);
  try {
    record.status = StatusFromName(row.Text(5));
  } catch (const Error& error) {
    throw Error("database '" + path + "': record " + std::to_string(record.id) +
                ": column 'status': " + error.what());
  }
  record.time_s = ReadTime(row, 6);
  Json samples = ParseColumn(row, 7, "samples", record.id, path);
  if (!samples.is_array()) {
    throw Error("database '" + path + "': record " + std::to_string(record.id) +
                ": column 'samples' is not a JSON array");
  }
  for (const Json& sample : samples) {
    record.samples_s.push_back(sample.is_number() ? sample.get<double>() : kInf);
  }
  record.compile_time_s = ReadTime(row, 8);
  record.cost_s = ReadTime(row, 9);
  record.error = row.Text(10);
  record.strategy = row.Text(11);
  record.started_at = row.Double(12);
  record.finished_at = row.Double(13);
  return record;
}

WorkloadEntry ReadWorkload(const Statement& row, const std::string& path) {
  WorkloadEntry workload;
  workload.key = row.Text(0);
  workload.name = row.Text(1);
  auto parse = [&](int column, const char* name) {
    Json parsed = Json::parse(row.Text(column), nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded()) {
      throw Error("database '" + path + "': workload '" + workload.key + "': column '" + name +
                  "' is not valid JSON");
    }
    return parsed;
  };
  workload.description = parse(2, "description");
  workload.space = parse(3, "space");
  return workload;
}

RecordWriter::RecordWriter(Connection& connection)
    : connection_(connection),
      insert_(connection,
              "INSERT INTO records (workload_key, device, config, config_hash, status, time_s, "
              "samples, compile_time_s, cost_s, error, strategy, started_at, finished_at) "
              "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)") {}

int64_t RecordWriter::Insert(const TuningRecord& record) {
  insert_.Reset();
  insert_.Bind(1, record.workload_key)
      .Bind(2, record.device)
      .Bind(3, record.config.dump())
      .Bind(4, record.config_hash)
      .Bind(5, std::string(StatusName(record.status)))
      .Bind(6, record.time_s)  // +inf (and NaN) become NULL
      .Bind(7, SamplesToJson(record.samples_s))
      .Bind(8, record.compile_time_s)
      .Bind(9, record.cost_s)
      .Bind(10, record.error)
      .Bind(11, record.strategy)
      .Bind(12, record.started_at)
      .Bind(13, record.finished_at);
  insert_.Run();
  return connection_.LastInsertId();
}

bool InsertWorkload(Connection& connection, const WorkloadEntry& workload) {
  Statement insert(connection,
                   "INSERT OR IGNORE INTO workloads (key, name, description, space, created_at) "
                   "VALUES (?, ?, ?, ?, ?)");
  insert.Bind(1, workload.key)
      .Bind(2, workload.name)
      .Bind(3, workload.description.dump())
      .Bind(4, workload.space.dump())
      .Bind(5, NowSeconds());
  insert.Run();
  return sqlite3_changes(connection.get()) > 0;
}

bool WorkloadExists(Connection& connection, const std::string& key) {
  Statement select(connection, "SELECT 1 FROM workloads WHERE key = ?");
  select.Bind(1, key);
  return select.Step();
}

double NowSeconds() {
  using std::chrono::duration;
  using std::chrono::system_clock;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

}  // namespace glimpse::database
