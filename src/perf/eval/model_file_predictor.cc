// A trained performance model file as an evaluation predictor (glimpse/perf_predictor.h
// MakeModelFilePerfPredictor): scores a model on a corpus it did not train on.
#include "glimpse/error.h"
#include "glimpse/perf_model.h"
#include "glimpse/perf_predictor.h"
#include "glimpse/perf_training.h"  // RecordProgramGraphs (no libtorch)

namespace glimpse {
namespace {

class ModelFilePerfPredictor : public PerfPredictor {
 public:
  explicit ModelFilePerfPredictor(const std::string& path)
      : path_(path), model_(PerfModel::Load(path)) {}

  std::string Name() const override { return "file:" + path_; }

  void Fit(const std::vector<const PerfCorpusRecord*>&) override {}

  std::vector<double> PredictSeconds(const std::vector<const PerfCorpusRecord*>& records) override {
    return PredictRecordSeconds(model_, records);
  }

  Json Describe() const override {
    return {{"file", path_},
            {"architecture", PerfModelArchitectureName(model_.shape().architecture)},
            {"made_by", model_.made_by()},
            {"training", model_.training_info()}};
  }

 private:
  std::string path_;
  PerfModel model_;
};

}  // namespace

std::unique_ptr<PerfPredictor> MakeModelFilePerfPredictor(const std::string& path) {
  return std::make_unique<ModelFilePerfPredictor>(path);
}

}  // namespace glimpse
