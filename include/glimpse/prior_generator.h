// glimpse/prior_generator.h — the Blueprint-generated prior H(Π, Θ) (Glimpse, DAC'22,
// ../shared/papers/glimpse-dac22.md Sec. 3.1 "Prior distribution generation from Blueprint").
//
// H maps a task specification Π and the Blueprint Θ of a GPU (hardware.h) to one categorical
// distribution per knob of the task's space (the paper's f_k,tile_x, f_k,tile_y, …). The tuner
// starts from the configurations that combine each knob's most likely values, ranked by the
// product of their probabilities, and may draw later batches from the product distribution.
//
// The network (a hypernetwork in the sense of Ha et al.: one part generates the weights another
// part applies). For a knob with candidate values v_1..v_n:
//
//   w        = G([Θ, knob features])                      generated scoring weights, E values
//   e_i      = V([value features of v_i, knob features])  value embedding, E values
//   logit_i  = w · e_i + B([value features of v_i, knob features])
//   p_i      = softmax_i(logit_i)
//
// G, V and B are two-layer tanh MLPs. Nothing has an output per knob or per value, so one model
// covers every kernel (knobs and values are described by features, not by position), and an
// unseen GPU is handled from its Θ alone. Features (kPriorFeatureVersion):
//   value (kPriorValueFeatures): x/8 with x = log2(v) (sign(v)·log2(1+|v|) where a knob has a
//     value ≤ 0, the index for non-numeric knobs), x's position between the knob's smallest and
//     largest, the index position i/(n−1), v == 0, v a power of two, 1;
//   knob (kPriorKnobFeatures): log2(n)/5, smallest and largest x/8, numeric, two-valued; the
//     axis its name ends in (x, y, z: three flags); its other name parts hashed into 16 slots
//     ("block_size_x" → block, size) and its whole name into 64; the kernel space's name and its
//     parts into 16 slots; log2 of the problem size's product/32 and its number of
//     dimensions/4 (both 0 when the task has no problem size).
//
// Training targets (Sec. 3.1: "generating n distributions for n dimensions"): on each training
// GPU's recorded space, per knob, the empirical distribution of the knob's value over the fastest
// top_fraction of the ok configurations (at least one). The loss is the cross-entropy between H's
// distribution and the target, averaged over the knobs (with more than one value) of all spaces
// and GPUs — the sum the paper describes divided by its number of terms, so that the learning
// rate does not depend on how many spaces there are. Full-batch Adam, seeded (torch::manual_seed)
// and on one torch thread, so that the same inputs give the same model.
//
// The model file is JSON ("format": kPriorGeneratorFormat, "version": kPriorGeneratorVersion):
// the Blueprint version and component count, the feature version, the network sizes, the
// training options, the training spaces (name, GPU, file, configurations in the target), the
// command that made it, and the weights: per layer its sizes, weights and biases as numbers in
// "weights" (one file to ship and to rename into place). docs/glimpse.md describes it.
//
// Inference (Load, Distribution, InitialConfigs) is plain C++ and links no libtorch; Train is
// libtorch's (the glimpse_hwaware_training library), which the command line without `glimpse
// train` leaves out. Errors a user can cause (a file of another format or version, a Blueprint
// vector of another size) are glimpse::Error.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "glimpse/hardware.h"
#include "glimpse/json.h"
#include "glimpse/random.h"
#include "glimpse/replay.h"
#include "glimpse/space.h"
#include "glimpse/validity_ensemble.h"

namespace glimpse {

inline constexpr int kPriorGeneratorVersion = 2;
inline constexpr const char* kPriorGeneratorFormat = "glimpse-prior";
inline constexpr int kPriorFeatureVersion = 1;
inline constexpr int kPriorValueFeatures = 6;
inline constexpr int kPriorKnobFeatures = 106;

// Π beyond the knobs themselves: which kernel, on which problem.
struct PriorTask {
  std::string kernel;                // the kernel space's name, "convolution_milo"; may be empty
  std::vector<double> problem_size;  // the recorded problem size's numbers; may be empty
};
// The task of a recorded space: `name` (the kernel space, e.g. the folder name; the recorded
// kernel name when empty) and the numbers of its problem_size (a number or an array of them).
PriorTask PriorTaskOf(const RecordedSpace& recorded, const std::string& name);

// Per knob of a space (space order), the probability of each of its values (value order); each
// row sums to 1.
using PriorDistribution = std::vector<std::vector<double>>;

// The features H sees (see the file comment); exposed for tests and tools.
std::vector<double> PriorKnobFeatures(const Knob& knob, const PriorTask& task);
std::vector<std::vector<double>> PriorValueFeatures(const Knob& knob);  // per value

// ---- Training data

// The target of one recorded space: per knob, the distribution of its value over the fastest
// ceil(top_fraction × ok entries) ok entries (at least 1). Error when the space has no ok entry or
// top_fraction is not in (0, 1].
PriorDistribution TopConfigurationTargets(const RecordedSpace& recorded, double top_fraction,
                                          int64_t* top_count = nullptr);

// One space on one GPU, as H is trained on it.
struct PriorTrainingExample {
  std::string name;  // the kernel space, "convolution_milo"
  std::string gpu;   // canonical GPU name, for reports
  std::string path;  // the recorded file; may be empty
  ConfigSpace space;
  PriorTask task;
  std::vector<double> blueprint;  // Θ of the GPU
  PriorDistribution target;
  int64_t top_count = 0;  // configurations the target was made of
};

// Examples from loaded recorded spaces (LoadValidityTrainingSpaces finds and resolves them; its
// --exclude-device does the leaving out), every GPU embedded with `blueprint`. Spaces without an
// ok entry are left out and named in `skipped` when given.
std::vector<PriorTrainingExample> MakePriorExamples(
    const std::vector<ValidityTrainingSpace>& spaces, const Blueprint& blueprint,
    double top_fraction, std::vector<std::string>* skipped = nullptr);

// ---- Initial samples and sampling (no network needed: they work on any distribution)

// The configurations of `space` in decreasing product of their knobs' probabilities (best-first
// enumeration over each knob's values sorted by probability; equal products in lexicographic
// order of the per-knob ranks), skipping those the space's restrictions reject and those `accept`
// (when set) rejects; at most `n`. Stops early, with fewer, after `max_visits` candidates.
std::vector<Config> EnumerateByProbability(const ConfigSpace& space,
                                           const PriorDistribution& distribution, size_t n,
                                           const std::function<bool(const Config&)>& accept = {},
                                           uint64_t max_visits = 1'000'000);

// log Π_k p_k(config_k); −∞ when some knob's value has probability 0.
double LogProbability(const PriorDistribution& distribution, const Config& config);

// Draws configurations from the product distribution, rejecting those the restrictions (and
// `accept`) reject. Cheap to copy; Sample is const and thread-safe given distinct Rngs.
class PriorSampler {
 public:
  // Error when the distribution's shape is not the space's (knob count, value counts) or a row
  // has no positive probability.
  PriorSampler(const ConfigSpace& space, PriorDistribution distribution);
  // nullopt when no accepted configuration was drawn in `max_attempts` draws.
  std::optional<Config> Sample(Rng& rng, const std::function<bool(const Config&)>& accept = {},
                               uint64_t max_attempts = 100'000) const;

 private:
  const ConfigSpace* space_;
  PriorDistribution distribution_;
  std::vector<std::vector<double>> cumulative_;  // per knob
};

// ---- The generator

struct PriorTrainingOptions {
  double top_fraction = 0.02;  // of the ok configurations, in the target
  int epochs = 600;            // full-batch Adam steps
  double learning_rate = 3e-3;
  double weight_decay = 1e-4;  // Adam's L2 penalty
  int hidden = 32;             // width of the MLPs' hidden layer
  int embedding = 16;          // E: length of the generated weight vector and value embeddings
  uint64_t seed = 0;

  Json ToJson() const;
  static PriorTrainingOptions FromJson(const Json& json, const std::string& where);
};

// What training saw: the loss, and per example the cross-entropy and the target's entropy (their
// difference is the KL divergence from the target to H's distribution), in nats per knob.
struct PriorTrainingReport {
  double initial_loss = 0.0;
  double final_loss = 0.0;
  double seconds = 0.0;
  struct Example {
    std::string name, gpu;
    double cross_entropy = 0.0;
    double target_entropy = 0.0;
  };
  std::vector<Example> examples;
};

// A training space summarised in the model file.
struct PriorTrainingSpace {
  std::string name, gpu, path;
  int64_t top_count = 0;
};

class PriorGenerator {
 public:
  PriorGenerator();
  ~PriorGenerator();
  PriorGenerator(PriorGenerator&&) noexcept;
  PriorGenerator& operator=(PriorGenerator&&) noexcept;

  // Trains H on the examples (all of one Blueprint size). Error on an empty list, examples whose
  // Blueprint sizes differ, or targets whose shape is not their space's. In
  // glimpse_hwaware_training (libtorch).
  static PriorGenerator Train(const std::vector<PriorTrainingExample>& examples,
                              const PriorTrainingOptions& options = {},
                              PriorTrainingReport* report = nullptr);

  // Reads a model file; one whose "format" is not kPriorGeneratorFormat or whose "version" is not
  // kPriorGeneratorVersion (or whose Blueprint or feature version is not this glimpse's) is
  // refused with an Error naming both versions and the command that remakes it.
  static PriorGenerator Load(const std::string& path);
  static PriorGenerator FromJson(const Json& json, const std::string& origin);
  Json ToJson() const;
  void Save(const std::string& path) const;  // written whole, then renamed into place

  // H(Π, Θ): per knob of `space`, the probabilities of its values. Knobs with one value get {1}.
  // Error when the vector's size is not blueprint_components().
  PriorDistribution Distribution(const ConfigSpace& space, const PriorTask& task,
                                 const std::vector<double>& blueprint_vector) const;
  // The same for a GPU given by its specification, embedded with `blueprint` (Error when its
  // component count is not the model's).
  PriorDistribution Distribution(const ConfigSpace& space, const PriorTask& task,
                                 const GpuSpec& gpu, const Blueprint& blueprint) const;

  // The paper's initial samples: EnumerateByProbability over Distribution(space, task, Θ).
  std::vector<Config> InitialConfigs(const ConfigSpace& space, const PriorTask& task,
                                     const std::vector<double>& blueprint_vector, size_t n,
                                     const std::function<bool(const Config&)>& accept = {}) const;
  std::vector<Config> InitialConfigs(const ConfigSpace& space, const PriorTask& task,
                                     const GpuSpec& gpu, const Blueprint& blueprint, size_t n,
                                     const std::function<bool(const Config&)>& accept = {}) const;

  int blueprint_version() const { return blueprint_version_; }
  int blueprint_components() const { return blueprint_components_; }
  const std::vector<std::string>& blueprint_training_gpus() const {
    return blueprint_training_gpus_;
  }
  void set_blueprint_training_gpus(std::vector<std::string> gpus) {
    blueprint_training_gpus_ = std::move(gpus);
  }
  const PriorTrainingOptions& options() const { return options_; }
  const std::vector<PriorTrainingSpace>& training() const { return training_; }
  double final_loss() const { return final_loss_; }
  const std::string& made_by() const { return made_by_; }
  void set_made_by(std::string command) { made_by_ = std::move(command); }

  struct Network;  // its layers (src/hwaware/prior_internal.h)

 private:
  std::unique_ptr<Network> network_;
  PriorTrainingOptions options_;
  int blueprint_version_ = kBlueprintVersion;
  int blueprint_components_ = 0;
  std::vector<std::string> blueprint_training_gpus_;
  std::vector<PriorTrainingSpace> training_;
  double final_loss_ = 0.0;
  std::string made_by_;
};

// ---- How good a prior's first samples are on a recorded space

// Scores are time_opt / time of the fastest ok configuration among those chosen (1 = the
// recorded optimum, 0 = none of them ran). Configurations not among the recorded entries are
// outside the space (a Kernel Tuner cache holds only what its restrictions allowed) and are
// skipped, as restrictions are.
struct FirstSamplesQuality {
  std::vector<int> counts;     // the n asked for, e.g. {1, 10}
  std::vector<double> prior;   // per count: best of the first n initial configurations
  std::vector<double> random;  // per count: expected best of n distinct uniform entries
  int64_t entries = 0;         // recorded configurations (the space a random draw sees)
};
// `initial` is the prior's ordered list (InitialConfigs with an accept of "is recorded").
FirstSamplesQuality ScoreFirstSamples(const RecordedSpace& recorded,
                                      const std::vector<Config>& initial,
                                      const std::vector<int>& counts);
// time_opt / time of one configuration of the recorded space; 0 when not ok or not recorded.
double RelativeToOptimum(const RecordedSpace& recorded, const Config& config);
// The exact expectation of max(score) over n distinct entries drawn uniformly from `scores`.
double ExpectedBestOfRandom(std::vector<double> scores, int n);

}  // namespace glimpse
