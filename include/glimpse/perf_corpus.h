// glimpse/perf_corpus.h — the performance corpus: measured (operator, configuration) pairs with all
// their time samples, the learned performance model's training data (docs/perf-corpus.md).
//
// A corpus file is gzip-compressed JSON lines. Line 1 is the header:
//   {"format": "glimpse-perf-corpus", "version": 1, "created_at": <unix s>,
//    "machine": {"cpu": …, "cpus": …, "glimpse_revision": …},
//    "protocol": {… the runner's settings …}, "template_versions": {"cpu": 1},
//    "program_graph_feature_version": 1, "records": <count>, "operators": <count>}
// and every further line one measurement (PerfCorpusRecord). A record carries what a featuriser
// needs to rebuild the program: the operator text (ParseOperator), the target and its template
// version, and the configuration by knob name (MakeCpuSpace(op).ConfigFromJson(config)).
//
// Units: times in seconds; timestamps in seconds since the Unix epoch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "glimpse/json.h"
#include "glimpse/measure.h"

namespace glimpse {

constexpr const char* kPerfCorpusFormat = "glimpse-perf-corpus";
// Bump when a field changes meaning or a required one is added; LoadPerfCorpus refuses others.
constexpr int kPerfCorpusVersion = 1;

// One measurement of the corpus.
struct PerfCorpusRecord {
  std::string op;                   // OperatorToString: "dense:M=1,N=1000,K=512,bias=1"
  std::string kind;                 // OperatorName: dense, conv2d, depthwise_conv2d, batch_matmul
  std::string target;               // "cpu"
  int template_version = 0;         // the target's template version when it was measured
  std::string device;               // the device it ran on ("Intel(R) Xeon(R) Platinum 8480+")
  std::string workload_key;         // the tuning database's workload (Task::WorkloadKey)
  std::vector<std::string> models;  // zoo models with a layer of this operator (may be empty)
  Json config;                      // by knob name (ConfigSpace::ConfigToJson)
  MeasureStatus status = MeasureStatus::kUnknown;
  std::string error;  // why it failed; empty when ok
  // Every timed run, in the order they ran; empty for a failure.
  std::vector<double> samples_s;
  double time_s = 0.0;   // the median of samples_s (the runner's time); +inf for a failure
  std::string strategy;  // what proposed it: "corpus-uniform" (the uniform sample), "xgb", …
  double measured_at = 0.0;

  bool ok() const { return status == MeasureStatus::kOk; }
};

// A corpus in memory: its header (fields above) and its records in file order.
struct PerfCorpus {
  Json header;
  std::vector<PerfCorpusRecord> records;
};

// The record as its JSON line (time_s null for +inf) and back. FromJson throws Error naming the
// missing or mistyped field, a status or operator that does not parse, an ok record without
// samples, or a kind that is not the operator's.
Json PerfCorpusRecordToJson(const PerfCorpusRecord& record);
PerfCorpusRecord PerfCorpusRecordFromJson(const Json& json);

// Writes `corpus` to `path` gzip-compressed, through a temporary file renamed into place (a killed
// export leaves no truncated corpus); creates the parent directory. The header's "format",
// "version", "records" and "operators" are set here. Throws Error naming the path.
void WritePerfCorpus(const std::string& path, const PerfCorpus& corpus);

// Reads a corpus (gzip or plain). Throws Error "<path>:<line>: <what>" for a header that is not a
// glimpse-perf-corpus of version kPerfCorpusVersion, a line that is not JSON, a bad record, or a
// record count other than the header's; "<path>: …" when the file cannot be read.
PerfCorpus LoadPerfCorpus(const std::string& path);

// Several corpus files read as one (`--corpus A,B`): a corpus grown by a later measuring run
// (new operators, measured on the same machine under the same protocol) without rewriting the
// first file. The records are concatenated in file order. The header is the first file's, with
// "records" and "operators" counted over all, "measure_runs" concatenated and "parts" listing each
// file with its record count. Throws Error naming the file when its machine's CPU, protocol,
// template versions or program-graph feature version differ from the first file's (timings under
// two protocols are not one label), or when one (operator, configuration) is in two files.
PerfCorpus LoadPerfCorpusFiles(const std::vector<std::string>& paths);

}  // namespace glimpse
