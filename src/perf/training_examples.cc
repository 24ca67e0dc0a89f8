// The performance model's training examples from a corpus (glimpse/perf_training.h): each ok
// record's program rebuilt and its time as ln(seconds). No libtorch here.
#include <fmt/format.h>

#include <cmath>

#include "glimpse/error.h"
#include "glimpse/perf_training.h"
#include "perf/record_programs.h"

namespace glimpse {

std::vector<PerfTrainingExample> PerfTrainingExamples(
    const std::vector<const PerfCorpusRecord*>& records, std::vector<std::string>* skipped,
    const std::function<double(const PerfCorpusRecord&)>& log_offset) {
  std::vector<PerfTrainingExample> examples;
  perf::RecordPrograms programs;
  for (size_t i = 0; i < records.size(); ++i) {
    const PerfCorpusRecord& record = *records[i];
    if (!record.ok() || !(record.time_s > 0.0) || !std::isfinite(record.time_s)) continue;
    try {
      PerfTrainingExample example;
      example.graph = programs.Graph(record);
      example.log_time = std::log(record.time_s);
      example.group = record.op;
      if (log_offset) example.log_offset = log_offset(record);
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
  perf::RecordPrograms programs;
  for (const PerfCorpusRecord* record : records) out.push_back(programs.Graph(*record));
  return out;
}

std::vector<double> PredictRecordSeconds(const PerfModel& model,
                                         const std::vector<const PerfCorpusRecord*>& records) {
  const std::vector<ProgramGraph> graphs = RecordProgramGraphs(records);
  std::vector<const ProgramGraph*> pointers;
  pointers.reserve(graphs.size());
  for (const ProgramGraph& graph : graphs) pointers.push_back(&graph);
  return model.PredictSeconds(pointers);
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
