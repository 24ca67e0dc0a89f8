// CostModelChoice (glimpse/cost_model_choice.h): the members a tuner chooses among, their mean
// as a plain cost model, and the record of the choice.
#include "glimpse/cost_model_choice.h"

#include "glimpse/error.h"

namespace glimpse {

CostModelChoice::CostModelChoice(std::vector<std::shared_ptr<const CostModel>> members,
                                 std::vector<std::string> names)
    : members_(std::move(members)), names_(std::move(names)) {
  if (members_.size() < 2) {
    throw Error("a choice of cost models needs at least two members (got " +
                std::to_string(members_.size()) + ")");
  }
  if (names_.size() != members_.size()) {
    throw Error("a choice of " + std::to_string(members_.size()) + " cost models got " +
                std::to_string(names_.size()) + " names");
  }
  for (size_t m = 0; m < members_.size(); ++m) {
    if (!members_[m]) throw Error("a choice of cost models: member '" + names_[m] + "' is null");
  }
}

std::string CostModelChoice::FeatureVersion() const {
  std::string version = "choice(";
  for (size_t m = 0; m < members_.size(); ++m) {
    version += (m ? " | " : "") + members_[m]->FeatureVersion();
  }
  return version + ")";
}

void CostModelChoice::Fit(const std::vector<Config>&, const std::vector<double>&) {
  throw Error("a choice of pretrained cost models is not trained by a tuner");
}

std::vector<double> CostModelChoice::Predict(const std::vector<Config>& configs) const {
  std::vector<double> mean(configs.size(), 0.0);
  for (const auto& member : members_) {
    const std::vector<double> scores = member->Predict(configs);
    for (size_t i = 0; i < configs.size(); ++i) mean[i] += scores[i];
  }
  for (double& score : mean) score /= static_cast<double>(members_.size());
  return mean;
}

void CostModelChoice::SetBaseModel(std::shared_ptr<const CostModel>) {
  throw Error("a choice of pretrained cost models takes no base model");
}

void CostModelChoice::Save(const std::string& path) const {
  throw Error("a choice of pretrained cost models is not saved (" + path +
              "): each member is its own model file");
}

void CostModelChoice::Load(const std::string& path) {
  throw Error("a choice of pretrained cost models is not loaded from one file (" + path + ")");
}

void CostModelChoice::RecordOutcome(Outcome outcome) const {
  if (outcome.chosen < -1 || outcome.chosen >= static_cast<int>(members_.size()) ||
      outcome.best_time_s.size() != members_.size()) {
    throw Error("a choice of " + std::to_string(members_.size()) +
                " cost models cannot record member " + std::to_string(outcome.chosen) +
                " chosen with " + std::to_string(outcome.best_time_s.size()) + " times");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  outcome_ = std::move(outcome);
}

CostModelChoice::Outcome CostModelChoice::outcome() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return outcome_;
}

}  // namespace glimpse
