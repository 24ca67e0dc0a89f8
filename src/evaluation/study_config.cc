// Study files (see glimpse/evaluation.h and docs/bench-results.md "Study files"): parsing with
// one-line errors that name the study and the field.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "glimpse/error.h"
#include "glimpse/evaluation.h"
#include "glimpse/json_file.h"
#include "glimpse/tuner.h"

namespace glimpse {

namespace {

namespace fs = std::filesystem;

class Parser {
 public:
  explicit Parser(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void Fail(const std::string& field, const std::string& what) const {
    throw Error(path_ + ": " + field + ": " + what);
  }

  void CheckKeys(const Json& object, const std::string& field,
                 const std::vector<std::string>& known) const {
    if (!object.is_object()) Fail(field.empty() ? "top level" : field, "expected an object");
    for (const auto& [key, value] : object.items()) {
      if (std::find(known.begin(), known.end(), key) != known.end()) continue;
      std::string list;
      for (const std::string& name : known) list += (list.empty() ? "" : ", ") + name;
      Fail(field.empty() ? key : field + "." + key, "unknown key; known: " + list);
    }
  }

  std::string String(const Json& value, const std::string& field) const {
    if (!value.is_string() || value.get<std::string>().empty()) {
      Fail(field, "expected a non-empty string");
    }
    return value.get<std::string>();
  }

  int64_t PositiveInt(const Json& value, const std::string& field) const {
    if (!value.is_number_integer() || value.get<int64_t>() < 1) {
      Fail(field, "expected an integer ≥ 1 (got " + value.dump() + ")");
    }
    return value.get<int64_t>();
  }

  const Json& Array(const Json& value, const std::string& field, bool non_empty) const {
    if (!value.is_array() || (non_empty && value.empty())) {
      Fail(field, non_empty ? "expected a non-empty array" : "expected an array");
    }
    return value;
  }

 private:
  std::string path_;
};

StudyGroup ParseGroup(const Parser& parser, const Json& json, const std::string& field,
                      const StudyConfig& study) {
  parser.CheckKeys(json, field, {"name", "files", "t1", "restrictions"});
  StudyGroup group;
  if (!json.contains("name")) parser.Fail(field + ".name", "missing");
  group.name = parser.String(json["name"], field + ".name");
  if (group.name.find('/') != std::string::npos) {
    parser.Fail(field + ".name", "must not contain '/' (it prefixes the space ids)");
  }
  if (!json.contains("files")) parser.Fail(field + ".files", "missing");
  const Json& files = parser.Array(json["files"], field + ".files", true);
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string file_field = field + ".files[" + std::to_string(i) + "]";
    std::string file = parser.String(files[i], file_field);
    if (!fs::is_regular_file(study.Resolve(file))) {
      parser.Fail(file_field, "no such file '" + study.Resolve(file) + "' (root '" + study.root +
                                  "'; --root DIR changes it)");
    }
    group.files.push_back(file);
  }
  if (json.contains("t1")) {
    group.t1 = parser.String(json["t1"], field + ".t1");
    if (!fs::is_regular_file(study.Resolve(group.t1))) {
      parser.Fail(field + ".t1", "no such file '" + study.Resolve(group.t1) + "'");
    }
  }
  if (json.contains("restrictions")) {
    const Json& list = parser.Array(json["restrictions"], field + ".restrictions", false);
    for (size_t i = 0; i < list.size(); ++i) {
      group.restrictions.push_back(
          parser.String(list[i], field + ".restrictions[" + std::to_string(i) + "]"));
    }
  }
  return group;
}

StudyStrategy ParseStrategy(const Parser& parser, const Json& json, const std::string& field) {
  parser.CheckKeys(json, field, {"name", "tuner", "options", "transfer", "validity_init"});
  StudyStrategy strategy;
  if (!json.contains("name")) parser.Fail(field + ".name", "missing");
  strategy.name = parser.String(json["name"], field + ".name");
  strategy.tuner =
      json.contains("tuner") ? parser.String(json["tuner"], field + ".tuner") : strategy.name;
  if (json.contains("options")) {
    if (!json["options"].is_object()) parser.Fail(field + ".options", "expected an object");
    strategy.options = json["options"];
  }
  if (json.contains("validity_init")) {
    if (!json["validity_init"].is_boolean()) {
      parser.Fail(field + ".validity_init", "expected true or false");
    }
    strategy.validity_init = json["validity_init"].get<bool>();
  }
  if (strategy.options.contains("validity_init") && strategy.options["validity_init"] == true) {
    strategy.validity_init = true;
  }
  if (strategy.validity_init && strategy.tuner != "xgb" && strategy.tuner != "xgb-reg" &&
      strategy.tuner != "xgb-rounds") {
    parser.Fail(field + ".validity_init",
                "validity-driven initialisation needs tuner xgb, xgb-rounds or xgb-reg (got '" +
                    strategy.tuner + "')");
  }
  if (json.contains("transfer")) {
    strategy.transfer = parser.String(json["transfer"], field + ".transfer");
    try {
      ParseTransferMode(strategy.transfer);
    } catch (const Error& e) {
      parser.Fail(field + ".transfer", e.what());
    }
    // By the strategy's traits where the registry knows it already (the runner checks again once
    // every strategy is registered).
    const std::vector<std::string> known = KnownTuners();
    if (std::find(known.begin(), known.end(), strategy.tuner) != known.end() &&
        !TraitsOfTuner(strategy.tuner).learns_from_history) {
      parser.Fail(field + ".transfer",
                  "transfer learning needs a strategy that learns from history; '" +
                      strategy.tuner + "' does not (these do: " +
                      TunersWith([](const TunerTraits& t) { return t.learns_from_history; }) + ")");
    }
  }
  return strategy;
}

}  // namespace

std::string StudyConfig::Resolve(const std::string& file) const {
  fs::path candidate(file);
  if (candidate.is_absolute()) return candidate.string();
  return (fs::path(root) / candidate).lexically_normal().string();
}

void StudyConfig::Select(const std::string& group, const std::string& strategy) {
  auto keep = [&](auto& list, const std::string& name, const char* what) {
    if (name.empty()) return;
    std::string known;
    for (const auto& item : list) known += (known.empty() ? "" : ", ") + item.name;
    list.erase(std::remove_if(list.begin(), list.end(),
                              [&](const auto& item) { return item.name != name; }),
               list.end());
    if (list.empty()) {
      throw Error(path + ": no " + what + " named '" + name + "'; known: " + known);
    }
  };
  keep(groups, group, "group");
  keep(strategies, strategy, "strategy");
}

StudyConfig ParseStudyConfig(const Json& json, const std::string& path,
                             const std::string& root_override) {
  Parser parser(path);
  parser.CheckKeys(json, "",
                   {"description", "root", "groups", "strategies", "seeds", "max_measurements",
                    "max_seconds", "batch_size", "first_batch", "checkpoints", "fractions"});
  StudyConfig study;
  study.path = path;
  const fs::path study_dir = fs::path(path).parent_path();
  if (!root_override.empty()) {
    study.root = root_override;
  } else if (json.contains("root")) {
    fs::path root(parser.String(json["root"], "root"));
    study.root = (root.is_absolute() ? root : study_dir / root).lexically_normal().string();
  } else {
    study.root = study_dir.empty() ? "." : study_dir.string();
  }
  if (!fs::is_directory(study.root)) {
    parser.Fail(root_override.empty() ? "root" : "--root",
                "no such directory '" + study.root + "'");
  }

  if (json.contains("seeds")) {
    study.seeds = static_cast<int>(parser.PositiveInt(json["seeds"], "seeds"));
  }
  if (json.contains("max_measurements")) {
    study.max_measurements = json["max_measurements"].is_null()
                                 ? 0
                                 : parser.PositiveInt(json["max_measurements"], "max_measurements");
  }
  if (json.contains("max_seconds") && !json["max_seconds"].is_null()) {
    if (!json["max_seconds"].is_number() || json["max_seconds"].get<double>() <= 0.0) {
      parser.Fail("max_seconds", "expected a number of simulated seconds > 0, or null");
    }
    study.max_seconds = json["max_seconds"].get<double>();
  }
  if (study.max_measurements == 0 && study.max_seconds == 0.0) {
    parser.Fail("max_measurements", "null, and no max_seconds either: a run needs a budget");
  }
  if (json.contains("batch_size")) {
    study.batch_size = static_cast<int>(parser.PositiveInt(json["batch_size"], "batch_size"));
  }
  if (json.contains("first_batch")) {
    study.first_batch = static_cast<int>(parser.PositiveInt(json["first_batch"], "first_batch"));
  }
  if (json.contains("checkpoints")) {
    study.checkpoints.clear();
    const Json& list = parser.Array(json["checkpoints"], "checkpoints", false);
    for (size_t i = 0; i < list.size(); ++i) {
      study.checkpoints.push_back(
          parser.PositiveInt(list[i], "checkpoints[" + std::to_string(i) + "]"));
    }
    std::sort(study.checkpoints.begin(), study.checkpoints.end());
    study.checkpoints.erase(std::unique(study.checkpoints.begin(), study.checkpoints.end()),
                            study.checkpoints.end());
  }
  if (json.contains("fractions")) {
    study.fractions.clear();
    const Json& list = parser.Array(json["fractions"], "fractions", false);
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string field = "fractions[" + std::to_string(i) + "]";
      if (!list[i].is_number() || list[i].get<double>() <= 0.0 || list[i].get<double>() > 1.0) {
        parser.Fail(field,
                    "expected a fraction of the optimum in (0, 1] (got " + list[i].dump() + ")");
      }
      study.fractions.push_back(list[i].get<double>());
    }
    std::sort(study.fractions.begin(), study.fractions.end());
  }

  if (!json.contains("groups")) parser.Fail("groups", "missing");
  const Json& groups = parser.Array(json["groups"], "groups", true);
  std::set<std::string> group_names;
  for (size_t i = 0; i < groups.size(); ++i) {
    const std::string field = "groups[" + std::to_string(i) + "]";
    study.groups.push_back(ParseGroup(parser, groups[i], field, study));
    if (!group_names.insert(study.groups.back().name).second) {
      parser.Fail(field + ".name", "duplicate group '" + study.groups.back().name + "'");
    }
  }
  if (!json.contains("strategies")) parser.Fail("strategies", "missing");
  const Json& strategies = parser.Array(json["strategies"], "strategies", true);
  std::set<std::string> strategy_names;
  for (size_t i = 0; i < strategies.size(); ++i) {
    const std::string field = "strategies[" + std::to_string(i) + "]";
    study.strategies.push_back(ParseStrategy(parser, strategies[i], field));
    if (!strategy_names.insert(study.strategies.back().name).second) {
      parser.Fail(field + ".name", "duplicate strategy '" + study.strategies.back().name + "'");
    }
  }
  return study;
}

StudyConfig LoadStudyConfig(const std::string& path, const std::string& root_override) {
  const Json json = ReadJsonFile(path, "the study file");
  return ParseStudyConfig(json, path, root_override);
}

}  // namespace glimpse
