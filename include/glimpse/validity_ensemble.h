// glimpse/validity_ensemble.h — the hardware-aware validity ensemble (Glimpse, DAC'22,
// ../shared/papers/glimpse-dac22.md Sec. 3.3 "Hardware-Aware Sampling").
//
// One light threshold predictor per knob of a space (the paper's p_tile_x, p_tile_y, …) votes
// valid / invalid on a configuration; a configuration is rejected when more than τ of the
// predictors (τ = 1/3, the paper's grid-search value) vote it invalid. A predictor's threshold is
// not fixed: it is generated from the Blueprint Θ of the target GPU (hardware.h),
//
//   threshold_k(Θ) = w_kᵀ Θ + b_k          on the knob's value, or its log2 for positive knobs,
//
// with a direction (invalid above the threshold, or below it). So a GPU never seen in training
// gets its own thresholds from its datasheet figures alone.
//
// Training (ValidityEnsembleModel::Train), per kernel space: on each training GPU's recorded space
// (replay.h; ok → valid, any recorded failure → invalid) and for each knob, the one-sided
// threshold with the best balanced accuracy, (recall of failures + specificity) / 2 (or, with
// false_rejection_weight, recall − weight × false-rejection rate); the direction that separates
// best on average over the GPUs with failures; then ridge regression Blueprint → threshold across
// the GPUs (with a handful of GPUs and a Blueprint of ~17 components the ridge term is what keeps
// the generator sane), clamped to the training GPUs' range. A knob that separates nothing on
// any GPU (best mean balanced accuracy below min_balanced_accuracy, or no failures at all) gets a
// predictor that always votes valid, with a note saying so. Knobs with a single value, and split
// or permutation knobs, get no predictor.
//
// Derived features (an extension, off by default): with derived_features, products of two
// positive ordered knobs (block_size_x·block_size_y = threads per block) get predictors too; only
// those that separate something are kept, so they do not dilute the vote.
//
// The model file is JSON: "format": "glimpse-validity-ensemble", "version":
// kValidityEnsembleVersion, the Blueprint version and component count it was made with, the
// options, the command that made it, and per kernel space the training GPUs and files and the
// predictors. docs/glimpse.md describes it. Errors a user can cause (a file of another format or
// version, a space the model was not trained for, a Blueprint of another size) are glimpse::Error
// with a one-line message.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "glimpse/hardware.h"
#include "glimpse/json.h"
#include "glimpse/replay.h"
#include "glimpse/space.h"

namespace glimpse {

inline constexpr int kValidityEnsembleVersion = 1;
inline constexpr const char* kValidityEnsembleFormat = "glimpse-validity-ensemble";

// τ is compared with this tolerance, so that 0.333 means 1/3 and 0.667 means 2/3.
inline constexpr double kTauTolerance = 5e-4;

struct ValidityEnsembleOptions {
  // Reject when invalid votes > (tau + kTauTolerance) × voters.
  double tau = 1.0 / 3.0;
  // Also train predictors on products of two positive ordered knobs (kept only when informative).
  bool derived_features = false;
  // false (the paper): every knob's predictor counts as a voter, the always-valid ones too.
  // true: predictors that separate nothing abstain, and τ applies to the informative ones.
  bool abstain_uninformative = false;
  // Ridge penalty of the Blueprint → threshold generator, in squared Blueprint units. Large
  // values pull every GPU's threshold towards the training GPUs' mean.
  double ridge_lambda = 1.0;
  // The per-GPU threshold maximises recall of failures − false_rejection_weight × the fraction of
  // valid configurations rejected. 1 is balanced accuracy (Youden's J); larger values keep the
  // thresholds away from valid configurations (rejecting a good one costs more than measuring a
  // bad one).
  double false_rejection_weight = 1.0;
  // Clamp a generated threshold to the range of the training GPUs' thresholds, so that a GPU far
  // from all training GPUs in Blueprint space gets no threshold stricter (or laxer) than any
  // training GPU had.
  bool clamp_to_training = true;
  // A predictor whose best mean balanced accuracy over the training GPUs with failures is below
  // this separates nothing and always votes valid. 0.5 is chance.
  double min_balanced_accuracy = 0.55;

  Json ToJson() const;
  static ValidityEnsembleOptions FromJson(const Json& json, const std::string& where);
};

enum class ThresholdDirection : uint8_t {
  kNever,         // always votes valid
  kInvalidAbove,  // invalid when feature > threshold
  kInvalidBelow,  // invalid when feature < threshold
};
const char* ThresholdDirectionName(ThresholdDirection direction);  // "never", "above", "below"

enum class FeatureScale : uint8_t {
  kLinear,  // the knob value (or product of values) itself
  kLog2,    // log2 of it; used when every value is > 0
  kIndex,   // the value index (categorical knobs of non-numeric values)
};
const char* FeatureScaleName(FeatureScale scale);  // "linear", "log2", "index"

// What one training GPU said about one predictor.
struct GpuThreshold {
  std::string gpu;                 // canonical table name
  double threshold = 0.0;          // in the feature's scale; beyond the range when none separates
  double balanced_accuracy = 0.5;  // of that threshold on that GPU's recorded space
  int64_t failures = 0;            // recorded failures on that GPU
};

struct KnobPredictor {
  std::string feature;             // "block_size_x", or "block_size_x*block_size_y"
  std::vector<std::string> knobs;  // the knob, or the factors of a product
  FeatureScale scale = FeatureScale::kLinear;
  ThresholdDirection direction = ThresholdDirection::kNever;
  std::vector<double> weights;  // one per Blueprint component; empty when never
  double bias = 0.0;
  // With clamp_to_training: the generated threshold is kept in [min_threshold, max_threshold].
  bool clamped = false;
  double min_threshold = 0.0, max_threshold = 0.0;
  double mean_balanced_accuracy = 0.5;  // over the training GPUs with failures
  std::vector<GpuThreshold> training;
  std::string note;  // why it always votes valid, when it does

  // w·blueprint + b (clamped when `clamped`). Error when the sizes differ.
  double Threshold(const std::vector<double>& blueprint) const;
  bool informative() const { return direction != ThresholdDirection::kNever; }
};

// The recorded space one training GPU contributed.
struct TrainingSpaceSummary {
  std::string gpu;   // canonical table name
  std::string path;  // as given
  int64_t entries = 0;
  int64_t failures = 0;
};

// The predictors of one kernel space (one set of knobs).
struct KernelValidityModel {
  std::string name;    // the spaces' folder name ("convolution_milo"), else the kernel name
  std::string kernel;  // the recorded kernel name ("convolution_kernel"); may be empty
  std::vector<std::string> knobs;  // the space's knob names, in order
  std::vector<TrainingSpaceSummary> training;
  std::vector<KnobPredictor> predictors;
};

// One recorded space of one GPU, for training.
struct ValidityTrainingSpace {
  std::shared_ptr<const RecordedSpace> recorded;
  GpuSpec gpu;
  std::string name;  // the kernel space it belongs to; empty: the recorded kernel name
};

// The GPU a recorded space was measured on: `explicit_device` when not empty, else the name the
// file reports, else the file's name (ResolveRecordedGpu; its Error says which it came from).
const GpuSpec& GpuOfRecordedSpace(const GpuTable& table, const RecordedSpace& recorded,
                                  const std::string& explicit_device = "");

struct LoadedTrainingSpaces {
  std::vector<ValidityTrainingSpace> spaces;
  std::vector<std::string> skipped;  // "path: why", for files left out
};

// The training spaces of `paths`: files, or folders searched recursively for *.json and
// *.json.gz files. A named file must load as a recorded space (else Error); a file found in a
// folder that does not (a T1 file, say) is skipped. Each space is named after its folder
// ("convolution_milo" for .../convolution_milo/A100.json.gz). Spaces on a GPU of
// `exclude_devices` (any name LookupGpu knows; an unknown one is an Error) are left out, and of
// two spaces of one folder on one GPU the Kernel Tuner cache (then the first path) is kept.
LoadedTrainingSpaces LoadValidityTrainingSpaces(const std::vector<std::string>& paths,
                                                const std::vector<std::string>& exclude_devices,
                                                const GpuTable& table);

class ValidityEnsemble;

class ValidityEnsembleModel {
 public:
  // Trains one KernelValidityModel per kernel space (spaces grouped by name and knob names).
  // Every GPU is embedded with `blueprint`. Error on an empty list or two spaces of one kernel
  // space on the same GPU.
  static ValidityEnsembleModel Train(const std::vector<ValidityTrainingSpace>& spaces,
                                     const Blueprint& blueprint,
                                     const ValidityEnsembleOptions& options = {});

  // Reads a model file; one whose "format" is not kValidityEnsembleFormat or whose "version" is
  // not kValidityEnsembleVersion is refused with an Error naming both versions and the command
  // that remakes it.
  static ValidityEnsembleModel Load(const std::string& path);
  static ValidityEnsembleModel FromJson(const Json& json, const std::string& origin);
  Json ToJson() const;
  void Save(const std::string& path) const;  // written whole, then renamed into place

  const std::vector<KernelValidityModel>& kernels() const { return kernels_; }
  const ValidityEnsembleOptions& options() const { return options_; }
  void set_tau(double tau);  // Error unless 0 ≤ tau < 1
  int blueprint_version() const { return blueprint_version_; }
  int blueprint_components() const { return blueprint_components_; }
  const std::string& made_by() const { return made_by_; }
  void set_made_by(std::string command) { made_by_ = std::move(command); }

  // The kernel space whose knobs are exactly the space's (names, in any order) and whose name or
  // kernel is `kernel` (an empty `kernel` matches when only one model has these knobs); nullptr
  // when none.
  const KernelValidityModel* Find(const std::string& kernel, const ConfigSpace& space) const;

  // The ensemble for `space` on a GPU: thresholds generated from blueprint.Embed(gpu), or from a
  // Blueprint vector directly. Error naming the kernel and the known kernel spaces when Find
  // finds none, or when the vector's size is not blueprint_components().
  ValidityEnsemble ForSpace(const std::string& kernel, const ConfigSpace& space, const GpuSpec& gpu,
                            const Blueprint& blueprint) const;
  ValidityEnsemble ForSpace(const std::string& kernel, const ConfigSpace& space,
                            const std::vector<double>& blueprint_vector) const;

 private:
  std::vector<KernelValidityModel> kernels_;
  ValidityEnsembleOptions options_;
  int blueprint_version_ = kBlueprintVersion;
  int blueprint_components_ = 0;
  std::vector<std::string> blueprint_training_gpus_;
  std::string made_by_;
};

// A kernel model bound to one space and one GPU: the thresholds are fixed, a vote costs a few
// array reads per predictor. Cheap to copy; thread-safe for concurrent reads.
class ValidityEnsemble {
 public:
  // Binds `model`'s predictors to `space` (every model knob must be in it) with thresholds from
  // `blueprint_vector`.
  ValidityEnsemble(const KernelValidityModel& model, const ConfigSpace& space,
                   const std::vector<double>& blueprint_vector,
                   const ValidityEnsembleOptions& options);

  // Predictors that vote invalid on `config` (a point of the bound space, in range).
  int InvalidVotes(const Config& config) const;
  // Predictors that vote: all, or only the informative ones with abstain_uninformative.
  int voters() const { return voters_; }
  // True unless InvalidVotes > (tau + kTauTolerance) × voters.
  bool IsValid(const Config& config) const;
  // The configurations IsValid keeps, in order.
  std::vector<Config> Filter(const std::vector<Config>& configs) const;

  double tau() const { return tau_; }
  // Per predictor (model order): its feature name and generated threshold (NaN when never).
  std::vector<std::pair<std::string, double>> Thresholds() const;

 private:
  struct Bound {
    std::string feature;
    std::vector<size_t> knob_positions;
    std::vector<std::vector<double>> values;  // per factor: the feature value of each index
    FeatureScale scale = FeatureScale::kLinear;
    ThresholdDirection direction = ThresholdDirection::kNever;
    double threshold = 0.0;
  };
  double FeatureValue(const Bound& bound, const Config& config) const;

  std::vector<Bound> bound_;
  int voters_ = 0;
  double tau_ = 1.0 / 3.0;
  size_t num_knobs_ = 0;
};

// How an ensemble does on a recorded space of its GPU.
struct ValidityEvaluation {
  int64_t failures = 0;           // recorded failures
  int64_t failures_rejected = 0;  // of them, rejected by the ensemble (good)
  int64_t valid = 0;              // recorded ok configurations
  int64_t valid_rejected = 0;     // of them, rejected (bad)
  int64_t top = 0;                // the fastest ceil(1 %) of the ok configurations
  int64_t top_rejected = 0;       // of them, rejected (worst)
  bool best_rejected = false;     // the fastest ok configuration was rejected

  double FailureRecall() const;       // failures_rejected / failures; 0 when none
  double FalseRejectionRate() const;  // valid_rejected / valid
  double TopRejectionRate() const;    // top_rejected / top
};
ValidityEvaluation EvaluateEnsemble(const ValidityEnsemble& ensemble,
                                    const RecordedSpace& recorded);

}  // namespace glimpse
