// glimpse/xgb_perf_model.h — XGBoost on loop features, fitted once on the measured corpus and
// saved: AutoTVM's transfer model (`load_history`) as a pretrained performance model that
// `glimpse tune --cost-model FILE` takes like the learned network (docs/perf-tuning.md "XGB with
// transfer from the corpus").
//
// The features and the regression are the evaluation's `xgb` predictor's (glimpse/perf_predictor.h
// XgbPerfFeatures, XgbPerfOptions; docs/perf-eval.md): reg:squarederror on ln(time_s) over the
// 7 × kProgramGraphFeatureWidth loop features of each record's program, over every operator and
// template of the corpus at once (no one-hot of the kind: the program features tell the
// templates apart — statement types, tensors, loops).
//
// The file is a performance-model file told apart by its architecture:
//   {"format": "glimpse-perf-model", "version": kXgbPerfModelVersion,
//    "architecture": "xgb-loop-features",
//    "program_graph_feature_version": kProgramGraphFeatureVersion,
//    "feature_width": XgbPerfRowWidth(options),
//    "options": {"rounds", "eta", "max_depth", "min_child_weight", "subsample", "seed", "target",
//                and "roofline_profile" (the machine profile's JSON) when the rows carry the
//                roofline's terms},
//    "made_by": the command line,
//    "training": {"examples", "operators", "kinds", "train_log_mse" (ln s, on the training
//                 records), and from the command: "corpus", "machine" (the corpus header's),
//                 "excluded_models", "excluded_operators", "seconds"},
//    "booster": XGBoost's own JSON model (XGBoosterSaveModelToBuffer, format "json")}
// The booster is embedded as a JSON object rather than base64 of UBJSON: the file stays one JSON
// document that a person (or jq) can read and diff, with no encoding of our own to get wrong;
// XGBoost's JSON writer prints each float32 so that it reads back to the same value, and
// nlohmann's round trip through double keeps it (tests/perf/xgb_perf_model_test.cc checks that a
// loaded model predicts what the trained one did). The price is a larger file (a few MB at the
// default 300 rounds), which is read once per `glimpse tune`.
// PerfModel::Load refuses such a file naming it; LoadProgramTimeModel reads either kind.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "glimpse/json.h"
#include "glimpse/perf_corpus.h"
#include "glimpse/perf_predictor.h"
#include "glimpse/program_time_model.h"

namespace glimpse {

constexpr const char* kXgbPerfModelArchitecture = "xgb-loop-features";
// Bump when the file's fields or the layout of XgbPerfFeatures change; Load refuses other
// versions.
constexpr int kXgbPerfModelVersion = 1;

// Copies share one booster. Do not let a static destructor free the last one: XGBoost's booster
// then reaches for the main thread's thread-locals, which are gone by that time.
class XgbPerfModel : public ProgramTimeModel {
 public:
  // Fits the regression on every ok record with a positive, finite time, its program rebuilt
  // from operator and configuration. A record whose program cannot be rebuilt is left out, with
  // why in `skipped` ("record <position>: …") when given, else it is an Error. Throws Error
  // when no record is left. Deterministic for the options' seed (subsample 1, one thread).
  static XgbPerfModel Train(const std::vector<const PerfCorpusRecord*>& records,
                            const XgbPerfOptions& options,
                            std::vector<std::string>* skipped = nullptr);

  // Reads a model file. Throws Error naming `path` for a file that is not JSON, not a
  // glimpse-perf-model of architecture xgb-loop-features, of another version, program-graph
  // feature version or feature width (with the command that remakes it), or with a missing field
  // or a booster XGBoost cannot read.
  static XgbPerfModel Load(const std::string& path);
  // `origin` names the file in errors.
  static XgbPerfModel FromJson(const Json& json, const std::string& origin);
  Json ToJson() const;
  // Written atomically (temporary file, rename); creates the parent directory.
  void Save(const std::string& path) const;

  std::string Architecture() const override { return kXgbPerfModelArchitecture; }
  // exp(prediction) is the predicted time in seconds. Serialised by a lock: XGBoost's predict
  // writes into the booster.
  std::vector<double> PredictLogTimes(const std::vector<const LoopNest*>& nests) const override;
  const Json& TrainingInfo() const override { return training_; }
  std::string MadeBy() const override { return made_by_; }

  const XgbPerfOptions& options() const { return options_; }
  // "examples", "operators", "kinds", "train_log_mse" from Train; the command adds where they
  // came from.
  Json& training_info() { return training_; }
  void set_made_by(std::string command) { made_by_ = std::move(command); }

 private:
  struct Booster;  // XGBoost's booster (src/model/xgboost_api.h) and the lock around it
  XgbPerfModel(XgbPerfOptions options, std::shared_ptr<Booster> booster);

  XgbPerfOptions options_;
  std::shared_ptr<Booster> booster_;
  std::string made_by_;
  Json training_ = Json::object();
};

// Reads a performance-model file of either kind, by its "architecture": xgb-loop-features as an
// XgbPerfModel, anything else as the learned network (PerfModel::Load, AsProgramTimeModel). The
// errors are the two loaders', naming `path`.
std::shared_ptr<const ProgramTimeModel> LoadProgramTimeModel(const std::string& path);

}  // namespace glimpse
