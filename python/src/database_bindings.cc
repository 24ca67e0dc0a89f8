// glimpse.Database: the tuning database (SQLite, glimpse/database.h) — what was measured and the
// best per workload, as dicts.
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "glimpse/database.h"
#include "glimpse/error.h"
#include "glimpse/space.h"
#include "py_json.h"

namespace nb = nanobind;

namespace glimpse::python {
namespace {

nb::dict RecordToPython(const TuningRecord& record) {
  nb::dict dict;
  dict["id"] = record.id;
  dict["workload_key"] = record.workload_key;
  dict["device"] = record.device;
  dict["config"] = ToPython(record.config);
  dict["status"] = StatusName(record.status);
  dict["time_s"] =
      record.status == MeasureStatus::kOk ? nb::object(nb::float_(record.time_s)) : nb::none();
  nb::list samples;
  for (double sample : record.samples_s) samples.append(sample);
  dict["samples_s"] = samples;
  dict["compile_time_s"] = record.compile_time_s;
  dict["cost_s"] = record.cost_s;
  dict["error"] = record.error;
  dict["strategy"] = record.strategy;
  dict["started_at"] = record.started_at;
  dict["finished_at"] = record.finished_at;
  return dict;
}

// A record from Python (what Measurer.measure returns, plus workload_key, device, config and
// strategy); the configuration's hash is computed from the workload's space, as the loop does.
TuningRecord RecordFromPython(const Database& db, nb::handle object, const std::string& where) {
  Json json = ToJson(object, where);
  if (!json.is_object()) throw Error(where + ": a record is a dict");
  auto text = [&](const char* key, bool required) -> std::string {
    if (!json.contains(key)) {
      if (required) throw Error(where + ": missing '" + key + "'");
      return "";
    }
    if (!json[key].is_string()) throw Error(where + ": '" + std::string(key) + "' must be a str");
    return json[key].get<std::string>();
  };
  auto number = [&](const char* key) -> double {
    if (!json.contains(key) || json[key].is_null()) return 0.0;
    if (!json[key].is_number())
      throw Error(where + ": '" + std::string(key) + "' must be a number");
    return json[key].get<double>();
  };
  TuningRecord record;
  record.workload_key = text("workload_key", true);
  std::optional<WorkloadEntry> workload = db.GetWorkload(record.workload_key);
  if (!workload) {
    throw Error(where + ": workload '" + record.workload_key +
                "' is not in the database; put_workload it first");
  }
  const ConfigSpace space = ConfigSpace::FromJson(workload->space);
  if (!json.contains("config")) throw Error(where + ": missing 'config'");
  Config config;
  try {
    config = space.ConfigFromJson(json["config"]);
  } catch (const Error& error) {
    throw Error(where + ": " + error.what());
  }
  record.config = space.ConfigToJson(config);
  record.config_hash = HashToHex(space.Hash(config));
  record.device = text("device", true);
  record.status = StatusFromName(text("status", true));
  record.time_s = record.status == MeasureStatus::kOk ? number("time_s")
                                                      : std::numeric_limits<double>::infinity();
  if (json.contains("samples_s") && json["samples_s"].is_array()) {
    for (const Json& sample : json["samples_s"]) {
      if (!sample.is_number()) throw Error(where + ": 'samples_s' must be numbers");
      record.samples_s.push_back(sample.get<double>());
    }
  }
  record.compile_time_s = number("compile_time_s");
  record.cost_s = number("cost_s");
  record.error = text("error", false);
  record.strategy = text("strategy", false);
  record.started_at = number("started_at");
  record.finished_at = number("finished_at");
  return record;
}

nb::list RecordsToPython(const std::vector<TuningRecord>& records) {
  nb::list list;
  for (const TuningRecord& record : records) list.append(RecordToPython(record));
  return list;
}

}  // namespace

void BindDatabase(nb::module_& m) {
  nb::class_<Database>(m, "Database", "A glimpse tuning database (SQLite file).")
      .def(
          "__init__",
          [](Database* self, const std::string& path, bool read_only) {
            if (read_only) {
              new (self) Database(path, Database::ReadOnly{});
            } else {
              new (self) Database(path);
            }
          },
          nb::arg("path"), nb::arg("read_only") = false,
          "Opens (creating unless read_only) the database at path.")
      .def_prop_ro("path", &Database::path)
      .def(
          "put_workload",
          [](Database& db, nb::handle workload) {
            Json json = ToJson(workload, "workload");
            if (!json.is_object() || !json.contains("key") || !json["key"].is_string() ||
                !json.contains("name") || !json["name"].is_string() || !json.contains("space")) {
              throw Error(
                  "workload: a dict with key, name, description and space (as "
                  "Measurer.workload gives it)");
            }
            ConfigSpace::FromJson(json["space"]);  // Error when it is not a space
            db.PutWorkload(WorkloadEntry{json["key"].get<std::string>(),
                                         json["name"].get<std::string>(),
                                         json.value("description", Json::object()), json["space"]});
          },
          nb::arg("workload"), "Adds the workload unless its key is there already.")
      .def(
          "commit",
          [](Database& db, const nb::list& records) {
            std::vector<TuningRecord> parsed;
            for (size_t i = 0; i < records.size(); ++i) {
              parsed.push_back(
                  RecordFromPython(db, records[i], "records[" + std::to_string(i) + "]"));
            }
            nb::gil_scoped_release release;
            return db.CommitBatch(parsed);
          },
          nb::arg("records"),
          "Appends records in one transaction (all or none); returns their ids. A record: "
          "workload_key, device, config, status, time_s, samples_s, compile_time_s, cost_s, "
          "error, strategy, started_at, finished_at.")
      .def(
          "workloads",
          [](const Database& db) {
            nb::list list;
            for (const WorkloadEntry& workload : db.Workloads()) {
              nb::dict dict;
              dict["key"] = workload.key;
              dict["name"] = workload.name;
              dict["description"] = ToPython(workload.description);
              dict["space"] = ToPython(workload.space);
              list.append(dict);
            }
            return list;
          },
          "Every workload: {key, name, description, space (Space.from_json reads it)}.")
      .def(
          "summaries",
          [](const Database& db) {
            nb::list list;
            for (const WorkloadSummary& summary : db.Summaries()) {
              nb::dict dict;
              dict["workload_key"] = summary.workload_key;
              dict["name"] = summary.name;
              dict["device"] = summary.device;
              dict["records"] = summary.records;
              dict["failed"] = summary.failed;
              dict["best_time_s"] =
                  summary.best_time_s ? nb::object(nb::float_(*summary.best_time_s)) : nb::none();
              list.append(dict);
            }
            return list;
          },
          "One line per workload × device, as `glimpse db list` prints them.")
      .def(
          "records",
          [](const Database& db, const std::string& key, const std::string& device) {
            return RecordsToPython(db.Records(key, device));
          },
          nb::arg("workload_key"), nb::arg("device") = "",
          "The records of a workload (on one device, or all), in commit order.")
      .def(
          "best",
          [](const Database& db, const std::string& key, const std::string& device, int k) {
            return RecordsToPython(db.Best(key, device, k));
          },
          nb::arg("workload_key"), nb::arg("device") = "", nb::arg("k") = 1,
          "The k fastest ok records, one per configuration, fastest first.")
      .def(
          "export_jsonl",
          [](const Database& db, const std::string& path, const std::string& key_prefix) {
            std::ofstream out(path);
            if (!out) throw Error("cannot write '" + path + "'");
            int64_t count = db.ExportJsonLines(out, key_prefix);
            out.close();
            if (!out) throw Error("writing '" + path + "' failed (disk full?)");
            return count;
          },
          nb::arg("path"), nb::arg("key_prefix") = "",
          "Writes the workloads and their records as JSON lines; returns the number of records.")
      .def("__repr__", [](const Database& db) { return "Database('" + db.path() + "')"; });
}

}  // namespace glimpse::python
