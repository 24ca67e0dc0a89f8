// glimpse/corpus_measure.h — measuring and exporting the performance corpus (docs/perf-corpus.md):
// uniformly sampled configurations of every distinct operator of the chosen zoo models (and of
// extra operators), plus a short tuning run per operator for the fast end, measured on this CPU
// with the runner's protocol into the tuning database; then exported as a PerfCorpus
// (glimpse/perf_corpus.h).
//
//   std::vector<CorpusOperator> ops = PlanCorpusOperators({"resnet18"}, {});
//   CorpusMeasureReport report = MeasureCorpus(target, ops, options, database);
//   WritePerfCorpus("data/corpus/x.jsonl.gz", ExportPerfCorpus(database, ""));
//
// Resumable by construction: an operator's uniform sample is a function of (its space, the seed)
// alone, every sampled configuration already in the database is skipped, and the tuning run
// counts the tuner's records already there; the database commits per batch, so a run killed at
// any moment and started again measures nothing twice and loses at most the batch in flight.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "glimpse/cpu.h"
#include "glimpse/database.h"
#include "glimpse/json.h"
#include "glimpse/ops.h"
#include "glimpse/perf_corpus.h"
#include "glimpse/space.h"
#include "glimpse/target.h"
#include "glimpse/tuning_loop.h"

namespace glimpse {

// The strategy name of the uniform sample's records ("corpus-uniform").
extern const char* const kCorpusUniformStrategy;

// A distinct operator of the corpus and the zoo models it comes from.
struct CorpusOperator {
  Operator op;
  std::string op_text;              // OperatorToString(op)
  std::vector<std::string> models;  // canonical zoo names with a layer of it; empty for an extra
};

// The distinct operators of `models` (zoo names, matched as ZooModel matches them), in model order
// and then in each model's order of first occurrence, followed by the `extra` operators not seen
// yet. Throws Error naming an unknown model.
std::vector<CorpusOperator> PlanCorpusOperators(const std::vector<std::string>& models,
                                                const std::vector<Operator>& extra);

// The zoo models (every one ZooModelNames lists) with a layer computing `op`.
std::vector<std::string> ZooModelsWithOperator(const Operator& op);

// `n` distinct valid configurations of `space` drawn uniformly without replacement with `seed`
// (the random strategy's stream: what `glimpse tune --tuner random --seed S` proposes first);
// fewer when the space has fewer. The same space and seed give the same list, in the same order.
std::vector<Config> SampleUniformConfigs(const ConfigSpace& space, size_t n, uint64_t seed);

// The seed of an operator's sample: `seed` mixed with a stable hash of its text, so that operators
// draw independent streams and a rerun draws the same ones.
uint64_t CorpusOperatorSeed(uint64_t seed, const std::string& op_text);

struct CorpusMeasureOptions {
  int64_t per_operator = 300;  // uniformly sampled configurations per operator
  int64_t tuned_best = 32;     // measurements of the tuning run per operator (0: none)
  std::string tuner = "xgb";   // the tuning run's strategy (registry name)
  uint64_t seed = 0;
  int64_t max_operators = 0;   // measure only the first this many operators; 0: all
  double time_budget_s = 0.0;  // stop starting work after this many seconds; 0: none
  int batch = 16;              // configurations built and measured (and committed) together
  // A database whose last run note names another protocol or CPU than this run's is refused
  // (one corpus, one set of labels) unless this is set; every run's note is kept either way.
  bool allow_protocol_change = false;
  ProgressMode progress = ProgressMode::kAuto;
  // Seconds a candidate of `op` may take (its runner's timeout).
  std::function<double(const Operator& op)> run_timeout = [](const Operator&) { return 10.0; };
  std::string work_dir;         // kernels compile here
  std::ostream* log = nullptr;  // a line per operator
};

// What became of one operator.
struct CorpusOperatorOutcome {
  std::string op_text;
  std::string workload_key;  // empty when the target has no template for it
  std::string error;         // why it was not measured (no template)
  int64_t sampled = 0;       // configurations in its uniform sample
  int64_t already = 0;       // of them, already in the database before this run
  int64_t measured = 0;      // records this run added (sample and tuning run)
  int64_t ok = 0;            // of them, successful
  int64_t records = 0;       // its records in the database after this run (this device)
  double best_time_s = 0.0;  // fastest ok record after this run; +inf when none
};

struct CorpusMeasureReport {
  std::vector<CorpusOperatorOutcome> operators;  // those visited, in order
  int64_t planned = 0;                           // operators given
  int64_t measured = 0;                          // records added, all operators
  int64_t ok = 0;
  double elapsed_s = 0.0;
  std::string stop_reason;  // "done", "time budget", "max operators"
};

// Measures `operators` one after the other on `target` into `database`: per operator its uniform
// sample (minus what the database holds), then, with tuned_best > 0, a tuning run with
// options.tuner warmed by the operator's records, until the database holds tuned_best records
// of that strategy. Records this run's protocol and machine as the database note
// "perf_corpus.runs" (CorpusRunNote, appended). Failed candidates are records with their status.
CorpusMeasureReport MeasureCorpus(const Target& target,
                                  const std::vector<CorpusOperator>& operators,
                                  const CorpusMeasureOptions& options, Database& database,
                                  const Json& run_note);

// What a measurement run on this machine was: {"started_at", "machine": {"cpu", "cpus",
// "glimpse_revision"}, "protocol": {the CPU runner's settings, the compiler and its flags,
// "threads"}, "template_versions": {"cpu": kCpuTemplateVersion}, "settings": {per_operator,
// tuned_best, tuner, seed}}.
Json CpuCorpusRunNote(const CpuTargetOptions& target, const CorpusMeasureOptions& options);

// The glimpse revision this build was configured from ("git describe --always --dirty"), or
// "unknown".
std::string GlimpseRevision();

// Every record of the database's CPU workloads (on `device`, or on all when empty) as a corpus:
// the header's machine and protocol are the last measurement run's note (this machine's, with
// "note": "no measurement run recorded", when the database has none), "measure_runs" all of them.
// Records keep commit order. Workloads of other targets are left out.
PerfCorpus ExportPerfCorpus(const Database& database, const std::string& device);

}  // namespace glimpse
