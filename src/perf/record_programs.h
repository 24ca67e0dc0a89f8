// The programs of corpus records, rebuilt from operator + configuration, with each operator's
// space made once (MakeCpuSpace enumerates the split knobs: far more than a nest costs). Private
// to src/perf: the training examples and the evaluation's predictors read records through it.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "glimpse/loop_nest.h"
#include "glimpse/ops.h"
#include "glimpse/perf_corpus.h"
#include "glimpse/program_graph.h"
#include "glimpse/program_time_model.h"
#include "glimpse/space.h"

namespace glimpse::perf {

class RecordPrograms {
 public:
  // The CPU template's nest of `record`; throws Error naming the operator when the record is not
  // a CPU one or its configuration does not instantiate.
  LoopNest Nest(const PerfCorpusRecord& record);
  // BuildProgramGraph(Nest(record)).
  ProgramGraph Graph(const PerfCorpusRecord& record);
  // `model`'s predicted seconds of each record's program, in order (one batched call).
  std::vector<double> PredictSeconds(const ProgramTimeModel& model,
                                     const std::vector<const PerfCorpusRecord*>& records);

 private:
  std::map<std::string, std::pair<Operator, std::unique_ptr<ConfigSpace>>> spaces_;
};

}  // namespace glimpse::perf
