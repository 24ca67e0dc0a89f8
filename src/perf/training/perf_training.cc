// Training the performance model (glimpse/perf_training.h). A map of this file:
//   - SplitByGroup: the held-out operators for validation;
//   - FitNormalisation: the standardisation of features, tile sub-vector and target;
//   - MakeBatches: shuffled, or runs of one operator when the rank loss is on;
//   - the loss: squared error of the standardised ln time + weight × pairwise rank loss;
//   - TrainPerfModel: Adam over epochs, keeping the weights of the best validation epoch.
#include "glimpse/perf_training.h"

#include <fmt/format.h>
#include <torch/optim/adam.h>
#include <torch/utils.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>
#include <ostream>
#include <set>

#include "glimpse/error.h"
#include "glimpse/random.h"
#include "perf/training/perf_torch.h"

namespace glimpse {
namespace {

using perf::PerfNormalisation;

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

void ShuffleWith(std::vector<size_t>& v, Rng& rng) {
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[UniformIndex(rng, i)]);
}

// Example indices for training and validation: whole groups held out, at least one when the
// fraction is positive and there are two groups or more.
void SplitByGroup(const std::vector<PerfTrainingExample>& examples, double fraction, Rng& rng,
                  std::vector<size_t>* train, std::vector<size_t>* validation,
                  PerfModelTrainReport* report) {
  std::map<std::string, std::vector<size_t>> groups;
  for (size_t i = 0; i < examples.size(); ++i) groups[examples[i].group].push_back(i);
  std::vector<size_t> order(groups.size());
  std::iota(order.begin(), order.end(), 0);
  ShuffleWith(order, rng);
  size_t held = 0;
  if (fraction > 0.0 && groups.size() >= 2) {
    held = std::clamp<size_t>(static_cast<size_t>(std::lround(fraction * groups.size())), 1,
                              groups.size() - 1);
  }
  std::set<size_t> held_out(order.begin(), order.begin() + held);
  size_t g = 0;
  for (const auto& [name, members] : groups) {
    std::vector<size_t>* into = held_out.count(g++) ? validation : train;
    into->insert(into->end(), members.begin(), members.end());
  }
  report->train_groups = groups.size() - held;
  report->validation_groups = held;
}

PerfNormalisation FitNormalisation(const std::vector<PerfTrainingExample>& examples,
                                   const std::vector<size_t>& train) {
  const int width = kProgramGraphFeatureWidth;
  std::vector<double> sum(width, 0.0), squares(width, 0.0);
  std::vector<double> tile_sum(perf::kTileFeatures, 0.0), tile_squares(perf::kTileFeatures, 0.0);
  double nodes = 0.0, target_sum = 0.0, target_squares = 0.0;
  for (size_t i : train) {
    for (const GraphNode& node : examples[i].graph.nodes) {
      for (int f = 0; f < width; ++f) {
        sum[f] += node.features[f];
        squares[f] += double(node.features[f]) * node.features[f];
      }
      nodes += 1.0;
    }
    std::array<float, perf::kTileFeatures> tile = TileSubVector(examples[i].graph.tile_sizes);
    for (int f = 0; f < perf::kTileFeatures; ++f) {
      tile_sum[f] += tile[f];
      tile_squares[f] += double(tile[f]) * tile[f];
    }
    const double target = examples[i].log_time - examples[i].log_offset;
    target_sum += target;
    target_squares += target * target;
  }
  auto deviation = [](double s, double sq, double n) {
    const double mean = s / n;
    const double sd = std::sqrt(std::max(0.0, sq / n - mean * mean));
    return sd > 1e-6 ? sd : 1.0;  // a column without spread is left unscaled
  };
  PerfNormalisation norm;
  for (int f = 0; f < width; ++f) {
    norm.feature_mean.push_back(static_cast<float>(sum[f] / nodes));
    norm.feature_std.push_back(static_cast<float>(deviation(sum[f], squares[f], nodes)));
  }
  const double graphs = static_cast<double>(train.size());
  for (int f = 0; f < perf::kTileFeatures; ++f) {
    norm.tile_mean.push_back(static_cast<float>(tile_sum[f] / graphs));
    norm.tile_std.push_back(static_cast<float>(deviation(tile_sum[f], tile_squares[f], graphs)));
  }
  norm.target_mean = target_sum / graphs;
  norm.target_std = deviation(target_sum, target_squares, graphs);
  return norm;
}

// Batches of example indices. With the rank loss, groups in a shuffled order, each group's
// examples shuffled, cut into batches: a batch holds runs of one operator, and so pairs.
std::vector<std::vector<size_t>> MakeBatches(const std::vector<PerfTrainingExample>& examples,
                                             std::vector<size_t> train, int batch_size,
                                             bool by_group, Rng& rng) {
  ShuffleWith(train, rng);
  if (by_group) {
    std::map<std::string, std::vector<size_t>> groups;
    for (size_t i : train) groups[examples[i].group].push_back(i);
    std::vector<const std::vector<size_t>*> order;
    for (const auto& [name, members] : groups) order.push_back(&members);
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[UniformIndex(rng, i)]);
    train.clear();
    for (const std::vector<size_t>* members : order) {
      train.insert(train.end(), members->begin(), members->end());
    }
  }
  std::vector<std::vector<size_t>> batches;
  for (size_t start = 0; start < train.size(); start += batch_size) {
    batches.emplace_back(train.begin() + start,
                         train.begin() + std::min(train.size(), start + size_t(batch_size)));
  }
  return batches;
}

struct Batch {
  perf::PerfBatch inputs;
  torch::Tensor target;      // standardised ln time (less the example's offset)
  torch::Tensor offset;      // the examples' ln offsets in the target's units (for the rank loss)
  torch::Tensor slow, fast;  // pairs of one group, slow's time above fast's
};

Batch MakeBatch(const std::vector<PerfTrainingExample>& examples, const std::vector<size_t>& ids,
                const PerfNormalisation& norm, bool pairs) {
  std::vector<const ProgramGraph*> graphs;
  std::vector<float> target, offset;
  for (size_t i : ids) {
    graphs.push_back(&examples[i].graph);
    target.push_back(static_cast<float>(
        (examples[i].log_time - examples[i].log_offset - norm.target_mean) / norm.target_std));
    offset.push_back(static_cast<float>(examples[i].log_offset / norm.target_std));
  }
  Batch batch;
  batch.inputs = perf::MakePerfBatch(norm, graphs);
  batch.target = torch::tensor(target);
  batch.offset = torch::tensor(offset);
  std::vector<int64_t> slow, fast;
  if (pairs) {
    for (size_t a = 0; a < ids.size(); ++a) {
      for (size_t b = a + 1; b < ids.size(); ++b) {
        const PerfTrainingExample& x = examples[ids[a]];
        const PerfTrainingExample& y = examples[ids[b]];
        if (x.group != y.group || x.log_time == y.log_time) continue;
        slow.push_back(static_cast<int64_t>(x.log_time > y.log_time ? a : b));
        fast.push_back(static_cast<int64_t>(x.log_time > y.log_time ? b : a));
      }
    }
  }
  batch.slow = torch::tensor(slow, torch::kInt64);
  batch.fast = torch::tensor(fast, torch::kInt64);
  return batch;
}

// Over the predicted ln times: the network's output with each example's offset added back (in the
// standardised units both share), so that pairs are ordered by time, not by the learned residual.
torch::Tensor RankLoss(const torch::Tensor& out, const Batch& batch, PerfRankLoss kind) {
  const torch::Tensor predicted = out + batch.offset;
  torch::Tensor z = predicted.index_select(0, batch.slow) - predicted.index_select(0, batch.fast);
  return kind == PerfRankLoss::kHinge ? torch::relu(1.0 - z).mean() : torch::softplus(-z).mean();
}

// Mean squared error of ln(seconds) over `ids` (no gradient).
double LogMse(perf::PerfNet& net, const std::vector<PerfTrainingExample>& examples,
              const std::vector<size_t>& ids, const PerfNormalisation& norm, int batch_size) {
  if (ids.empty()) return 0.0;
  torch::NoGradGuard no_grad;
  double total = 0.0;
  for (size_t start = 0; start < ids.size(); start += batch_size) {
    std::vector<size_t> part(ids.begin() + start,
                             ids.begin() + std::min(ids.size(), start + size_t(batch_size)));
    Batch batch = MakeBatch(examples, part, norm, false);
    torch::Tensor err = (net->forward(batch.inputs) - batch.target) * norm.target_std;
    total += (err * err).sum().item<double>();
  }
  return total / static_cast<double>(ids.size());
}

}  // namespace

PerfModel TrainPerfModel(const std::vector<PerfTrainingExample>& examples,
                         const PerfModelTrainOptions& options, PerfModelTrainReport* report_out,
                         std::ostream* progress) {
  if (examples.empty()) throw Error("train perf-model: no examples to train on");
  CheckPerfModelShape(options.shape, "train perf-model");
  if (options.epochs < 1 || options.batch_size < 1 || !(options.learning_rate > 0.0) ||
      options.rank_loss_weight < 0.0 || options.validation_fraction < 0.0 ||
      options.validation_fraction >= 1.0 || options.patience < 0) {
    throw Error(
        "train perf-model: options out of range (epochs, batch size ≥ 1; rank-loss weight, "
        "patience ≥ 0; learning rate > 0; validation fraction in "
        "[0, 1))");
  }
  const auto start = std::chrono::steady_clock::now();
  torch::set_num_threads(1);
  torch::manual_seed(options.seed);
  Rng rng(options.seed);
  PerfModelTrainReport report;
  std::vector<size_t> train, validation;
  SplitByGroup(examples, options.validation_fraction, rng, &train, &validation, &report);
  report.train_examples = train.size();
  report.validation_examples = validation.size();
  const PerfNormalisation norm = FitNormalisation(examples, train);

  perf::PerfNet net(options.shape);
  torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(options.learning_rate));
  const bool ranked = options.rank_loss_weight > 0.0;
  PerfModelState best = perf::ToPerfModelState(net, norm);
  double best_validation = INFINITY;
  int since_best = 0;
  for (int epoch = 0; epoch < options.epochs; ++epoch) {
    const auto epoch_start = std::chrono::steady_clock::now();
    double loss_sum = 0.0, squares = 0.0;
    std::vector<std::vector<size_t>> batches =
        MakeBatches(examples, train, options.batch_size, ranked, rng);
    for (const std::vector<size_t>& ids : batches) {
      Batch batch = MakeBatch(examples, ids, norm, ranked);
      torch::Tensor out = net->forward(batch.inputs);
      torch::Tensor err = out - batch.target;
      torch::Tensor loss = (err * err).mean();
      squares += (err * err).sum().item<double>() * norm.target_std * norm.target_std;
      if (ranked && batch.slow.numel() > 0) {
        loss = loss + options.rank_loss_weight * RankLoss(out, batch, options.rank_loss);
      }
      adam.zero_grad();
      loss.backward();
      adam.step();
      loss_sum += loss.item<double>();
    }
    PerfModelEpoch record;
    record.train_loss = loss_sum / static_cast<double>(batches.size());
    record.train_log_mse = squares / static_cast<double>(train.size());
    record.validation_log_mse = LogMse(net, examples, validation, norm, options.batch_size);
    record.seconds = Seconds(epoch_start);
    report.epochs.push_back(record);
    // Without validation examples the last epoch is the best.
    const double score = validation.empty() ? -epoch : record.validation_log_mse;
    if (score < best_validation) {
      best_validation = score;
      best = perf::ToPerfModelState(net, norm);
      report.best_epoch = epoch;
      since_best = 0;
    } else {
      ++since_best;
    }
    if (progress) {
      *progress << fmt::format("epoch {}/{}: loss {:.4f}, train ln-time MSE {:.4f}{}, {:.1f} s\n",
                               epoch + 1, options.epochs, record.train_loss, record.train_log_mse,
                               validation.empty() ? std::string()
                                                  : fmt::format(", validation ln-time MSE {:.4f}",
                                                                record.validation_log_mse),
                               record.seconds);
      progress->flush();
    }
    if (!validation.empty() && options.patience > 0 && since_best >= options.patience) {
      if (progress) {
        *progress << fmt::format("stopped: no better validation error in {} epochs\n",
                                 options.patience);
      }
      break;
    }
  }
  report.seconds = Seconds(start);

  PerfModel model(std::make_shared<const PerfModelState>(std::move(best)));
  std::set<std::string> train_groups, validation_groups;
  for (size_t i : train) train_groups.insert(examples[i].group);
  for (size_t i : validation) validation_groups.insert(examples[i].group);
  Json epochs = Json::array();
  for (const PerfModelEpoch& e : report.epochs) {
    epochs.push_back({{"train_loss", e.train_loss},
                      {"train_log_mse", e.train_log_mse},
                      {"validation_log_mse", e.validation_log_mse}});
  }
  model.training_info() = {
      {"train_examples", report.train_examples},
      {"validation_examples", report.validation_examples},
      {"train_operators", train_groups.size()},
      {"validation_operators",
       std::vector<std::string>(validation_groups.begin(), validation_groups.end())},
      {"epochs", epochs},
      {"best_epoch", report.best_epoch},
      {"batch_size", options.batch_size},
      {"learning_rate", options.learning_rate},
      {"rank_loss", PerfRankLossName(options.rank_loss)},
      {"rank_loss_weight", options.rank_loss_weight},
      {"patience", options.patience},
      {"seed", options.seed},
      {"seconds", report.seconds}};
  if (report_out) *report_out = report;
  return model;
}

}  // namespace glimpse
