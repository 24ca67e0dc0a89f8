// The performance corpus file (glimpse/perf_corpus.h): gzip JSON lines, a header and records.
#include "glimpse/perf_corpus.h"

#include <fmt/format.h>
#include <zlib.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <set>
#include <string>

#include "glimpse/error.h"
#include "glimpse/json_fields.h"
#include "glimpse/ops.h"

namespace glimpse {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr const char* kWhere = "corpus record";

std::vector<double> RequireSamples(const Json& json) {
  const Json& samples = RequireField(json, "samples_s", kWhere);
  if (!samples.is_array()) throw Error("corpus record: field 'samples_s' must be an array");
  std::vector<double> out;
  for (const Json& sample : samples) {
    if (!sample.is_number() || !(sample.get<double>() >= 0)) {
      throw Error("corpus record: field 'samples_s' must hold non-negative numbers, not " +
                  sample.dump());
    }
    out.push_back(sample.get<double>());
  }
  return out;
}

// The whole file, inflated when it is gzip (zlib reads a plain file as it is).
std::string ReadAll(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) throw Error(path + ": cannot open for reading");
  std::string text;
  char buffer[1 << 16];
  int n = 0;
  while ((n = gzread(file, buffer, sizeof buffer)) > 0) text.append(buffer, n);
  int code = Z_OK;
  const std::string message = n < 0 ? gzerror(file, &code) : "";
  gzclose(file);
  if (n < 0) throw Error(path + ": corrupt gzip data (" + message + ")");
  return text;
}

void CheckHeader(const Json& header, const std::string& at) {
  if (!header.is_object() || StringOr(header, "format") != kPerfCorpusFormat) {
    throw Error(at +
                ": not a performance corpus (the first line must be a header with \"format\": \"" +
                std::string(kPerfCorpusFormat) + "\")");
  }
  const Json& version = RequireField(header, "version", at);
  if (!version.is_number_integer() || version.get<int64_t>() != kPerfCorpusVersion) {
    throw Error(at + ": corpus version " + version.dump() + " is not the one this glimpse reads (" +
                std::to_string(kPerfCorpusVersion) +
                "); export it again with 'glimpse corpus export'");
  }
  RequireInteger(header, "program_graph_feature_version", at, 1);
  RequireInteger(header, "records", at, 0);
  for (const char* object : {"machine", "protocol", "template_versions"}) {
    if (!RequireField(header, object, at).is_object()) {
      throw Error(at + ": field '" + std::string(object) + "' must be an object");
    }
  }
}

}  // namespace

Json PerfCorpusRecordToJson(const PerfCorpusRecord& record) {
  return Json{{"op", record.op},
              {"kind", record.kind},
              {"target", record.target},
              {"template_version", record.template_version},
              {"device", record.device},
              {"workload_key", record.workload_key},
              {"models", record.models},
              {"config", record.config},
              {"status", StatusName(record.status)},
              {"error", record.error},
              {"samples_s", record.samples_s},
              {"time_s", std::isfinite(record.time_s) ? Json(record.time_s) : Json(nullptr)},
              {"strategy", record.strategy},
              {"measured_at", record.measured_at}};
}

PerfCorpusRecord PerfCorpusRecordFromJson(const Json& json) {
  PerfCorpusRecord record;
  record.op = RequireString(json, "op", kWhere);
  Operator op;
  try {
    op = ParseOperator(record.op);
  } catch (const Error& error) {
    throw Error("corpus record: field 'op': " + std::string(error.what()));
  }
  record.kind = RequireString(json, "kind", kWhere);
  if (record.kind != OperatorName(op)) {
    throw Error("corpus record: kind '" + record.kind + "' is not that of op '" + record.op +
                "' (" + OperatorName(op) + ")");
  }
  record.target = RequireString(json, "target", kWhere);
  record.template_version = static_cast<int>(RequireInteger(json, "template_version", kWhere, 1));
  record.device = RequireString(json, "device", kWhere);
  record.workload_key = RequireString(json, "workload_key", kWhere);
  const Json& models = RequireField(json, "models", kWhere);
  if (!models.is_array()) throw Error("corpus record: field 'models' must be an array");
  for (const Json& model : models) {
    if (!model.is_string()) throw Error("corpus record: field 'models' must hold names");
    record.models.push_back(model.get<std::string>());
  }
  record.config = RequireField(json, "config", kWhere);
  if (!record.config.is_object() || record.config.empty()) {
    throw Error("corpus record: field 'config' must be an object of knob values");
  }
  try {
    record.status = StatusFromName(RequireString(json, "status", kWhere));
  } catch (const Error& error) {
    throw Error("corpus record: field 'status': " + std::string(error.what()));
  }
  const Json& error = RequireField(json, "error", kWhere);
  if (!error.is_string()) throw Error("corpus record: field 'error' must be a string");
  record.error = error.get<std::string>();
  record.samples_s = RequireSamples(json);
  const Json& time = RequireField(json, "time_s", kWhere);
  if (record.ok()) {
    if (record.samples_s.empty()) throw Error("corpus record: an ok record needs its samples_s");
    if (!time.is_number()) throw Error("corpus record: an ok record needs a number time_s");
    record.time_s = time.get<double>();
  } else {
    if (!time.is_null()) throw Error("corpus record: a failed record's time_s must be null");
    record.time_s = kInfinity;
  }
  record.strategy = RequireString(json, "strategy", kWhere);
  record.measured_at = RequireNumber(json, "measured_at", kWhere);
  return record;
}

void WritePerfCorpus(const std::string& path, const PerfCorpus& corpus) {
  Json header = corpus.header.is_object() ? corpus.header : Json::object();
  header["format"] = kPerfCorpusFormat;
  header["version"] = kPerfCorpusVersion;
  header["records"] = corpus.records.size();
  std::set<std::string> operators;
  for (const PerfCorpusRecord& record : corpus.records) operators.insert(record.op);
  header["operators"] = operators.size();

  std::filesystem::path target(path);
  if (target.has_parent_path()) {
    std::error_code ignored;
    std::filesystem::create_directories(target.parent_path(), ignored);
  }
  const std::string temp = path + ".tmp";
  gzFile file = gzopen(temp.c_str(), "wb9");
  if (file == nullptr) throw Error(path + ": cannot open '" + temp + "' for writing");
  bool ok = true;
  auto write_line = [&](const Json& json) {
    const std::string line = json.dump() + "\n";
    ok = ok && gzwrite(file, line.data(), static_cast<unsigned>(line.size())) ==
                   static_cast<int>(line.size());
  };
  write_line(header);
  for (const PerfCorpusRecord& record : corpus.records) write_line(PerfCorpusRecordToJson(record));
  ok = gzclose(file) == Z_OK && ok;
  if (!ok) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    throw Error(path + ": write failed");
  }
  std::filesystem::rename(temp, path);
}

PerfCorpus LoadPerfCorpus(const std::string& path) {
  const std::string text = ReadAll(path);
  PerfCorpus corpus;
  size_t start = 0;
  int64_t line_number = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    const std::string at = path + ":" + std::to_string(line_number);
    if (line.empty()) continue;
    Json json;
    try {
      json = Json::parse(line);
    } catch (const Json::exception& e) {
      throw Error(at + ": not JSON (" + e.what() + ")");
    }
    if (line_number == 1) {
      CheckHeader(json, at);
      corpus.header = std::move(json);
      continue;
    }
    try {
      corpus.records.push_back(PerfCorpusRecordFromJson(json));
    } catch (const Error& error) {
      throw Error(at + ": " + error.what());
    }
  }
  if (line_number == 0) throw Error(path + ": empty file, not a performance corpus");
  const int64_t expected = corpus.header["records"].get<int64_t>();
  if (expected != static_cast<int64_t>(corpus.records.size())) {
    throw Error(path + ": the header announces " + std::to_string(expected) +
                " records, the file holds " + std::to_string(corpus.records.size()) +
                " (truncated?)");
  }
  return corpus;
}

PerfCorpus LoadPerfCorpusFiles(const std::vector<std::string>& paths) {
  if (paths.empty()) throw Error("no corpus file named");
  PerfCorpus merged = LoadPerfCorpus(paths.front());
  if (paths.size() == 1) return merged;
  Json parts = Json::array();
  Json runs = merged.header.value("measure_runs", Json::array());
  parts.push_back({{"path", paths.front()}, {"records", merged.records.size()}});
  // Operator and configuration, to refuse one measured in two files.
  const auto measured_key = [](const PerfCorpusRecord& record) {
    return record.op + " " + record.config.dump();
  };
  std::set<std::string> measured;
  for (const PerfCorpusRecord& record : merged.records) measured.insert(measured_key(record));
  for (size_t i = 1; i < paths.size(); ++i) {
    PerfCorpus part = LoadPerfCorpus(paths[i]);
    const auto differs = [&](const Json& a, const Json& b, const std::string& what) {
      if (a == b) return;
      throw Error(fmt::format(
          "{}: its {} ({}) differs from {}'s ({}); only corpora measured on one machine under one "
          "protocol are read as one",
          paths[i], what, b.dump(), paths.front(), a.dump()));
    };
    differs(merged.header["machine"].value("cpu", Json()),
            part.header["machine"].value("cpu", Json()), "machine's CPU");
    // Every field of either side's protocol: one only the part has differs too.
    Json fields = merged.header["protocol"];
    fields.update(part.header["protocol"]);
    for (const auto& [key, ignored] : fields.items()) {
      differs(merged.header["protocol"].value(key, Json()),
              part.header["protocol"].value(key, Json()), "protocol field '" + key + "'");
    }
    differs(merged.header["template_versions"], part.header["template_versions"],
            "template versions");
    differs(merged.header["program_graph_feature_version"],
            part.header["program_graph_feature_version"], "program-graph feature version");
    std::set<std::string> part_measured;
    for (const PerfCorpusRecord& record : part.records) {
      const std::string key = measured_key(record);
      if (measured.count(key)) {
        throw Error(fmt::format(
            "{}: operator {} with configuration {} is also in an earlier file; a corpus holds "
            "each configuration once",
            paths[i], record.op, record.config.dump()));
      }
      part_measured.insert(key);
    }
    measured.insert(part_measured.begin(), part_measured.end());
    parts.push_back({{"path", paths[i]}, {"records", part.records.size()}});
    for (const Json& run : part.header.value("measure_runs", Json::array())) runs.push_back(run);
    merged.records.insert(merged.records.end(), std::make_move_iterator(part.records.begin()),
                          std::make_move_iterator(part.records.end()));
  }
  std::set<std::string> operators;
  for (const PerfCorpusRecord& record : merged.records) operators.insert(record.op);
  merged.header["records"] = merged.records.size();
  merged.header["operators"] = operators.size();
  merged.header["measure_runs"] = std::move(runs);
  merged.header["parts"] = std::move(parts);
  return merged;
}

}  // namespace glimpse
