// The results file (schema in docs/bench-results.md): JSON in and out, validation with errors
// naming the file and field, atomic writes, merging of several files. A path ending in ".gz" is
// written gzip-compressed, and a compressed file is read whatever its name (a full study is
// megabytes of JSON that compresses five- to six-fold).
#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

#include "glimpse/error.h"
#include "glimpse/evaluation.h"
#include "glimpse/replay.h"

namespace glimpse {

namespace {

namespace fs = std::filesystem;

// 0.9 → "0.9", 1 → "1.0", 25 → "25" (fractions keep a decimal point, as in the schema).
std::string FractionKey(double fraction) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.10g", fraction);
  std::string text = buffer;
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

Json QuantilesToJson(const Quantiles& q) {
  auto number = [](double value) { return std::isnan(value) ? Json(nullptr) : Json(value); };
  return {{"median", number(q.median)}, {"q1", number(q.q1)}, {"q3", number(q.q3)}};
}

Json ReachToJson(const ReachQuantiles& reach) {
  Json out = QuantilesToJson(reach.q);
  out["not_reached"] = reach.not_reached;
  return out;
}

Json SummaryToJson(const RunSummary& summary) {
  Json out = {{"space", summary.space},
              {"tool", summary.tool},
              {"strategy", summary.strategy},
              {"runs", summary.runs}};
  Json to_fraction = Json::object();
  for (const auto& [fraction, reach] : summary.measurements_to_fraction) {
    to_fraction[FractionKey(fraction)] = ReachToJson(reach);
  }
  out["measurements_to_fraction"] = to_fraction;
  Json at = Json::object();
  for (const auto& [checkpoint, q] : summary.fraction_at) {
    at[std::to_string(checkpoint)] = QuantilesToJson(q);
  }
  out["fraction_at"] = at;
  out["failed_fraction"] = QuantilesToJson(summary.failed_fraction);
  out["first_batch"] = QuantilesToJson(summary.first_batch);
  out["first_batch"]["best_median"] = std::isnan(summary.first_batch_best_median)
                                          ? Json(nullptr)
                                          : Json(summary.first_batch_best_median);
  out["simulated_s_to_0.95"] = ReachToJson(summary.simulated_s_to_95);
  out["tuner_cpu_s"] = QuantilesToJson(summary.tuner_cpu_s);
  return out;
}

// Typed field access with errors naming `where`.field.
class Fields {
 public:
  Fields(const Json& object, std::string where) : object_(object), where_(std::move(where)) {
    if (!object_.is_object()) throw Error(where_ + ": expected an object");
  }
  const Json& Get(const std::string& key) const {
    if (!object_.contains(key)) throw Error(where_ + "." + key + ": missing");
    return object_[key];
  }
  std::string String(const std::string& key) const {
    const Json& value = Get(key);
    if (!value.is_string()) throw Error(where_ + "." + key + ": expected a string");
    return value.get<std::string>();
  }
  double Number(const std::string& key) const {
    const Json& value = Get(key);
    if (!value.is_number()) throw Error(where_ + "." + key + ": expected a number");
    return value.get<double>();
  }
  int64_t Integer(const std::string& key) const {
    const Json& value = Get(key);
    if (!value.is_number_integer() || value.get<int64_t>() < 0) {
      throw Error(where_ + "." + key + ": expected an integer ≥ 0");
    }
    return value.get<int64_t>();
  }
  // null or absent → 0.
  double OptionalNumber(const std::string& key) const {
    if (!object_.contains(key) || object_[key].is_null()) return 0.0;
    return Number(key);
  }
  const Json& Array(const std::string& key) const {
    const Json& value = Get(key);
    if (!value.is_array()) throw Error(where_ + "." + key + ": expected an array");
    return value;
  }
  bool Bool(const std::string& key) const {
    const Json& value = Get(key);
    if (!value.is_boolean()) throw Error(where_ + "." + key + ": expected true or false");
    return value.get<bool>();
  }
  bool Has(const std::string& key) const { return object_.contains(key); }
  // A count written as a number (older files wrote 0.0): null or absent → 0; one no int64 holds
  // is an error, not a conversion.
  int64_t OptionalCount(const std::string& key) const {
    const double value = OptionalNumber(key);
    if (!(value >= 0 && value <= 9.0e15)) {
      throw Error(where_ + "." + key + ": expected a count from 0 to 9e15 (got " +
                  std::to_string(value) + ")");
    }
    return static_cast<int64_t>(value);
  }
  const std::string& where() const { return where_; }

 private:
  const Json& object_;
  std::string where_;
};

StudySettings SettingsFromJson(const Json& json, const std::string& where) {
  Fields fields(json, where);
  StudySettings settings;
  settings.max_measurements = fields.OptionalCount("max_measurements");
  settings.max_seconds = fields.OptionalNumber("max_seconds");
  settings.seeds = static_cast<int>(fields.Integer("seeds"));
  settings.first_batch = static_cast<int>(fields.Integer("first_batch"));
  settings.checkpoints.clear();
  for (const Json& value : fields.Array("checkpoints")) {
    if (!value.is_number_integer()) throw Error(where + ".checkpoints: expected integers");
    settings.checkpoints.push_back(value.get<int64_t>());
  }
  settings.fractions.clear();
  for (const Json& value : fields.Array("fractions")) {
    if (!value.is_number()) throw Error(where + ".fractions: expected numbers");
    settings.fractions.push_back(value.get<double>());
  }
  if (fields.Has("leave_one_device_out")) {
    settings.leave_one_device_out = fields.Bool("leave_one_device_out");
  }
  if (fields.Has("batch_size"))
    settings.batch_size = static_cast<int>(fields.Integer("batch_size"));
  if (fields.Has("noise")) settings.noise = fields.Bool("noise");
  return settings;
}

Json SettingsToJson(const StudySettings& settings) {
  return {{"max_measurements",
           settings.max_measurements > 0 ? Json(settings.max_measurements) : Json(nullptr)},
          {"max_seconds", settings.max_seconds > 0 ? Json(settings.max_seconds) : Json(nullptr)},
          {"seeds", settings.seeds},
          {"first_batch", settings.first_batch},
          {"checkpoints", settings.checkpoints},
          {"fractions", settings.fractions},
          {"leave_one_device_out", settings.leave_one_device_out},
          {"batch_size", settings.batch_size},
          {"noise", settings.noise}};
}

// The document with one line per space, run and summary: compact (a full study has thousands of
// runs) and still readable and diffable line by line.
void WriteJsonText(const Json& document, std::ostream& out) {
  out << "{\n";
  size_t key_index = 0;
  for (const auto& [key, value] : document.items()) {
    out << "  " << Json(key).dump() << ": ";
    if (value.is_array() && !value.empty()) {
      out << "[\n";
      for (size_t i = 0; i < value.size(); ++i) {
        out << "    " << value[i].dump() << (i + 1 < value.size() ? ",\n" : "\n");
      }
      out << "  ]";
    } else {
      out << value.dump();
    }
    out << (++key_index < document.size() ? ",\n" : "\n");
  }
  out << "}\n";
}

}  // namespace

Json RunToJson(const RunRecord& run) {
  Json curve = Json::array();
  for (const CurvePoint& point : run.best_curve) {
    curve.push_back({point.measurement, point.simulated_s, point.best_time_s});
  }
  return {
      {"space", run.space},
      {"tool", run.tool},
      {"strategy", run.strategy},
      {"seed", run.seed},
      {"measurements", run.measurements},
      {"failed", run.failed},
      {"not_recorded", run.not_recorded},
      {"stop_reason", run.stop_reason},
      {"max_measurements", run.max_measurements > 0 ? Json(run.max_measurements) : Json(nullptr)},
      {"simulated_s", run.simulated_s},
      {"presampling_s", run.presampling_s},
      {"tuner_cpu_s", std::isnan(run.tuner_cpu_s) ? Json(nullptr) : Json(run.tuner_cpu_s)},
      {"wall_s", run.wall_s},
      {"best_curve", curve},
      {"first_batch_performance", run.first_batch_performance}};
}

RunRecord RunFromJson(const Json& json, const std::string& where, int64_t default_budget) {
  Fields fields(json, where);
  RunRecord run;
  run.space = fields.String("space");
  run.tool = fields.String("tool");
  run.strategy = fields.String("strategy");
  run.seed = static_cast<uint64_t>(fields.Integer("seed"));
  run.measurements = fields.Integer("measurements");
  run.failed = fields.Integer("failed");
  if (run.failed > run.measurements) throw Error(where + ".failed: more than measurements");
  if (fields.Has("not_recorded")) {
    run.not_recorded = fields.Integer("not_recorded");
    if (run.not_recorded > run.failed) throw Error(where + ".not_recorded: more than failed");
  }
  run.stop_reason = fields.String("stop_reason");
  run.simulated_s = fields.Number("simulated_s");
  run.presampling_s = fields.OptionalNumber("presampling_s");
  run.tuner_cpu_s = fields.Has("tuner_cpu_s") && !json["tuner_cpu_s"].is_null()
                        ? fields.Number("tuner_cpu_s")
                        : std::numeric_limits<double>::quiet_NaN();
  run.wall_s = fields.OptionalNumber("wall_s");
  run.max_measurements =
      fields.Has("max_measurements") ? fields.OptionalCount("max_measurements") : default_budget;
  int64_t previous = 0;
  for (const Json& point : fields.Array("best_curve")) {
    if (!point.is_array() || point.size() != 3 || !point[0].is_number_integer() ||
        !point[1].is_number() || !point[2].is_number() || point[2].get<double>() <= 0.0) {
      throw Error(where +
                  ".best_curve: expected [measurement, simulated_s, best_time_s > 0] "
                  "points (got " +
                  point.dump() + ")");
    }
    CurvePoint parsed{point[0].get<int64_t>(), point[1].get<double>(), point[2].get<double>()};
    if (parsed.measurement <= previous || parsed.measurement > run.measurements) {
      throw Error(where + ".best_curve: measurements must increase within 1.." +
                  std::to_string(run.measurements) + " (got " + point.dump() + ")");
    }
    previous = parsed.measurement;
    run.best_curve.push_back(parsed);
  }
  for (const Json& value : fields.Array("first_batch_performance")) {
    if (!value.is_number()) throw Error(where + ".first_batch_performance: expected numbers");
    run.first_batch_performance.push_back(value.get<double>());
  }
  return run;
}

Json ResultsToJson(const StudyResults& results) {
  Json out = {{"schema", kResultsSchema},
              {"created", results.created},
              {"machine", results.machine},
              {"command", results.command},
              {"settings", SettingsToJson(results.settings)}};
  Json spaces = Json::array();
  for (const SpaceInfo& space : results.spaces) {
    spaces.push_back({{"id", space.id},
                      {"group", space.group},
                      {"device", space.device},
                      {"file", space.file},
                      {"valid", space.valid},
                      {"recorded_ok", space.recorded_ok},
                      {"optimum_s", space.optimum_s}});
  }
  out["spaces"] = spaces;
  Json runs = Json::array();
  for (const RunRecord& run : results.runs) runs.push_back(RunToJson(run));
  out["runs"] = runs;
  Json summaries = Json::array();
  for (const RunSummary& summary : results.summaries) summaries.push_back(SummaryToJson(summary));
  out["summaries"] = summaries;
  return out;
}

StudyResults ResultsFromJson(const Json& json, const std::string& path) {
  Fields top(json, path);
  if (top.String("schema") != kResultsSchema) {
    throw Error(path + ": schema: expected '" + std::string(kResultsSchema) + "' (got '" +
                top.String("schema") + "')");
  }
  StudyResults results;
  results.created = top.Has("created") ? top.String("created") : "";
  results.machine = top.Has("machine") ? top.String("machine") : "";
  results.command = top.Has("command") ? top.String("command") : "";
  results.settings = SettingsFromJson(top.Get("settings"), path + ": settings");
  std::set<std::string> ids;
  const Json& spaces = top.Array("spaces");
  for (size_t i = 0; i < spaces.size(); ++i) {
    Fields fields(spaces[i], path + ": spaces[" + std::to_string(i) + "]");
    SpaceInfo space;
    space.id = fields.String("id");
    space.group = fields.Has("group") ? fields.String("group") : "";
    space.device = fields.Has("device") ? fields.String("device") : "";
    space.file = fields.Has("file") ? fields.String("file") : "";
    space.valid = fields.Has("valid") ? fields.Integer("valid") : 0;
    space.recorded_ok = fields.Has("recorded_ok") ? fields.Integer("recorded_ok") : 0;
    space.optimum_s = fields.Number("optimum_s");
    if (!(space.optimum_s > 0.0)) throw Error(fields.where() + ".optimum_s: expected > 0");
    if (!ids.insert(space.id).second) throw Error(fields.where() + ".id: duplicate space");
    results.spaces.push_back(space);
  }
  const Json& runs = top.Array("runs");
  for (size_t i = 0; i < runs.size(); ++i) {
    results.runs.push_back(RunFromJson(runs[i], path + ": runs[" + std::to_string(i) + "]",
                                       results.settings.max_measurements));
    if (!ids.count(results.runs.back().space)) {
      throw Error(path + ": runs[" + std::to_string(i) + "].space: '" + results.runs.back().space +
                  "' is not in 'spaces'");
    }
  }
  // Summaries in a file are not read: they are recomputed from the runs.
  Summarize(results);
  return results;
}

StudyResults LoadResults(const std::string& path) {
  if (!fs::exists(path)) throw Error("cannot read the results file '" + path + "'");
  Json json;
  try {
    json = Json::parse(ReadMaybeGzipFile(path));
  } catch (const Json::exception& e) {
    throw Error(path + ": not JSON (" + e.what() + ")");
  }
  return ResultsFromJson(json, path);
}

void WriteResults(const StudyResults& results, const std::string& path) {
  const std::string temporary = path + ".tmp";
  const bool compressed = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  if (compressed) {
    std::ostringstream text;
    WriteJsonText(ResultsToJson(results), text);
    const std::string data = std::move(text).str();
    gzFile file = gzopen(temporary.c_str(), "wb9");
    if (file == nullptr) throw Error(path + ": cannot write the results file");
    const bool written = gzwrite(file, data.data(), static_cast<unsigned>(data.size())) ==
                         static_cast<int>(data.size());
    if (gzclose(file) != Z_OK || !written) {
      std::error_code ignored;
      fs::remove(temporary, ignored);
      throw Error(path + ": writing the results file failed");
    }
  } else {
    std::ofstream out(temporary, std::ios::trunc);
    if (!out) throw Error(path + ": cannot write the results file");
    WriteJsonText(ResultsToJson(results), out);
    out.flush();
    if (!out) throw Error(path + ": writing the results file failed");
  }
  std::error_code error;
  fs::rename(temporary, path, error);
  if (error) throw Error(path + ": cannot replace the results file (" + error.message() + ")");
}

StudyResults MergeResults(const std::vector<std::pair<std::string, StudyResults>>& files,
                          std::vector<std::string>* warnings) {
  if (files.empty()) throw Error("no results files to merge");
  StudyResults merged;
  merged.settings = files.front().second.settings;
  merged.machine = files.front().second.machine;
  std::map<std::string, size_t> space_index;
  std::map<std::tuple<std::string, std::string, std::string, uint64_t>, std::string> seen;
  for (const auto& [path, results] : files) {
    if (results.settings.first_batch != merged.settings.first_batch && warnings) {
      warnings->push_back(path + ": first_batch " + std::to_string(results.settings.first_batch) +
                          " differs from " + std::to_string(merged.settings.first_batch) +
                          " of the first file");
    }
    merged.settings.leave_one_device_out |= results.settings.leave_one_device_out;
    for (const SpaceInfo& space : results.spaces) {
      auto [it, inserted] = space_index.emplace(space.id, merged.spaces.size());
      if (inserted) {
        merged.spaces.push_back(space);
        continue;
      }
      const double ours = merged.spaces[it->second].optimum_s;
      if (std::abs(space.optimum_s - ours) > 1e-9 * ours && warnings) {
        warnings->push_back(path + ": space '" + space.id + "' has optimum " +
                            std::to_string(space.optimum_s) + " s, the first file " +
                            std::to_string(ours) + " s; the first is used");
      }
    }
    for (const RunRecord& run : results.runs) {
      auto key = std::make_tuple(run.space, run.tool, run.strategy, run.seed);
      auto [it, inserted] = seen.emplace(key, path);
      if (!inserted) {
        throw Error("run " + run.space + " " + run.tool + " " + run.strategy + " seed " +
                    std::to_string(run.seed) + " is in both " + it->second + " and " + path);
      }
      merged.runs.push_back(run);
    }
  }
  Summarize(merged);
  return merged;
}

std::string MachineDescription() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, model = "unknown CPU";
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  }
  return model + ", " + std::to_string(std::thread::hardware_concurrency()) + " hardware threads";
}

}  // namespace glimpse
