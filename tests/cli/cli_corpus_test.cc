// `glimpse corpus measure|export|show` end to end on two tiny operators: a rerun measures nothing
// again, a partial run (--max-operators) is completed by the next, and the export loads back.
#include <fstream>
#include <set>

#include "cli_fixture.h"
#include "glimpse/database.h"
#include "glimpse/perf_corpus.h"

namespace glimpse::testing {
namespace {

class CliCorpusTest : public CliTest {
 protected:
  std::vector<std::string> MeasureArgs(std::vector<std::string> extra) const {
    std::vector<std::string> args = {"corpus",         "measure",
                                     "--models",       "none",
                                     "--op",           "dense:M=1,N=16,K=16",
                                     "--op",           "batch_matmul:B=2,M=4,N=8,K=8",
                                     "--per-operator", "4",
                                     "--tuned-best",   "2",
                                     "--batch",        "4",
                                     "--db",           Db(),
                                     "--progress",     "quiet",
                                     "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }
};

TEST_F(CliCorpusTest, RerunMeasuresNothingTwiceAndExportLoadsBack) {
  // First only one operator, as a run stopped early would leave it.
  CommandResult partial = RunGlimpse(MeasureArgs({"--max-operators", "1"}));
  ASSERT_EQ(partial.exit_code, 0) << partial.err;
  Json first = Json::parse(partial.out);
  EXPECT_EQ(first["stop_reason"], "max operators");
  EXPECT_EQ(first["visited"], 1);
  EXPECT_EQ(first["measured"], 6);  // 4 sampled + 2 of the tuning run

  CommandResult rest = RunGlimpse(MeasureArgs({}));
  ASSERT_EQ(rest.exit_code, 0) << rest.err;
  Json second = Json::parse(rest.out);
  EXPECT_EQ(second["stop_reason"], "done");
  ASSERT_EQ(second["operators"].size(), 2u);
  EXPECT_EQ(second["operators"][0]["already"], 4);
  EXPECT_EQ(second["operators"][0]["measured"], 0);
  EXPECT_EQ(second["operators"][1]["measured"], 6);
  EXPECT_EQ(second["records"], 12);

  CommandResult again = RunGlimpse(MeasureArgs({}));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  Json third = Json::parse(again.out);
  EXPECT_EQ(third["measured"], 0);
  EXPECT_EQ(third["already"], 8);
  EXPECT_EQ(third["records"], 12);

  // Each configuration once per operator in the database.
  Database database(Db(), /*create=*/false);
  for (const WorkloadEntry& workload : database.Workloads()) {
    std::set<std::string> hashes;
    for (const TuningRecord& r : database.Records(workload.key)) {
      EXPECT_TRUE(hashes.insert(r.config_hash).second) << workload.name << " " << r.config.dump();
    }
    EXPECT_EQ(hashes.size(), 6u);
  }

  const std::string corpus_path = dir_ + "/data/corpus/tiny.jsonl.gz";
  CommandResult exported = RunGlimpse({"corpus", "export", "--db", Db(), "--out", corpus_path});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_NE(exported.out.find("exported 12 records"), std::string::npos) << exported.out;
  PerfCorpus corpus = LoadPerfCorpus(corpus_path);
  EXPECT_EQ(corpus.records.size(), 12u);
  EXPECT_EQ(corpus.header["measure_runs"].size(), 3u);
  int64_t uniform = 0;
  for (const PerfCorpusRecord& r : corpus.records) uniform += r.strategy == "corpus-uniform";
  EXPECT_EQ(uniform, 8);

  CommandResult shown = RunGlimpse({"corpus", "show", corpus_path, "--json"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  Json show = Json::parse(shown.out);
  EXPECT_EQ(show["records"], 12);
  EXPECT_EQ(show["kinds"]["dense"]["operators"], 1);
  EXPECT_EQ(show["kinds"]["batch_matmul"]["records"], 6);
}

TEST_F(CliCorpusTest, ADatabaseMeasuredWithAnotherProtocolIsRefusedUnlessAllowed) {
  CommandResult first = RunGlimpse(MeasureArgs({"--max-operators", "1"}));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  {
    // As if the first run had been measured by a build with the old flush.
    Database database(Db(), /*create=*/false);
    Json runs = Json::parse(*database.GetNote("perf_corpus.runs"));
    ASSERT_EQ(runs.size(), 1u);
    runs[0]["protocol"]["flush"] = "0: a memset";
    database.SetNote("perf_corpus.runs", runs.dump());
  }
  CommandResult refused = RunGlimpse(MeasureArgs({}));
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find(Db() + ": its corpus was measured with another protocol"),
            std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("flush: \"0: a memset\" then, \"1: "), std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("--allow-protocol-change"), std::string::npos) << refused.err;
  {
    Database database(Db(), /*create=*/false);
    EXPECT_EQ(Json::parse(*database.GetNote("perf_corpus.runs")).size(), 1u);  // nothing added
  }
  CommandResult allowed = RunGlimpse(MeasureArgs({"--allow-protocol-change"}));
  ASSERT_EQ(allowed.exit_code, 0) << allowed.err;
  EXPECT_EQ(Json::parse(allowed.out)["operators"][1]["measured"], 6);
  // The runs after agree with each other: no flag needed.
  CommandResult again = RunGlimpse(MeasureArgs({}));
  EXPECT_EQ(again.exit_code, 0) << again.err;
}

TEST_F(CliCorpusTest, BadInputNamesTheFlag) {
  CommandResult unknown = RunGlimpse({"corpus", "measure", "--models", "resnet19", "--db", Db()});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("--models: unknown model 'resnet19'"), std::string::npos)
      << unknown.err;
  CommandResult nothing =
      RunGlimpse({"corpus", "measure", "--models", "none", "--op", "dense:M=1,N=16,K=16",
                  "--per-operator", "0", "--tuned-best", "0", "--db", Db()});
  EXPECT_EQ(nothing.exit_code, 2);
  EXPECT_NE(nothing.err.find("nothing to measure"), std::string::npos) << nothing.err;
  const std::string bad = dir_ + "/bad.jsonl";
  std::ofstream(bad) << "{\"format\": \"other\"}\n";
  CommandResult shown = RunGlimpse({"corpus", "show", bad});
  EXPECT_EQ(shown.exit_code, 2);
  EXPECT_NE(shown.err.find(bad + ":1: not a performance corpus"), std::string::npos) << shown.err;
}

}  // namespace
}  // namespace glimpse::testing
