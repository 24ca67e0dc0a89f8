// `glimpse run --profile`: a compiled model's time by kind of step and its slowest steps.
#include "step_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "format.h"
#include "glimpse/error.h"

namespace glimpse::cli {

void PrintStepProfile(const Json& profile, int threads, int slowest, std::ostream& out) {
  struct Step {
    std::string name, kind;
    double seconds = 0.0;
  };
  std::vector<Step> steps;
  double sum = 0.0;
  try {
    for (const Json& step : profile.at("steps")) {
      steps.push_back({step.at("name"), step.at("kind"), step.at("median_s")});
      sum += steps.back().seconds;
    }
  } catch (const Json::exception& e) {
    throw Error(std::string("run: the harness's profile is malformed: ") + e.what());
  }
  const int runs = profile.value("runs", 0);
  out << fmt::format(
      "\nprofile at {} thread(s): each step's median over {} runs (caches flushed before each "
      "run); the medians sum to {:.3f} ms\n",
      threads, runs, sum * 1e3);
  struct Kind {
    const char* label;
    int steps = 0;
    double seconds = 0.0;
  };
  std::map<std::string, Kind> kinds = {
      {"kernel", {"tuned kernels"}}, {"op", {"other operators"}}, {"reorder", {"layout reorders"}}};
  for (const Step& step : steps) {
    Kind& kind = kinds.try_emplace(step.kind, Kind{"other"}).first->second;
    ++kind.steps;
    kind.seconds += step.seconds;
  }
  Table by_kind({"steps", "count", "ms", "share"});
  for (const char* key : {"kernel", "op", "reorder"}) {
    const Kind& kind = kinds.at(key);
    by_kind.AddRow({kind.label, std::to_string(kind.steps),
                    fmt::format("{:.3f}", kind.seconds * 1e3),
                    fmt::format("{:.1f} %", sum > 0 ? 100.0 * kind.seconds / sum : 0.0)});
  }
  by_kind.Print(out);

  std::vector<const Step*> order;
  for (const Step& step : steps) order.push_back(&step);
  std::stable_sort(order.begin(), order.end(),
                   [](const Step* a, const Step* b) { return a->seconds > b->seconds; });
  order.resize(std::min<size_t>(order.size(), static_cast<size_t>(std::max(0, slowest))));
  if (order.empty()) return;
  out << fmt::format("the {} slowest steps (all of them in the --json report):\n", order.size());
  Table table({"ms", "share", "kind", "step"});
  table.AlignLeft({"kind", "step"});
  for (const Step* step : order) {
    table.AddRow({fmt::format("{:.3f}", step->seconds * 1e3),
                  fmt::format("{:.1f} %", sum > 0 ? 100.0 * step->seconds / sum : 0.0), step->kind,
                  step->name});
  }
  table.Print(out);
}

}  // namespace glimpse::cli
