// `glimpse space show FILE`: what a recorded space holds.
#include <fmt/format.h>

#include <iostream>
#include <map>
#include <memory>

#include "commands.h"
#include "format.h"
#include "glimpse/replay.h"
#include "recorded_source.h"

namespace glimpse::cli {
namespace {

struct SpaceFlags {
  RecordedSourceFlags source;
  bool json = false;
};

std::string ValuesPreview(const Knob& knob, size_t limit = 12) {
  std::string text;
  for (size_t i = 0; i < knob.size() && i < limit; ++i) {
    text += (i ? ", " : "") + KnobValueToString(knob.ValueAt(i));
  }
  if (knob.size() > limit) text += fmt::format(", … ({} more)", knob.size() - limit);
  return text;
}

void RunShow(const SpaceFlags& flags) {
  RecordedSpace recorded = flags.source.Load();
  const ConfigSpace& space = recorded.space;
  uint64_t valid = space.CountValid();
  std::map<MeasureStatus, int64_t> by_status = recorded.CountByStatus();
  int64_t recorded_valid = static_cast<int64_t>(recorded.entries.size());
  int64_t missing = static_cast<int64_t>(valid) - recorded_valid;
  auto best = recorded.Best();
  Task task = recorded.MakeTask();

  if (flags.json) {
    Json out;
    out["file"] = recorded.source_path;
    out["format"] = recorded.format == RecordedFormat::kT4 ? "t4" : "kernel-tuner-cache";
    out["task"] = task.name;
    out["workload_key"] = task.WorkloadKey();
    out["device"] = recorded.device_name;
    out["knobs"] = Json::array();
    for (const Knob& knob : space.knobs()) out["knobs"].push_back(knob.ToJson());
    out["restrictions"] = space.restrictions();
    out["raw_size"] = space.RawSize();
    out["valid_size"] = valid;
    out["recorded"] = recorded_valid;
    out["outside_restrictions"] = recorded.outside_restrictions;
    out["missing_valid"] = missing;
    Json statuses = Json::object();
    for (const auto& [status, count] : by_status) statuses[StatusName(status)] = count;
    out["by_status"] = statuses;
    if (best) {
      out["best"] = {{"config", space.ConfigToJson(space.FromDenseIndex(best->first))},
                     {"time_s", best->second.time_s}};
    }
    std::cout << out.dump(2) << "\n";
    return;
  }

  std::cout << fmt::format("{}\n  task {} on {}  (workload {})\n\n", recorded.source_path,
                           task.name, recorded.device_name.empty() ? "?" : recorded.device_name,
                           task.WorkloadKey());
  Table knobs({"knob", "kind", "values", ""});
  for (const Knob& knob : space.knobs()) {
    knobs.AddRow(
        {knob.name(), KnobKindName(knob.kind()), std::to_string(knob.size()), ValuesPreview(knob)});
  }
  knobs.Print(std::cout);
  std::cout << "\n";
  if (!space.restrictions().empty()) {
    std::cout << "restrictions\n";
    for (const std::string& r : space.restrictions()) std::cout << "  " << r << "\n";
    std::cout << "\n";
  }
  auto line = [](const std::string& label, const std::string& value) {
    std::cout << fmt::format("{:<22} {}\n", label, value);
  };
  line("raw size", FormatBig(static_cast<double>(space.RawSize())));
  line("valid (restrictions)", FormatCount(static_cast<int64_t>(valid)));
  line("recorded", FormatCount(recorded_valid));
  if (recorded.outside_restrictions > 0) {
    line("recorded, not valid",
         FormatCount(recorded.outside_restrictions) + " (break a restriction; ignored)");
  }
  if (missing > 0) line("valid, not recorded", FormatCount(missing) + " (count as failed)");
  for (const auto& [status, count] : by_status) {
    line("  " + std::string(StatusName(status)), FormatCount(count));
  }
  if (best) {
    line("best recorded time", FormatDuration(best->second.time_s));
    line("best config", space.ConfigToString(space.FromDenseIndex(best->first)));
  }
}

}  // namespace

void AddSpaceCommand(CLI::App& app) {
  auto flags = std::make_shared<SpaceFlags>();
  CLI::App* space = app.add_subcommand("space", "Inspect search spaces");
  space->require_subcommand(1);
  CLI::App* show = space->add_subcommand(
      "show", "Knobs, raw and valid sizes, failures by status and the best recorded time");
  flags->source.AddTo(show, /*positional=*/true);
  show->add_flag("--json", flags->json, "print as JSON");
  show->callback([flags] { RunShow(*flags); });
  AddSpaceCodeCommand(*space);
}

}  // namespace glimpse::cli
