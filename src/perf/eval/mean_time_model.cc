// Several performance models as one, by the mean of their ln-time predictions
// (glimpse/mean_time_model.h).
#include "glimpse/mean_time_model.h"

#include <fmt/format.h>

#include <filesystem>

#include "glimpse/error.h"
#include "glimpse/xgb_perf_model.h"

namespace glimpse {
namespace {

class MeanTimeModel : public ProgramTimeModel {
 public:
  explicit MeanTimeModel(std::vector<std::shared_ptr<const ProgramTimeModel>> members)
      : members_(std::move(members)) {
    Json infos = Json::array();
    for (const auto& member : members_) infos.push_back(member->TrainingInfo());
    training_ = {{"members", infos}};
    const Json& first = members_.front()->TrainingInfo();
    if (first.is_object() && first.contains("machine")) training_["machine"] = first.at("machine");
  }

  std::string Architecture() const override {
    std::string out = "mean(";
    for (size_t i = 0; i < members_.size(); ++i) {
      out += (i ? "+" : "") + members_[i]->Architecture();
    }
    return out + ")";
  }

  std::vector<double> PredictLogTimes(const std::vector<const LoopNest*>& nests) const override {
    std::vector<double> sum(nests.size(), 0.0);
    for (const auto& member : members_) {
      const std::vector<double> predicted = member->PredictLogTimes(nests);
      for (size_t i = 0; i < sum.size(); ++i) sum[i] += predicted[i];
    }
    for (double& value : sum) value /= static_cast<double>(members_.size());
    return sum;
  }

  const Json& TrainingInfo() const override { return training_; }

  const std::vector<std::shared_ptr<const ProgramTimeModel>>& members() const { return members_; }

  std::string MadeBy() const override {
    std::string out;
    for (size_t i = 0; i < members_.size(); ++i) {
      out += (i ? " + " : "") + members_[i]->MadeBy();
    }
    return out;
  }

 private:
  std::vector<std::shared_ptr<const ProgramTimeModel>> members_;
  Json training_;
};

}  // namespace

std::shared_ptr<const ProgramTimeModel> MeanOfProgramTimeModels(
    std::vector<std::shared_ptr<const ProgramTimeModel>> members) {
  if (members.size() < 2) {
    throw Error(
        fmt::format("a mean of performance models needs at least two (got {})", members.size()));
  }
  for (const auto& member : members) {
    if (!member) throw Error("a mean of performance models was given a null model");
  }
  return std::make_shared<const MeanTimeModel>(std::move(members));
}

std::vector<std::shared_ptr<const ProgramTimeModel>> MembersOfMean(const ProgramTimeModel& model) {
  const auto* mean = dynamic_cast<const MeanTimeModel*>(&model);
  return mean ? mean->members() : std::vector<std::shared_ptr<const ProgramTimeModel>>{};
}

std::shared_ptr<const ProgramTimeModel> LoadProgramTimeModelSpec(const std::string& spec) {
  // A file whose name holds '+' is still that file.
  if (spec.find('+') == std::string::npos || std::filesystem::exists(spec)) {
    return LoadProgramTimeModel(spec);
  }
  std::vector<std::shared_ptr<const ProgramTimeModel>> members;
  size_t start = 0;
  while (true) {
    const size_t plus = spec.find('+', start);
    const std::string path = spec.substr(start, plus == std::string::npos ? plus : plus - start);
    if (path.empty()) {
      throw Error(fmt::format(
          "'{}': an empty model file name in a mean of models (give files joined by '+', e.g. "
          "a.json+b.json)",
          spec));
    }
    members.push_back(LoadProgramTimeModel(path));
    if (plus == std::string::npos) break;
    start = plus + 1;
  }
  return MeanOfProgramTimeModels(std::move(members));
}

}  // namespace glimpse
