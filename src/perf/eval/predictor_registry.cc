// The predictors by name (glimpse/perf_predictor.h): the one place a new performance model joins
// the evaluation.
#include "glimpse/error.h"
#include "glimpse/perf_predictor.h"

namespace glimpse {

const std::vector<std::string>& PerfPredictorNames() {
  static const std::vector<std::string> names = {"roofline", "roofline-cal", "xgb"};
  return names;
}

std::unique_ptr<PerfPredictor> MakePerfPredictor(const std::string& name,
                                                 const PerfPredictorOptions& options) {
  if (name == "roofline") return MakeRooflinePredictor(options.profile, /*calibrated=*/false);
  if (name == "roofline-cal") return MakeRooflinePredictor(options.profile, /*calibrated=*/true);
  if (name == "xgb") return MakeXgbPerfPredictor(options.xgb);
  // TODO(issue 17, part 3): the learned models join here — "graphsage" and "lstm" made from a
  // trained file (PerfPredictorOptions gains its path, `glimpse perf-model evaluate --model FILE`)
  // or trained on the split's training records in Fit; add their names to PerfPredictorNames().
  std::string known;
  for (const std::string& n : PerfPredictorNames()) known += (known.empty() ? "" : ", ") + n;
  throw Error("unknown performance predictor '" + name + "'; known: " + known);
}

}  // namespace glimpse
