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

// Opens `path` (":memory:" for a private in-memory database), creating the file and schema when
// `create` is set. Throws Error naming the path when the directory or file is missing, the file is
// not an SQLite database, is an SQLite database of something else, or has a newer schema. A file
// this call created is removed again when it throws.
std::unique_ptr<Connection> OpenDatabase(const std::string& path, bool create);

}  // namespace glimpse::database
