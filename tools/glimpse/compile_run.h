// What `glimpse compile`, `glimpse run` and `glimpse tune --compile DIR` share
// (compile_command.cc): compiling a model graph with a database into an artifact, and building,
// checking and timing an artifact.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "glimpse/model_compile.h"
#include "glimpse/model_graph.h"

namespace glimpse::cli {

// What a compiled model runs on: this CPU, or an NVIDIA GPU (docs/compile.md, "The CUDA target").
struct CompileTarget {
  std::string target = "cpu";  // or "cuda"
  std::string arch;            // cuda: "sm_90"; empty: DefaultCudaArch()
  // cuda: the GPU whose records count; empty: the one GPU the database has records of for the
  // model's tasks (several: an error naming them; none: every kernel a default).
  std::string device;
  // cuda: CompileModelOptions::cuda_host_emulation (a check without a GPU; hidden flag)
  bool host_emulation = false;
};

// Compiles `graph` (the model given as `model` on the command line: a zoo name or FILE.onnx, with
// `input_shapes`) with the records of the database at `db` (empty: none) into `dir`, prints the
// summary and returns the report. Warnings go to stderr.
CompileModelReport CompileForCli(const ModelGraph& graph, const std::string& model,
                                 const std::vector<std::string>& input_shapes,
                                 const std::string& db, const std::string& dir,
                                 const std::string& name, bool blocked_activations = false,
                                 bool warm_activations = false, const CompileTarget& target = {});

struct RunFlags {
  std::string dir;
  std::vector<int> threads = {1};
  std::string python;  // "none": skip ONNX Runtime
  double tolerance = 1e-3;
  uint64_t seed = 1;
  int min_repeats = 10;
  double min_time_s = 0.5;
  std::string json;
  bool profile = false;  // time every step too (runs as many as the timed runs' minimum)
};

// `glimpse run`: builds the artifact in flags.dir, checks its output against the reference
// interpreter (and ONNX Runtime for an ONNX model when a Python with it is found), times it at
// each thread count and prints the table. Throws Error when an output is out of tolerance.
void RunCompiledModel(const RunFlags& flags);

}  // namespace glimpse::cli
