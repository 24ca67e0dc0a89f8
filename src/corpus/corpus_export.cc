// ExportPerfCorpus (glimpse/corpus_measure.h): the tuning database's CPU records as a corpus.
#include <limits>
#include <optional>

#include "glimpse/corpus_measure.h"
#include "glimpse/error.h"
#include "glimpse/json_fields.h"
#include "glimpse/program_graph.h"

namespace glimpse {

namespace {

// The measurement runs the database remembers (MeasureCorpus's note), oldest first.
Json RunNotes(const Database& database) {
  std::optional<std::string> held = database.GetNote("perf_corpus.runs");
  if (!held) return Json::array();
  try {
    Json runs = Json::parse(*held);
    if (runs.is_array()) return runs;
  } catch (const Json::exception&) {
  }
  throw Error(database.path() + ": its note 'perf_corpus.runs' is not a JSON array of runs");
}

}  // namespace

PerfCorpus ExportPerfCorpus(const Database& database, const std::string& device) {
  PerfCorpus corpus;
  const Json runs = RunNotes(database);
  Json last = runs.empty() ? CpuCorpusRunNote({}, {}) : runs.back();
  corpus.header = Json{{"created_at", 0.0},
                       {"source_database", database.path()},
                       {"machine", last["machine"]},
                       {"protocol", last["protocol"]},
                       {"template_versions", last["template_versions"]},
                       {"program_graph_feature_version", kProgramGraphFeatureVersion},
                       {"measure_runs", runs}};
  if (runs.empty()) {
    corpus.header["note"] =
        "no measurement run recorded in the database: machine and protocol are the exporting "
        "machine's and this build's defaults";
  }
  const Json& versions = last["template_versions"];
  const int template_version =
      versions.is_object() && versions.contains("cpu") && versions["cpu"].is_number_integer()
          ? versions["cpu"].get<int>()
          : kCpuTemplateVersion;
  for (const WorkloadEntry& workload : database.Workloads()) {
    if (!workload.description.is_object() || StringOr(workload.description, "target") != "cpu") {
      continue;  // another target's workload (a replayed space, a GPU kernel)
    }
    Json shape = workload.description;
    shape.erase("target");
    Operator op;
    try {
      op = OperatorFromJson(shape);
    } catch (const Error& error) {
      throw Error(database.path() + ": workload " + workload.key + " (" + workload.name +
                  ") has no operator: " + error.what());
    }
    const std::vector<std::string> models = ZooModelsWithOperator(op);
    for (const TuningRecord& record : database.Records(workload.key, device)) {
      PerfCorpusRecord out;
      out.op = OperatorToString(op);
      out.kind = OperatorName(op);
      out.target = "cpu";
      out.template_version = template_version;
      out.device = record.device;
      out.workload_key = workload.key;
      out.models = models;
      out.config = record.config;
      out.status = record.status;
      out.error = record.error;
      if (out.ok()) {
        out.samples_s = record.samples_s;
        out.time_s = record.time_s;
      } else {
        out.time_s = std::numeric_limits<double>::infinity();
      }
      out.strategy = record.strategy;
      out.measured_at = record.started_at;
      corpus.records.push_back(std::move(out));
    }
  }
  return corpus;
}

}  // namespace glimpse
