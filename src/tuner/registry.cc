// The registry of search strategies. It is a function-local static that installs the built-in
// strategies when first used, so it works from a static library whatever the order of static
// initialisation, and strategies registered later (model-based ones) join it.
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/tuner.h"

namespace glimpse {

namespace {

struct Entry {
  std::string description;
  TunerFactory factory;
  TunerTraits traits;
};

class Registry {
 public:
  static Registry& Get() {
    static Registry registry;
    return registry;
  }

  void Add(const std::string& name, std::string description, TunerFactory factory,
           TunerTraits traits) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (name.empty()) throw Error("a tuner needs a non-empty name");
    if (!factory) throw Error("tuner '" + name + "' needs a factory");
    if (entries_.count(name)) {
      throw Error("tuner '" + name + "' is already registered; known: " + KnownList());
    }
    entries_.emplace(name, Entry{std::move(description), std::move(factory), traits});
  }

  Entry Find(const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(name);
    if (it == entries_.end()) {
      throw Error("unknown tuner '" + name + "'; known: " + KnownList());
    }
    return it->second;
  }

  std::vector<std::string> Names() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::string> names;
    for (const auto& [name, entry] : entries_) names.push_back(name);
    return names;
  }

 private:
  Registry() {
    entries_["random"] = {"uniform random sampling of valid configurations without replacement",
                          [](const Json& options) { return MakeRandomTuner(options); },
                          {}};
    entries_["grid"] = {"every valid configuration in dense-index order (last knob fastest)",
                        [](const Json& options) { return MakeGridTuner(options); },
                        {}};
    entries_["ga"] = {
        "genetic algorithm as AutoTVM's GATuner (population 100, elite 3, "
        "mutation probability 0.1)",
        [](const Json& options) { return MakeGeneticTuner(GeneticOptions::FromJson(options)); },
        {}};
    entries_["sa"] = {
        "simulated annealing over measured times as Kernel Tuner's strategy "
        "(T 1 to 0.001, cooling 0.995 per measurement)",
        [](const Json& options) { return MakeAnnealingTuner(AnnealingOptions::FromJson(options)); },
        {}};
  }

  // Sorted (std::map order), comma-separated.
  std::string KnownList() const {
    std::string list;
    for (const auto& [name, entry] : entries_) list += (list.empty() ? "" : ", ") + name;
    return list;
  }

  std::mutex mutex_;
  std::map<std::string, Entry> entries_;
};

}  // namespace

std::unique_ptr<Tuner> MakeTuner(const std::string& name, const Json& options) {
  // The factory runs outside the registry's lock: it may itself look strategies up.
  Entry entry = Registry::Get().Find(name);
  return entry.factory(options);
}

std::vector<std::string> KnownTuners() { return Registry::Get().Names(); }

std::string TunerDescription(const std::string& name) {
  return Registry::Get().Find(name).description;
}

TunerTraits TraitsOfTuner(const std::string& name) { return Registry::Get().Find(name).traits; }

std::string TunersWith(bool (*has)(const TunerTraits&)) {
  std::string list;
  for (const std::string& name : KnownTuners()) {
    if (has(TraitsOfTuner(name))) list += (list.empty() ? "" : ", ") + name;
  }
  return list;
}

void RegisterTuner(const std::string& name, const std::string& description, TunerFactory factory,
                   TunerTraits traits) {
  Registry::Get().Add(name, description, std::move(factory), traits);
}

}  // namespace glimpse
