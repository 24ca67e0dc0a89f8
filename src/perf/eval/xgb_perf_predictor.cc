// The practical peer (glimpse/perf_predictor.h): XGBoost regression of log time on loop features
// read from the program graph, fixed-width across operators.
//
// Map: XgbPerfFeatures (main multiply-add, its accesses, mean and max pooling) · XgbPerfPredictor
// (Fit: rows, labels log(time_s), a fixed number of rounds; PredictSeconds: exp of the margin).
#include <algorithm>
#include <cmath>
#include <thread>

#include "glimpse/error.h"
#include "glimpse/perf_predictor.h"
#include "glimpse/program_graph.h"
#include "model/xgboost_api.h"
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

namespace {

class XgbPerfPredictor : public PerfPredictor {
 public:
  explicit XgbPerfPredictor(XgbPerfOptions options) : options_(options) {
    if (options_.rounds < 1 || options_.eta <= 0.0 || options_.max_depth < 1) {
      throw Error("xgb perf predictor: rounds and max_depth must be ≥ 1 and eta > 0");
    }
  }

  std::string Name() const override { return "xgb"; }

  void Fit(const std::vector<const PerfCorpusRecord*>& train) override {
    std::vector<const PerfCorpusRecord*> rows;
    for (const PerfCorpusRecord* record : train) {
      if (record->ok() && record->time_s > 0.0) rows.push_back(record);
    }
    if (rows.empty()) throw Error("xgb perf predictor: no ok record to train on");
    std::vector<float> labels;
    for (const PerfCorpusRecord* record : rows) {
      labels.push_back(static_cast<float>(std::log(record->time_s)));
    }
    model::XgbMatrix matrix(Features(rows), rows.size(),
                            static_cast<size_t>(XgbPerfFeatureWidth()));
    matrix.SetFloatInfo("label", labels);
    booster_ = std::make_unique<model::XgbBooster>(&matrix);
    booster_->SetParam("objective", "reg:squarederror");
    booster_->SetParam("eta", std::to_string(options_.eta));
    booster_->SetParam("max_depth", std::to_string(options_.max_depth));
    booster_->SetParam("min_child_weight", std::to_string(options_.min_child_weight));
    booster_->SetParam("subsample", std::to_string(options_.subsample));
    const int threads = options_.num_threads > 0
                            ? options_.num_threads
                            : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    booster_->SetParam("nthread", std::to_string(threads));
    booster_->SetSeed(options_.seed);
    booster_->SetParam("verbosity", "0");
    for (int round = 0; round < options_.rounds; ++round) booster_->UpdateOneIter(round, matrix);
    trained_rows_ = rows.size();
  }

  std::vector<double> PredictSeconds(const std::vector<const PerfCorpusRecord*>& records) override {
    if (!booster_) throw Error("xgb perf predictor: PredictSeconds before Fit");
    if (records.empty()) return {};
    model::XgbMatrix matrix(Features(records), records.size(),
                            static_cast<size_t>(XgbPerfFeatureWidth()));
    const std::vector<float> margins = booster_->PredictMargin(matrix);
    std::vector<double> out;
    out.reserve(margins.size());
    for (float margin : margins) out.push_back(std::exp(static_cast<double>(margin)));
    return out;
  }

  Json Describe() const override {
    return {{"objective", "reg:squarederror on log(time_s)"},
            {"features", "program graph: main multiply-add, 4 accesses, mean, max"},
            {"width", XgbPerfFeatureWidth()},
            {"rounds", options_.rounds},
            {"eta", options_.eta},
            {"max_depth", options_.max_depth},
            {"min_child_weight", options_.min_child_weight},
            {"subsample", options_.subsample},
            {"seed", options_.seed},
            {"train_rows", trained_rows_}};
  }

 private:
  std::vector<float> Features(const std::vector<const PerfCorpusRecord*>& records) {
    std::vector<float> out;
    out.reserve(records.size() * static_cast<size_t>(XgbPerfFeatureWidth()));
    for (const PerfCorpusRecord* record : records) {
      const std::vector<float> row = XgbPerfFeatures(programs_.Nest(*record));
      out.insert(out.end(), row.begin(), row.end());
    }
    return out;
  }

  XgbPerfOptions options_;
  perf::RecordPrograms programs_;
  std::unique_ptr<model::XgbBooster> booster_;
  size_t trained_rows_ = 0;
};

}  // namespace

std::unique_ptr<PerfPredictor> MakeXgbPerfPredictor(const XgbPerfOptions& options) {
  return std::make_unique<XgbPerfPredictor>(options);
}

}  // namespace glimpse
