// LearnedCostModel (glimpse/learned_cost_model.h): the learned performance model behind the
// CostModel interface of the model-based tuners.
#include "glimpse/learned_cost_model.h"

#include <fmt/format.h>

#include <cmath>
#include <unordered_set>

#include "glimpse/error.h"

namespace glimpse {

LearnedCostModel::LearnedCostModel(std::shared_ptr<const PerfModel> model, Operator op,
                                   const ConfigSpace& space)
    : model_(std::move(model)), op_(std::move(op)), space_(space) {
  if (!model_) throw Error("learned cost model: no performance model given");
}

std::string LearnedCostModel::FeatureVersion() const {
  return fmt::format("glimpse-perf-model/{} program-graph={} op={}",
                     PerfModelArchitectureName(model_->shape().architecture),
                     kProgramGraphFeatureVersion, OperatorToString(op_));
}

void LearnedCostModel::Fit(const std::vector<Config>&, const std::vector<double>&) {
  throw Error(
      "the learned performance model is pretrained (glimpse train perf-model); a tuner combines "
      "it with a model of its own instead of refitting it");
}

void LearnedCostModel::SetBaseModel(std::shared_ptr<const CostModel> base) {
  if (base) throw Error("the learned performance model takes no base model");
}

void LearnedCostModel::Save(const std::string& path) const {
  throw Error("'" + path + "': the learned performance model is saved by glimpse train perf-model");
}

void LearnedCostModel::Load(const std::string& path) {
  throw Error("'" + path + "': load a learned performance model with PerfModel::Load");
}

std::vector<double> LearnedCostModel::Predict(const std::vector<Config>& configs) const {
  std::lock_guard<std::mutex> lock(mutex_);
  // Build the programs of the configurations not scored yet (each once, however often it
  // appears), predict them in one batch, then answer from the cache.
  std::vector<ProgramGraph> graphs;
  std::vector<Config> pending;
  std::unordered_set<Config, ConfigHasher> pending_set;
  for (const Config& config : configs) {
    if (scores_.count(config) || pending_set.count(config)) continue;
    try {
      graphs.push_back(BuildCpuProgramGraph(op_, space_, config));
      pending_set.insert(config);
      pending.push_back(config);
    } catch (const Error&) {
      scores_.emplace(config, kUnbuildableScore);
    }
  }
  if (!graphs.empty()) {
    std::vector<const ProgramGraph*> pointers;
    pointers.reserve(graphs.size());
    for (const ProgramGraph& graph : graphs) pointers.push_back(&graph);
    const std::vector<double> log_times = model_->PredictLogTimes(pointers);
    for (size_t i = 0; i < pending.size(); ++i) {
      scores_.emplace(pending[i], std::isfinite(log_times[i]) ? -log_times[i] : kUnbuildableScore);
    }
  }
  std::vector<double> out;
  out.reserve(configs.size());
  for (const Config& config : configs) out.push_back(scores_.at(config));
  return out;
}

size_t LearnedCostModel::programs_scored() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return scores_.size();
}

Json PerfModelTrainingMachine(const PerfModel& model) {
  const Json& info = model.training_info();
  auto it = info.find("machine");
  return it == info.end() ? Json() : *it;
}

std::optional<std::string> PerfModelMachineWarning(const PerfModel& model, const std::string& cpu,
                                                   const std::string& model_path) {
  const Json machine = PerfModelTrainingMachine(model);
  if (!machine.is_object() || !machine.contains("cpu") || !machine["cpu"].is_string()) {
    return fmt::format(
        "the performance model '{}' does not say which machine it was trained on; its "
        "predictions may not rank this machine's ({}) kernels well",
        model_path, cpu);
  }
  const std::string trained_on = machine["cpu"].get<std::string>();
  if (trained_on == cpu) return std::nullopt;
  return fmt::format(
      "the performance model '{}' was trained on '{}', this machine is '{}': its predictions are "
      "the other machine's times, and their ranking may not carry over",
      model_path, trained_on, cpu);
}

}  // namespace glimpse
