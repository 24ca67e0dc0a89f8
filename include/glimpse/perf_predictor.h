// glimpse/perf_predictor.h — performance models as the evaluation sees them: fit on the training
// side of a split, predict seconds for the test side (docs/perf-eval.md). The baselines of
// Kaufman et al.'s evaluation live here: an analytical roofline over the loop-nest IR and XGBoost
// on loop features; the learned models (glimpse/perf_training.h) plug in through the same
// interface.
//
// A record's program is rebuilt from its operator and configuration (MakeCpuNest(ParseOperator(op),
// MakeCpuSpace(op), space.ConfigFromJson(config))), so predictors read programs, not knob indices.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "glimpse/json.h"
#include "glimpse/loop_nest.h"
#include "glimpse/perf_corpus.h"

namespace glimpse {

class PerfPredictor {
 public:
  virtual ~PerfPredictor() = default;
  // The name in reports: "roofline", "xgb", …
  virtual std::string Name() const = 0;
  // Learns from `train` (ok records only; the harness filters them). May do nothing (an
  // analytical model). Throws Error when a record's program cannot be rebuilt.
  virtual void Fit(const std::vector<const PerfCorpusRecord*>& train) = 0;
  // One predicted time per record, in seconds, > 0.
  virtual std::vector<double> PredictSeconds(
      const std::vector<const PerfCorpusRecord*>& records) = 0;
  // What the report should say about the fit (options, fitted numbers); {} when nothing.
  virtual Json Describe() const { return Json::object(); }
  // Whether Fit learns from the records. False for those that predict without them (the
  // roofline, a trained model file): only these can be scored on a split with nothing to train.
  virtual bool LearnsFromRecords() const { return true; }
};

// The CPU template's nest of a record. Throws Error naming the record's operator when the
// configuration does not instantiate.
LoopNest RecordNest(const PerfCorpusRecord& record);

// ---- The machine profile (the roofline's numbers)
//
// {"format": "glimpse-machine-profile", "version": 1, "name": …, "peak_gflops": …, "threads": …,
//  "vector_lanes": …, "register_bytes": …,
//  "levels": [{"name": "L1", "size_bytes": …, "bandwidth_gbs": …}, … {"name": "DRAM",
//              "size_bytes": 0, "bandwidth_gbs": …}],
//  "sources": {…: where each figure was measured}}
// Levels run from the fastest to main memory; the last one's size is ignored (unbounded).
// Bandwidths are what all `threads` threads together read, in GB/s (10⁹ bytes); the peak is FP32
// for all threads with `vector_lanes`-wide FMAs.
struct MemoryLevel {
  std::string name;
  double size_bytes = 0.0;
  double bandwidth_gbs = 0.0;
};
struct MachineProfile {
  std::string name;
  double peak_gflops = 0.0;
  int threads = 1;
  int vector_lanes = 1;
  double register_bytes = 0.0;  // the vector register file of one core: what L1 feeds
  std::vector<MemoryLevel> levels;
  Json sources;
};
// Throws Error naming `path` and the field for a missing or bad value.
MachineProfile LoadMachineProfile(const std::string& path);
MachineProfile MachineProfileFromJson(const Json& json, const std::string& where);
// The file's JSON of a profile (MachineProfileFromJson reads it back).
Json MachineProfileToJson(const MachineProfile& profile);
// data/hardware/cpu_machine_profile.json of the source tree (GLIMPSE_SOURCE_DIR or the build's).
std::string DefaultMachineProfilePath();

// ---- The roofline (the analytical baseline)
//
// time = max(FLOPs / compute peak, Σ_levels bytes_level / bandwidth_level), per statement of the
// nest's body, summed over statements:
//   - FLOPs: 2 per multiply-add run, 1 per bias add and per ReLU of a copy (the program graph's
//     stmt.flops), times the runs (product of the extents around the statement);
//   - compute peak: the profile's, times the share of the threads the statement's parallel loops
//     keep busy and of the vector lanes its innermost vectorised loop fills, each counted in
//     rounds: P iterations on T threads take ceil(P / T) rounds, so the share is
//     P / (T · ceil(P / T)) — 3 on 2 threads: 3/4 —, and likewise L / (lanes · ceil(L / lanes))
//     for a vector loop of extent L (1 / lanes when none);
//   - bytes a level supplies: the data that crosses from it to the level above. With the capacity
//     C of the level above (registers above L1, L1 above L2, …), the outermost loop d whose
//     working set (Σ over the statement's accesses of 4 · footprint of the loops from d inwards,
//     glimpse/program_graph.h's footprints) fits in C is where that level holds the data; each
//     run of d fetches the footprint once, so bytes = 4 · Σ_access footprint(loops ≥ d) · runs
//     of the loops outside d. A statement whose innermost loop alone does not fit streams its
//     accesses once per innermost run. Per-core levels (all but the last) scale their bandwidth
//     with the share of threads the statement uses.
// Prefetching, associativity, reuse between statements and the epilogue's packing are ignored.
struct RooflineEstimate {
  double flops = 0.0;
  double compute_s = 0.0;
  std::vector<double> bytes;     // per profile level
  std::vector<double> memory_s;  // per profile level
  double time_s = 0.0;
};
RooflineEstimate EstimateRoofline(const LoopNest& nest, const MachineProfile& profile);
// ln of EstimateRoofline(nest, profile).time_s (floored at 1e-12 s): what a model of times
// relative to the roofline (target log-efficiency) adds to its output.
double LogRooflineEstimate(const LoopNest& nest, const MachineProfile& profile);
// The same of a corpus record's program (RecordNest): the offset a relative network trains on.
double LogRooflineEstimate(const PerfCorpusRecord& record, const MachineProfile& profile);

// `calibrated`: one scale per operator kind fitted on the training split (the geometric mean of
// measured / estimated over its records: least squares in log time), the kind-independent scale
// for kinds the training split lacks; the paper's analytical baseline is scaled per kernel type
// likewise. Uncalibrated: the estimate itself.
std::unique_ptr<PerfPredictor> MakeRooflinePredictor(MachineProfile profile, bool calibrated);

// ---- XGBoost on loop features (the practical peer)
//
// AutoTVM's itervar features describe, for the loops of a statement, their extents and
// annotations and, per buffer access, its stride, touched elements and reuse. The program graph
// (glimpse/program_graph.h) already computes exactly those from the IR for every access
// (strides, loop extents and footprints of its four innermost loops, loop kinds), so the
// features are read from it, fixed-width across operators: the main multiply-add's node and its
// four accesses (a, b, destination read, store), then the mean and the maximum of every node's
// features: 7 × kProgramGraphFeatureWidth values. Target: log(time_s), reg:squarederror, or the
// rank within each operator (XgbPerfOptions::target).
struct XgbPerfOptions {
  int rounds = 300;  // boosting rounds (no early stopping: the test side is never seen)
  double eta = 0.1;  // learning rate
  int max_depth = 6;
  double min_child_weight = 1.0;
  double subsample = 1.0;  // share of rows each tree samples; 1: deterministic for a seed
  // Share of the feature columns each tree samples (XGBoost colsample_bytree). Below 1 it trades
  // in-sample fit for trees that cannot all lean on the same few sizes — a regulariser for
  // configurations and shapes the corpus does not hold.
  double colsample_bytree = 1.0;
  int num_threads = 1;  // XGBoost nthread (0: every hardware thread)
  uint64_t seed = 0;
  // What is learned: "log-time", ln(time_s) by squared error (the prediction is a time); or
  // "rank", the order within each operator by XGBoost's pairwise rank loss (rank:pairwise, one
  // query group per operator), whose prediction is a time only up to a factor per operator —
  // right for ranking an operator's configurations, meaningless across operators (MAPE); or
  // "log-efficiency", ln(time_s / the roofline's estimate on `roofline`, which it needs) by
  // squared error, the estimate added back to each prediction: the trees learn how far a schedule
  // lands from an estimate that already scales with the shape, not a log time that moves with it.
  std::string target = "log-time";
  // When set, each row also carries what the roofline (EstimateRoofline with this profile) makes
  // of the program — XgbRooflineFeatures — so that the trees can learn corrections to an
  // analytical estimate that already relates a shape's sizes to the machine's caches and peak,
  // rather than only thresholds on sizes that shift from one operator to the next. The profile
  // is the training machine's, and a saved model keeps it.
  std::optional<MachineProfile> roofline;
  // When set (with `roofline`, whose profile it reads), each row also carries
  // XgbScheduleFeatures: ratios of how the schedule meets the machine — thread and lane use, the
  // straight-line FMAs per loop iteration, the register tile against the register file, the
  // copies and stores per multiply-add — which mean the same on every shape, where the loop
  // features are sizes whose thresholds move from one operator to the next.
  bool schedule = false;
};
int XgbPerfFeatureWidth();
// The feature row of a record's program (XgbPerfFeatureWidth() values).
std::vector<float> XgbPerfFeatures(const LoopNest& nest);
// The roofline's view of a program, log-scaled (LogCount of nanoseconds, bytes, FLOPs): the
// FLOPs, the compute time, each level's bytes and time, the estimate, and which term bounds it
// (compute / Σ memory): 4 + 2 · levels values.
int XgbRooflineFeatureWidth(const MachineProfile& profile);
std::vector<float> XgbRooflineFeatures(const LoopNest& nest, const MachineProfile& profile);
// The same row from an estimate already made (EstimateRoofline), for a caller that also needs the
// estimate itself.
std::vector<float> XgbRooflineFeatures(const RooflineEstimate& estimate);
// How the schedule of a program's main multiply-add (the one run most often) meets the machine
// of `profile` (threads, vector lanes, register file), as ratios: log2 of the parallel
// iterations; their balance over the threads (iterations / (threads · rounds)); the lanes the
// vectorised loop fills in its last round; log2 of the multiply-adds per iteration of the
// innermost loop that is not unrolled (vector loops counted in rounds); log2 of that loop's trip
// count; the accumulator's floats over the register file's; log2(1 + copied elements per
// multiply-add) into temporaries (packing) and into the output (the epilogue: one over the
// reduction's length); log2 of the multiply-adds per parallel iteration.
constexpr int kXgbScheduleFeatureWidth = 9;
std::vector<float> XgbScheduleFeatures(const LoopNest& nest, const MachineProfile& profile);
// The width of a row under `options`: the loop features, and the roofline's when it is set.
int XgbPerfRowWidth(const XgbPerfOptions& options);
std::unique_ptr<PerfPredictor> MakeXgbPerfPredictor(const XgbPerfOptions& options = {});

// ---- A trained model file as it is (the learned network, glimpse/perf_model.h, or XGBoost on
// loop features, glimpse/xgb_perf_model.h): Fit does nothing, PredictSeconds is its inference.
// For a corpus the model never trained on (another machine's, a later measurement); on a split of
// its own training corpus its scores would flatter it. Throws Error as LoadProgramTimeModel does.
std::unique_ptr<PerfPredictor> MakeModelFilePerfPredictor(const std::string& path);

// ---- The predictors by name

struct PerfPredictorOptions {
  MachineProfile profile;  // the roofline's
  XgbPerfOptions xgb;
  // Makes the learned model that trains in Fit ("graphsage", "lstm", and "graphsage-efficiency",
  // "lstm-efficiency": relative to the roofline's estimate on `profile`): training needs libtorch,
  // which this library does not link, so the caller that has it (glimpse_perf_training's
  // MakeLearnedPerfPredictor) supplies it. Empty: those names are refused, saying why.
  std::function<std::unique_ptr<PerfPredictor>(const std::string& architecture)> learned;
};
// "roofline" (uncalibrated), "roofline-cal" (per-kind scale), "xgb", "xgb-rank" (target "rank"),
// "graphsage", "lstm", "graphsage-efficiency", "lstm-efficiency" (with options.learned),
// "file:PATH" (a trained model file). Throws Error
// listing the known names.
std::unique_ptr<PerfPredictor> MakePerfPredictor(const std::string& name,
                                                 const PerfPredictorOptions& options);
// Every name MakePerfPredictor knows ("file:" models aside).
const std::vector<std::string>& PerfPredictorNames();

}  // namespace glimpse
