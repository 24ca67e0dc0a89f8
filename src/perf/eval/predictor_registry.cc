// The predictors by name (glimpse/perf_predictor.h): the one place a new performance model joins
// the evaluation.
#include "glimpse/error.h"
#include "glimpse/perf_predictor.h"

namespace glimpse {

const std::vector<std::string>& PerfPredictorNames() {
  static const std::vector<std::string> names = {
      "roofline",
      "roofline-cal",
      "xgb",
      "xgb-rank",
      "xgb-roofline",
      "xgb-rank-roofline",
      "xgb-roofline-schedule",
      "xgb-rank-roofline-schedule",
      "xgb-efficiency-roofline-schedule",
      "graphsage",
      "lstm",
      "graphsage-efficiency",
      "lstm-efficiency",
  };
  return names;
}

std::unique_ptr<PerfPredictor> MakePerfPredictor(const std::string& name,
                                                 const PerfPredictorOptions& options) {
  if (name == "roofline") return MakeRooflinePredictor(options.profile, /*calibrated=*/false);
  if (name == "roofline-cal") return MakeRooflinePredictor(options.profile, /*calibrated=*/true);
  const bool efficiency = name == "xgb-efficiency-roofline-schedule";
  const bool schedule =
      efficiency || name == "xgb-roofline-schedule" || name == "xgb-rank-roofline-schedule";
  const bool ranked =
      name == "xgb-rank" || name == "xgb-rank-roofline" || name == "xgb-rank-roofline-schedule";
  const bool roofline = schedule || name == "xgb-roofline" || name == "xgb-rank-roofline";
  if (name == "xgb" || ranked || roofline) {
    XgbPerfOptions xgb = options.xgb;
    if (ranked) xgb.target = "rank";
    if (efficiency) xgb.target = "log-efficiency";
    // The roofline features are the roofline predictor's estimate on the same profile; the
    // schedule's ratios read the same profile's threads, lanes and registers.
    if (roofline) xgb.roofline = options.profile;
    xgb.schedule = schedule;
    return MakeXgbPerfPredictor(xgb);
  }
  if (name == "graphsage" || name == "lstm" || name == "graphsage-efficiency" ||
      name == "lstm-efficiency") {
    if (!options.learned) {
      throw Error("performance predictor '" + name +
                  "' trains with libtorch, which this build lacks (GLIMPSE_WITH_TORCH=OFF or "
                  "glimpse_lite); a trained model still evaluates as file:MODEL.json");
    }
    return options.learned(name);
  }
  if (name.rfind("file:", 0) == 0) return MakeModelFilePerfPredictor(name.substr(5));
  std::string known;
  for (const std::string& n : PerfPredictorNames()) known += (known.empty() ? "" : ", ") + n;
  throw Error("unknown performance predictor '" + name + "'; known: " + known +
              ", file:MODEL.json");
}

}  // namespace glimpse
