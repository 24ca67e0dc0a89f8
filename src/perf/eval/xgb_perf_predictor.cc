// The practical peer (glimpse/perf_predictor.h): XGBoost regression of log time on loop features
// read from the program graph, fixed-width across operators.
//
// Map: XgbPerfFeatures (main multiply-add, its accesses, mean and max pooling) ·
// XgbRooflineFeatures (the analytical estimate's terms, when the options ask) · XgbPerfPredictor
// (Fit: XgbPerfModel::Train, glimpse/xgb_perf_model.h; PredictSeconds: exp of its prediction).
#include <algorithm>
#include <cmath>
#include <memory>

#include "glimpse/error.h"
#include "glimpse/perf_predictor.h"
#include "glimpse/program_graph.h"
#include "glimpse/xgb_perf_model.h"
#include "perf/access_analysis.h"
#include "perf/record_programs.h"

namespace glimpse {

namespace {

constexpr int kW = kProgramGraphFeatureWidth;
constexpr int kAccessSlots = 4;                // a, b, destination read, store
constexpr int kBlocks = 1 + kAccessSlots + 2;  // statement, accesses, mean, max

bool IsAccess(GraphNodeType type) {
  return type == GraphNodeType::kLoad || type == GraphNodeType::kStore;
}

}  // namespace

int XgbPerfFeatureWidth() { return kBlocks * kW; }

std::vector<float> XgbPerfFeatures(const LoopNest& nest) {
  const ProgramGraph graph = BuildProgramGraph(nest);
  std::vector<float> row(static_cast<size_t>(XgbPerfFeatureWidth()), 0.0f);
  auto put = [&](int block, const GraphNode& node) {
    std::copy(node.features.begin(), node.features.end(), row.begin() + block * kW);
  };
  // The main multiply-add: the one with the most flops (the first on ties), as the graph's tile.
  int main = -1;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (graph.nodes[i].type != GraphNodeType::kMultiplyAdd) continue;
    if (main < 0 || graph.nodes[i].features[graph_feature::kStmtLogFlops] >
                        graph.nodes[main].features[graph_feature::kStmtLogFlops]) {
      main = static_cast<int>(i);
    }
  }
  if (main >= 0) {
    put(0, graph.nodes[main]);
    int slot = 0;
    for (size_t i = static_cast<size_t>(main) + 1;
         i < graph.nodes.size() && slot < kAccessSlots && IsAccess(graph.nodes[i].type); ++i) {
      put(1 + slot++, graph.nodes[i]);
    }
  }
  if (!graph.nodes.empty()) {
    float* mean = row.data() + (1 + kAccessSlots) * kW;
    float* max = mean + kW;
    std::fill(max, max + kW, -1e30f);
    for (const GraphNode& node : graph.nodes) {
      for (int f = 0; f < kW; ++f) {
        mean[f] += node.features[f];
        max[f] = std::max(max[f], node.features[f]);
      }
    }
    for (int f = 0; f < kW; ++f) mean[f] /= static_cast<float>(graph.nodes.size());
  }
  return row;
}

int XgbRooflineFeatureWidth(const MachineProfile& profile) {
  return 4 + 2 * static_cast<int>(profile.levels.size());
}

std::vector<float> XgbRooflineFeatures(const LoopNest& nest, const MachineProfile& profile) {
  return XgbRooflineFeatures(EstimateRoofline(nest, profile));
}

std::vector<float> XgbRooflineFeatures(const RooflineEstimate& estimate) {
  std::vector<float> row;
  row.reserve(4 + 2 * estimate.bytes.size());
  // Nanoseconds, so that LogCount (log2 of 1 + x) resolves the short kernels too.
  auto ns = [](double seconds) { return LogCount(seconds * 1e9); };
  row.push_back(LogCount(estimate.flops));
  row.push_back(ns(estimate.compute_s));
  row.push_back(ns(estimate.time_s));
  double memory_s = 0.0;
  for (size_t l = 0; l < estimate.bytes.size(); ++l) {
    row.push_back(LogCount(estimate.bytes[l]));
    row.push_back(ns(estimate.memory_s[l]));
    memory_s += estimate.memory_s[l];
  }
  // Which side bounds it: > 0 compute, < 0 memory (a picosecond keeps a zero side finite).
  row.push_back(static_cast<float>(std::log2((estimate.compute_s + 1e-12) / (memory_s + 1e-12))));
  return row;
}

namespace {

double Rounds(double work, double units) { return std::ceil(work / std::max(units, 1.0)); }

}  // namespace

std::vector<float> XgbScheduleFeatures(const LoopNest& nest, const MachineProfile& profile) {
  const std::vector<perf::PlacedStmt> stmts = perf::PlacedStatements(nest.body);
  std::vector<float> row(kXgbScheduleFeatureWidth, 0.0f);
  const perf::PlacedStmt* main = nullptr;
  double macs = 0.0;
  for (const perf::PlacedStmt& s : stmts) {
    if (s.stmt->kind != StmtKind::kMultiplyAdd) continue;
    const double iterations = s.Iterations();
    if (!main || iterations > macs) main = &s, macs = iterations;
  }
  if (!main) return row;
  const double threads = std::max(profile.threads, 1);
  const double lanes = std::max(profile.vector_lanes, 1);
  double parallel = 1.0, vector = 0.0;
  for (const Loop* loop : main->loops) {
    if (loop->kind == LoopKind::kParallel) parallel *= static_cast<double>(loop->extent);
    if (loop->kind == LoopKind::kVectorized) vector = static_cast<double>(loop->extent);
  }
  // The straight-line body: the unrolled and vectorised loops inside the innermost other loop.
  double straight = 1.0, inner_trip = 1.0;
  for (auto it = main->loops.rbegin(); it != main->loops.rend(); ++it) {
    const Loop& loop = **it;
    if (loop.kind == LoopKind::kUnrolled) {
      straight *= static_cast<double>(loop.extent);
    } else if (loop.kind == LoopKind::kVectorized) {
      straight *= Rounds(static_cast<double>(loop.extent), lanes);
    } else {
      inner_trip = static_cast<double>(loop.extent);
      break;
    }
  }
  const TensorDecl& dst = nest.tensors.at(static_cast<size_t>(main->stmt->dst.tensor));
  double accumulator_floats = 0.0;
  if (dst.role == TensorRole::kTemp) {
    accumulator_floats = 1.0;
    for (int64_t extent : dst.shape) accumulator_floats *= static_cast<double>(extent);
  }
  double packed = 0.0, stored = 0.0;
  for (const perf::PlacedStmt& s : stmts) {
    if (s.stmt->kind != StmtKind::kCopy) continue;
    const TensorRole role = nest.tensors.at(static_cast<size_t>(s.stmt->dst.tensor)).role;
    (role == TensorRole::kOutput ? stored : packed) += s.Iterations();
  }
  const double register_floats = std::max(profile.register_bytes / 4.0, 1.0);
  row[0] = LogCount(parallel);
  row[1] = static_cast<float>(parallel / (threads * Rounds(parallel, threads)));
  row[2] = vector > 0 ? static_cast<float>(vector / (lanes * Rounds(vector, lanes))) : 0.0f;
  row[3] = LogCount(straight);
  row[4] = LogCount(inner_trip);
  row[5] = static_cast<float>(accumulator_floats / register_floats);
  row[6] = LogCount(packed / macs);
  row[7] = LogCount(stored / macs);
  row[8] = LogCount(macs / parallel);
  return row;
}

int XgbPerfRowWidth(const XgbPerfOptions& options) {
  return XgbPerfFeatureWidth() +
         (options.roofline ? XgbRooflineFeatureWidth(*options.roofline) : 0) +
         (options.schedule ? kXgbScheduleFeatureWidth : 0);
}

namespace {

// The regression itself is XgbPerfModel's (glimpse/xgb_perf_model.h), so that the evaluation
// scores exactly what `glimpse train perf-model --model xgb` saves.
class XgbPerfPredictor : public PerfPredictor {
 public:
  explicit XgbPerfPredictor(XgbPerfOptions options) : options_(options) {
    if (options_.rounds < 1 || options_.eta <= 0.0 || options_.max_depth < 1) {
      throw Error("xgb perf predictor: rounds and max_depth must be ≥ 1 and eta > 0");
    }
    if (options_.schedule && !options_.roofline) {
      throw Error("xgb perf predictor: the schedule features read the roofline's machine profile");
    }
  }

  std::string Name() const override {
    const std::string base = options_.target == "rank"             ? "xgb-rank"
                             : options_.target == "log-efficiency" ? "xgb-efficiency"
                                                                   : "xgb";
    return base + (options_.roofline ? "-roofline" : "") + (options_.schedule ? "-schedule" : "");
  }

  void Fit(const std::vector<const PerfCorpusRecord*>& train) override {
    model_ = std::make_unique<XgbPerfModel>(XgbPerfModel::Train(train, options_));
    trained_rows_ = model_->TrainingInfo().value("examples", size_t{0});
  }

  std::vector<double> PredictSeconds(const std::vector<const PerfCorpusRecord*>& records) override {
    if (!model_) throw Error("xgb perf predictor: PredictSeconds before Fit");
    if (records.empty()) return {};
    return programs_.PredictSeconds(*model_, records);
  }

  Json Describe() const override {
    return {
        {"objective", options_.target == "rank"
                          ? "rank:pairwise on -log(time_s), one group per operator"
                      : options_.target == "log-efficiency"
                          ? "reg:squarederror on log(time_s / the roofline's estimate)"
                          : "reg:squarederror on log(time_s)"},
        {"features",
         std::string("program graph: main multiply-add, 4 accesses, mean, max") +
             (options_.roofline ? "; the roofline's estimate on profile " + options_.roofline->name
                                : "") +
             (options_.schedule ? "; the schedule's ratios (XgbScheduleFeatures)" : "")},
        {"width", XgbPerfRowWidth(options_)},
        {"rounds", options_.rounds},
        {"eta", options_.eta},
        {"max_depth", options_.max_depth},
        {"min_child_weight", options_.min_child_weight},
        {"subsample", options_.subsample},
        {"colsample_bytree", options_.colsample_bytree},
        {"seed", options_.seed},
        {"train_rows", trained_rows_}};
  }

 private:
  XgbPerfOptions options_;
  perf::RecordPrograms programs_;
  std::unique_ptr<XgbPerfModel> model_;
  size_t trained_rows_ = 0;
};

}  // namespace

std::unique_ptr<PerfPredictor> MakeXgbPerfPredictor(const XgbPerfOptions& options) {
  return std::make_unique<XgbPerfPredictor>(options);
}

}  // namespace glimpse
