// The analytical baseline (glimpse/perf_predictor.h): a roofline over the nest's statements, bytes
// per memory level from the accesses' footprints, optionally scaled per operator kind.
//
// Map: perf::PlacedStatements (each statement with the loops around it) · StatementBytes (the
// traffic one level supplies, given the capacity above it) · EstimateRoofline · RooflinePredictor
// (the per-kind scale of the calibrated variant).
#include <algorithm>
#include <cmath>
#include <map>

#include "glimpse/error.h"
#include "glimpse/perf_predictor.h"
#include "perf/access_analysis.h"
#include "perf/record_programs.h"

namespace glimpse {

namespace {

constexpr double kElementBytes = 4.0;  // float32

using perf::PlacedStmt;

std::vector<const Access*> AccessesOf(const Stmt& stmt) {
  std::vector<const Access*> out = StmtReads(stmt);
  out.push_back(&stmt.dst);
  return out;
}

double StatementFlops(const Stmt& stmt) {
  switch (stmt.kind) {
    case StmtKind::kMultiplyAdd:
      return 2.0;
    case StmtKind::kCopy:
      return EpilogueFlops(stmt);
    case StmtKind::kZero:
    case StmtKind::kPrefetch:  // left out by PlacedStatements
      return 0.0;
  }
  return 0.0;
}

// Bytes of the statement's accesses that the level under a store of `capacity` bytes supplies:
// the outermost loop d whose working set fits is fetched once per run of the loops outside it.
double StatementBytes(const LoopNest& nest, const PlacedStmt& placed, double capacity) {
  const std::vector<const Access*> accesses = AccessesOf(*placed.stmt);
  const size_t depth = placed.loops.size();
  auto working_set = [&](size_t d) {
    const std::vector<const Loop*> inner(placed.loops.begin() + static_cast<ptrdiff_t>(d),
                                         placed.loops.end());
    double elements = 0.0;
    for (const Access* access : accesses) {
      elements += perf::Footprint(*access, nest.tensors[access->tensor], inner);
    }
    return kElementBytes * elements;
  };
  size_t d = 0;
  while (d < depth && working_set(d) > capacity) ++d;
  double outer_runs = 1.0;
  for (size_t i = 0; i < d; ++i) outer_runs *= static_cast<double>(placed.loops[i]->extent);
  return working_set(d) * outer_runs;
}

// The share of `width` units that `items` of work keep busy when they run in rounds of `width`:
// items / (width · ceil(items / width)). 3 parallel iterations on 2 threads: 3/4; a vector loop
// of 24 on 16 lanes: 24/32; a multiple of the width: 1.
double GranularShare(double items, int width) {
  const double w = static_cast<double>(width);
  return items / (w * std::ceil(items / w));
}

}  // namespace

RooflineEstimate EstimateRoofline(const LoopNest& nest, const MachineProfile& profile) {
  if (profile.levels.empty() || profile.peak_gflops <= 0.0) {
    throw Error("roofline: the machine profile has no peak or no memory levels");
  }
  const std::vector<PlacedStmt> statements = perf::PlacedStatements(nest.body);

  RooflineEstimate estimate;
  const size_t levels = profile.levels.size();
  estimate.bytes.assign(levels, 0.0);
  estimate.memory_s.assign(levels, 0.0);
  for (const PlacedStmt& placed : statements) {
    double runs = 1.0;
    double parallel = 1.0;
    double lanes = 1.0;  // the innermost vectorised loop's extent
    for (const Loop* loop : placed.loops) {
      runs *= static_cast<double>(loop->extent);
      if (loop->kind == LoopKind::kParallel) parallel *= static_cast<double>(loop->extent);
      if (loop->kind == LoopKind::kVectorized) lanes = static_cast<double>(loop->extent);
    }
    // The busiest thread runs ceil(P / T) of the P parallel iterations, the last vector of a
    // loop of L elements is ceil(L / lanes) · lanes − L lanes short: both shares count the work
    // done against the capacity those rounds occupy.
    const double thread_share = GranularShare(parallel, profile.threads);
    const double lane_share = GranularShare(lanes, profile.vector_lanes);
    const double flops = StatementFlops(*placed.stmt) * runs;
    const double compute_s = flops / (profile.peak_gflops * 1e9 * thread_share * lane_share);

    double memory_s = 0.0;
    for (size_t l = 0; l < levels; ++l) {
      const double capacity = l == 0 ? profile.register_bytes : profile.levels[l - 1].size_bytes;
      const double bytes = StatementBytes(nest, placed, capacity);
      // Per-core levels feed only the cores the statement runs on; main memory is shared.
      const double share = l + 1 < levels ? thread_share : 1.0;
      const double seconds = bytes / (profile.levels[l].bandwidth_gbs * 1e9 * share);
      estimate.bytes[l] += bytes;
      estimate.memory_s[l] += seconds;
      memory_s += seconds;
    }
    estimate.flops += flops;
    estimate.compute_s += compute_s;
    estimate.time_s += std::max(compute_s, memory_s);
  }
  return estimate;
}

double LogRooflineEstimate(const LoopNest& nest, const MachineProfile& profile) {
  return std::log(std::max(EstimateRoofline(nest, profile).time_s, 1e-12));
}

double LogRooflineEstimate(const PerfCorpusRecord& record, const MachineProfile& profile) {
  return LogRooflineEstimate(RecordNest(record), profile);
}

namespace {

class RooflinePredictor : public PerfPredictor {
 public:
  RooflinePredictor(MachineProfile profile, bool calibrated)
      : profile_(std::move(profile)), calibrated_(calibrated) {}

  std::string Name() const override { return calibrated_ ? "roofline-cal" : "roofline"; }
  bool LearnsFromRecords() const override { return calibrated_; }

  void Fit(const std::vector<const PerfCorpusRecord*>& train) override {
    scales_.clear();
    global_scale_ = 1.0;
    if (!calibrated_) return;
    // Least squares in log time: log scale = mean of log(measured / estimated).
    std::map<std::string, std::pair<double, int64_t>> sums;
    double total = 0.0;
    int64_t count = 0;
    const std::vector<double> estimates = Estimate(train);
    for (size_t i = 0; i < train.size(); ++i) {
      if (!train[i]->ok() || !(train[i]->time_s > 0.0)) continue;
      const double log_ratio = std::log(train[i]->time_s / estimates[i]);
      auto& [sum, n] = sums[train[i]->kind];
      sum += log_ratio;
      ++n;
      total += log_ratio;
      ++count;
    }
    if (count > 0) global_scale_ = std::exp(total / static_cast<double>(count));
    for (const auto& [kind, sum_n] : sums) {
      scales_[kind] = std::exp(sum_n.first / static_cast<double>(sum_n.second));
    }
  }

  std::vector<double> PredictSeconds(const std::vector<const PerfCorpusRecord*>& records) override {
    std::vector<double> out = Estimate(records);
    if (!calibrated_) return out;
    for (size_t i = 0; i < records.size(); ++i) {
      auto it = scales_.find(records[i]->kind);
      out[i] *= it == scales_.end() ? global_scale_ : it->second;
    }
    return out;
  }

  Json Describe() const override {
    Json json = {{"profile", profile_.name}, {"calibrated", calibrated_}};
    if (calibrated_) {
      json["scale_per_kind"] = scales_;
      json["scale_other_kinds"] = global_scale_;
    }
    return json;
  }

 private:
  std::vector<double> Estimate(const std::vector<const PerfCorpusRecord*>& records) {
    std::vector<double> out;
    out.reserve(records.size());
    for (const PerfCorpusRecord* record : records) {
      // A nest too small to cost anything still takes some time: never predict 0.
      out.push_back(std::max(EstimateRoofline(programs_.Nest(*record), profile_).time_s, 1e-9));
    }
    return out;
  }

  MachineProfile profile_;
  bool calibrated_;
  perf::RecordPrograms programs_;
  std::map<std::string, double> scales_;
  double global_scale_ = 1.0;
};

}  // namespace

std::unique_ptr<PerfPredictor> MakeRooflinePredictor(MachineProfile profile, bool calibrated) {
  return std::make_unique<RooflinePredictor>(std::move(profile), calibrated);
}

}  // namespace glimpse
