// The performance model's training examples from a corpus (glimpse/perf_training.h): each ok
// record's program rebuilt and its time as ln(seconds). No libtorch here.
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <memory>

#include "glimpse/cpu.h"
#include "glimpse/error.h"
#include "glimpse/perf_training.h"

namespace glimpse {

namespace {

// Each operator's space is made once: building a space is the slow part of a small nest.
class RecordGraphs {
 public:
  ProgramGraph Graph(const PerfCorpusRecord& record) {
    if (record.target != "cpu") {
      throw Error(
          fmt::format("{}: target '{}' has no program graph here", record.op, record.target));
    }
    auto& entry = spaces_[record.op];
    if (!entry) {
      Operator op = ParseOperator(record.op);
      ConfigSpace space = MakeCpuSpace(op);
      entry = std::make_unique<std::pair<Operator, ConfigSpace>>(op, std::move(space));
    }
    try {
      return BuildCpuProgramGraph(entry->first, entry->second,
                                  entry->second.ConfigFromJson(record.config));
    } catch (const Error& e) {
      throw Error(fmt::format("{}: {}", record.op, e.what()));
    }
  }

 private:
  std::map<std::string, std::unique_ptr<std::pair<Operator, ConfigSpace>>> spaces_;
};

}  // namespace

std::vector<PerfTrainingExample> PerfTrainingExamples(
    const std::vector<const PerfCorpusRecord*>& records, std::vector<std::string>* skipped) {
  std::vector<PerfTrainingExample> examples;
  RecordGraphs graphs;
  for (size_t i = 0; i < records.size(); ++i) {
    const PerfCorpusRecord& record = *records[i];
    if (!record.ok() || !(record.time_s > 0.0) || !std::isfinite(record.time_s)) continue;
    try {
      PerfTrainingExample example;
      example.graph = graphs.Graph(record);
      example.log_time = std::log(record.time_s);
      example.group = record.op;
      examples.push_back(std::move(example));
    } catch (const Error& e) {
      if (skipped) skipped->push_back(fmt::format("record {}: {}", i, e.what()));
    }
  }
  return examples;
}

std::vector<PerfTrainingExample> PerfTrainingExamples(const PerfCorpus& corpus,
                                                      std::vector<std::string>* skipped) {
  std::vector<const PerfCorpusRecord*> records;
  records.reserve(corpus.records.size());
  for (const PerfCorpusRecord& record : corpus.records) records.push_back(&record);
  return PerfTrainingExamples(records, skipped);
}

std::vector<ProgramGraph> RecordProgramGraphs(const std::vector<const PerfCorpusRecord*>& records) {
  std::vector<ProgramGraph> out;
  out.reserve(records.size());
  RecordGraphs graphs;
  for (const PerfCorpusRecord* record : records) out.push_back(graphs.Graph(*record));
  return out;
}

const char* PerfRankLossName(PerfRankLoss loss) {
  return loss == PerfRankLoss::kHinge ? "hinge" : "logistic";
}

PerfRankLoss ParsePerfRankLoss(const std::string& name) {
  if (name == "hinge") return PerfRankLoss::kHinge;
  if (name == "logistic") return PerfRankLoss::kLogistic;
  throw Error(fmt::format("unknown rank loss '{}'; known: hinge, logistic", name));
}

}  // namespace glimpse
