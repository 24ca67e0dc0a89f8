// A trained performance model file as an evaluation predictor (glimpse/perf_predictor.h
// MakeModelFilePerfPredictor): scores a model on a corpus it did not train on. Either kind of file
// (the learned network, XGBoost on loop features: LoadProgramTimeModel), or files joined by '+',
// scored as their mean (glimpse/mean_time_model.h).
#include <cmath>

#include "glimpse/error.h"
#include "glimpse/mean_time_model.h"
#include "glimpse/perf_predictor.h"
#include "perf/record_programs.h"

namespace glimpse {
namespace {

class ModelFilePerfPredictor : public PerfPredictor {
 public:
  explicit ModelFilePerfPredictor(const std::string& path)
      : path_(path), model_(LoadProgramTimeModelSpec(path)) {}

  std::string Name() const override { return "file:" + path_; }

  void Fit(const std::vector<const PerfCorpusRecord*>&) override {}
  bool LearnsFromRecords() const override { return false; }

  std::vector<double> PredictSeconds(const std::vector<const PerfCorpusRecord*>& records) override {
    return programs_.PredictSeconds(*model_, records);
  }

  Json Describe() const override {
    return {{"file", path_},
            {"architecture", model_->Architecture()},
            {"made_by", model_->MadeBy()},
            {"training", model_->TrainingInfo()}};
  }

 private:
  std::string path_;
  std::shared_ptr<const ProgramTimeModel> model_;
  perf::RecordPrograms programs_;
};

}  // namespace

std::unique_ptr<PerfPredictor> MakeModelFilePerfPredictor(const std::string& path) {
  return std::make_unique<ModelFilePerfPredictor>(path);
}

}  // namespace glimpse
