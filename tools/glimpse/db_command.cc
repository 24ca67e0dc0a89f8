// `glimpse db list|best|export|import`: reading and moving the tuning database.
#include <fmt/format.h>

#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <set>

#include "commands.h"
#include "format.h"
#include "glimpse/database.h"
#include "glimpse/error.h"
#include "glimpse/replay.h"
#include "recorded_source.h"

namespace glimpse::cli {
namespace {

struct DatabaseFlags {
  std::string path = Database::DefaultPath();
  bool json = false;
  std::string workload;  // key or key prefix
  std::string device;
  int top_k = 5;
  std::string format = "jsonl";
  std::string output;
  RecordedSourceFlags import_source;
};

// Opens an existing database for reading: a missing file is an error, not a new empty database.
// The commands that only read open the database read-only: they work on a file nobody may write.
Database OpenExisting(const std::string& path) { return Database(path, Database::ReadOnly{}); }

// The one workload whose key starts with `prefix`; Error when none or several match.
WorkloadEntry FindWorkload(const Database& database, const std::string& prefix) {
  std::vector<WorkloadEntry> matches;
  std::string known;
  for (WorkloadEntry& workload : database.Workloads()) {
    known += (known.empty() ? "" : ", ") + workload.key;
    if (workload.key.rfind(prefix, 0) == 0) matches.push_back(std::move(workload));
  }
  if (matches.size() == 1) return matches.front();
  if (matches.empty()) {
    throw Error("--workload '" + prefix + "': no such workload in " + database.path() +
                (known.empty() ? " (it has none)" : "; known: " + known));
  }
  throw Error("--workload '" + prefix + "' matches " + std::to_string(matches.size()) +
              " workloads; give more of the key");
}

void RunList(const DatabaseFlags& flags) {
  Database database = OpenExisting(flags.path);
  std::vector<WorkloadSummary> summaries = database.Summaries();
  if (flags.json) {
    Json out = Json::array();
    for (const WorkloadSummary& s : summaries) {
      out.push_back({{"workload_key", s.workload_key},
                     {"name", s.name},
                     {"device", s.device},
                     {"records", s.records},
                     {"failed", s.failed},
                     {"best_time_s", s.best_time_s ? Json(*s.best_time_s) : Json(nullptr)}});
    }
    std::cout << out.dump(2) << "\n";
    return;
  }
  if (summaries.empty()) {
    std::cout << database.path() << ": no records yet\n";
    return;
  }
  Table table({"workload", "task", "device", "records", "failed", "best time"});
  for (const WorkloadSummary& s : summaries) {
    table.AddRow({s.workload_key, s.name, s.device, FormatCount(s.records), FormatCount(s.failed),
                  s.best_time_s ? FormatDuration(*s.best_time_s) : "-"});
  }
  table.Print(std::cout);
}

void RunBest(const DatabaseFlags& flags) {
  if (flags.top_k <= 0)
    throw Error("-k must be a positive count (got " + std::to_string(flags.top_k) + ")");
  Database database = OpenExisting(flags.path);
  std::vector<WorkloadEntry> workloads;
  if (flags.workload.empty()) {
    workloads = database.Workloads();
  } else {
    workloads.push_back(FindWorkload(database, flags.workload));
  }
  Json out = Json::array();
  for (const WorkloadEntry& workload : workloads) {
    std::vector<TuningRecord> best = database.Best(workload.key, flags.device, flags.top_k);
    if (flags.json) {
      Json rows = Json::array();
      for (const TuningRecord& r : best) {
        rows.push_back({{"device", r.device},
                        {"config", r.config},
                        {"time_s", r.time_s},
                        {"strategy", r.strategy}});
      }
      out.push_back({{"workload_key", workload.key}, {"name", workload.name}, {"best", rows}});
      continue;
    }
    std::cout << fmt::format("{}  {}\n", workload.key, workload.name);
    if (best.empty()) {
      std::cout << "  no successful measurement\n\n";
      continue;
    }
    Table table({"  #", "time", "device", "config"});
    for (size_t i = 0; i < best.size(); ++i) {
      table.AddRow({fmt::format("  {}", i + 1), FormatDuration(best[i].time_s), best[i].device,
                    best[i].config.dump()});
    }
    table.Print(std::cout);
    std::cout << "\n";
  }
  if (flags.json) std::cout << out.dump(2) << "\n";
}

// Writes to --output, or to stdout when it is empty or "-".
void WithOutput(const std::string& output, const std::function<void(std::ostream&)>& write) {
  if (output.empty() || output == "-") {
    write(std::cout);
    return;
  }
  std::ofstream file(output);
  if (!file) throw Error("--output '" + output + "': cannot open for writing");
  write(file);
  file.close();
  if (!file) throw Error("--output '" + output + "': write failed");
}

// The export itself may go to standard output, so the count goes to standard error — or, with
// --json and a file to write, to standard output as JSON.
void ReportExport(const DatabaseFlags& flags, int64_t count) {
  bool to_stdout = flags.output.empty() || flags.output == "-";
  if (flags.json && !to_stdout) {
    std::cout
        << Json({{"exported", count}, {"format", flags.format}, {"file", flags.output}}).dump(2)
        << "\n";
  } else {
    std::cerr << fmt::format("exported {} records\n", count);
  }
}

void RunExport(const DatabaseFlags& flags) {
  Database database = OpenExisting(flags.path);
  if (flags.format == "jsonl") {
    int64_t count = 0;
    WithOutput(flags.output,
               [&](std::ostream& out) { count = database.ExportJsonLines(out, flags.workload); });
    ReportExport(flags, count);
    return;
  }
  if (flags.format != "kt-cache" && flags.format != "t4") {
    throw Error("--format '" + flags.format + "': known: jsonl, kt-cache, t4");
  }
  // One workload on one device: an empty --workload is fine when the database holds one.
  WorkloadEntry workload = FindWorkload(database, flags.workload);
  Task task;
  task.name = workload.name;
  task.description = workload.description;
  task.space = ConfigSpace::FromJson(workload.space);
  std::vector<TuningRecord> records = database.Records(workload.key, flags.device);
  std::set<std::string> devices;
  for (const TuningRecord& r : records) devices.insert(r.device);
  if (devices.size() > 1) {
    std::string names;
    for (const std::string& d : devices) names += (names.empty() ? "'" : ", '") + d + "'";
    throw Error("workload " + workload.key + " has records of several devices (" + names +
                "): choose one with --device");
  }
  task.device = devices.empty() ? flags.device : *devices.begin();
  WithOutput(flags.output, [&](std::ostream& out) {
    if (flags.format == "kt-cache") {
      WriteKernelTunerCache(task, records, out);
    } else {
      WriteT4Results(task, records, out);
    }
  });
  ReportExport(flags, static_cast<int64_t>(records.size()));
}

void RunImport(const DatabaseFlags& flags) {
  if (flags.format == "jsonl") {
    std::ifstream in(flags.import_source.path);
    if (!in) throw Error("'" + flags.import_source.path + "': cannot open for reading");
    Database database(flags.path);
    int64_t added = database.ImportJsonLines(in, flags.import_source.path);
    if (flags.json) {
      std::cout << Json({{"imported", added}, {"database", database.path()}}).dump(2) << "\n";
    } else {
      std::cout << fmt::format("imported {} records into {}\n", added, database.path());
    }
    return;
  }
  if (flags.format != "recorded") {
    throw Error("--format '" + flags.format +
                "': known for import: jsonl, recorded (a Kernel Tuner "
                "cache or T4 file)");
  }
  RecordedSpace recorded = flags.import_source.Load();
  Task task = recorded.MakeTask();
  std::vector<TuningRecord> records = RecordsFromRecordedSpace(recorded);
  Database database(flags.path);
  database.PutWorkload({task.WorkloadKey(), task.name, task.description, task.space.ToJson()});
  // Importing the same file twice adds nothing: skip configurations already recorded.
  std::set<std::string> present;
  for (const TuningRecord& r : database.Records(task.WorkloadKey(), task.device)) {
    present.insert(r.config_hash);
  }
  std::vector<TuningRecord> fresh;
  for (TuningRecord& r : records) {
    if (!present.count(r.config_hash)) fresh.push_back(std::move(r));
  }
  database.CommitBatch(fresh);
  if (flags.json) {
    std::cout << Json({{"imported", fresh.size()},
                       {"database", database.path()},
                       {"workload_key", task.WorkloadKey()},
                       {"task", task.name},
                       {"device", task.device}})
                     .dump(2)
              << "\n";
    return;
  }
  std::cout << fmt::format("imported {} records of {} on {} into {} (workload {})\n", fresh.size(),
                           task.name, task.device, database.path(), task.WorkloadKey());
}

}  // namespace

void AddDatabaseCommand(CLI::App& app) {
  auto flags = std::make_shared<DatabaseFlags>();
  CLI::App* db = app.add_subcommand("db", "Read, export and import the tuning database");
  db->require_subcommand(1);
  auto add_path = [&](CLI::App* command) {
    command->add_option("--db", flags->path, "tuning database file ($GLIMPSE_DB)")
        ->capture_default_str();
  };

  CLI::App* list = db->add_subcommand("list", "Workloads and devices with their record counts");
  add_path(list);
  list->add_flag("--json", flags->json, "print as JSON");
  list->callback([flags] { RunList(*flags); });

  CLI::App* best = db->add_subcommand("best", "The fastest configurations per workload");
  add_path(best);
  best->add_option("--workload", flags->workload, "workload key (or a unique prefix of it)");
  best->add_option("--device", flags->device, "only records of this device");
  best->add_option("-k,--top", flags->top_k, "how many per workload")->capture_default_str();
  best->add_flag("--json", flags->json, "print as JSON");
  best->callback([flags] { RunBest(*flags); });

  CLI::App* exp = db->add_subcommand("export",
                                     "Write records as JSON lines, or as a Kernel Tuner "
                                     "cache / T4 file (one workload, one device)");
  add_path(exp);
  exp->add_option("--format", flags->format, "jsonl, kt-cache or t4")->capture_default_str();
  exp->add_option("--workload", flags->workload, "workload key (or a unique prefix of it)");
  exp->add_option("--device", flags->device, "only records of this device");
  exp->add_option("-o,--output", flags->output, "file to write (default: standard output)");
  exp->add_flag("--json", flags->json, "with -o FILE: print what was written as JSON");
  exp->callback([flags] { RunExport(*flags); });

  CLI::App* imp = db->add_subcommand(
      "import", "Add records from JSON lines, or from a recorded Kernel Tuner cache / T4 file");
  add_path(imp);
  imp->add_option("--format", flags->format, "jsonl or recorded")->capture_default_str();
  flags->import_source.AddTo(imp, /*positional=*/true);
  imp->add_flag("--json", flags->json, "print the result as JSON");
  imp->callback([flags] { RunImport(*flags); });
}

}  // namespace glimpse::cli
