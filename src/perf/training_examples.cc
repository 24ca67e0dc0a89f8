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

std::vector<PerfTrainingExample> PerfTrainingExamples(const PerfCorpus& corpus,
                                                      std::vector<std::string>* skipped) {
  std::vector<PerfTrainingExample> examples;
  // One space per operator: building a space is the slow part of a small nest.
  std::map<std::string, std::unique_ptr<std::pair<Operator, ConfigSpace>>> spaces;
  for (size_t i = 0; i < corpus.records.size(); ++i) {
    const PerfCorpusRecord& record = corpus.records[i];
    if (!record.ok() || !(record.time_s > 0.0) || !std::isfinite(record.time_s)) continue;
    try {
      if (record.target != "cpu") {
        throw Error(fmt::format("target '{}' has no program graph here", record.target));
      }
      auto& entry = spaces[record.op];
      if (!entry) {
        Operator op = ParseOperator(record.op);
        ConfigSpace space = MakeCpuSpace(op);
        entry = std::make_unique<std::pair<Operator, ConfigSpace>>(op, std::move(space));
      }
      PerfTrainingExample example;
      example.graph = BuildCpuProgramGraph(entry->first, entry->second,
                                           entry->second.ConfigFromJson(record.config));
      example.log_time = std::log(record.time_s);
      example.group = record.op;
      examples.push_back(std::move(example));
    } catch (const Error& e) {
      if (skipped) skipped->push_back(fmt::format("record {} ({}): {}", i, record.op, e.what()));
    }
  }
  return examples;
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
