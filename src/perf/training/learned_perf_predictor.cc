// The learned performance model as an evaluation predictor (glimpse/perf_training.h
// MakeLearnedPerfPredictor): trained on the split's training side, scored on its test side with
// the same metrics as the roofline and XGBoost; optionally relative to the roofline's estimate.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <optional>
#include <ostream>

#include "glimpse/error.h"
#include "glimpse/perf_training.h"

namespace glimpse {
namespace {

class LearnedPerfPredictor : public PerfPredictor {
 public:
  LearnedPerfPredictor(PerfModelTrainOptions options, std::ostream* progress,
                       std::optional<MachineProfile> efficiency)
      : options_(options), progress_(progress), efficiency_(std::move(efficiency)) {}

  std::string Name() const override {
    return std::string(PerfModelArchitectureName(options_.shape.architecture)) +
           (efficiency_ ? "-efficiency" : "");
  }

  void Fit(const std::vector<const PerfCorpusRecord*>& train) override {
    std::vector<std::string> skipped;
    std::function<double(const PerfCorpusRecord&)> offset;
    if (efficiency_) {
      offset = [this](const PerfCorpusRecord& r) { return LogRooflineEstimate(r, *efficiency_); };
    }
    std::vector<PerfTrainingExample> examples = PerfTrainingExamples(train, &skipped, offset);
    // The other predictors fail on a record whose program cannot be rebuilt; so does this one,
    // rather than train on fewer records than they do.
    if (!skipped.empty()) {
      throw Error(fmt::format("{} perf predictor: {} training records cannot be rebuilt, e.g. {}",
                              Name(), skipped.size(), skipped.front()));
    }
    if (progress_) {
      *progress_ << fmt::format("training {} on {} records …\n", Name(), examples.size());
    }
    model_.emplace(TrainPerfModel(examples, options_, &report_, progress_));
  }

  std::vector<double> PredictSeconds(const std::vector<const PerfCorpusRecord*>& records) override {
    if (!model_) throw Error(Name() + " perf predictor: PredictSeconds before Fit");
    std::vector<double> seconds = PredictRecordSeconds(*model_, records);
    if (efficiency_) {
      for (size_t i = 0; i < seconds.size(); ++i) {
        seconds[i] *= std::exp(LogRooflineEstimate(*records[i], *efficiency_));
      }
    }
    return seconds;
  }

  Json Describe() const override {
    Json out = {{"architecture", Name()},
                {"hidden", options_.shape.hidden},
                {"hops", options_.shape.hops},
                {"readout_hidden", options_.shape.readout_hidden},
                {"epochs", options_.epochs},
                {"batch_size", options_.batch_size},
                {"learning_rate", options_.learning_rate},
                {"rank_loss", PerfRankLossName(options_.rank_loss)},
                {"rank_loss_weight", options_.rank_loss_weight},
                {"validation_fraction", options_.validation_fraction},
                {"patience", options_.patience},
                {"seed", options_.seed},
                {"target", efficiency_ ? "log-efficiency" : "log-time"}};
    if (model_) {
      out["train_examples"] = report_.train_examples;
      out["validation_examples"] = report_.validation_examples;
      out["epochs_run"] = report_.epochs.size();
      out["best_epoch"] = report_.best_epoch + 1;
      if (report_.best_epoch >= 0) {
        const PerfModelEpoch& best = report_.epochs.at(static_cast<size_t>(report_.best_epoch));
        out["train_log_mse"] = best.train_log_mse;
        out["validation_log_mse"] = best.validation_log_mse;
      }
      out["train_seconds"] = report_.seconds;
    }
    return out;
  }

 private:
  PerfModelTrainOptions options_;
  std::ostream* progress_;
  std::optional<MachineProfile> efficiency_;
  std::optional<PerfModel> model_;
  PerfModelTrainReport report_;
};

}  // namespace

std::unique_ptr<PerfPredictor> MakeLearnedPerfPredictor(const PerfModelTrainOptions& options,
                                                        std::ostream* progress,
                                                        std::optional<MachineProfile> efficiency) {
  return std::make_unique<LearnedPerfPredictor>(options, progress, std::move(efficiency));
}

}  // namespace glimpse
