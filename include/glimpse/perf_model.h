// glimpse/perf_model.h — the learned performance model (Kaufman et al., "A learned performance
// model for TPUs"; docs/perf-model.md "The model"): a network that reads a program graph
// (glimpse/program_graph.h) and predicts the kernel's run time, for a tuner to rank candidates it
// has not measured.
//
// Two architectures share one file format and one inference path:
//   - graphsage (the paper's): a feed-forward layer embeds every node's standardised features;
//     k hops of GraphSAGE then update each node from the mean of its neighbours' messages, one
//     message layer per hop and per relation (each edge type of the graph, in each direction),
//     concatenated with the node itself, through a per-hop layer and L2-normalised; the kernel's
//     embedding is the sum, mean and max of the last hop's node embeddings, with the tile-size
//     sub-vector appended (Kaufman's kernel features); a final linear layer (optionally after one
//     hidden layer) gives the log time.
//   - lstm (the paper's sequential baseline): the same node embeddings, in the graph's node order
//     (tensors, then the nest's body in pre-order), through an LSTM; its last hidden state with the
//     tile sub-vector → the same readout.
//
// Inference is plain C++ (no libtorch: glimpse_lite predicts too), batched: PredictLogTimes scores
// thousands of graphs per call. Training is libtorch's (TrainPerfModel, in glimpse_perf_training).
//
// Units: a prediction is the natural log of the time in seconds (PredictSeconds: seconds).
//
// The model file is JSON:
//   {"format": "glimpse-perf-model", "version": kPerfModelVersion,
//    "program_graph_feature_version": kProgramGraphFeatureVersion,
//    "architecture": "graphsage" | "lstm",
//    "hyperparameters": {"hidden", "hops", "readout_hidden"},
//    "normalisation": {"feature_mean", "feature_std" (kProgramGraphFeatureWidth each),
//                      "tile_mean", "tile_std" (6 each), "target_mean", "target_std" (ln s)},
//    "layers": {name: {"inputs", "outputs", "weight" (outputs × inputs), "bias"}},
//    "made_by": the command line, "training": {…what it was trained on, its losses…}}
// A network that learned times relative to the roofline's estimate (`glimpse train perf-model
// --target log-efficiency`) adds, as version 2 of the file,
//    "target": "log-efficiency", "roofline_profile": {the machine profile, perf_predictor.h},
// and its outputs are ln(time / the roofline's estimate of the program on that profile): the
// program-time model that reads the file (LoadProgramTimeModel, glimpse/xgb_perf_model.h) adds
// the estimate back. A network of ln time stays a version-1 file, which every glimpse that reads
// models reads; a version-1 reader refuses a version-2 file rather than rank with its outputs.
// Load refuses another format or version and a model trained on other program-graph features,
// naming the file and the command that remakes it. The format's third architecture,
// "xgb-loop-features" (XGBoost on loop features, glimpse/xgb_perf_model.h), is no network: Load
// refuses it saying so, and LoadProgramTimeModel there reads either kind.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "glimpse/json.h"
#include "glimpse/program_graph.h"

namespace glimpse {

constexpr const char* kPerfModelFormat = "glimpse-perf-model";
// Bump when the file's fields or the network's arithmetic change; Load refuses other versions.
// A network of ln time is written as version kPerfModelLogTimeVersion (its fields are those of
// that version); one relative to the roofline as kPerfModelVersion.
constexpr int kPerfModelVersion = 2;
constexpr int kPerfModelLogTimeVersion = 1;
// What the network's output is: ln time, or ln(time / the roofline's estimate).
constexpr const char* kPerfModelLogTime = "log-time";
constexpr const char* kPerfModelLogEfficiency = "log-efficiency";

enum class PerfModelArchitecture { kGraphSage, kLstm };
const char* PerfModelArchitectureName(PerfModelArchitecture architecture);  // "graphsage", "lstm"
// Throws Error "unknown performance model 'x'; known: graphsage, lstm".
PerfModelArchitecture ParsePerfModelArchitecture(const std::string& name);

// The relations GraphSAGE aggregates over: each edge list of the graph, forward (a node hears its
// predecessors) and backward (its successors).
constexpr int kPerfModelRelations = 6;

struct PerfModelShape {
  PerfModelArchitecture architecture = PerfModelArchitecture::kGraphSage;
  int hidden = 32;         // width of the node embeddings (and of the LSTM's state)
  int hops = 3;            // GraphSAGE's k (0: the feed-forward embeddings alone); lstm: unused
  int readout_hidden = 0;  // 0: a linear readout (the paper's); n: one ReLU layer of n first
};

// The largest shape a model may have: far above any trained one (hidden 32–256, 3 hops), and low
// enough that a corrupt or hostile file is refused before it allocates gigabytes of weights.
constexpr int kPerfModelMaxWidth = 4096;
constexpr int kPerfModelMaxHops = 16;

// Throws Error naming `where` unless 1 ≤ hidden ≤ kPerfModelMaxWidth, 0 ≤ hops ≤ kPerfModelMaxHops
// and 0 ≤ readout_hidden ≤ kPerfModelMaxWidth.
void CheckPerfModelShape(const PerfModelShape& shape, const std::string& where);

// The internals (layers, normalisation) live in src/perf/perf_network.h.
struct PerfModelState;

class PerfModel {
 public:
  explicit PerfModel(std::shared_ptr<const PerfModelState> state);

  // Reads a model file. Throws Error naming `path` for a file that is not JSON, another format or
  // version, a program-graph feature version other than this glimpse's (with the remake command),
  // or a missing or mis-sized field.
  static PerfModel Load(const std::string& path);
  // `origin` names the file in errors.
  static PerfModel FromJson(const Json& json, const std::string& origin);
  Json ToJson() const;
  // Written atomically (temporary file, rename); creates the parent directory.
  void Save(const std::string& path) const;

  // ln(seconds) for each graph, in order. Graphs are independent; no graph is modified. For a
  // network relative to the roofline (RelativeToRoofline()), the network's output alone:
  // ln(seconds / the roofline's estimate), which a graph does not carry.
  std::vector<double> PredictLogTimes(const std::vector<const ProgramGraph*>& graphs) const;
  std::vector<double> PredictSeconds(const std::vector<const ProgramGraph*>& graphs) const;
  double PredictLogTime(const ProgramGraph& graph) const;

  const PerfModelShape& shape() const;
  const PerfModelState& state() const { return *state_; }
  const std::string& made_by() const { return made_by_; }
  void set_made_by(std::string command) { made_by_ = std::move(command); }
  // What it was trained on and how it went ("records", "operators", "epochs", losses …).
  Json& training_info() { return training_; }
  const Json& training_info() const { return training_; }

  // The network's target: kPerfModelLogTime, or kPerfModelLogEfficiency with the machine profile
  // (MachineProfileToJson's object, glimpse/perf_predictor.h) whose roofline estimate its outputs
  // are relative to.
  std::string target() const {
    return RelativeToRoofline() ? kPerfModelLogEfficiency : kPerfModelLogTime;
  }
  bool RelativeToRoofline() const { return !roofline_profile_.is_null(); }
  const Json& roofline_profile() const { return roofline_profile_; }
  // Marks the network as one of ln(time / the roofline's estimate on `profile`). Throws Error for
  // a profile that is not a JSON object.
  void SetRelativeToRoofline(Json profile);

 private:
  std::shared_ptr<const PerfModelState> state_;
  std::string made_by_;
  Json training_ = Json::object();
  Json roofline_profile_;  // null: a network of ln time
};

}  // namespace glimpse
