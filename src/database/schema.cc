#include "database/schema.h"

#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>

#include "glimpse/error.h"

namespace glimpse::database {

namespace fs = std::filesystem;

namespace {

// How long a connection waits for another process's write lock before giving up, in ms. Commits
// are one batch of records each (milliseconds), so 10 s only runs out when something is stuck.
constexpr int kBusyTimeoutMs = 10000;

// "GLMP": lets `file` and other tools tell a glimpse database from other SQLite files.
constexpr int kApplicationId = 0x474C4D50;

// docs/formats.md describes these tables; keep the two in step. Times in seconds, timestamps in
// seconds since the Unix epoch; JSON columns hold compact JSON text. A NULL time_s means +inf (the
// measurement failed), as do NULL compile_time_s / cost_s.
constexpr const char* kSchemaSql = R"sql(
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE workloads (
  key TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  description TEXT NOT NULL,
  space TEXT NOT NULL,
  created_at REAL NOT NULL
);
CREATE TABLE records (
  id INTEGER PRIMARY KEY,
  workload_key TEXT NOT NULL REFERENCES workloads(key),
  device TEXT NOT NULL,
  config TEXT NOT NULL,
  config_hash TEXT NOT NULL,
  status TEXT NOT NULL,
  time_s REAL,
  samples TEXT NOT NULL,
  compile_time_s REAL,
  cost_s REAL,
  error TEXT NOT NULL,
  strategy TEXT NOT NULL,
  started_at REAL NOT NULL,
  finished_at REAL NOT NULL
);
CREATE INDEX records_by_config ON records(workload_key, device, config_hash);
CREATE INDEX records_by_time ON records(workload_key, device, status, time_s);
)sql";

std::set<std::string> TableNames(Connection& connection) {
  Statement statement(connection, "SELECT name FROM sqlite_master WHERE type = 'table'");
  std::set<std::string> names;
  while (statement.Step()) names.insert(statement.Text(0));
  return names;
}

// Checks that the file holds a glimpse schema this build can read. Returns false when the file
// holds no tables at all (a new or empty database).
bool CheckSchema(Connection& connection) {
  const std::string& path = connection.path();
  std::set<std::string> tables = TableNames(connection);
  if (tables.empty()) return false;
  if (!tables.count("meta")) {
    throw Error("'" + path + "' is an SQLite database but not a glimpse database (it has no " +
                "'meta' table)");
  }
  std::string version_text;
  {
    Statement statement(connection, "SELECT value FROM meta WHERE key = 'schema_version'");
    if (!statement.Step()) {
      throw Error("'" + path + "' is not a glimpse database (its 'meta' table has no " +
                  "schema_version)");
    }
    version_text = statement.Text(0);
  }
  int version = 0;
  try {
    size_t used = 0;
    version = std::stoi(version_text, &used);
    if (used != version_text.size()) version = 0;
  } catch (const std::exception&) {
    version = 0;
  }
  if (version < 1) {
    throw Error("database '" + path + "' has schema version '" + version_text +
                "'; expected a whole number from 1 to " + std::to_string(kSchemaVersion));
  }
  if (version > kSchemaVersion) {
    throw Error("database '" + path + "' has schema version " + std::to_string(version) +
                "; this build of glimpse reads versions up to " + std::to_string(kSchemaVersion) +
                " (upgrade glimpse to open it)");
  }
  for (const char* table : {"workloads", "records"}) {
    if (!tables.count(table)) {
      throw Error("database '" + path + "' is damaged: table '" + table + "' is missing");
    }
  }
  return true;
}

void CreateSchema(Connection& connection) {
  Transaction transaction(connection);
  // Another process may have created the schema between our check and taking the write lock.
  if (CheckSchema(connection)) return;
  connection.Exec(kSchemaSql);
  connection.Exec("PRAGMA application_id = " + std::to_string(kApplicationId));
  Statement insert(connection, "INSERT INTO meta (key, value) VALUES (?, ?)");
  insert.Bind(1, std::string("schema_version")).Bind(2, std::to_string(kSchemaVersion)).Run();
  insert.Reset();
  insert.Bind(1, std::string("application")).Bind(2, std::string("glimpse")).Run();
  transaction.Commit();
}

// Fails plainly on a file that is not SQLite (its first read fails with SQLITE_NOTADB). Returns the
// result code of the first read otherwise (SQLITE_OK, or why it could not read).
int Probe(Connection& connection) {
  sqlite3_busy_timeout(connection.get(), kBusyTimeoutMs);
  int rc = sqlite3_exec(connection.get(), "SELECT count(*) FROM sqlite_master", nullptr, nullptr,
                        nullptr);
  if ((rc & 0xff) == SQLITE_NOTADB) {
    throw Error("'" + connection.path() + "' is not a glimpse database (not an SQLite file)");
  }
  return rc;
}

// A database in WAL mode needs its -wal and -shm files, even to be read; with neither beside it
// and a folder that cannot be written, SQLite cannot make them and refuses to read.
bool NeedsWritableFolder(int rc) {
  return (rc & 0xff) == SQLITE_READONLY || (rc & 0xff) == SQLITE_CANTOPEN;
}

[[noreturn]] void ThrowReadOnly(const std::string& path) {
  throw Error("database '" + path +
              "' is read-only (its file or its folder cannot be written): this command records "
              "into it; give another --db, or make the file and its folder writable ('glimpse "
              "db list' and 'db export' read a read-only database as it is)");
}

bool Writable(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return ::access(path.c_str(), W_OK) == 0 &&
         ::access(parent.empty() ? "." : parent.c_str(), W_OK) == 0;
}

// Opens an existing database for reading. A writable one is opened as usual with writes refused
// (query_only), so that its last reader removes the WAL files as a writer would. Otherwise it is
// opened read-only, and when SQLite cannot set up the WAL files there (a read-only folder without
// them), as immutable: read as it is, without the files that coordinate with writers; a read-only
// folder has none.
std::unique_ptr<Connection> OpenForReading(const std::string& path) {
  if (Writable(path)) {
    auto connection = std::make_unique<Connection>(path, SQLITE_OPEN_READWRITE);
    if (const int rc = Probe(*connection); rc != SQLITE_OK) connection->Fail(rc, "cannot read");
    connection->Exec("PRAGMA query_only = ON");
    return connection;
  }
  auto connection = std::make_unique<Connection>(path, SQLITE_OPEN_READONLY);
  const int rc = Probe(*connection);
  if (rc == SQLITE_OK) return connection;
  if (!NeedsWritableFolder(rc)) connection->Fail(rc, "cannot read");
  connection.reset();
  std::string uri = "file:";
  for (const char c : fs::absolute(path).string()) {
    // Percent-encode what a URI would read as its own syntax.
    if (c == '%' || c == '?' || c == '#') {
      static constexpr char kHex[] = "0123456789ABCDEF";
      const auto byte = static_cast<unsigned char>(c);
      uri += {'%', kHex[byte >> 4], kHex[byte & 15]};
    } else {
      uri += c;
    }
  }
  uri += "?immutable=1";
  connection = std::make_unique<Connection>(uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, path);
  if (const int again = Probe(*connection); again != SQLITE_OK) {
    connection->Fail(again, "cannot read");
  }
  return connection;
}

void Configure(Connection& connection) {
  // WAL: readers in other processes (`glimpse db list` during a run) do not block the writer, and
  // a commit appends to the log instead of rewriting pages in place. synchronous=NORMAL in WAL
  // mode syncs the log only at checkpoints, not at every commit: a killed process (kill -9, a
  // crash) still loses nothing committed, because committed frames are already in the OS page
  // cache; only an OS crash or power loss can roll back the last few commits, and even then the
  // file stays consistent. Those commits are measurements that can be repeated, so we take the
  // cheaper commits (replay tuning commits thousands of batches a second).
  connection.QueryText("PRAGMA journal_mode = WAL");
  connection.Exec("PRAGMA synchronous = NORMAL");
  connection.Exec("PRAGMA foreign_keys = ON");
}

void RemoveQuietly(const std::string& path) {
  std::error_code ignored;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(path + suffix, ignored);
}

}  // namespace

bool IsReservedMetaKey(const std::string& key) {
  return key == "schema_version" || key == "application";
}

std::unique_ptr<Connection> OpenDatabase(const std::string& path, OpenMode mode) {
  if (path.empty()) throw Error("database path is empty; give a file name such as 'glimpse.db'");
  const bool create = mode == OpenMode::kCreate;
  const bool in_memory = path == ":memory:";
  std::error_code ec;
  const bool existed = in_memory || fs::exists(path, ec);
  if (!in_memory) {
    if (existed && fs::is_directory(path, ec)) {
      throw Error("cannot open database '" + path + "': it is a directory");
    }
    if (!existed && !create) throw Error("database '" + path + "' does not exist");
    fs::path parent = fs::path(path).parent_path();
    if (!existed && !parent.empty() && !fs::is_directory(parent, ec)) {
      throw Error("cannot create database '" + path + "': directory '" + parent.string() +
                  "' does not exist");
    }
  }
  if (mode == OpenMode::kReadOnly && !in_memory) {
    std::unique_ptr<Connection> connection = OpenForReading(path);
    if (!CheckSchema(*connection)) {
      throw Error("'" + path + "' is not a glimpse database (it is empty)");
    }
    return connection;
  }
  // Said before SQLite tries: its own words for this case ("attempt to write a readonly
  // database" from a first read) do not say what to do.
  if (existed && !in_memory && !Writable(path)) ThrowReadOnly(path);
  int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
  std::unique_ptr<Connection> connection;
  try {
    connection = std::make_unique<Connection>(path, flags);
    if (const int rc = Probe(*connection); rc != SQLITE_OK) {
      if (existed && NeedsWritableFolder(rc)) ThrowReadOnly(path);
      connection->Fail(rc, "cannot read");
    }
    // Checked before Configure, which would write a header into an empty file.
    bool has_schema = CheckSchema(*connection);
    if (!has_schema && !create) {
      throw Error("'" + path + "' is not a glimpse database (it is empty)");
    }
    Configure(*connection);
    if (!has_schema) CreateSchema(*connection);
  } catch (...) {
    connection.reset();
    if (!existed) RemoveQuietly(path);
    throw;
  }
  return connection;
}

}  // namespace glimpse::database
