// glimpse.Database: the tuning database (SQLite, glimpse/database.h) — what was measured and the
// best per workload, as dicts.
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>

#include <fstream>
#include <memory>
#include <string>

#include "bindings.h"
#include "glimpse/database.h"
#include "glimpse/error.h"
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
