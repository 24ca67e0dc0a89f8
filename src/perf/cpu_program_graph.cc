// The program graph of a CPU template's nest (glimpse/program_graph.h). Apart from the rest of the
// area so that the graph itself stays target-independent: another target adds a file like this.
#include "glimpse/cpu.h"
#include "glimpse/program_graph.h"

namespace glimpse {

ProgramGraph BuildCpuProgramGraph(const Operator& op, const ConfigSpace& space,
                                  const Config& config) {
  return BuildProgramGraph(MakeCpuNest(op, space, config));
}

}  // namespace glimpse
