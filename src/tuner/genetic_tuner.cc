// Genetic algorithm after AutoTVM's GATuner (python/tvm/autotvm/tuner/ga_tuner.py).
//
// Map: a gene is a Config (one value index per knob). The first generation is random valid
// configurations. Once a full population has been observed, Breed() makes the next generation:
//   pool     = this generation's observations + the previous elites (score = 1 / time, 0 failed)
//   elites   = the `elite` best of the pool, kept as parents for the next breeding (not
//   re-measured) children = `population` times: two distinct parents drawn with probability ∝
//   score, single-
//              point crossover over knob indices, then every knob mutated to a uniformly drawn
//              index with `mutation_probability`
// Where we differ from TVM:
//   - children must satisfy the restrictions and be unvisited; a child that is not is repaired as
//     TVM repairs duplicates (mutate one random knob at a time), at most kRepairAttempts times, and
//     is otherwise replaced by a random valid unvisited configuration;
//   - when every score is 0 (nothing succeeded yet) parents are drawn uniformly (TVM divides by 0);
//   - whenever no bred gene is waiting (first generation, a generation cut short by a nearly
//     exhausted space, or the caller proposing ahead of its observations) we propose random valid
//     unvisited configurations, which join the current generation when observed;
//   - resumed observations join the current generation like any other.
#include <algorithm>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/strategy_options.h"
#include "glimpse/tuner.h"
#include "tuner/sampling_tuner.h"

namespace glimpse {

namespace {

constexpr int kRepairAttempts = 100;

struct Scored {
  Config config;
  double score = 0.0;  // 1 / time_s for ok results, 0 otherwise
};

class GeneticTuner : public tuner::SamplingTuner {
 public:
  explicit GeneticTuner(const GeneticOptions& options) : options_(options) {}

  std::string Name() const override { return "ga"; }

  using Tuner::Init;
  void Init(const TuningContext& context) override {
    space_ = &context.task->space;
    StartRun(space_, context.seed);
    genes_.clear();
    next_gene_ = 0;
    generation_.clear();
    elites_.clear();
  }

  std::vector<Config> Propose(size_t n) override {
    std::vector<Config> out;
    // The bred generation first, then fresh configurations.
    while (out.size() < n && next_gene_ < genes_.size()) {
      Config& gene = genes_[next_gene_++];
      // A gene may have been observed (resume) after it was bred.
      if (visited_.Insert(gene)) out.push_back(gene);
    }
    AppendFresh(n, out);
    return out;
  }

  void Observe(const std::vector<Config>& configs,
               const std::vector<MeasureResult>& results) override {
    for (size_t i = 0; i < configs.size() && i < results.size(); ++i) {
      visited_.Insert(configs[i]);
      const MeasureResult& result = results[i];
      double score = result.ok() && result.time_s > 0.0 ? 1.0 / result.time_s : 0.0;
      generation_.push_back({configs[i], score});
    }
    if (generation_.size() >= static_cast<size_t>(options_.population)) Breed();
  }

 private:
  void Breed() {
    std::vector<Scored> pool = std::move(generation_);
    generation_.clear();
    pool.insert(pool.end(), elites_.begin(), elites_.end());

    // Elites: the best scores, earlier entries first among equals.
    std::vector<size_t> order(pool.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return pool[a].score > pool[b].score; });
    elites_.clear();
    for (size_t i = 0; i < order.size() && i < static_cast<size_t>(options_.elite); ++i) {
      elites_.push_back(pool[order[i]]);
    }

    std::vector<double> weights(pool.size());
    double total = 0.0;
    for (size_t i = 0; i < pool.size(); ++i) total += weights[i] = pool[i].score;
    if (total <= 0.0) std::fill(weights.begin(), weights.end(), 1.0);

    // Genes bred earlier but not proposed yet (only when observations outran proposals) stay
    // first in line: the fresh sampler has skipped past them, so dropping them would lose them.
    genes_.erase(genes_.begin(), genes_.begin() + static_cast<ptrdiff_t>(next_gene_));
    next_gene_ = 0;
    tuner::VisitedSet bred;  // genes of the next generation, kept distinct
    for (const Config& gene : genes_) bred.Insert(gene);
    const size_t num_knobs = space_->NumKnobs();
    for (int i = 0; i < options_.population; ++i) {
      size_t first = Draw(weights, pool.size());
      size_t second = first;
      if (pool.size() > 1) {
        double saved = weights[first];
        weights[first] = 0.0;  // without replacement, as numpy's choice(replace=False)
        second = Draw(weights, pool.size());
        weights[first] = saved;
      }
      Config child = pool[first].config;
      size_t point = num_knobs > 0 ? UniformIndex(rng_, num_knobs) : 0;
      for (size_t k = point; k < num_knobs; ++k) child.indices[k] = pool[second].config.indices[k];
      for (size_t k = 0; k < num_knobs; ++k) {
        if (UniformUnit(rng_) < options_.mutation_probability) MutateKnob(child, k);
      }
      for (int attempt = 0; attempt < kRepairAttempts && !Acceptable(child, bred); ++attempt) {
        if (num_knobs == 0) break;
        MutateKnob(child, UniformIndex(rng_, num_knobs));
      }
      if (!Acceptable(child, bred)) {
        std::optional<Config> fresh = FreshOutside(bred);
        if (!fresh) break;  // nothing new is left: a short generation
        child = std::move(*fresh);
      }
      bred.Insert(child);
      genes_.push_back(std::move(child));
    }
  }

  bool Acceptable(const Config& child, const tuner::VisitedSet& bred) const {
    return !visited_.Contains(child) && !bred.Contains(child) && space_->IsValid(child);
  }

  // A random valid configuration neither visited nor bred. Configurations the sampler skips
  // because they are in `bred` are proposed as genes, so none is lost.
  std::optional<Config> FreshOutside(const tuner::VisitedSet& bred) {
    for (int attempt = 0; attempt < tuner::FreshSampler::kMaxConsecutiveDuplicates; ++attempt) {
      std::optional<Config> fresh = sampler_.Next(rng_, visited_);
      if (!fresh || !bred.Contains(*fresh)) return fresh;
    }
    return std::nullopt;
  }

  void MutateKnob(Config& config, size_t knob) {
    config.indices[knob] = static_cast<uint32_t>(UniformIndex(rng_, space_->knobs()[knob].size()));
  }

  // An index drawn with probability ∝ weights; uniformly over all when no weight is positive
  // (e.g. the only working parent is already drawn; numpy's choice would raise there).
  size_t Draw(const std::vector<double>& weights, size_t size) {
    double total = 0.0;
    for (double w : weights) total += w;
    if (!(total > 0.0)) return UniformIndex(rng_, size);
    double target = UniformUnit(rng_) * total;
    double sum = 0.0;
    size_t last_positive = 0;
    for (size_t i = 0; i < size; ++i) {
      if (weights[i] <= 0.0) continue;
      sum += weights[i];
      last_positive = i;
      if (target < sum) return i;
    }
    return last_positive;
  }

  GeneticOptions options_;
  const ConfigSpace* space_ = nullptr;
  std::vector<Config> genes_;  // the bred generation, proposed in order
  size_t next_gene_ = 0;
  std::vector<Scored> generation_;  // observed since the last breeding
  std::vector<Scored> elites_;
};

}  // namespace

GeneticOptions GeneticOptions::FromJson(const Json& options) {
  tuner::CheckOptionKeys(options, "ga", {"elite", "mutation_probability", "population"});
  GeneticOptions out;
  if (auto v = tuner::IntOption(options, "ga", "population")) {
    if (*v < 2 || *v > 1'000'000) {
      throw Error("tuner 'ga': option 'population' must be an integer in [2, 1000000] (got " +
                  std::to_string(*v) + ")");
    }
    out.population = static_cast<int>(*v);
  }
  if (auto v = tuner::IntOption(options, "ga", "elite")) {
    if (*v < 0 || *v > out.population) {
      throw Error("tuner 'ga': option 'elite' must be an integer in [0, population=" +
                  std::to_string(out.population) + "] (got " + std::to_string(*v) + ")");
    }
    out.elite = static_cast<int>(*v);
  }
  if (out.elite > out.population) {
    throw Error("tuner 'ga': option 'elite' (" + std::to_string(out.elite) +
                ") must not exceed 'population' (" + std::to_string(out.population) + ")");
  }
  if (auto v = tuner::NumberOption(options, "ga", "mutation_probability")) {
    if (!(*v >= 0.0 && *v <= 1.0)) {
      throw Error("tuner 'ga': option 'mutation_probability' must be a number in [0, 1] (got " +
                  Json(*v).dump() + ")");
    }
    out.mutation_probability = *v;
  }
  return out;
}

std::unique_ptr<Tuner> MakeGeneticTuner(const GeneticOptions& options) {
  if (options.population < 2 || options.elite < 0 || options.elite > options.population ||
      !(options.mutation_probability >= 0.0 && options.mutation_probability <= 1.0)) {
    throw Error(
        "tuner 'ga': needs population ≥ 2, 0 ≤ elite ≤ population and "
        "mutation_probability in [0, 1]");
  }
  return std::make_unique<GeneticTuner>(options);
}

}  // namespace glimpse
