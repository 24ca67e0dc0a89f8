#include "database/sqlite.h"

#include <cmath>

#include "glimpse/error.h"

namespace glimpse::database {

Connection::Connection(const std::string& path, int flags, const std::string& name)
    : path_(name.empty() ? path : name) {
  int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error("cannot open database '" + path_ + "': " + message);
  }
  sqlite3_extended_result_codes(db_, 1);
}

Connection::~Connection() {
  // sqlite3_close_v2 defers the close until every statement is finalized; all of ours are RAII.
  if (db_) sqlite3_close_v2(db_);
}

void Connection::Fail(int rc, const std::string& what) const {
  std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
  throw Error("database '" + path_ + "': " + what + ": " + message);
}

void Connection::Exec(const std::string& sql) {
  char* message = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message);
  if (rc != SQLITE_OK) {
    std::string text = message ? message : sqlite3_errstr(rc);
    sqlite3_free(message);
    throw Error("database '" + path_ + "': " + text + " (in: " + sql.substr(0, 60) + ")");
  }
}

std::string Connection::QueryText(const std::string& sql) {
  Statement statement(*this, sql);
  return statement.Step() ? statement.Text(0) : std::string();
}

Statement::Statement(const Connection& connection, const std::string& sql)
    : connection_(connection) {
  int rc = sqlite3_prepare_v2(connection.get(), sql.c_str(), static_cast<int>(sql.size()), &stmt_,
                              nullptr);
  if (rc != SQLITE_OK) connection.Fail(rc, "cannot prepare '" + sql.substr(0, 60) + "'");
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::Bind(int index, const std::string& value) {
  int rc = sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                             SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) connection_.Fail(rc, "cannot bind parameter " + std::to_string(index));
  return *this;
}

Statement& Statement::Bind(int index, double value) {
  if (!std::isfinite(value)) return BindNull(index);
  int rc = sqlite3_bind_double(stmt_, index, value);
  if (rc != SQLITE_OK) connection_.Fail(rc, "cannot bind parameter " + std::to_string(index));
  return *this;
}

Statement& Statement::Bind(int index, int64_t value) {
  int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK) connection_.Fail(rc, "cannot bind parameter " + std::to_string(index));
  return *this;
}

Statement& Statement::BindNull(int index) {
  int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK) connection_.Fail(rc, "cannot bind parameter " + std::to_string(index));
  return *this;
}

bool Statement::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  connection_.Fail(rc, "cannot run '" + std::string(sqlite3_sql(stmt_)).substr(0, 60) + "'");
}

void Statement::Run() {
  while (Step()) {
  }
}

void Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool Statement::IsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

std::string Statement::Text(int column) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  if (!text) return std::string();
  return std::string(text, static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

double Statement::Double(int column) const { return sqlite3_column_double(stmt_, column); }

int64_t Statement::Int(int column) const { return sqlite3_column_int64(stmt_, column); }

Transaction::Transaction(Connection& connection, Kind kind) : connection_(connection) {
  connection_.Exec(kind == Kind::kWrite ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED");
}

Transaction::~Transaction() {
  if (!done_) sqlite3_exec(connection_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::Commit() {
  connection_.Exec("COMMIT");
  done_ = true;
}

}  // namespace glimpse::database
