// A thin RAII layer over the SQLite3 C API: a connection, prepared statements, transactions.
//
// Every failure throws glimpse::Error whose message starts with the database path, so that a user
// who sees it knows which file is at fault.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>

namespace glimpse::database {

class Connection {
 public:
  // sqlite3_open_v2 of `path` (a file name, or a URI with SQLITE_OPEN_URI) with `flags`
  // (SQLITE_OPEN_*). Errors name `name`, or `path` when no name is given.
  Connection(const std::string& path, int flags, const std::string& name = "");
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  sqlite3* get() const { return db_; }
  const std::string& path() const { return path_; }

  // Runs one or more statements that return no rows of interest.
  void Exec(const std::string& sql);
  // Runs a statement returning one text value (a PRAGMA's answer); "" when it returns no row.
  std::string QueryText(const std::string& sql);
  int64_t LastInsertId() const { return sqlite3_last_insert_rowid(db_); }

  // Throws Error "database '<path>': <what>: <sqlite message>" for result code `rc`.
  [[noreturn]] void Fail(int rc, const std::string& what) const;

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

// A prepared statement. Bind indices are 1-based, column indices 0-based (as in SQLite).
class Statement {
 public:
  Statement(const Connection& connection, const std::string& sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& Bind(int index, const std::string& value);
  Statement& Bind(int index, double value);  // NaN and ±inf are bound as NULL
  Statement& Bind(int index, int64_t value);
  Statement& BindNull(int index);

  // Advances to the next row: true when a row is available, false when the statement is done.
  bool Step();
  // Runs a statement that returns no rows.
  void Run();
  // Makes the statement ready to run again with new bindings.
  void Reset();

  bool IsNull(int column) const;
  std::string Text(int column) const;
  double Double(int column) const;
  int64_t Int(int column) const;

 private:
  const Connection& connection_;
  sqlite3_stmt* stmt_ = nullptr;
};

// BEGIN … COMMIT; rolled back by the destructor unless Commit() was called. A write transaction
// is BEGIN IMMEDIATE: it takes the write lock up front, so two writers wait on the busy timeout
// instead of failing when both try to upgrade from a read. A read transaction (BEGIN DEFERRED)
// gives a consistent snapshot across several SELECTs.
class Transaction {
 public:
  enum class Kind { kWrite, kRead };
  explicit Transaction(Connection& connection, Kind kind = Kind::kWrite);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  void Commit();

 private:
  Connection& connection_;
  bool done_ = false;
};

}  // namespace glimpse::database
