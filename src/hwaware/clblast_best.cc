// CLBlast's best configurations as prior-generator examples (glimpse/clblast_best.h).
#include "glimpse/clblast_best.h"

#include <set>
#include <utility>

#include "glimpse/error.h"
#include "glimpse/json_fields.h"
#include "glimpse/replay.h"

namespace glimpse {

namespace {

// The string fields of a record, by key.
constexpr std::pair<const char*, std::string ClblastRecord::*> kStringFields[] = {
    {"kernel", &ClblastRecord::kernel},
    {"device", &ClblastRecord::device},
    {"vendor", &ClblastRecord::vendor},
    {"architecture", &ClblastRecord::architecture}};

}  // namespace

std::vector<ClblastRecord> LoadClblastBest(const std::string& path) {
  Json json;
  try {
    json = Json::parse(ReadMaybeGzipFile(path));
  } catch (const Json::exception& e) {
    throw Error(path + ": not JSON (" + e.what() + ")");
  }
  if (!json.is_object() || !json.contains("records") || !json["records"].is_array()) {
    throw Error(path + ": not a clblast_best file (no \"records\" list)");
  }
  std::vector<ClblastRecord> records;
  const Json& list = json["records"];
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string where = path + ": records[" + std::to_string(i) + "]";
    const Json& r = list[i];
    if (!r.is_object()) throw Error(where + ": not an object");
    ClblastRecord record;
    for (const auto& [key, field] : kStringFields) record.*field = RequireString(r, key, where);
    record.params = RequireField(r, "params", where);
    if (!record.params.is_object()) {
      throw Error(where + ": field 'params' must be an object, not " + record.params.dump());
    }
    records.push_back(std::move(record));
  }
  return records;
}

std::vector<PriorTrainingExample> MakeClblastPriorExamples(
    const std::vector<ClblastRecord>& records, const ConfigSpace& space, const std::string& name,
    const Blueprint& blueprint, const GpuTable& table,
    const std::function<bool(const GpuSpec&)>& keep, const ClblastPriorOptions& options,
    std::vector<std::string>* skipped) {
  if (options.smoothing < 0.0 || options.smoothing > 1.0) {
    throw Error("CLBlast targets: smoothing " + std::to_string(options.smoothing) +
                " is not in [0, 1]");
  }
  auto skip = [&](const ClblastRecord& record, const std::string& why) {
    if (skipped)
      skipped->push_back("CLBlast " + record.kernel + " on " + record.device + ": " + why);
  };
  std::vector<PriorTrainingExample> examples;
  std::set<std::string> seen;  // GPUs (canonical names) with an example
  for (const ClblastRecord& record : records) {
    if (record.kernel != options.kernel) continue;
    const GpuSpec* gpu = table.Find(record.device);
    if (gpu == nullptr) {
      skip(record, "not in the GPU table");
      continue;
    }
    if (keep && !keep(*gpu)) {
      skip(record, gpu->name + " is excluded");
      continue;
    }
    if (!seen.insert(gpu->name).second) {
      skip(record, gpu->name + " already has a record");
      continue;
    }
    PriorDistribution target;
    std::string why;
    for (const Knob& knob : space.knobs()) {
      const size_t n = knob.size();
      std::vector<double> row(n, n == 1 ? 1.0 : options.smoothing / static_cast<double>(n));
      if (n > 1) {
        if (!record.params.contains(knob.name())) {
          why = "no value for knob " + knob.name();
          break;
        }
        const std::optional<size_t> index = knob.IndexOfJson(record.params[knob.name()]);
        if (!index) {
          why = knob.name() + " = " + record.params[knob.name()].dump() +
                " is not one of the knob's values";
          break;
        }
        row[*index] += 1.0 - options.smoothing;
      }
      target.push_back(std::move(row));
    }
    if (!why.empty()) {
      skip(record, why);
      continue;
    }
    PriorTrainingExample e;
    e.name = name;
    e.gpu = gpu->name;
    e.path = "clblast:" + record.device;
    e.space = space;
    e.task.kernel = name;
    e.task.problem_size = options.problem_size;
    e.blueprint = blueprint.Embed(*gpu);
    e.target = std::move(target);
    e.top_count = 1;
    examples.push_back(std::move(e));
  }
  return examples;
}

}  // namespace glimpse
