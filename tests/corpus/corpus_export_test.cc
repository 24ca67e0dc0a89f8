// The database → corpus export: every CPU record with what a featuriser needs to rebuild its
// program, the measurement run's note in the header, other targets' workloads left out.
#include <gtest/gtest.h>

#include <cmath>

#include "glimpse/corpus_measure.h"
#include "glimpse/cpu.h"
#include "glimpse/program_graph.h"
#include "test_paths.h"

namespace glimpse {
namespace {

TEST(CorpusExportTest, RecordsCarryWhatRebuildsTheProgram) {
  const std::string path = testing::MakeTempDir("glimpse-corpus") + "/c.db";
  Database database(path);
  const Operator op = ParseOperator("dense:M=1,N=1000,K=512,bias=1");  // ResNet-18's fc
  const Task task = MakeCpuTask(op);
  database.PutWorkload({task.WorkloadKey(), task.name, task.description, task.space.ToJson()});
  const std::vector<Config> configs = SampleUniformConfigs(task.space, 2, 3);
  ASSERT_EQ(configs.size(), 2u);
  std::vector<TuningRecord> records(2);
  for (size_t i = 0; i < 2; ++i) {
    records[i].workload_key = task.WorkloadKey();
    records[i].device = "Test CPU";
    records[i].config = task.space.ConfigToJson(configs[i]);
    records[i].config_hash = HashToHex(task.space.Hash(configs[i]));
    records[i].strategy = kCorpusUniformStrategy;
    records[i].started_at = 100.0 + static_cast<double>(i);
  }
  records[0].status = MeasureStatus::kOk;
  records[0].time_s = 2e-5;
  records[0].samples_s = {2.1e-5, 2e-5, 1.9e-5};
  records[1].status = MeasureStatus::kWrongAnswer;
  records[1].time_s = INFINITY;
  records[1].samples_s = {3e-5};  // a failure's samples are not the program's time
  records[1].error = "max relative error 0.5";
  database.CommitBatch(records);
  // A replayed space's workload: not a CPU operator, not exported.
  database.PutWorkload({"ffffffffffffffff", "gemm", Json{{"kernel", "gemm"}}, task.space.ToJson()});
  Json note = CpuCorpusRunNote({}, {});
  note["machine"]["cpu"] = "Test CPU";
  database.SetNote("perf_corpus.runs", Json::array({note}).dump());

  const PerfCorpus corpus = ExportPerfCorpus(database, "");
  EXPECT_EQ(corpus.header["machine"]["cpu"], "Test CPU");
  EXPECT_EQ(corpus.header["template_versions"]["cpu"], kCpuTemplateVersion);
  EXPECT_EQ(corpus.header["program_graph_feature_version"], kProgramGraphFeatureVersion);
  EXPECT_EQ(corpus.header["measure_runs"].size(), 1u);
  EXPECT_EQ(corpus.header["protocol"]["min_repeats"], CpuRunnerOptions{}.min_repeats);
  EXPECT_FALSE(corpus.header.contains("note"));
  ASSERT_EQ(corpus.records.size(), 2u);
  const PerfCorpusRecord& ok = corpus.records[0];
  EXPECT_EQ(ok.op, OperatorToString(op));
  EXPECT_EQ(ok.kind, "dense");
  EXPECT_EQ(ok.target, "cpu");
  EXPECT_EQ(ok.template_version, kCpuTemplateVersion);
  EXPECT_EQ(ok.device, "Test CPU");
  EXPECT_EQ(ok.workload_key, task.WorkloadKey());
  EXPECT_EQ(ok.models, (std::vector<std::string>{"resnet18"}));
  EXPECT_EQ(ok.samples_s, records[0].samples_s);
  EXPECT_EQ(ok.time_s, 2e-5);
  EXPECT_EQ(ok.strategy, "corpus-uniform");
  EXPECT_EQ(ok.measured_at, 100.0);
  const PerfCorpusRecord& failed = corpus.records[1];
  EXPECT_EQ(failed.status, MeasureStatus::kWrongAnswer);
  EXPECT_EQ(failed.error, "max relative error 0.5");
  EXPECT_TRUE(failed.samples_s.empty());
  EXPECT_TRUE(std::isinf(failed.time_s));

  // What the featuriser does with a record: the operator, its space, the configuration, a graph.
  for (const PerfCorpusRecord& record : corpus.records) {
    const Operator back = ParseOperator(record.op);
    const ConfigSpace space = MakeCpuSpace(back);
    const Config config = space.ConfigFromJson(record.config);
    EXPECT_EQ(HashToHex(space.Hash(config)),
              HashToHex(task.space.Hash(configs[&record - &corpus.records[0]])));
    EXPECT_GT(BuildCpuProgramGraph(back, space, config).nodes.size(), 0u);
  }
  EXPECT_TRUE(ExportPerfCorpus(database, "another device").records.empty());
}

TEST(CorpusExportTest, WithoutARunNoteTheHeaderSaysSo) {
  Database database(testing::MakeTempDir("glimpse-corpus") + "/empty.db");
  const PerfCorpus corpus = ExportPerfCorpus(database, "");
  EXPECT_TRUE(corpus.records.empty());
  EXPECT_TRUE(corpus.header.contains("note"));
  EXPECT_EQ(corpus.header["machine"]["cpu"], CpuDeviceName());
}

}  // namespace
}  // namespace glimpse
