// JSON lines export and import.
#include <gtest/gtest.h>

#include <limits>
#include <optional>
#include <sstream>
#include <string>

#include "database_test_util.h"
#include "glimpse/database.h"
#include "glimpse/error.h"

namespace glimpse::testing {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Everything but the id, which each database assigns itself.
void ExpectSameRecords(const std::vector<TuningRecord>& a, const std::vector<TuningRecord>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE("record " + std::to_string(i));
    EXPECT_EQ(a[i].workload_key, b[i].workload_key);
    EXPECT_EQ(a[i].device, b[i].device);
    EXPECT_EQ(a[i].config, b[i].config);
    EXPECT_EQ(a[i].config_hash, b[i].config_hash);
    EXPECT_EQ(a[i].status, b[i].status);
    EXPECT_EQ(a[i].time_s, b[i].time_s);
    EXPECT_EQ(a[i].samples_s, b[i].samples_s);
    EXPECT_EQ(a[i].compile_time_s, b[i].compile_time_s);
    EXPECT_EQ(a[i].cost_s, b[i].cost_s);
    EXPECT_EQ(a[i].error, b[i].error);
    EXPECT_EQ(a[i].strategy, b[i].strategy);
    EXPECT_EQ(a[i].started_at, b[i].started_at);
    EXPECT_EQ(a[i].finished_at, b[i].finished_at);
  }
}

class DatabaseJsonLines : public ::testing::Test {
 protected:
  DatabaseJsonLines() : source_(NewDatabasePath()) {
    source_.PutWorkload(MakeWorkload("conv-1", "conv"));
    source_.PutWorkload(MakeWorkload("dense-1", "dense"));
    TuningRecord odd = MakeRecord("conv-1", "NVIDIA A100", "h2", 1.0 / 3.0, 1700000000.0 / 7.0);
    odd.error = "quote \" and newline \n inside";
    source_.CommitBatch(
        {MakeRecord("conv-1", "NVIDIA A100", "h1", 2.5e-5, 1700000000.25), odd,
         MakeRecord("conv-1", "cpu", "h1", kInf, 1700000001.0, MeasureStatus::kRunTimeout)});
    source_.CommitBatch({MakeRecord("dense-1", "cpu", "h9", 0.125, 1700000002.0)});
  }

  std::string Export(const std::string& prefix = "") {
    std::ostringstream out;
    source_.ExportJsonLines(out, prefix);
    return out.str();
  }

  Database source_;
};

TEST_F(DatabaseJsonLines, RoundTripGivesIdenticalRecords) {
  std::ostringstream out;
  EXPECT_EQ(source_.ExportJsonLines(out), 4);
  std::string text = out.str();
  // Workload lines first, then records; one JSON object per line, with "type" leading.
  std::istringstream lines(text);
  std::string line;
  std::vector<std::string> types;
  while (std::getline(lines, line)) types.push_back(Json::parse(line).at("type"));
  EXPECT_EQ(types, (std::vector<std::string>{"workload", "workload", "record", "record", "record",
                                             "record"}));
  EXPECT_NE(text.find("\"time_s\":null"), std::string::npos);

  Database copy(NewDatabasePath());
  std::istringstream in(text);
  EXPECT_EQ(copy.ImportJsonLines(in, "runs.jsonl"), 4);
  for (const char* key : {"conv-1", "dense-1"}) {
    ExpectSameRecords(source_.Records(key), copy.Records(key));
    ASSERT_TRUE(copy.GetWorkload(key).has_value());
    EXPECT_EQ(copy.GetWorkload(key)->description, source_.GetWorkload(key)->description);
    EXPECT_EQ(copy.GetWorkload(key)->space, source_.GetWorkload(key)->space);
    EXPECT_EQ(copy.GetWorkload(key)->name, source_.GetWorkload(key)->name);
  }
}

TEST_F(DatabaseJsonLines, ExportSelectsWorkloadsByKeyPrefix) {
  std::ostringstream out;
  EXPECT_EQ(source_.ExportJsonLines(out, "dense"), 1);
  std::string text = out.str();
  EXPECT_EQ(text.find("conv-1"), std::string::npos);
  EXPECT_NE(text.find("dense-1"), std::string::npos);
  std::ostringstream none;
  EXPECT_EQ(source_.ExportJsonLines(none, "%"), 0);  // no pattern matching on the prefix
  EXPECT_EQ(none.str(), "");
}

TEST_F(DatabaseJsonLines, ImportSkipsRecordsAlreadyPresent) {
  std::string text = Export();
  Database copy(NewDatabasePath());
  {
    std::istringstream in(text);
    EXPECT_EQ(copy.ImportJsonLines(in, "a.jsonl"), 4);
  }
  {
    std::istringstream in(text);
    EXPECT_EQ(copy.ImportJsonLines(in, "a.jsonl"), 0);
  }
  // New measurements of the same configuration (later start) are not duplicates.
  source_.CommitBatch({MakeRecord("conv-1", "NVIDIA A100", "h1", 2.0e-5, 1700000100.0)});
  std::istringstream in(Export("conv"));
  EXPECT_EQ(copy.ImportJsonLines(in, "b.jsonl"), 1);
  ExpectSameRecords(source_.Records("conv-1"), copy.Records("conv-1"));
  // The same record twice in one file is added once.
  Database fresh(NewDatabasePath());
  std::string workload_line = text.substr(0, text.find('\n') + 1);
  std::string record_line = text.substr(text.find("{\"type\":\"record\""));
  record_line = record_line.substr(0, record_line.find('\n') + 1);
  std::istringstream twice(workload_line + record_line + record_line);
  EXPECT_EQ(fresh.ImportJsonLines(twice, "twice.jsonl"), 1);
}

// Imports `text` into a fresh database that already holds one record, expects an Error that
// mentions every one of `parts`, and checks that nothing was imported.
void ExpectBadImport(const std::string& text, std::initializer_list<std::string> parts) {
  Database db(NewDatabasePath());
  db.PutWorkload(MakeWorkload("conv-1", "conv"));
  db.CommitBatch({MakeRecord("conv-1", "cpu", "existing", 1.0, 1.0)});
  std::istringstream in(text);
  try {
    db.ImportJsonLines(in, "runs.jsonl");
    ADD_FAILURE() << "expected an Error for:\n" << text;
  } catch (const Error& error) {
    std::string message = error.what();
    for (const std::string& part : parts) {
      EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
    }
  }
  EXPECT_EQ(db.Workloads().size(), 1u);
  EXPECT_EQ(db.Records("conv-1").size(), 1u);
}

TEST_F(DatabaseJsonLines, BadLinesNameTheLineAndImportNothing) {
  std::string good = Export();  // 6 lines
  auto with_line = [&](const std::string& bad) { return good + "\n" + bad + "\n"; };
  // Line 7 is blank (skipped), so the bad line is line 8.
  ExpectBadImport(with_line("{\"type\": \"record\", "), {"runs.jsonl:8:", "not valid JSON"});
  ExpectBadImport(with_line("[1, 2]"), {"runs.jsonl:8:", "expected a JSON object"});
  // A number too large for a double is the JSON library's out_of_range, not a parse error
  // (found by the json_lines fuzz target): the same one-line error.
  ExpectBadImport(with_line("8e888887788888888777"), {"runs.jsonl:8:", "not valid JSON"});

  std::istringstream lines(good);
  std::string line;
  for (int i = 0; i < 3; ++i) std::getline(lines, line);
  Json record = Json::parse(line);  // the first record line
  ASSERT_EQ(record.at("type"), "record");

  Json unknown_status = record;
  unknown_status["status"] = "okay";
  ExpectBadImport(with_line(unknown_status.dump()),
                  {"runs.jsonl:8:", "field 'status'", "'okay'", "known: ok,"});

  Json missing = record;
  missing.erase("config_hash");
  ExpectBadImport(with_line(missing.dump()), {"runs.jsonl:8:", "field 'config_hash' is missing"});

  Json wrong_type = record;
  wrong_type["time_s"] = "fast";
  ExpectBadImport(with_line(wrong_type.dump()), {"runs.jsonl:8:", "field 'time_s'", "number"});

  Json orphan = record;
  orphan["workload_key"] = "nowhere";
  ExpectBadImport(with_line(orphan.dump()), {"runs.jsonl:8:", "unknown workload 'nowhere'"});

  ExpectBadImport(with_line("{\"type\": \"table\"}"),
                  {"runs.jsonl:8:", "field 'type'", "known: note, workload, record"});
  ExpectBadImport(with_line(R"({"type": "note", "key": "schema_version", "value": "9"})"),
                  {"runs.jsonl:8:", "field 'key'", "'schema_version' is the database's own"});
  // The bad line may come first: nothing after it is imported either.
  ExpectBadImport("{\"type\": \"workload\", \"key\": \"x\"}\n" + good,
                  {"runs.jsonl:1:", "field 'name' is missing"});
}

// A whole-database export carries the commands' notes (the corpus's run log), so that a database
// rebuilt from its export on another machine keeps them; the database's own keys stay its own.
TEST_F(DatabaseJsonLines, NotesTravelWithAWholeDatabaseExport) {
  source_.SetNote("perf_corpus.runs", R"([{"started_at": 1}])");
  std::string text = Export();
  EXPECT_EQ(
      Json::parse(text.substr(0, text.find('\n'))),
      Json::parse(R"({"type":"note","key":"perf_corpus.runs","value":"[{\"started_at\": 1}]"})"));
  EXPECT_EQ(text.find("schema_version"), std::string::npos);
  EXPECT_EQ(Export("conv").find("\"note\""), std::string::npos);

  Database copy(NewDatabasePath());
  std::istringstream in(text);
  EXPECT_EQ(copy.ImportJsonLines(in, "a.jsonl"), 4);
  EXPECT_EQ(copy.GetNote("perf_corpus.runs"), source_.GetNote("perf_corpus.runs"));
  EXPECT_EQ(copy.GetNote("schema_version"), std::optional<std::string>("1"));

  // A note the database already has is kept.
  Database other(NewDatabasePath());
  other.SetNote("perf_corpus.runs", "[]");
  std::istringstream again(text);
  other.ImportJsonLines(again, "a.jsonl");
  EXPECT_EQ(other.GetNote("perf_corpus.runs"), std::optional<std::string>("[]"));
}

TEST_F(DatabaseJsonLines, ImportFillsOptionalFields) {
  Database db(NewDatabasePath());
  std::istringstream in(R"({"type":"workload","key":"k","name":"n","description":{},"space":{}})"
                        "\n"
                        R"({"type":"record","workload_key":"k","device":"cpu","config":{"t":2},)"
                        R"("config_hash":"c","status":"ok","time_s":0.5,"started_at":10})"
                        "\n");
  EXPECT_EQ(db.ImportJsonLines(in, "hand.jsonl"), 1);
  std::vector<TuningRecord> records = db.Records("k");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].strategy, "import");
  EXPECT_EQ(records[0].finished_at, 10.0);
  EXPECT_TRUE(records[0].samples_s.empty());
  EXPECT_EQ(records[0].time_s, 0.5);
}

}  // namespace
}  // namespace glimpse::testing
