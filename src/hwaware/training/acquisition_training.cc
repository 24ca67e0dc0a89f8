// Training the neural acquisition function by reinforcement learning over tuning episodes
// (glimpse/glimpse_tuner.h, after MetaBO). Map of this file:
//   RecordingRunner     — a ReplayRunner that also keeps the best time after every measurement
//   RunEpisode          — one Tune() of the Glimpse tuner with the sampling policy, then rewards
//   AcquisitionLearner  — the REINFORCE step (returns, per-step baseline, entropy bonus, Adam)
//   TrainAcquisition    — iterations × episodes over the training spaces, cycling through them
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <ostream>

#include "glimpse/error.h"
#include "glimpse/tuning_loop.h"
#include "hwaware/acquisition_internal.h"
#include "hwaware/training/acquisition_torch.h"

namespace glimpse {
namespace hwaware {

std::vector<double> ReturnsOf(const std::vector<double>& rewards) {
  std::vector<double> returns(rewards.size(), 0.0);
  double sum = 0.0;
  for (size_t t = rewards.size(); t-- > 0;) {
    sum += rewards[t];
    returns[t] = sum;
  }
  return returns;
}

// The learner trains a libtorch module of the network's shape, loaded from its layers; after
// each step the layers get the module's parameters, so the episodes sample from what was learnt.
struct AcquisitionLearner::Impl {
  AcquisitionNetwork& network;
  AcquisitionNet net;
  torch::optim::Adam adam;
  Impl(AcquisitionNetwork& n, double learning_rate)
      : network(n),
        net(LoadedModule(n)),
        adam(net->parameters(), torch::optim::AdamOptions(learning_rate)) {}

  static AcquisitionNet LoadedModule(const AcquisitionNetwork& n) {
    AcquisitionNet module(kAcquisitionBaseFeatures + n.blueprint_components(),
                          n.network().layer1.outputs);
    LoadAcquisitionLayers(n.network(), module);
    return module;
  }
};

AcquisitionLearner::AcquisitionLearner(AcquisitionNetwork& network, double learning_rate)
    : impl_(std::make_unique<Impl>(network, learning_rate)) {}
AcquisitionLearner::~AcquisitionLearner() = default;

double AcquisitionLearner::Update(const std::vector<PolicyEpisode>& episodes,
                                  double entropy_bonus) {
  if (episodes.empty()) return 0.0;
  std::vector<std::vector<double>> returns;
  size_t steps = 0;
  for (const PolicyEpisode& e : episodes) {
    if (e.rewards.size() != e.decisions.size()) {
      throw Error(fmt::format("acquisition training: an episode of {} decisions and {} rewards",
                              e.decisions.size(), e.rewards.size()));
    }
    returns.push_back(ReturnsOf(e.rewards));
    steps = std::max(steps, e.rewards.size());
  }
  // The baseline of step t in a group: the mean return at t over the group's episodes that got
  // that far. A group of one episode has no baseline to learn from: its advantage is 0.
  std::map<size_t, std::vector<double>> baseline;
  std::map<size_t, std::vector<int>> reached;
  for (size_t e = 0; e < episodes.size(); ++e) {
    std::vector<double>& b = baseline[episodes[e].group];
    std::vector<int>& r = reached[episodes[e].group];
    b.resize(steps, 0.0);
    r.resize(steps, 0);
    for (size_t t = 0; t < returns[e].size(); ++t) {
      b[t] += returns[e][t];
      ++r[t];
    }
  }
  for (auto& [group, b] : baseline) {
    for (size_t t = 0; t < steps; ++t) b[t] /= std::max(1, reached[group][t]);
  }

  AcquisitionNet& net = impl_->net;
  int64_t width = kAcquisitionBaseFeatures + impl_->network.blueprint_components();
  net->train();
  impl_->adam.zero_grad();
  torch::Tensor loss = torch::zeros({}, torch::kFloat32);
  bool any = false;
  for (size_t e = 0; e < episodes.size(); ++e) {
    for (size_t t = 0; t < episodes[e].decisions.size(); ++t) {
      const AcquisitionDecision& d = episodes[e].decisions[t];
      if (d.features.empty() || d.chosen.empty()) continue;
      torch::Tensor logits = net->forward(FeatureTensor(d.features, width));
      // log π of a Plackett–Luce selection: Σ_j logit_{c_j} − logsumexp(not yet chosen).
      torch::Tensor mask = torch::zeros({logits.size(0)}, torch::kBool);
      torch::Tensor log_pi = torch::zeros({}, torch::kFloat32);
      for (size_t c : d.chosen) {
        auto index = static_cast<int64_t>(c);
        if (index >= logits.size(0)) {
          throw Error(fmt::format("acquisition training: chosen index {} in a pool of {}", c,
                                  logits.size(0)));
        }
        // A fresh mask each draw: autograd keeps the one it was given.
        torch::Tensor remaining =
            logits.masked_fill(mask.clone(), -std::numeric_limits<float>::infinity());
        log_pi = log_pi + logits[index] - torch::logsumexp(remaining, 0);
        mask[index] = true;
      }
      torch::Tensor log_p = torch::log_softmax(logits, 0);
      torch::Tensor entropy = -(log_p.exp() * log_p).sum();
      double advantage = returns[e][t] - baseline[episodes[e].group][t];
      loss = loss - static_cast<float>(advantage) * log_pi -
             static_cast<float>(entropy_bonus) * entropy;
      any = true;
    }
  }
  loss = loss / static_cast<float>(episodes.size());
  double value = loss.item<double>();
  if (any) {
    loss.backward();
    impl_->adam.step();
    impl_->network.network() = ToAcquisitionLayers(net);
  }
  net->eval();
  return value;
}

namespace {

// A ReplayRunner that also records the best ok time after each measurement (+inf before any).
class RecordingRunner : public Runner {
 public:
  explicit RecordingRunner(std::shared_ptr<const RecordedSpace> recorded)
      : inner_(std::move(recorded)) {}
  std::vector<MeasureResult> Run(const std::vector<MeasureInput>& inputs,
                                 const std::vector<BuildResult>& builds) override {
    std::vector<MeasureResult> results = inner_.Run(inputs, builds);
    for (const MeasureResult& r : results) {
      if (r.ok() && std::isfinite(r.time_s) && r.time_s > 0) best_ = std::min(best_, r.time_s);
      best_after_.push_back(best_);
      ++count_;
    }
    return results;
  }
  bool IsSimulated() const override { return true; }
  const int64_t* count() const { return &count_; }
  const std::vector<double>& best_after() const { return best_after_; }

 private:
  ReplayRunner inner_;
  double best_ = std::numeric_limits<double>::infinity();
  std::vector<double> best_after_;
  int64_t count_ = 0;
};

struct EpisodeSettings {
  std::shared_ptr<const PriorGenerator> prior;
  std::shared_ptr<const ValidityEnsembleModel> validity;
  const AcquisitionTrainingOptions* options = nullptr;
};

// One tuning episode on `space` with the network's sampling policy; the rewards follow each
// decision: −(1 − optimum time / best time after the batch it chose was measured).
PolicyEpisode RunEpisode(const ValidityTrainingSpace& space, double optimum_s,
                         const AcquisitionNetwork& network, const EpisodeSettings& settings,
                         uint64_t seed) {
  const AcquisitionTrainingOptions& o = *settings.options;
  RecordingRunner runner(space.recorded);
  std::vector<AcquisitionDecision> decisions;
  std::vector<int64_t> measured_before;
  GlimpseTunerOptions tuner_options;
  tuner_options.prior = settings.prior;
  tuner_options.validity = settings.validity;
  tuner_options.prior_model = settings.prior ? "" : "none";
  tuner_options.validity_model = settings.validity ? "" : "none";
  tuner_options.acquisition_model = "none";
  tuner_options.kernel = space.name.empty() ? space.recorded->kernel_name : space.name;
  tuner_options.device = space.gpu.name;
  tuner_options.budget = o.episode_budget;
  tuner_options.initial_size = o.batch_size;
  tuner_options.pool_size = 64;
  tuner_options.prior_pool_size = settings.prior ? 16 : 0;
  tuner_options.surrogate.members = 3;
  tuner_options.surrogate.num_boost_round = 100;
  tuner_options.sa_parallel_size = 32;
  tuner_options.sa_n_iter = 60;
  tuner_options.quiet = true;
  tuner_options.policy =
      std::make_shared<SamplingAcquisition>(network, &decisions, &measured_before, runner.count());
  std::unique_ptr<Tuner> tuner = MakeGlimpseTuner(tuner_options);
  NullBuilder builder;
  TuneOptions tune;
  tune.max_measurements = o.episode_budget;
  tune.batch_size = o.batch_size;
  tune.seed = seed;
  tune.resume = false;
  tune.progress = ProgressMode::kQuiet;
  Task task = space.recorded->MakeTask();
  Tune(task, *tuner, builder, runner, nullptr, tune);

  const std::vector<double>& best = runner.best_after();
  auto performance_after = [&](int64_t measured) {
    if (measured <= 0) return 0.0;
    double b = best[static_cast<size_t>(std::min<int64_t>(measured, best.size())) - 1];
    return std::isfinite(b) ? optimum_s / b : 0.0;
  };
  PolicyEpisode episode;
  episode.decisions = std::move(decisions);
  for (size_t d = 0; d < episode.decisions.size(); ++d) {
    int64_t after =
        d + 1 < measured_before.size() ? measured_before[d + 1] : static_cast<int64_t>(best.size());
    episode.rewards.push_back(-(1.0 - performance_after(after)));
  }
  return episode;
}

void Validate(const AcquisitionTrainingOptions& o) {
  if (o.episodes_per_space < 1 || o.episodes_per_iteration % o.episodes_per_space != 0) {
    throw Error(
        fmt::format("acquisition training: episodes_per_space {} must be ≥ 1 and divide "
                    "episodes_per_iteration {}",
                    o.episodes_per_space, o.episodes_per_iteration));
  }
  if (o.iterations < 0 || o.episodes_per_iteration < 1 || o.episode_budget < 1 ||
      o.batch_size < 1 || o.hidden < 1 || !(o.learning_rate > 0) || !(o.entropy_bonus >= 0)) {
    throw Error(fmt::format(
        "acquisition training: iterations {} (≥ 0), episodes per iteration {}, episode budget {}, "
        "batch size {} and hidden {} (≥ 1), learning rate {:g} (> 0), entropy bonus {:g} (≥ 0)",
        o.iterations, o.episodes_per_iteration, o.episode_budget, o.batch_size, o.hidden,
        o.learning_rate, o.entropy_bonus));
  }
}

}  // namespace
}  // namespace hwaware

AcquisitionNetwork TrainAcquisition(const std::vector<ValidityTrainingSpace>& spaces,
                                    const Blueprint& blueprint,
                                    std::shared_ptr<const PriorGenerator> prior,
                                    std::shared_ptr<const ValidityEnsembleModel> validity,
                                    const AcquisitionTrainingOptions& options,
                                    AcquisitionTrainingReport* report, std::ostream* progress) {
  hwaware::Validate(options);
  // The tuner embeds the target with the installed Blueprint; the features must be as wide.
  if (blueprint.components() != Blueprint::Default().components()) {
    throw Error(fmt::format(
        "acquisition training: a Blueprint of {} components; the tuner embeds GPUs with the "
        "installed one ({} components)",
        blueprint.components(), Blueprint::Default().components()));
  }
  // Spaces without an ok entry have no optimum to reward against.
  std::vector<const ValidityTrainingSpace*> usable;
  std::vector<double> optimum;
  Json training_spaces = Json::array();
  for (const ValidityTrainingSpace& s : spaces) {
    auto best = s.recorded->Best();
    if (!best) continue;
    usable.push_back(&s);
    optimum.push_back(best->second.time_s);
    training_spaces.push_back(
        {{"name", s.name}, {"gpu", s.gpu.name}, {"path", s.recorded->source_path}});
  }
  if (usable.empty()) throw Error("acquisition training: no training space has an ok entry");

  auto start = std::chrono::steady_clock::now();
  AcquisitionNetwork network(blueprint.components(), options.hidden, options.seed);
  hwaware::AcquisitionLearner learner(network, options.learning_rate);
  hwaware::EpisodeSettings settings{std::move(prior), std::move(validity), &options};
  Rng rng(options.seed);
  std::vector<size_t> order;
  size_t next = 0;
  std::vector<double> curve;
  for (int iteration = 0; iteration < options.iterations; ++iteration) {
    std::vector<hwaware::PolicyEpisode> episodes;
    double total_return = 0.0;
    size_t which = 0;
    for (int e = 0; e < options.episodes_per_iteration; ++e) {
      // Each pass visits every space once, in a fresh seeded order; a space is replayed
      // episodes_per_space times in a row.
      if (e % options.episodes_per_space == 0) {
        if (next == order.size()) {
          order.resize(usable.size());
          std::iota(order.begin(), order.end(), 0);
          for (size_t i = order.size(); i > 1; --i)
            std::swap(order[i - 1], order[UniformIndex(rng, i)]);
          next = 0;
        }
        which = order[next++];
      }
      uint64_t seed = options.seed * 1000003ULL +
                      static_cast<uint64_t>(iteration) * options.episodes_per_iteration + e;
      episodes.push_back(
          hwaware::RunEpisode(*usable[which], optimum[which], network, settings, seed));
      episodes.back().group = static_cast<size_t>(e / options.episodes_per_space);
      for (double r : episodes.back().rewards) total_return += r;
    }
    double mean_return = total_return / options.episodes_per_iteration;
    curve.push_back(mean_return);
    learner.Update(episodes, options.entropy_bonus);
    if (progress) {
      double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      *progress << fmt::format("acquisition: iteration {}/{}, mean return {:.2f}, {:.1f} s\n",
                               iteration + 1, options.iterations, mean_return, seconds)
                << std::flush;
    }
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  Json& info = network.training_info();
  info = Json::object();
  info["options"] = options.ToJson();
  info["spaces"] = training_spaces;
  info["mean_return"] = curve;
  info["seconds"] = seconds;
  info["blueprint_training_gpus"] = blueprint.training_gpus();
  if (report) {
    report->mean_return = curve;
    report->seconds = seconds;
  }
  return network;
}

}  // namespace glimpse
