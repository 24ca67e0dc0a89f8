#include "perf/record_programs.h"

#include <cmath>

#include "glimpse/cpu.h"
#include "glimpse/error.h"

namespace glimpse {
namespace perf {

LoopNest RecordPrograms::Nest(const PerfCorpusRecord& record) {
  if (record.target != "cpu") {
    throw Error("corpus record of '" + record.op + "': target '" + record.target +
                "' has no program here (CPU records only)");
  }
  auto it = spaces_.find(record.op);
  if (it == spaces_.end()) {
    Operator op = ParseOperator(record.op);
    auto space = std::make_unique<ConfigSpace>(MakeCpuSpace(op));
    it = spaces_.emplace(record.op, std::make_pair(std::move(op), std::move(space))).first;
  }
  const auto& [op, space] = it->second;
  try {
    return MakeCpuNest(op, *space, space->ConfigFromJson(record.config));
  } catch (const Error& error) {
    throw Error("corpus record of '" + record.op + "': " + error.what());
  }
}

ProgramGraph RecordPrograms::Graph(const PerfCorpusRecord& record) {
  return BuildProgramGraph(Nest(record));
}

std::vector<double> RecordPrograms::PredictSeconds(
    const ProgramTimeModel& model, const std::vector<const PerfCorpusRecord*>& records) {
  std::vector<LoopNest> nests;
  nests.reserve(records.size());
  for (const PerfCorpusRecord* record : records) nests.push_back(Nest(*record));
  std::vector<const LoopNest*> pointers;
  pointers.reserve(nests.size());
  for (const LoopNest& nest : nests) pointers.push_back(&nest);
  std::vector<double> out = model.PredictLogTimes(pointers);
  for (double& value : out) value = std::exp(value);
  return out;
}

}  // namespace perf
}  // namespace glimpse
