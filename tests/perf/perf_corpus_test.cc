// The corpus file: a written corpus reads back field for field, and bad files are refused with
// the file and line.
#include "glimpse/perf_corpus.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <fstream>
#include <string>

#include "glimpse/error.h"
#include "test_paths.h"

namespace glimpse {
namespace {

PerfCorpusRecord OkRecord() {
  PerfCorpusRecord r;
  r.op = "dense:M=1,N=16,K=16,bias=0,relu=0";
  r.kind = "dense";
  r.target = "cpu";
  r.template_version = 1;
  r.device = "Test CPU";
  r.workload_key = "0123456789abcdef";
  r.models = {"resnet18"};
  r.config = Json{{"tile_n", Json::array({2, 8})}, {"unroll", 1}};
  r.status = MeasureStatus::kOk;
  r.samples_s = {1.5e-6, 1.25e-6, 1.75e-6};
  r.time_s = 1.5e-6;
  r.strategy = "corpus-uniform";
  r.measured_at = 1700000000.5;
  return r;
}

PerfCorpusRecord FailedRecord() {
  PerfCorpusRecord r = OkRecord();
  r.status = MeasureStatus::kCompileHost;
  r.error = "error: 'x' was not declared";
  r.samples_s.clear();
  r.time_s = INFINITY;
  r.models.clear();
  r.strategy = "xgb";
  return r;
}

PerfCorpus Sample() {
  PerfCorpus corpus;
  corpus.header = Json{{"created_at", 1.0},
                       {"machine", {{"cpu", "Test CPU"}, {"cpus", 2}}},
                       {"protocol", {{"min_repeats", 3}}},
                       {"template_versions", {{"cpu", 1}}},
                       {"program_graph_feature_version", 1}};
  corpus.records = {OkRecord(), FailedRecord()};
  return corpus;
}

// Writes `lines` as a plain (not compressed) file; the loader reads both.
std::string WritePlain(const std::vector<std::string>& lines) {
  const std::string path = testing::MakeTempDir("glimpse-corpus") + "/bad.jsonl";
  std::ofstream out(path);
  for (const std::string& line : lines) out << line << "\n";
  return path;
}

std::string Header(int records, int version = 1) {
  Json header = Sample().header;
  header["format"] = "glimpse-perf-corpus";
  header["version"] = version;
  header["records"] = records;
  return header.dump();
}

void ExpectLoadError(const std::string& path, const std::string& part) {
  try {
    LoadPerfCorpus(path);
    FAIL() << "no error; expected " << part;
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(part), std::string::npos) << error.what();
  }
}

TEST(PerfCorpusTest, RoundTripKeepsEveryField) {
  const std::string path = testing::MakeTempDir("glimpse-corpus") + "/sub/c.jsonl.gz";
  WritePerfCorpus(path, Sample());
  // Compressed: gzip's magic bytes.
  std::ifstream raw(path, std::ios::binary);
  unsigned char magic[2] = {0, 0};
  raw.read(reinterpret_cast<char*>(magic), 2);
  EXPECT_EQ(magic[0], 0x1f);
  EXPECT_EQ(magic[1], 0x8b);

  const PerfCorpus back = LoadPerfCorpus(path);
  EXPECT_EQ(back.header["format"], "glimpse-perf-corpus");
  EXPECT_EQ(back.header["version"], 1);
  EXPECT_EQ(back.header["records"], 2);
  EXPECT_EQ(back.header["operators"], 1);
  EXPECT_EQ(back.header["machine"]["cpu"], "Test CPU");
  EXPECT_EQ(back.header["program_graph_feature_version"], 1);
  ASSERT_EQ(back.records.size(), 2u);
  const PerfCorpusRecord& ok = back.records[0];
  const PerfCorpusRecord want = OkRecord();
  EXPECT_EQ(ok.op, want.op);
  EXPECT_EQ(ok.kind, want.kind);
  EXPECT_EQ(ok.target, want.target);
  EXPECT_EQ(ok.template_version, want.template_version);
  EXPECT_EQ(ok.device, want.device);
  EXPECT_EQ(ok.workload_key, want.workload_key);
  EXPECT_EQ(ok.models, want.models);
  EXPECT_EQ(ok.config, want.config);
  EXPECT_EQ(ok.status, MeasureStatus::kOk);
  EXPECT_EQ(ok.error, "");
  EXPECT_EQ(ok.samples_s, want.samples_s);  // exact: JSON keeps doubles round-trip
  EXPECT_EQ(ok.time_s, want.time_s);
  EXPECT_EQ(ok.strategy, want.strategy);
  EXPECT_EQ(ok.measured_at, want.measured_at);
  const PerfCorpusRecord& failed = back.records[1];
  EXPECT_EQ(failed.status, MeasureStatus::kCompileHost);
  EXPECT_EQ(failed.error, FailedRecord().error);
  EXPECT_TRUE(failed.samples_s.empty());
  EXPECT_TRUE(std::isinf(failed.time_s));
  EXPECT_TRUE(PerfCorpusRecordToJson(failed)["time_s"].is_null());
  EXPECT_EQ(failed.strategy, "xgb");
}

TEST(PerfCorpusTest, BadFilesNameTheFileAndLine) {
  const std::string ok_line = PerfCorpusRecordToJson(OkRecord()).dump();
  ExpectLoadError("/nonexistent/corpus.jsonl.gz", "/nonexistent/corpus.jsonl.gz: cannot open");
  std::string path = WritePlain({"{\"format\": \"something-else\"}"});
  ExpectLoadError(path, path + ":1: not a performance corpus");
  path = WritePlain({Header(1, 2), ok_line});
  ExpectLoadError(path, path + ":1: corpus version 2 is not the one this glimpse reads (1)");
  path = WritePlain({Header(2), ok_line, "{not json"});
  ExpectLoadError(path, path + ":3: not JSON");
  Json bad = PerfCorpusRecordToJson(OkRecord());
  bad.erase("samples_s");
  path = WritePlain({Header(2), ok_line, bad.dump()});
  ExpectLoadError(path, path + ":3: corpus record: missing field 'samples_s'");
  bad = PerfCorpusRecordToJson(OkRecord());
  bad["status"] = "fast";
  path = WritePlain({Header(1), bad.dump()});
  ExpectLoadError(path, path + ":2: corpus record: field 'status'");
  bad = PerfCorpusRecordToJson(OkRecord());
  bad["kind"] = "conv2d";
  path = WritePlain({Header(1), bad.dump()});
  ExpectLoadError(path, path + ":2: corpus record: kind 'conv2d' is not that of op");
  bad = PerfCorpusRecordToJson(OkRecord());
  bad["samples_s"] = Json::array();
  path = WritePlain({Header(1), bad.dump()});
  ExpectLoadError(path, path + ":2: corpus record: an ok record needs its samples_s");
  path = WritePlain({Header(3), ok_line, ok_line});
  ExpectLoadError(path, "announces 3 records, the file holds 2");
  path = WritePlain({});
  ExpectLoadError(path, "empty file");
}

// A second file measured on the same machine under the same protocol adds its records; the header
// counts both and lists the parts. A file of another protocol or CPU, or one holding a
// configuration the first has, is refused naming it.
TEST(PerfCorpusTest, SeveralFilesReadAsOneWhenMeasuredAlike) {
  const std::string dir = testing::MakeTempDir("glimpse-corpus");
  PerfCorpus first = Sample();
  first.header["measure_runs"] = Json::array({{{"started_at", 1.0}}});
  WritePerfCorpus(dir + "/a.jsonl.gz", first);
  PerfCorpus second = Sample();
  second.header["measure_runs"] = Json::array({{{"started_at", 2.0}}});
  PerfCorpusRecord other = OkRecord();
  other.op = "dense:M=1,N=32,K=16,bias=0,relu=0";
  other.time_s = 2.5e-6;
  PerfCorpusRecord same_op_new_config = OkRecord();
  same_op_new_config.config = Json{{"tile_n", Json::array({4, 4})}, {"unroll", 0}};
  second.records = {other, same_op_new_config};
  WritePerfCorpus(dir + "/b.jsonl.gz", second);

  const PerfCorpus both = LoadPerfCorpusFiles({dir + "/a.jsonl.gz", dir + "/b.jsonl.gz"});
  ASSERT_EQ(both.records.size(), 4u);
  EXPECT_EQ(both.records[2].op, other.op);
  EXPECT_EQ(both.records[2].time_s, 2.5e-6);
  EXPECT_EQ(both.records[3].config, same_op_new_config.config);
  EXPECT_EQ(both.header["records"], 4);
  EXPECT_EQ(both.header["operators"], 2);
  ASSERT_EQ(both.header["parts"].size(), 2u);
  EXPECT_EQ(both.header["parts"][1]["path"], dir + "/b.jsonl.gz");
  EXPECT_EQ(both.header["parts"][1]["records"], 2);
  ASSERT_EQ(both.header["measure_runs"].size(), 2u);
  EXPECT_EQ(both.header["measure_runs"][1]["started_at"], 2.0);
  // One file is read as LoadPerfCorpus reads it.
  EXPECT_EQ(LoadPerfCorpusFiles({dir + "/a.jsonl.gz"}).records.size(), 2u);

  auto expect_refused = [&](const PerfCorpus& corpus, const std::string& part) {
    WritePerfCorpus(dir + "/c.jsonl.gz", corpus);
    try {
      LoadPerfCorpusFiles({dir + "/a.jsonl.gz", dir + "/c.jsonl.gz"});
      FAIL() << "no error; expected " << part;
    } catch (const Error& error) {
      const std::string what = error.what();
      EXPECT_NE(what.find(dir + "/c.jsonl.gz"), std::string::npos) << what;
      EXPECT_NE(what.find(part), std::string::npos) << what;
    }
  };
  PerfCorpus other_protocol = second;
  other_protocol.header["protocol"]["min_repeats"] = 5;
  expect_refused(other_protocol, "protocol field 'min_repeats'");
  PerfCorpus extra_protocol_field = second;
  extra_protocol_field.header["protocol"]["flush"] = "1";
  expect_refused(extra_protocol_field, "protocol field 'flush'");
  PerfCorpus other_cpu = second;
  other_cpu.header["machine"]["cpu"] = "Another CPU";
  expect_refused(other_cpu, "machine's CPU");
  PerfCorpus other_templates = second;
  other_templates.header["template_versions"]["cpu"] = 2;
  expect_refused(other_templates, "template versions");
  PerfCorpus repeated = second;
  repeated.records.push_back(OkRecord());  // the first file's configuration of its operator
  expect_refused(repeated, "also in an earlier file");
  EXPECT_THROW(LoadPerfCorpusFiles({}), Error);
}

}  // namespace
}  // namespace glimpse
