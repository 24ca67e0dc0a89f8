// RecordNest (glimpse/perf_predictor.h): one record's nest, for callers outside src/perf.
#include "glimpse/perf_predictor.h"
#include "perf/record_programs.h"

namespace glimpse {

LoopNest RecordNest(const PerfCorpusRecord& record) {
  perf::RecordPrograms programs;
  return programs.Nest(record);
}

}  // namespace glimpse
