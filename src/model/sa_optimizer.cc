// Parallel simulated annealing over a cost model (AutoTVM sa_model_optimizer.py).
//
// Map: walkers (persistent, first drawn uniformly among valid configurations) · a min-heap of the
// `num` best (score, config) seen outside `exclusive` · per iteration every walker proposes one
// Mutate step, the model scores the batch, each step is accepted with probability
// exp(min((new − old) / (t + 1e−5), 1)), and new scores that beat the heap's minimum replace it ·
// stop after n_iter iterations or early_stop iterations without a heap change. Scores pass through
// the optional score bias (Score) before any use.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <optional>

#include "glimpse/model_search.h"

namespace glimpse::model {

namespace {

struct HeapItem {
  double score;
  Config config;
  bool sentinel;  // AutoTVM seeds the heap with (−inf, fake index) entries
};

// Min-heap order on score (std heap algorithms keep the largest at the front, so invert).
bool HeapAfter(const HeapItem& a, const HeapItem& b) { return a.score > b.score; }

}  // namespace

SaOptimizer::SaOptimizer(const ConfigSpace& space, SaOptions options, uint64_t seed)
    : space_(space), options_(options), rng_(seed) {}

Config SaOptimizer::Mutate(const Config& from) {
  Config next = from;
  const size_t n_knobs = from.indices.size();
  for (int attempt = 0; attempt < options_.max_mutation_attempts && n_knobs > 0; ++attempt) {
    const size_t knob = UniformIndex(rng_, n_knobs);
    const size_t size = space_.knobs()[knob].size();
    next.indices[knob] = static_cast<uint32_t>(UniformIndex(rng_, size));
    if (next != from && space_.IsValid(next)) return next;
  }
  // Tight restrictions: AutoTVM would keep drawing; a valid neighbour ends the search for sure.
  std::vector<Config> neighbours = space_.Neighbours(from, true);
  if (neighbours.empty()) return from;
  return neighbours[UniformIndex(rng_, neighbours.size())];
}

std::vector<double> SaOptimizer::Score(const CostModel& model,
                                       const std::vector<Config>& configs) const {
  std::vector<double> scores = model.Predict(configs);
  if (score_bias_) score_bias_(configs, scores);
  return scores;
}

std::vector<Config> SaOptimizer::FindMaximums(const CostModel& model, size_t num,
                                              const ConfigSet& exclusive) {
  last_iterations_ = 0;
  if (num == 0) return {};
  if (points_.empty()) {
    // AutoTVM samples parallel_size distinct indices; ours are distinct valid configurations
    // where the space has enough of them within a few draws each.
    ConfigSet drawn;
    const size_t want = static_cast<size_t>(options_.parallel_size);
    for (size_t draw = 0; points_.size() < want && draw < 4 * want; ++draw) {
      std::optional<Config> config = space_.SampleValid(rng_);
      if (!config) break;
      if (drawn.insert(*config).second) points_.push_back(std::move(*config));
    }
    if (points_.empty()) return {};
  }
  std::vector<double> scores = Score(model, points_);

  std::vector<HeapItem> heap(num, HeapItem{-std::numeric_limits<double>::infinity(), {}, true});
  ConfigSet in_heap;
  // Puts (score, config) in place of the heap's minimum when it beats it and is new.
  auto offer = [&](double score, const Config& config) {
    if (!(score > heap.front().score)) return false;
    if (exclusive.count(config) || in_heap.count(config)) return false;
    std::pop_heap(heap.begin(), heap.end(), HeapAfter);
    if (!heap.back().sentinel) in_heap.erase(heap.back().config);
    heap.back() = HeapItem{score, config, false};
    std::push_heap(heap.begin(), heap.end(), HeapAfter);
    in_heap.insert(config);
    return true;
  };
  for (size_t i = 0; i < points_.size(); ++i) offer(scores[i], points_[i]);

  double temperature = options_.temp_start;
  const double cool = (options_.temp_start - options_.temp_end) / (options_.n_iter + 1);
  int k = 0;
  int k_last_modify = 0;
  std::vector<Config> next(points_.size());
  while (k < options_.n_iter && k < k_last_modify + options_.early_stop) {
    for (size_t i = 0; i < points_.size(); ++i) next[i] = Mutate(points_[i]);
    std::vector<double> next_scores = Score(model, next);
    for (size_t i = 0; i < points_.size(); ++i) {
      const double exponent = std::min((next_scores[i] - scores[i]) / (temperature + 1e-5), 1.0);
      if (UniformUnit(rng_) < std::exp(exponent)) {
        points_[i] = next[i];
        scores[i] = next_scores[i];
      }
    }
    for (size_t i = 0; i < next.size(); ++i) {
      if (offer(next_scores[i], next[i])) k_last_modify = k;
    }
    ++k;
    temperature -= cool;
    if (options_.log_interval > 0 && k % options_.log_interval == 0) {
      double best = -std::numeric_limits<double>::infinity();
      for (const HeapItem& item : heap) best = std::max(best, item.score);
      std::clog << "SA iter: " << k << "\tlast_update: " << k_last_modify
                << "\tmax-0: " << heap.front().score << "\tmax-1: " << best
                << "\ttemp: " << temperature << "\n";
    }
  }
  last_iterations_ = k;

  std::sort(heap.begin(), heap.end(),
            [](const HeapItem& a, const HeapItem& b) { return a.score > b.score; });
  std::vector<Config> best;
  for (HeapItem& item : heap) {
    if (!item.sentinel) best.push_back(std::move(item.config));
  }
  return best;
}

}  // namespace glimpse::model
