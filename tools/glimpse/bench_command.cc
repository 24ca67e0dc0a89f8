// `glimpse bench`: the evaluation harness. `run` replays a study (recorded spaces × strategies ×
// seeds) into a results file; `summarize` merges result files (ours and the Kernel Tuner peer's)
// and recomputes every summary. Both print the table.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "glimpse/error.h"
#include "glimpse/evaluation.h"

namespace glimpse::cli {
namespace {

struct BenchRunFlags {
  std::string config;
  std::string output;
  int jobs = 0;
  int seeds = -1;       // -1: the study's
  int64_t budget = -1;  // -1: the study's
  std::string root;
  std::string only_group;
  std::string only_strategy;
  bool noise = false;
  bool no_resume = false;
};

struct BenchSummarizeFlags {
  std::vector<std::string> files;
  std::string output;
};

void RunBench(const BenchRunFlags& flags, const std::string& command) {
  StudyConfig study = LoadStudyConfig(flags.config, flags.root);
  study.Select(flags.only_group, flags.only_strategy);
  if (flags.seeds == 0 || flags.seeds < -1) {
    throw Error("--seeds must be ≥ 1 (got " + std::to_string(flags.seeds) + ")");
  }
  if (flags.seeds > 0) study.seeds = flags.seeds;
  if (flags.budget == 0 || flags.budget < -1) {
    throw Error("--budget must be ≥ 1 (got " + std::to_string(flags.budget) + ")");
  }
  if (flags.budget > 0) study.max_measurements = flags.budget;
  if (flags.jobs < 0) throw Error("--jobs must be ≥ 0 (got " + std::to_string(flags.jobs) + ")");

  StudyRunOptions options;
  options.output_path = flags.output;
  options.jobs = flags.jobs;
  options.noise = flags.noise;
  options.resume = !flags.no_resume;
  options.command = command;
  StudyResults results = RunStudy(study, options);
  PrintResultsTable(results, std::cout);
  std::cerr << "bench: wrote " << flags.output << " (" << results.runs.size() << " runs; journal "
            << flags.output << ".partial.jsonl)\n";
}

void Summarize(const BenchSummarizeFlags& flags, const std::string& command) {
  std::vector<std::pair<std::string, StudyResults>> files;
  for (const std::string& path : flags.files) files.emplace_back(path, LoadResults(path));
  std::vector<std::string> warnings;
  StudyResults merged = MergeResults(files, &warnings);
  for (const std::string& warning : warnings) std::cerr << "bench: warning: " << warning << "\n";
  if (files.size() == 1) {
    merged.created = files.front().second.created;
    merged.command = files.front().second.command;
  } else {
    merged.command = command;
  }
  PrintResultsTable(merged, std::cout);
  if (!flags.output.empty()) {
    WriteResults(merged, flags.output);
    std::cerr << "bench: wrote " << flags.output << " (" << merged.runs.size() << " runs)\n";
  }
}

}  // namespace

void AddBenchCommand(CLI::App& app) {
  CLI::App* bench = app.add_subcommand(
      "bench", "Evaluate strategies by replaying recorded spaces: many runs, one results file");
  bench->require_subcommand(1);

  auto run_flags = std::make_shared<BenchRunFlags>();
  CLI::App* run = bench->add_subcommand(
      "run", "Run a study (spaces × strategies × seeds) and write its results file");
  run->add_option("--config", run_flags->config, "study file (see docs/bench-results.md)")
      ->required();
  run->add_option("-o,--output", run_flags->output,
                  "results file (JSON); the journal of finished "
                  "runs is kept beside it as "
                  "<FILE>.partial.jsonl")
      ->required();
  run->add_option("--jobs", run_flags->jobs,
                  "runs in parallel (default, or 0: the hardware threads)");
  run->add_option("--seeds", run_flags->seeds, "override the study's number of seeds");
  run->add_option("--budget", run_flags->budget, "override the study's max_measurements");
  run->add_option("--root", run_flags->root,
                  "directory the study's files are relative to (default: the study's 'root')");
  run->add_option("--only-group", run_flags->only_group, "run this group only");
  run->add_option("--only-strategy", run_flags->only_strategy, "run this strategy only");
  run->add_flag("--noise", run_flags->noise,
                "draw each replayed time from the recorded samples (seeded by the run's seed)");
  run->add_flag("--no-resume", run_flags->no_resume,
                "ignore the journal of an earlier, interrupted run and start it afresh");
  run->callback([run_flags] {
    // The command is recorded in the results; CLI11 no longer holds argv here.
    std::string command =
        "glimpse bench run --config " + run_flags->config + " -o " + run_flags->output;
    if (run_flags->jobs) command += " --jobs " + std::to_string(run_flags->jobs);
    if (run_flags->seeds > 0) command += " --seeds " + std::to_string(run_flags->seeds);
    if (run_flags->budget > 0) command += " --budget " + std::to_string(run_flags->budget);
    if (!run_flags->root.empty()) command += " --root " + run_flags->root;
    if (!run_flags->only_group.empty()) command += " --only-group " + run_flags->only_group;
    if (!run_flags->only_strategy.empty()) {
      command += " --only-strategy " + run_flags->only_strategy;
    }
    if (run_flags->noise) command += " --noise";
    RunBench(*run_flags, command);
  });

  auto summarize_flags = std::make_shared<BenchSummarizeFlags>();
  CLI::App* summarize = bench->add_subcommand(
      "summarize", "Merge results files, recompute every summary from the runs, print the table");
  summarize->add_option("files", summarize_flags->files, "results files (ours, the peer's)")
      ->required();
  summarize->add_option("-o,--output", summarize_flags->output, "write the merged results here");
  summarize->callback([summarize_flags] {
    std::string command = "glimpse bench summarize";
    for (const std::string& file : summarize_flags->files) command += " " + file;
    if (!summarize_flags->output.empty()) command += " -o " + summarize_flags->output;
    Summarize(*summarize_flags, command);
  });
}

}  // namespace glimpse::cli
