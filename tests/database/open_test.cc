// Opening, creating and refusing database files.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "database_test_util.h"
#include "glimpse/database.h"
#include "glimpse/error.h"

namespace glimpse::testing {
namespace {

namespace fs = std::filesystem;

// Runs SQL on the file with a plain SQLite connection, as another tool would.
std::string RawQuery(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  std::string answer;
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
  if (sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_text(stmt, 0)) {
    answer = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return answer;
}

// Expects `action` to throw Error whose message contains every one of `parts`.
template <typename Action>
void ExpectErrorMentioning(Action action, std::initializer_list<std::string> parts) {
  try {
    action();
    FAIL() << "expected glimpse::Error";
  } catch (const Error& error) {
    std::string message = error.what();
    for (const std::string& part : parts) {
      EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
    }
    EXPECT_EQ(message.find('\n'), std::string::npos) << "message is not one line: " << message;
  }
}

TEST(DatabaseOpen, CreatesAndReopensWithContent) {
  std::string path = NewDatabasePath();
  {
    Database db(path);
    EXPECT_EQ(db.path(), path);
    db.PutWorkload(MakeWorkload("k1"));
    db.CommitBatch({MakeRecord("k1", "cpu", "h1", 0.5, 100.0)});
  }
  ASSERT_TRUE(fs::exists(path));
  Database db(path, /*create=*/false);
  ASSERT_TRUE(db.GetWorkload("k1").has_value());
  EXPECT_EQ(db.Records("k1").size(), 1u);
}

// The reading commands' way in (db list, export, compile): reads what is there, also while a
// writer has it open, and refuses to write. Files nobody may write: tests/chaos/read_only.sh.
TEST(DatabaseOpen, ReadOnlyReadsWhatIsThereAndRefusesWrites) {
  std::string path = NewDatabasePath();
  Database writer(path);
  writer.PutWorkload(MakeWorkload("k1"));
  writer.CommitBatch({MakeRecord("k1", "cpu", "h1", 0.5, 100.0)});
  Database reader(path, Database::ReadOnly{});
  EXPECT_EQ(reader.Records("k1").size(), 1u);
  writer.CommitBatch({MakeRecord("k1", "cpu", "h2", 0.25, 101.0)});
  EXPECT_EQ(reader.Records("k1").size(), 2u);
  EXPECT_THROW(reader.CommitBatch({MakeRecord("k1", "cpu", "h3", 0.1, 102.0)}), Error);
  EXPECT_EQ(writer.Records("k1").size(), 2u);
  ExpectErrorMentioning([&] { Database(path + ".missing", Database::ReadOnly{}); },
                        {path + ".missing", "does not exist"});
  EXPECT_FALSE(fs::exists(path + ".missing"));
}

TEST(DatabaseOpen, UsesWriteAheadLogAndForeignKeys) {
  std::string path = NewDatabasePath();
  Database db(path);
  EXPECT_EQ(RawQuery(path, "PRAGMA journal_mode"), "wal");  // WAL is stored in the file
  db.PutWorkload(MakeWorkload("k1"));
  db.CommitBatch({MakeRecord("k1", "cpu", "h1", 0.5, 1.0)});
  EXPECT_TRUE(fs::exists(path + "-wal"));
  EXPECT_EQ(RawQuery(path, "SELECT value FROM meta WHERE key = 'schema_version'"), "1");
}

TEST(DatabaseOpen, RefusesNewerSchemaVersion) {
  std::string path = NewDatabasePath();
  { Database db(path); }
  RawQuery(path, "UPDATE meta SET value = '7' WHERE key = 'schema_version'");
  ExpectErrorMentioning([&] { Database db(path); }, {path, "schema version 7", "up to 1"});
  EXPECT_TRUE(fs::exists(path)) << "an existing database must never be removed";
}

TEST(DatabaseOpen, RefusesGarbageFileAndLeavesItAlone) {
  std::string path = NewDatabasePath();
  std::string garbage(4096, 'x');
  std::ofstream(path) << garbage;
  ExpectErrorMentioning([&] { Database db(path); }, {path, "not an SQLite file"});
  ASSERT_TRUE(fs::exists(path));
  std::ifstream in(path);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, garbage);
}

TEST(DatabaseOpen, RefusesOtherSqliteDatabase) {
  std::string path = NewDatabasePath();
  RawQuery(path, "CREATE TABLE people (name TEXT)");
  ExpectErrorMentioning([&] { Database db(path); }, {path, "not a glimpse database"});
}

TEST(DatabaseOpen, MissingDirectoryIsAnErrorAndCreatesNothing) {
  std::string dir = MakeTempDir("glimpse-db") + "/no/such/dir";
  std::string path = dir + "/tuning.db";
  ExpectErrorMentioning([&] { Database db(path); }, {path, "does not exist"});
  EXPECT_FALSE(fs::exists(dir));
}

TEST(DatabaseOpen, NoCreateOnMissingFileIsAnError) {
  std::string path = NewDatabasePath();
  ExpectErrorMentioning([&] { Database db(path, /*create=*/false); }, {path, "does not exist"});
  EXPECT_FALSE(fs::exists(path));
}

TEST(DatabaseOpen, DirectoryInPlaceOfFileIsAnError) {
  std::string path = NewDatabasePath();
  fs::create_directory(path);
  ExpectErrorMentioning([&] { Database db(path); }, {path, "directory"});
  EXPECT_TRUE(fs::is_directory(path));
}

TEST(DatabaseOpen, EmptyFileIsNotTurnedIntoADatabaseWithoutCreate) {
  std::string path = NewDatabasePath();
  std::ofstream(path).close();
  ExpectErrorMentioning([&] { Database db(path, /*create=*/false); }, {path, "empty"});
  EXPECT_TRUE(fs::exists(path));
  EXPECT_EQ(fs::file_size(path), 0u);
  EXPECT_FALSE(fs::exists(path + "-wal"));
}

TEST(DatabaseOpen, InMemoryDatabaseWorks) {
  Database db(":memory:");
  db.PutWorkload(MakeWorkload("k1"));
  EXPECT_EQ(db.CommitBatch({MakeRecord("k1", "cpu", "h1", 0.5, 1.0)}).size(), 1u);
}

TEST(DatabaseOpen, DefaultPathFollowsEnvironment) {
  const char* saved = std::getenv("GLIMPSE_DB");
  std::string saved_value = saved ? saved : "";
  setenv("GLIMPSE_DB", "/tmp/elsewhere.db", 1);
  EXPECT_EQ(Database::DefaultPath(), "/tmp/elsewhere.db");
  unsetenv("GLIMPSE_DB");
  EXPECT_EQ(Database::DefaultPath(), "glimpse.db");
  if (saved) setenv("GLIMPSE_DB", saved_value.c_str(), 1);
}

TEST(DatabaseOpen, TwoConnectionsSeeEachOthersCommits) {
  std::string path = NewDatabasePath();
  Database writer(path);
  Database reader(path, /*create=*/false);
  writer.PutWorkload(MakeWorkload("k1"));
  writer.CommitBatch({MakeRecord("k1", "cpu", "h1", 0.5, 1.0)});
  EXPECT_EQ(reader.Records("k1").size(), 1u);
}

TEST(DatabaseOpen, NotesPersistReplaceAndLeaveTheSchemaAlone) {
  std::string path = MakeTempDir("glimpse-db") + "/notes.db";
  {
    Database database(path);
    EXPECT_FALSE(database.GetNote("perf_corpus.run").has_value());
    database.SetNote("perf_corpus.run", "{\"a\":1}");
    database.SetNote("perf_corpus.run", "{\"a\":2}");
    ExpectErrorMentioning([&] { database.SetNote("schema_version", "9"); },
                          {path, "schema_version", "reserved"});
    ExpectErrorMentioning([&] { database.SetNote("application", "x"); }, {"reserved"});
  }
  Database reopened(path, /*create=*/false);
  EXPECT_EQ(reopened.GetNote("perf_corpus.run"), std::optional<std::string>("{\"a\":2}"));
  EXPECT_EQ(RawQuery(path, "SELECT value FROM meta WHERE key = 'schema_version'"), "1");
}

}  // namespace
}  // namespace glimpse::testing
