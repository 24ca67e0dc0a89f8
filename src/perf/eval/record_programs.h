// The programs of corpus records, rebuilt from operator + configuration, with each operator's
// space made once (MakeCpuSpace enumerates the split knobs: far more than a nest costs). Private
// to src/perf/eval.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "glimpse/loop_nest.h"
#include "glimpse/ops.h"
#include "glimpse/perf_corpus.h"
#include "glimpse/space.h"

namespace glimpse::perf {

class RecordPrograms {
 public:
  // The CPU template's nest of `record`; throws Error naming the operator when it does not
  // instantiate.
  LoopNest Nest(const PerfCorpusRecord& record);

 private:
  std::map<std::string, std::pair<Operator, std::unique_ptr<ConfigSpace>>> spaces_;
};

}  // namespace glimpse::perf
