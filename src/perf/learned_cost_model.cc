// LearnedCostModel (glimpse/learned_cost_model.h): a pretrained performance model behind the
// CostModel interface of the model-based tuners; the learned network as a ProgramTimeModel
// (glimpse/program_time_model.h).
#include "glimpse/learned_cost_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <exception>
#include <thread>
#include <unordered_set>

#include "glimpse/cpu.h"
#include "glimpse/error.h"

namespace glimpse {

namespace {

class NetworkTimeModel : public ProgramTimeModel {
 public:
  NetworkTimeModel(std::shared_ptr<const PerfModel> model, ProgramLogOffset log_offset)
      : model_(std::move(model)), log_offset_(std::move(log_offset)) {}

  std::string Architecture() const override {
    return PerfModelArchitectureName(model_->shape().architecture);
  }

  std::vector<double> PredictLogTimes(const std::vector<const LoopNest*>& nests) const override {
    std::vector<ProgramGraph> graphs;
    graphs.reserve(nests.size());
    for (const LoopNest* nest : nests) graphs.push_back(BuildProgramGraph(*nest));
    std::vector<const ProgramGraph*> pointers;
    pointers.reserve(graphs.size());
    for (const ProgramGraph& graph : graphs) pointers.push_back(&graph);
    std::vector<double> log_times = model_->PredictLogTimes(pointers);
    if (log_offset_) {
      for (size_t i = 0; i < nests.size(); ++i) log_times[i] += log_offset_(*nests[i]);
    }
    return log_times;
  }

  const Json& TrainingInfo() const override { return model_->training_info(); }
  std::string MadeBy() const override { return model_->made_by(); }

 private:
  std::shared_ptr<const PerfModel> model_;
  ProgramLogOffset log_offset_;
};

Json TrainingMachine(const Json& info) {
  if (!info.is_object()) return Json();
  auto it = info.find("machine");
  return it == info.end() ? Json() : *it;
}

std::optional<std::string> MachineWarning(const Json& machine, const std::string& cpu,
                                          const std::string& model_path) {
  if (!machine.is_object() || !machine.contains("cpu") || !machine["cpu"].is_string()) {
    return fmt::format(
        "the performance model '{}' does not say which machine it was trained on; its "
        "predictions may not rank this machine's ({}) kernels well",
        model_path, cpu);
  }
  const std::string trained_on = machine["cpu"].get<std::string>();
  if (trained_on == cpu) return std::nullopt;
  // A generic name ("AMD EPYC") recorded before names carried the family and model
  // (glimpse/cpu_identity.h), which this machine's name extends: it may be this kind of CPU or
  // another that shares the name, and the file cannot tell which.
  const bool generic = std::none_of(trained_on.begin(), trained_on.end(),
                                    [](unsigned char c) { return std::isdigit(c); });
  if (generic && cpu.rfind(trained_on + " (", 0) == 0) {
    return fmt::format(
        "the performance model '{}' was trained on a CPU recorded only as '{}', a generic name "
        "that several kinds of CPU share (glimpse now adds such a CPU's family and model); this "
        "machine is '{}': if the model was trained on another kind, its ranking may not carry "
        "over (the documentation of its training corpus may say which kind it was)",
        model_path, trained_on, cpu);
  }
  return fmt::format(
      "the performance model '{}' was trained on '{}', this machine is '{}': its predictions are "
      "the other machine's times, and their ranking may not carry over",
      model_path, trained_on, cpu);
}

}  // namespace

std::shared_ptr<const ProgramTimeModel> AsProgramTimeModel(std::shared_ptr<const PerfModel> model,
                                                           ProgramLogOffset log_offset) {
  if (!model) throw Error("AsProgramTimeModel: no performance model given");
  if (model->RelativeToRoofline() && !log_offset) {
    throw Error(
        "AsProgramTimeModel: the network predicts times relative to the roofline's estimate "
        "(target log-efficiency); read its file with LoadProgramTimeModel "
        "(glimpse/xgb_perf_model.h), which adds the estimate");
  }
  return std::make_shared<NetworkTimeModel>(std::move(model), std::move(log_offset));
}

LearnedCostModel::LearnedCostModel(std::shared_ptr<const ProgramTimeModel> model, Operator op,
                                   const ConfigSpace& space)
    : model_(std::move(model)),
      op_(std::move(op)),
      space_(space),
      threads_(std::max(1u, std::thread::hardware_concurrency())) {
  if (!model_) throw Error("learned cost model: no performance model given");
}

LearnedCostModel::LearnedCostModel(std::shared_ptr<const PerfModel> model, Operator op,
                                   const ConfigSpace& space)
    : LearnedCostModel(model ? AsProgramTimeModel(std::move(model)) : nullptr, std::move(op),
                       space) {}

std::string LearnedCostModel::FeatureVersion() const {
  return fmt::format("glimpse-perf-model/{} program-graph={} op={}", model_->Architecture(),
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
  throw Error("'" + path +
              "': load a performance model with LoadProgramTimeModel (glimpse/xgb_perf_model.h)");
}

std::vector<double> LearnedCostModel::Predict(const std::vector<Config>& configs) const {
  std::lock_guard<std::mutex> lock(mutex_);
  // The configurations not scored yet, each once however often it appears.
  std::vector<Config> pending;
  std::unordered_set<Config, ConfigHasher> pending_set;
  for (const Config& config : configs) {
    if (scores_.count(config) || !pending_set.insert(config).second) continue;
    pending.push_back(config);
  }
  // Their programs are built and predicted in chunks on every core: a planner asks for
  // thousands at a time and nothing else runs meanwhile (the model is safe to share,
  // glimpse/program_time_model.h).
  std::vector<double> scores(pending.size(), kUnbuildableScore);
  const size_t chunks = std::min(pending.size() / kMinChunk + 1, threads_);
  auto score_chunk = [&](size_t chunk) {
    const size_t begin = pending.size() * chunk / chunks;
    const size_t end = pending.size() * (chunk + 1) / chunks;
    std::vector<LoopNest> nests;
    std::vector<size_t> built;
    nests.reserve(end - begin);
    for (size_t i = begin; i < end; ++i) {
      try {
        nests.push_back(MakeCpuNest(op_, space_, pending[i]));
        built.push_back(i);
      } catch (const Error&) {
        // Unbuildable: keeps kUnbuildableScore.
      }
    }
    if (nests.empty()) return;
    std::vector<const LoopNest*> pointers;
    pointers.reserve(nests.size());
    for (const LoopNest& nest : nests) pointers.push_back(&nest);
    const std::vector<double> log_times = model_->PredictLogTimes(pointers);
    for (size_t j = 0; j < built.size(); ++j) {
      if (std::isfinite(log_times[j])) scores[built[j]] = -log_times[j];
    }
  };
  if (chunks <= 1) {
    score_chunk(0);
  } else {
    std::vector<std::exception_ptr> errors(chunks);
    std::vector<std::thread> pool;
    for (size_t chunk = 0; chunk < chunks; ++chunk) {
      pool.emplace_back([&, chunk] {
        try {
          score_chunk(chunk);
        } catch (...) {
          errors[chunk] = std::current_exception();
        }
      });
    }
    for (std::thread& thread : pool) thread.join();
    for (const std::exception_ptr& error : errors) {
      if (error) std::rethrow_exception(error);
    }
  }
  for (size_t i = 0; i < pending.size(); ++i) scores_.emplace(pending[i], scores[i]);

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
  return TrainingMachine(model.training_info());
}

Json PerfModelTrainingMachine(const ProgramTimeModel& model) {
  return TrainingMachine(model.TrainingInfo());
}

std::optional<std::string> PerfModelMachineWarning(const PerfModel& model, const std::string& cpu,
                                                   const std::string& model_path) {
  return MachineWarning(PerfModelTrainingMachine(model), cpu, model_path);
}

std::optional<std::string> PerfModelMachineWarning(const ProgramTimeModel& model,
                                                   const std::string& cpu,
                                                   const std::string& model_path) {
  return MachineWarning(PerfModelTrainingMachine(model), cpu, model_path);
}

}  // namespace glimpse
