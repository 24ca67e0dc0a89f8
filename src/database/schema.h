// Opening a glimpse database file: connection settings, schema creation and version checks.
#pragma once

#include <memory>
#include <string>

#include "database/sqlite.h"

namespace glimpse::database {

// Version of the schema this build writes (meta.schema_version). Raise it with every change to the
// tables in schema.cc, and teach OpenDatabase to migrate the older versions.
inline constexpr int kSchemaVersion = 1;

// The keys of the `meta` table that describe the database itself (schema_version, application);
// every other key is a note of a command (Database::SetNote).
bool IsReservedMetaKey(const std::string& key);

enum class OpenMode {
  kCreate,    // read and write; the file and schema are made when missing
  kExisting,  // read and write an existing database
  kReadOnly,  // read an existing database, even one whose file or folder cannot be written
};

// Opens `path` (":memory:" for a private in-memory database). Throws Error naming the path when the
// directory or file is missing, the file is not an SQLite database, is an SQLite database of
// something else, or has a newer schema; and, unless kReadOnly, when it cannot be written (a
// read-only file or folder), saying what can still read it. A file this call created is removed
// again when it throws.
std::unique_ptr<Connection> OpenDatabase(const std::string& path, OpenMode mode);

}  // namespace glimpse::database
