#include "perf/eval/record_programs.h"

#include "glimpse/cpu.h"
#include "glimpse/error.h"
#include "glimpse/perf_predictor.h"

namespace glimpse {

namespace perf {

LoopNest RecordPrograms::Nest(const PerfCorpusRecord& record) {
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

}  // namespace perf

LoopNest RecordNest(const PerfCorpusRecord& record) {
  perf::RecordPrograms programs;
  return programs.Nest(record);
}

}  // namespace glimpse
