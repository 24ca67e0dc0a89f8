// Which operators the corpus measures, and which configurations of each (glimpse/corpus_measure.h).
#include <map>
#include <memory>

#include "glimpse/corpus_measure.h"
#include "glimpse/error.h"
#include "glimpse/model_zoo.h"
#include "glimpse/task.h"
#include "glimpse/tuner.h"

namespace glimpse {

std::vector<CorpusOperator> PlanCorpusOperators(const std::vector<std::string>& models,
                                                const std::vector<Operator>& extra) {
  std::vector<CorpusOperator> out;
  std::map<std::string, size_t> position;  // op text → index in `out`
  auto add = [&](const Operator& op, const std::string& model) {
    const std::string text = OperatorToString(op);
    auto [it, inserted] = position.emplace(text, out.size());
    if (inserted) out.push_back({op, text, {}});
    std::vector<std::string>& names = out[it->second].models;
    if (!model.empty() && (names.empty() || names.back() != model)) names.push_back(model);
  };
  for (const std::string& name : models) {
    const std::string model = CanonicalZooModelName(name);
    for (const ModelTask& task : ExtractTasks(ZooModel(model))) add(task.op, model);
  }
  for (const Operator& op : extra) add(op, "");
  return out;
}

std::vector<std::string> ZooModelsWithOperator(const Operator& op) {
  const std::string text = OperatorToString(op);
  std::vector<std::string> out;
  for (const std::string& model : ZooModelNames()) {
    for (const ModelLayer& layer : ZooModel(model)) {
      if (OperatorToString(layer.op) == text) {
        out.push_back(model);
        break;
      }
    }
  }
  return out;
}

std::vector<Config> SampleUniformConfigs(const ConfigSpace& space, size_t n, uint64_t seed) {
  // The random strategy is the project's uniform sampler without replacement (exact for spaces it
  // can enumerate, rejection sampling beyond): the corpus proposes what it would.
  Task task;
  task.name = "corpus sample";
  task.space = space;
  std::unique_ptr<Tuner> sampler = MakeTuner("random");
  sampler->Init(task, seed);
  return sampler->Propose(n);
}

uint64_t CorpusOperatorSeed(uint64_t seed, const std::string& op_text) {
  uint64_t hash = 0xcbf29ce484222325ULL;  // FNV-1a: stable across builds and machines
  for (unsigned char c : op_text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return seed ^ hash;
}

}  // namespace glimpse
