// `glimpse corpus measure|export|show`: the learned performance model's corpus
// (docs/perf-corpus.md).
//
// measure: the zoo models' distinct operators (--models) and extra ones (--op, --ops FILE), each
// with its uniform sample and a short tuning run, measured on this CPU into --db; resumable.
// export: the database's CPU records as a gzip JSON-lines corpus. show: what a corpus holds.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "commands.h"
#include "format.h"
#include "glimpse/corpus_measure.h"
#include "glimpse/cpu.h"
#include "glimpse/database.h"
#include "glimpse/error.h"
#include "glimpse/model_zoo.h"
#include "glimpse/tuner.h"
#include "tune_common.h"
#include "tune_flags.h"

namespace glimpse::cli {
namespace {

struct CorpusFlags {
  std::string models;  // comma-separated; empty: every zoo model
  std::vector<std::string> ops;
  std::string ops_file;
  int64_t per_operator = 300;
  int64_t tuned_best = 32;
  std::string tuner = "xgb";
  uint64_t seed = 0;
  int64_t max_operators = 0;
  double time_budget_s = 0.0;
  int batch = 16;
  int threads = 0;
  int build_jobs = 0;
  double build_timeout_s = 60.0;
  double run_timeout_s = 10.0;
  bool run_timeout_given = false;
  std::string kernel_dir;
  std::string database = Database::DefaultPath();
  bool allow_protocol_change = false;
  std::string progress = "auto";
  bool json = false;
  std::string output;
  std::string device;
  std::string file;
};

// --op values, then --ops FILE's lines (blank lines and '#' comments skipped).
std::vector<Operator> ExtraOperators(const CorpusFlags& flags) {
  std::vector<Operator> out;
  for (const std::string& text : flags.ops) {
    try {
      out.push_back(ParseOperator(text));
    } catch (const Error& error) {
      throw Error("--op '" + text + "': " + error.what());
    }
  }
  if (flags.ops_file.empty()) return out;
  std::ifstream in(flags.ops_file);
  if (!in) throw Error("--ops '" + flags.ops_file + "': cannot open for reading");
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    const size_t last = line.find_last_not_of(" \t\r");
    try {
      out.push_back(ParseOperator(line.substr(first, last - first + 1)));
    } catch (const Error& error) {
      throw Error(fmt::format("--ops {}:{}: {}", flags.ops_file, number, error.what()));
    }
  }
  return out;
}

void CheckMeasureFlags(const CorpusFlags& flags) {
  auto positive = [](const char* flag, double value, bool zero_ok) {
    if (value > 0 || (zero_ok && value == 0)) return;
    throw Error(fmt::format("{} must be {} (got {})", flag,
                            zero_ok ? "0 or a positive number" : "a positive number", value));
  };
  positive("--per-operator", static_cast<double>(flags.per_operator), true);
  positive("--tuned-best", static_cast<double>(flags.tuned_best), true);
  if (flags.per_operator == 0 && flags.tuned_best == 0) {
    throw Error("--per-operator and --tuned-best are both 0: nothing to measure");
  }
  positive("--max-operators", static_cast<double>(flags.max_operators), true);
  positive("--time-budget", flags.time_budget_s, true);
  positive("--batch", flags.batch, false);
  positive("--threads", flags.threads, true);
  positive("--build-jobs", flags.build_jobs, true);
  positive("--build-timeout", flags.build_timeout_s, false);
  positive("--run-timeout", flags.run_timeout_s, false);
}

void RunMeasure(const CorpusFlags& flags) {
  std::vector<std::string> models =
      flags.models.empty() ? ZooModelNames() : SplitCommaList(flags.models);
  if (flags.models == "none") models.clear();
  for (std::string& model : models) {
    try {
      model = CanonicalZooModelName(model);
    } catch (const Error& error) {
      throw Error(std::string("--models: ") + error.what());
    }
  }
  const std::vector<CorpusOperator> operators = PlanCorpusOperators(models, ExtraOperators(flags));
  if (operators.empty()) throw Error("no operator to measure: give --models, --op or --ops");
  CheckMeasureFlags(flags);
  if (flags.tuned_best > 0) {
    try {
      MakeTuner(flags.tuner);
    } catch (const Error& error) {
      throw Error(std::string("--tuner: ") + error.what());
    }
  }
  CorpusMeasureOptions options;
  options.per_operator = flags.per_operator;
  options.tuned_best = flags.tuned_best;
  options.tuner = flags.tuner;
  options.seed = flags.seed;
  options.max_operators = flags.max_operators;
  options.time_budget_s = flags.time_budget_s;
  options.batch = flags.batch;
  options.allow_protocol_change = flags.allow_protocol_change;
  options.progress = ParseProgress(flags.progress);
  // As `glimpse tune --target cpu`: 10 s plus 4 s per GFLOP, since a fresh worker computes the
  // reference output within its first candidate's time.
  options.run_timeout = [&flags](const Operator& op) {
    return flags.run_timeout_given ? flags.run_timeout_s
                                   : flags.run_timeout_s + 4.0 * OperatorFlops(op) / 1e9;
  };
  if (options.progress != ProgressMode::kQuiet) options.log = &std::cerr;
  CpuTargetOptions target_options;
  target_options.threads = flags.threads;
  target_options.build_jobs = flags.build_jobs;
  target_options.build_timeout_s = flags.build_timeout_s;
  const CpuTarget target(target_options);

  // Checks are done: from here on things are written.
  KernelDir kernel_dir(flags.kernel_dir);
  options.work_dir = kernel_dir.path();
  Database database(flags.database);
  const CorpusMeasureReport report = MeasureCorpus(target, operators, options, database,
                                                   CpuCorpusRunNote(target_options, options));

  int64_t no_template = 0, already = 0, records = 0;
  for (const CorpusOperatorOutcome& op : report.operators) {
    no_template += !op.error.empty();
    already += op.already;
    records += op.records;
  }
  if (flags.json) {
    Json ops = Json::array();
    for (const CorpusOperatorOutcome& op : report.operators) {
      ops.push_back(
          {{"op", op.op_text},
           {"workload_key", op.workload_key},
           {"error", op.error},
           {"sampled", op.sampled},
           {"already", op.already},
           {"measured", op.measured},
           {"ok", op.ok},
           {"records", op.records},
           {"best_time_s", std::isfinite(op.best_time_s) ? Json(op.best_time_s) : Json(nullptr)}});
    }
    std::cout << Json({{"database", database.path()},
                       {"planned", report.planned},
                       {"visited", report.operators.size()},
                       {"measured", report.measured},
                       {"ok", report.ok},
                       {"failed", report.measured - report.ok},
                       {"already", already},
                       {"records", records},
                       {"elapsed_s", report.elapsed_s},
                       {"stop_reason", report.stop_reason},
                       {"operators", ops}})
                     .dump(2)
              << "\n";
    return;
  }
  std::cout << fmt::format(
      "corpus: {} of {} operators visited ({}{}), {} measured in this run: {} ok, {} failed; "
      "{} of the sample already measured; {} records of these operators in {}; {} "
      "({})\n",
      report.operators.size(), report.planned, report.stop_reason,
      no_template > 0 ? fmt::format(", {} without a template", no_template) : "",
      FormatCount(report.measured), FormatCount(report.ok),
      FormatCount(report.measured - report.ok), FormatCount(already), FormatCount(records),
      database.path(), FormatDuration(report.elapsed_s),
      report.measured > 0
          ? fmt::format("{:.2f} measurements/s",
                        static_cast<double>(report.measured) / std::max(report.elapsed_s, 1e-9))
          : "nothing new");
}

void RunExport(const CorpusFlags& flags) {
  if (flags.output.empty()) throw Error("--out FILE is required (e.g. data/corpus/x.jsonl.gz)");
  Database database(flags.database, Database::ReadOnly{});
  PerfCorpus corpus = ExportPerfCorpus(database, flags.device);
  if (corpus.records.empty()) {
    throw Error(database.path() + " holds no CPU records" +
                (flags.device.empty() ? "" : " of device '" + flags.device + "'") +
                "; measure some with 'glimpse corpus measure'");
  }
  corpus.header["created_at"] =
      static_cast<double>(std::chrono::duration_cast<std::chrono::seconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count());
  WritePerfCorpus(flags.output, corpus);
  int64_t ok = 0;
  std::set<std::string> operators;
  for (const PerfCorpusRecord& record : corpus.records) {
    ok += record.ok();
    operators.insert(record.op);
  }
  std::cout << fmt::format("exported {} records ({} ok) of {} operators to {}\n",
                           FormatCount(static_cast<int64_t>(corpus.records.size())),
                           FormatCount(ok), operators.size(), flags.output);
}

void RunShow(const CorpusFlags& flags) {
  const PerfCorpus corpus = LoadPerfCorpus(flags.file);
  struct Counts {
    std::map<std::string, bool> operators;
    std::map<std::string, int64_t> by_status;
    int64_t records = 0, samples = 0;
  };
  std::map<std::string, Counts> by_kind;
  std::map<std::string, int64_t> statuses;
  for (const PerfCorpusRecord& record : corpus.records) {
    Counts& counts = by_kind[record.kind];
    counts.operators[record.op] = true;
    ++counts.by_status[StatusName(record.status)];
    ++statuses[StatusName(record.status)];
    ++counts.records;
    counts.samples += static_cast<int64_t>(record.samples_s.size());
  }
  const Json& header = corpus.header;
  if (flags.json) {
    Json kinds = Json::object();
    for (const auto& [kind, counts] : by_kind) {
      kinds[kind] = {{"operators", counts.operators.size()},
                     {"records", counts.records},
                     {"samples", counts.samples},
                     {"by_status", counts.by_status}};
    }
    std::cout << Json({{"file", flags.file},
                       {"version", header["version"]},
                       {"machine", header["machine"]},
                       {"records", corpus.records.size()},
                       {"operators", header["operators"]},
                       {"kinds", kinds}})
                     .dump(2)
              << "\n";
    return;
  }
  std::cout << fmt::format("{}: {} v{}, {} records of {} operators\n", flags.file,
                           header["format"].get<std::string>(), header["version"].get<int>(),
                           FormatCount(static_cast<int64_t>(corpus.records.size())),
                           header["operators"].dump());
  std::cout << fmt::format("machine: {}; program-graph features v{}\n\n", header["machine"].dump(),
                           header["program_graph_feature_version"].dump());
  std::vector<std::string> columns = {"kind", "operators", "records", "samples"};
  for (const auto& [status, count] : statuses) columns.push_back(status);
  Table table(columns);
  table.AlignLeft({"kind"});
  for (const auto& [kind, counts] : by_kind) {
    std::vector<std::string> row = {kind, std::to_string(counts.operators.size()),
                                    FormatCount(counts.records), FormatCount(counts.samples)};
    for (const auto& [status, count] : statuses) {
      auto it = counts.by_status.find(status);
      row.push_back(FormatCount(it == counts.by_status.end() ? 0 : it->second));
    }
    table.AddRow(row);
  }
  table.Print(std::cout);
}

}  // namespace

void AddCorpusCommand(CLI::App& app) {
  auto flags = std::make_shared<CorpusFlags>();
  CLI::App* corpus =
      app.add_subcommand("corpus", "The learned performance model's corpus: measure, export, show");
  corpus->require_subcommand(1);

  CLI::App* measure = corpus->add_subcommand(
      "measure",
      "Measure uniformly sampled configurations (and a short tuning run) of every distinct "
      "operator of zoo models on this CPU into the tuning database; resumable");
  measure->add_option("--models", flags->models,
                      "comma-separated zoo models ('glimpse model list'); default all, 'none' "
                      "for --op/--ops alone");
  measure->add_option("--op", flags->ops,
                      "an extra operator, e.g. dense:M=1,N=16,K=16 (repeatable)");
  measure->add_option("--ops", flags->ops_file,
                      "a file of extra operators, one a line ('#' starts a comment)");
  measure
      ->add_option("--per-operator", flags->per_operator,
                   "uniformly sampled valid configurations per operator (without replacement, "
                   "fixed by --seed)")
      ->capture_default_str();
  measure
      ->add_option("--tuned-best", flags->tuned_best,
                   "measurements of a tuning run per operator, warmed by its sample, for the "
                   "fast end (0: none)")
      ->capture_default_str();
  measure->add_option("--tuner", flags->tuner, "the tuning run's strategy")->capture_default_str();
  measure->add_option("--seed", flags->seed, "the samples' seed")->capture_default_str();
  measure->add_option("--max-operators", flags->max_operators,
                      "measure only the first N operators (0: all)");
  measure->add_option("--time-budget", flags->time_budget_s,
                      "stop after this many seconds (the batch in flight finishes; 0: none)");
  measure->add_option("--batch", flags->batch, "configurations measured and committed together")
      ->capture_default_str();
  measure
      ->add_option("--threads", flags->threads,
                   "threads (and pinned CPUs) a kernel runs on; 0: every CPU available")
      ->capture_default_str();
  measure
      ->add_option("--build-jobs", flags->build_jobs, "compiler processes at once; 0: one per CPU")
      ->capture_default_str();
  measure->add_option("--build-timeout", flags->build_timeout_s, "seconds a compiler run may take")
      ->capture_default_str();
  measure->add_option_function<double>(
      "--run-timeout",
      [flags](double seconds) {
        flags->run_timeout_s = seconds;
        flags->run_timeout_given = true;
      },
      "seconds a candidate may run; default 10 plus 4 per GFLOP of the operator");
  measure->add_option("--kernel-dir", flags->kernel_dir,
                      "keep generated sources and shared objects here (default: a temporary "
                      "directory)");
  measure->add_option("--db", flags->database, "tuning database file ($GLIMPSE_DB)")
      ->capture_default_str();
  measure->add_flag("--allow-protocol-change", flags->allow_protocol_change,
                    "go on with a database whose earlier runs measured with another protocol or "
                    "on another CPU (refused otherwise: one corpus, one protocol)");
  measure->add_option("--progress", flags->progress, "auto, live, log or quiet")
      ->capture_default_str();
  measure->add_flag("--json", flags->json, "print the summary as JSON");
  measure->callback([flags] { RunMeasure(*flags); });

  CLI::App* exp = corpus->add_subcommand(
      "export", "Write the database's CPU records as a versioned gzip JSON-lines corpus");
  exp->add_option("--db", flags->database, "tuning database file ($GLIMPSE_DB)")
      ->capture_default_str();
  exp->add_option("--out", flags->output, "corpus file, e.g. data/corpus/NAME.jsonl.gz")
      ->required();
  exp->add_option("--device", flags->device, "only records of this device (default: all)");
  exp->callback([flags] { RunExport(*flags); });

  CLI::App* show =
      corpus->add_subcommand("show", "Counts of a corpus per operator kind and status");
  show->add_option("file", flags->file, "corpus file")->required();
  show->add_flag("--json", flags->json, "print as JSON");
  show->callback([flags] { RunShow(*flags); });
}

}  // namespace glimpse::cli
