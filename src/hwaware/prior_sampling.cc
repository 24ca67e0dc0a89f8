// Initial samples from a prior (best-first enumeration of the products of per-knob
// probabilities), sampling from the product distribution, and how good the first samples are on
// a recorded space (glimpse/prior_generator.h).
//
// The enumeration. Each knob's values are sorted by probability, so that a candidate is a vector
// of ranks r and its probability Π_k p_k(r_k) never grows when a rank grows. Starting from
// r = 0…0, a popped candidate c whose last raised rank is at position j pushes c + e_i for every
// i ≥ j: every rank vector has exactly one such parent (raise its ranks in knob order), so each
// is visited once, and a max-heap on the product pops them in decreasing order.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <queue>

#include "glimpse/error.h"
#include "glimpse/prior_generator.h"

namespace glimpse {
namespace {

void CheckShape(const ConfigSpace& space, const PriorDistribution& distribution) {
  if (distribution.size() != space.NumKnobs()) {
    throw Error(fmt::format("prior: a distribution of {} knobs for a space of {}",
                            distribution.size(), space.NumKnobs()));
  }
  for (size_t k = 0; k < distribution.size(); ++k) {
    if (distribution[k].size() != space.knobs()[k].size()) {
      throw Error(fmt::format("prior: knob '{}' has {} values, its distribution {}",
                              space.knobs()[k].name(), space.knobs()[k].size(),
                              distribution[k].size()));
    }
  }
}

struct Candidate {
  double log_p;
  std::vector<uint32_t> ranks;
  size_t last;  // the position whose rank was raised last (0 for the start)
};

struct ByProbability {
  bool operator()(const Candidate& a, const Candidate& b) const {
    if (a.log_p != b.log_p) return a.log_p < b.log_p;
    return a.ranks > b.ranks;  // equal products: lexicographically smaller ranks first
  }
};

double SafeLog(double p) { return p > 0 ? std::log(p) : -std::numeric_limits<double>::infinity(); }

}  // namespace

std::vector<Config> EnumerateByProbability(const ConfigSpace& space,
                                           const PriorDistribution& distribution, size_t n,
                                           const std::function<bool(const Config&)>& accept,
                                           uint64_t max_visits) {
  CheckShape(space, distribution);
  size_t knobs = space.NumKnobs();
  std::vector<std::vector<uint32_t>> order(knobs);  // per knob: value indices by probability
  std::vector<std::vector<double>> log_p(knobs);    // per knob: log p of each rank
  for (size_t k = 0; k < knobs; ++k) {
    order[k].resize(distribution[k].size());
    std::iota(order[k].begin(), order[k].end(), 0u);
    std::stable_sort(order[k].begin(), order[k].end(), [&](uint32_t a, uint32_t b) {
      return distribution[k][a] > distribution[k][b];
    });
    for (uint32_t index : order[k]) log_p[k].push_back(SafeLog(distribution[k][index]));
  }
  std::vector<Config> out;
  if (n == 0 || knobs == 0) return out;
  std::priority_queue<Candidate, std::vector<Candidate>, ByProbability> heap;
  Candidate start{0.0, std::vector<uint32_t>(knobs, 0), 0};
  for (size_t k = 0; k < knobs; ++k) start.log_p += log_p[k][0];
  heap.push(std::move(start));
  uint64_t visits = 0;
  Config config;
  config.indices.resize(knobs);
  while (!heap.empty() && out.size() < n && visits < max_visits) {
    Candidate c = heap.top();
    heap.pop();
    ++visits;
    for (size_t k = 0; k < knobs; ++k) config.indices[k] = order[k][c.ranks[k]];
    if (space.IsValid(config) && (!accept || accept(config))) out.push_back(config);
    for (size_t i = c.last; i < knobs; ++i) {
      if (c.ranks[i] + 1 >= order[i].size()) continue;
      Candidate next = c;
      next.log_p += log_p[i][c.ranks[i] + 1] - log_p[i][c.ranks[i]];
      if (std::isnan(next.log_p)) next.log_p = -std::numeric_limits<double>::infinity();
      ++next.ranks[i];
      next.last = i;
      heap.push(std::move(next));
    }
  }
  return out;
}

double LogProbability(const PriorDistribution& distribution, const Config& config) {
  double sum = 0.0;
  for (size_t k = 0; k < config.indices.size(); ++k) {
    sum += SafeLog(distribution.at(k).at(config.indices[k]));
  }
  return sum;
}

PriorSampler::PriorSampler(const ConfigSpace& space, PriorDistribution distribution)
    : space_(&space), distribution_(std::move(distribution)) {
  CheckShape(space, distribution_);
  for (size_t k = 0; k < distribution_.size(); ++k) {
    std::vector<double> cumulative;
    double sum = 0.0;
    for (double p : distribution_[k]) cumulative.push_back(sum += std::max(0.0, p));
    if (!(sum > 0.0)) {
      throw Error(fmt::format("prior: knob '{}' has no value of positive probability",
                              space.knobs()[k].name()));
    }
    cumulative_.push_back(std::move(cumulative));
  }
}

std::optional<Config> PriorSampler::Sample(Rng& rng,
                                           const std::function<bool(const Config&)>& accept,
                                           uint64_t max_attempts) const {
  Config config;
  config.indices.resize(cumulative_.size());
  for (uint64_t attempt = 0; attempt < max_attempts; ++attempt) {
    for (size_t k = 0; k < cumulative_.size(); ++k) {
      const std::vector<double>& c = cumulative_[k];
      double u = UniformUnit(rng) * c.back();
      auto it = std::upper_bound(c.begin(), c.end(), u);
      // Skip zero-probability values that upper_bound could land on only by rounding.
      size_t index = std::min<size_t>(it - c.begin(), c.size() - 1);
      while (index > 0 && distribution_[k][index] <= 0) --index;
      config.indices[k] = static_cast<uint32_t>(index);
    }
    if (space_->IsValid(config) && (!accept || accept(config))) return config;
  }
  return std::nullopt;
}

// ---- First-samples quality

double RelativeToOptimum(const RecordedSpace& recorded, const Config& config) {
  auto best = recorded.Best();
  if (!best) return 0.0;
  auto it = recorded.entries.find(recorded.space.ToDenseIndex(config));
  if (it == recorded.entries.end() || it->second.status != MeasureStatus::kOk) return 0.0;
  return best->second.time_s / it->second.time_s;
}

double ExpectedBestOfRandom(std::vector<double> scores, int n) {
  auto size = static_cast<int64_t>(scores.size());
  if (n <= 0 || size == 0) return 0.0;
  if (n >= size) return *std::max_element(scores.begin(), scores.end());
  std::sort(scores.begin(), scores.end());
  // The i-th smallest (1-based) is the best of n distinct draws with probability
  // C(i−1, n−1) / C(size, n).
  auto log_choose = [](double a, double b) {
    return std::lgamma(a + 1) - std::lgamma(b + 1) - std::lgamma(a - b + 1);
  };
  double total = log_choose(static_cast<double>(size), n);
  double expected = 0.0;
  for (int64_t i = n; i <= size; ++i) {
    double p = std::exp(log_choose(static_cast<double>(i - 1), n - 1) - total);
    expected += p * scores[i - 1];
  }
  return expected;
}

FirstSamplesQuality ScoreFirstSamples(const RecordedSpace& recorded,
                                      const std::vector<Config>& initial,
                                      const std::vector<int>& counts) {
  FirstSamplesQuality q;
  q.counts = counts;
  q.entries = static_cast<int64_t>(recorded.entries.size());
  std::vector<double> scores;
  auto best = recorded.Best();
  for (const auto& [index, entry] : recorded.entries) {
    bool ok = best && entry.status == MeasureStatus::kOk;
    scores.push_back(ok ? best->second.time_s / entry.time_s : 0.0);
  }
  for (int n : counts) {
    double prior = 0.0;
    for (size_t i = 0; i < initial.size() && static_cast<int>(i) < n; ++i) {
      prior = std::max(prior, RelativeToOptimum(recorded, initial[i]));
    }
    q.prior.push_back(prior);
    q.random.push_back(ExpectedBestOfRandom(scores, n));
  }
  return q;
}

}  // namespace glimpse
