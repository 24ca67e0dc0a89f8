// JSON lines export and import (docs/formats.md, "JSON lines").
//
// Import reads and validates the whole input before it writes anything, then inserts in one
// transaction, so a file with a bad line leaves the database as it was.
#include <cmath>
#include <istream>
#include <limits>
#include <optional>
#include <ostream>
#include <set>

#include "database/database_impl.h"
#include "database/schema.h"
#include "glimpse/error.h"

namespace glimpse {

using database::Statement;
using database::Transaction;
using OrderedJson = nlohmann::ordered_json;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// JSON has no infinity: +inf (a failed measurement's time) is written as null.
OrderedJson TimeToJson(double seconds) {
  return std::isfinite(seconds) ? OrderedJson(seconds) : OrderedJson(nullptr);
}

OrderedJson WorkloadToJson(const WorkloadEntry& workload) {
  OrderedJson line;
  line["type"] = "workload";
  line["key"] = workload.key;
  line["name"] = workload.name;
  line["description"] = OrderedJson::parse(workload.description.dump());
  line["space"] = OrderedJson::parse(workload.space.dump());
  return line;
}

OrderedJson RecordToJson(const TuningRecord& record) {
  OrderedJson line;
  line["type"] = "record";
  line["workload_key"] = record.workload_key;
  line["device"] = record.device;
  line["config"] = OrderedJson::parse(record.config.dump());
  line["config_hash"] = record.config_hash;
  line["status"] = StatusName(record.status);
  line["time_s"] = TimeToJson(record.time_s);
  OrderedJson samples = OrderedJson::array();
  for (double sample : record.samples_s) samples.push_back(TimeToJson(sample));
  line["samples_s"] = std::move(samples);
  line["compile_time_s"] = TimeToJson(record.compile_time_s);
  line["cost_s"] = TimeToJson(record.cost_s);
  line["error"] = record.error;
  line["strategy"] = record.strategy;
  line["started_at"] = record.started_at;
  line["finished_at"] = record.finished_at;
  return line;
}

// Reads the fields of one line, with errors of the form "<source>:<line>: field '<name>': …".
class LineReader {
 public:
  LineReader(const Json& line, const std::string& where) : line_(line), where_(where) {}

  [[noreturn]] void Fail(const std::string& field, const std::string& what) const {
    throw Error(where_ + ": field '" + field + "': " + what);
  }

  const Json* Find(const std::string& field) const {
    auto it = line_.find(field);
    return it == line_.end() ? nullptr : &*it;
  }

  [[noreturn]] void Missing(const std::string& field) const {
    throw Error(where_ + ": field '" + field + "' is missing");
  }

  const Json& Required(const std::string& field) const {
    const Json* value = Find(field);
    if (!value) Missing(field);
    return *value;
  }

  std::string String(const std::string& field, const std::string* fallback = nullptr) const {
    const Json* value = Find(field);
    if (!value && fallback) return *fallback;
    if (!value) Missing(field);
    if (!value->is_string()) Fail(field, "expected a string, got " + TypeOf(*value));
    return value->get<std::string>();
  }

  double Number(const std::string& field, std::optional<double> fallback = std::nullopt) const {
    const Json* value = Find(field);
    if (!value && fallback) return *fallback;
    if (!value) Missing(field);
    if (!value->is_number()) Fail(field, "expected a number, got " + TypeOf(*value));
    return value->get<double>();
  }

  // A time in seconds: a number, or null for +inf.
  double Time(const std::string& field, std::optional<double> fallback = std::nullopt) const {
    const Json* value = Find(field);
    if (!value && fallback) return *fallback;
    if (!value) Missing(field);
    if (value->is_null()) return kInf;
    if (!value->is_number()) Fail(field, "expected a number or null, got " + TypeOf(*value));
    return value->get<double>();
  }

  static std::string TypeOf(const Json& value) {
    return std::string(value.type_name()) + (value.is_primitive() ? " " + value.dump() : "");
  }

 private:
  const Json& line_;
  const std::string& where_;
};

WorkloadEntry ParseWorkload(const LineReader& reader) {
  WorkloadEntry workload;
  workload.key = reader.String("key");
  if (workload.key.empty()) reader.Fail("key", "must not be empty");
  workload.name = reader.String("name");
  workload.description = reader.Required("description");
  workload.space = reader.Required("space");
  return workload;
}

TuningRecord ParseRecord(const LineReader& reader) {
  TuningRecord record;
  record.workload_key = reader.String("workload_key");
  record.device = reader.String("device");
  record.config = reader.Required("config");
  if (!record.config.is_object()) {
    reader.Fail("config", "expected an object of knob name → value, got " +
                              LineReader::TypeOf(record.config));
  }
  record.config_hash = reader.String("config_hash");
  std::string status = reader.String("status");
  try {
    record.status = StatusFromName(status);
  } catch (const Error& error) {
    reader.Fail("status", error.what());
  }
  record.time_s = reader.Time("time_s");
  if (const Json* samples = reader.Find("samples_s")) {
    if (!samples->is_array()) {
      reader.Fail("samples_s", "expected an array of numbers, got " + LineReader::TypeOf(*samples));
    }
    for (const Json& sample : *samples) {
      if (!sample.is_number() && !sample.is_null()) {
        reader.Fail("samples_s", "expected numbers (or null), got " + LineReader::TypeOf(sample));
      }
      record.samples_s.push_back(sample.is_number() ? sample.get<double>() : kInf);
    }
  }
  record.compile_time_s = reader.Time("compile_time_s", 0.0);
  record.cost_s = reader.Time("cost_s", 0.0);
  const std::string no_error, imported = "import";
  record.error = reader.String("error", &no_error);
  record.strategy = reader.String("strategy", &imported);
  record.started_at = reader.Number("started_at");
  record.finished_at = reader.Number("finished_at", record.started_at);
  return record;
}

struct ParsedFile {
  std::vector<std::pair<std::string, std::string>> notes;  // key, value
  std::vector<WorkloadEntry> workloads;
  std::vector<TuningRecord> records;
  std::vector<int64_t> record_lines;  // the line number of each record, for error messages
};

ParsedFile ParseLines(std::istream& in, const std::string& source_name) {
  ParsedFile parsed;
  std::string text;
  for (int64_t line_number = 1; std::getline(in, text); ++line_number) {
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;  // blank lines
    std::string where = source_name + ":" + std::to_string(line_number);
    Json line;
    try {
      line = Json::parse(text);
      // parse_error, or out_of_range for a number too large for a double
    } catch (const Json::exception& error) {
      std::string what = error.what();
      size_t column = what.find("column ");
      throw Error(where + ": not valid JSON: " +
                  (column == std::string::npos ? what : what.substr(column)));
    }
    if (!line.is_object()) {
      throw Error(where + ": expected a JSON object, got " + LineReader::TypeOf(line));
    }
    LineReader reader(line, where);
    std::string type = reader.String("type");
    if (type == "workload") {
      parsed.workloads.push_back(ParseWorkload(reader));
    } else if (type == "record") {
      parsed.records.push_back(ParseRecord(reader));
      parsed.record_lines.push_back(line_number);
    } else if (type == "note") {
      std::string key = reader.String("key");
      if (database::IsReservedMetaKey(key)) {
        reader.Fail("key", "'" + key + "' is the database's own, not a note");
      }
      parsed.notes.emplace_back(std::move(key), reader.String("value"));
    } else {
      reader.Fail("type", "unknown type '" + type + "'; known: note, workload, record");
    }
  }
  if (in.bad()) throw Error(source_name + ": read error");
  return parsed;
}

}  // namespace

int64_t Database::ExportJsonLines(std::ostream& out, const std::string& key_prefix) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  database::Connection& connection = *impl_->connection;
  Transaction snapshot(connection, Transaction::Kind::kRead);
  if (key_prefix.empty()) {
    // Notes (a command's run log, e.g. the corpus's) belong to the whole database, so only a
    // whole-database export carries them.
    Statement notes(connection, "SELECT key, value FROM meta ORDER BY key");
    while (notes.Step()) {
      std::string key = notes.Text(0);
      if (database::IsReservedMetaKey(key)) continue;
      OrderedJson line;
      line["type"] = "note";
      line["key"] = key;
      line["value"] = notes.Text(1);
      out << line.dump() << '\n';
    }
  }
  // substr() rather than LIKE: keys could hold '%' or '_'.
  const char* matches = "substr(key, 1, length(?1)) = ?1";
  Statement workloads(connection,
                      std::string("SELECT key, name, description, space FROM workloads WHERE ") +
                          matches + " ORDER BY rowid");
  workloads.Bind(1, key_prefix);
  while (workloads.Step()) {
    out << WorkloadToJson(database::ReadWorkload(workloads, impl_->path)).dump() << '\n';
  }
  Statement records(connection, std::string("SELECT ") + database::kRecordColumns +
                                    " FROM records WHERE workload_key IN (SELECT key FROM"
                                    " workloads WHERE " +
                                    matches + ") ORDER BY id");
  records.Bind(1, key_prefix);
  int64_t count = 0;
  while (records.Step()) {
    out << RecordToJson(database::ReadRecord(records, impl_->path)).dump() << '\n';
    ++count;
  }
  snapshot.Commit();
  out.flush();
  if (!out) throw Error("database '" + impl_->path + "': export failed: cannot write the output");
  return count;
}

int64_t Database::ImportJsonLines(std::istream& in, const std::string& source_name) {
  ParsedFile parsed = ParseLines(in, source_name);
  std::lock_guard<std::mutex> lock(impl_->mutex);
  database::Connection& connection = *impl_->connection;
  Transaction transaction(connection);
  std::set<std::string> known;
  for (const WorkloadEntry& workload : parsed.workloads) known.insert(workload.key);
  for (size_t i = 0; i < parsed.records.size(); ++i) {
    const std::string& key = parsed.records[i].workload_key;
    if (known.count(key)) continue;
    if (!database::WorkloadExists(connection, key)) {
      throw Error(source_name + ":" + std::to_string(parsed.record_lines[i]) +
                  ": field 'workload_key': unknown workload '" + key +
                  "'; it has no workload line in the file and is not in the database");
    }
    known.insert(key);
  }
  for (const WorkloadEntry& workload : parsed.workloads) {
    database::InsertWorkload(connection, workload);
  }
  // A note the database already has is kept: it is the database's own account of its runs.
  Statement add_note(connection, "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)");
  for (const auto& [key, value] : parsed.notes) {
    add_note.Reset();
    add_note.Bind(1, key).Bind(2, value);
    add_note.Run();
  }
  // A record counts as present when one with the same workload, device, configuration and start
  // time exists, including one added earlier in this same import.
  Statement present(connection,
                    "SELECT 1 FROM records WHERE workload_key = ? AND device = ? AND"
                    " config_hash = ? AND started_at = ? LIMIT 1");
  database::RecordWriter writer(connection);
  int64_t added = 0;
  for (const TuningRecord& record : parsed.records) {
    present.Reset();
    present.Bind(1, record.workload_key)
        .Bind(2, record.device)
        .Bind(3, record.config_hash)
        .Bind(4, record.started_at);
    if (present.Step()) continue;
    writer.Insert(record);
    ++added;
  }
  transaction.Commit();
  return added;
}

}  // namespace glimpse
