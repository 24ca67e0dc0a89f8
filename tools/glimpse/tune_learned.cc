// --cost-model and --hardware-budget of `glimpse tune --target cpu` (tune_learned.h).
#include "tune_learned.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ostream>

#include "glimpse/cpu.h"
#include "glimpse/error.h"
#include "glimpse/learned_cost_model.h"
#include "glimpse/mean_time_model.h"
#include "glimpse/model_tuner.h"
#include "glimpse/tuner.h"
#include "tuner_options.h"

namespace glimpse::cli {

namespace {

// --hardware-budget N measures in rounds: the model's best few, then the strategy's online model
// refitted on what they measured (on the learned model's margin) and the plan searched again.
// Rounds of N/4 rather than one plan of N: on ResNet-18, on a machine the model was not trained
// on, the same 16 measurements per task summed to 0.74–0.89× of one plan's, re-measured, over
// three seeds (bench/results/hardware_budget_rounds.md). At most 16 a round, so that no slot of a
// round's plan is random (the last PlanRandomTail(plan_size) slots of a plan are: AutoTVM's
// ε-greedy).
constexpr int64_t kHardwareBudgetRounds = 4;
constexpr int64_t kMaxRoundSize = 16;

// The smallest plan (at least the default) whose first `measurements` proposals are all planned:
// the form of one round, where the whole budget comes from one search on the model.
int PlanSizeForOneRound(int64_t measurements) {
  int plan_size = XgbTunerOptions{}.plan_size;
  while (plan_size - static_cast<int64_t>(PlanRandomTail(plan_size)) < measurements) ++plan_size;
  return plan_size;
}

// The longest round whose plan has no random slot.
int64_t LongestPlannedRound() {
  int round = 1;
  while (PlanRandomTail(round + 1) == 0) ++round;
  return round;
}

// The plan size of rounds of `round` measurements (batch = plan: the strategy refits and plans
// again every plan_size measurements), or the one-round plan when a round is the whole budget.
// Throws Error for rounds too long to be planned slot for slot.
// `measurements`: those searched (the hardware budget less its recheck); `flag` names the budget
// as given, for the error.
int64_t PlanSizeForRounds(int64_t round, int64_t measurements, const std::string& flag) {
  if (round >= measurements) return PlanSizeForOneRound(measurements);
  if (PlanRandomTail(static_cast<int>(round)) > 0) {
    throw Error(fmt::format(
        "{} with --batch {}: a round of {} would end in random picks (the last 5 % of a plan); "
        "give --batch of at most {} (rounds, the model refitted between them) or of at least {} "
        "(one round: the model's {} best)",
        flag, round, round, LongestPlannedRound(), measurements, measurements));
  }
  return round;
}

bool TakesPretrainedModel(const TunerTraits& traits) { return traits.takes_pretrained_model; }

// Whether --tuner-option pretrained=choose was given.
bool ChoosesPretrainedModel(const TuneFlags& flags) {
  return std::find(flags.tuner_options.begin(), flags.tuner_options.end(), "pretrained=choose") !=
         flags.tuner_options.end();
}

}  // namespace

TuneFlags ApplyCostModelFlags(const TuneFlags& flags) {
  TuneFlags out = flags;
  // A model is for a strategy that plans from it: xgb unless --tuner names another.
  if (flags.Given("--cost-model") && !flags.Given("--tuner")) out.tuner = "xgb";
  if (flags.Given("--cost-model") && !TraitsOfTuner(out.tuner).takes_pretrained_model) {
    throw Error(fmt::format(
        "--cost-model needs a strategy that starts from a pretrained model ({}); --tuner is '{}'",
        TunersWith(TakesPretrainedModel), flags.tuner));
  }
  if (ChoosesPretrainedModel(flags) && !flags.Given("--cost-model")) {
    throw Error(
        "--tuner-option pretrained=choose chooses among pretrained models: give them with "
        "--cost-model A.json+B.json");
  }
  if (!flags.Given("--hardware-budget")) return out;
  if (!flags.Given("--cost-model")) {
    throw Error(
        "--hardware-budget searches on a learned performance model: give it with --cost-model "
        "FILE (glimpse train perf-model makes one)");
  }
  for (const char* other : {"--budget", "--global-budget"}) {
    if (flags.Given(other)) {
      throw Error(std::string("--hardware-budget (the measurements per task) and ") + other +
                  " exclude each other; give one of them");
    }
  }
  if (flags.hardware_budget <= 0) {
    throw Error(
        fmt::format("--hardware-budget must be a positive number of measurements per "
                    "task (got {})",
                    flags.hardware_budget));
  }
  // N measurements per task is the promise: the sweep would add a few beyond it. A recheck of K
  // is taken out of the N instead — N − K searched, then the K fastest measured again in one
  // batch — so that the choice compares them in one sitting.
  if (flags.Given("--sibling-sweep") && flags.sibling_sweep > 0) {
    throw Error(
        "--hardware-budget spends exactly N measurements per task; --sibling-sweep would add some "
        "beyond it: drop it (or give --sibling-sweep 0)");
  }
  const int64_t recheck = flags.Given("--recheck") ? flags.recheck : 0;
  if (recheck < 0 || recheck >= flags.hardware_budget) {
    throw Error(fmt::format(
        "--recheck {} with --hardware-budget {}: the recheck is part of the N measurements, so it "
        "must be at least 0 and below N (N − K are searched, then the K fastest measured again)",
        recheck, flags.hardware_budget));
  }
  const int64_t searched = flags.hardware_budget - recheck;
  out.budget = searched;
  out.given["--budget"] = true;
  out.sibling_sweep = 0;
  out.recheck = static_cast<int>(recheck);
  // A --batch that is not positive is refused by MakeTuneOptions, before the plan is used.
  const int64_t round =
      flags.Given("--batch")
          ? flags.batch
          : std::min(kMaxRoundSize, (searched + kHardwareBudgetRounds - 1) / kHardwareBudgetRounds);
  out.batch = static_cast<int>(round);
  bool plan_given = false, pacing_given = false;
  for (const std::string& pair : flags.tuner_options) {
    if (pair.rfind("plan_size=", 0) == 0) plan_given = true;
    if (pair.rfind("budget_rounds=", 0) == 0) pacing_given = true;
  }
  if (!plan_given) {
    out.tuner_options.push_back(fmt::format(
        "plan_size={}",
        PlanSizeForRounds(round, searched,
                          fmt::format("--hardware-budget {}{}", flags.hardware_budget,
                                      recheck > 0 ? fmt::format(" --recheck {}", recheck) : ""))));
    // The rounds are the plan: no strategy (xgb-rounds, or xgb given budget_rounds) may size it
    // again from the budget.
    if (!pacing_given) out.tuner_options.push_back("budget_rounds=0");
  }
  return out;
}

std::shared_ptr<const ProgramTimeModel> LoadCostModelFlag(const TuneFlags& flags,
                                                          std::ostream& warnings) {
  if (!flags.Given("--cost-model")) return nullptr;
  std::shared_ptr<const ProgramTimeModel> model;
  try {
    model = LoadProgramTimeModelSpec(flags.cost_model);
  } catch (const Error& error) {
    throw Error(std::string("--cost-model: ") + error.what());
  }
  if (auto warning = PerfModelMachineWarning(*model, CpuDeviceName(), flags.cost_model)) {
    warnings << "glimpse: warning: " << *warning << "\n";
  }
  return model;
}

std::function<std::shared_ptr<const CostModel>(const ModelTask&, const Task&)> LearnedCostModels(
    std::shared_ptr<const ProgramTimeModel> model, const TuneFlags& flags,
    std::shared_ptr<ModelChoiceLog> choices) {
  if (!model) return {};
  if (!ChoosesPretrainedModel(flags)) {
    return [model](const ModelTask& task, const Task& tuned) -> std::shared_ptr<const CostModel> {
      return std::make_shared<LearnedCostModel>(model, task.op, tuned.space);
    };
  }
  std::vector<std::shared_ptr<const ProgramTimeModel>> members = MembersOfMean(*model);
  if (members.empty()) {
    throw Error(
        "--tuner-option pretrained=choose chooses, per task, among several models: give them "
        "joined by '+' (--cost-model A.json+B.json); '" +
        flags.cost_model + "' is one");
  }
  // A round holds one pick per model (the tuner says so too, but only when a task starts).
  const int plan_size =
      XgbTunerOptions::FromJson(ParseTunerOptions(flags.tuner_options), flags.tuner).plan_size;
  if (static_cast<size_t>(plan_size) < members.size()) {
    throw Error(fmt::format(
        "--tuner-option pretrained=choose measures each of the {} models' best in the first "
        "round, and a round is {} (plan_size): give at least {} (with --hardware-budget, "
        "--batch)",
        members.size(), plan_size, members.size()));
  }
  choices->files.clear();
  for (size_t start = 0;;) {
    const size_t plus = flags.cost_model.find('+', start);
    choices->files.push_back(flags.cost_model.substr(start, plus - start));
    if (plus == std::string::npos) break;
    start = plus + 1;
  }
  return [members, choices](const ModelTask& task,
                            const Task& tuned) -> std::shared_ptr<const CostModel> {
    std::vector<std::shared_ptr<const CostModel>> learned;
    for (const auto& member : members) {
      learned.push_back(std::make_shared<LearnedCostModel>(member, task.op, tuned.space));
    }
    auto choice = std::make_shared<const CostModelChoice>(std::move(learned), choices->files);
    choices->tasks.emplace_back(task.op_text, choice);
    return choice;
  };
}

void PrintModelChoices(const ModelChoiceLog& choices, std::ostream& out) {
  if (choices.tasks.empty()) return;
  out << "model chosen per task (--tuner-option pretrained=choose; fastest of each model's first "
         "picks):\n";
  for (const auto& [op, choice] : choices.tasks) {
    const CostModelChoice::Outcome outcome = choice->outcome();
    std::string times;
    for (size_t m = 0; m < outcome.best_time_s.size(); ++m) {
      times += fmt::format("{}{} {}", m ? ", " : "", choices.files[m],
                           std::isfinite(outcome.best_time_s[m])
                               ? fmt::format("{:.1f} us", 1e6 * outcome.best_time_s[m])
                               : std::string("none ran"));
    }
    if (outcome.best_time_s.empty()) {
      out << "  " << op << ": no choice (the task ended before its first fit)\n";
    } else if (outcome.chosen < 0) {
      out << "  " << op << ": none of the first picks ran; the mean was kept (" << times << ")\n";
    } else {
      out << "  " << op << ": " << choices.files[static_cast<size_t>(outcome.chosen)] << " ("
          << times << ")\n";
    }
  }
}

void AddModelChoicesToJson(const ModelChoiceLog& choices, Json& report) {
  for (const auto& [op, choice] : choices.tasks) {
    const CostModelChoice::Outcome outcome = choice->outcome();
    Json entry;
    entry["chosen"] = outcome.chosen >= 0 ? Json(choices.files[static_cast<size_t>(outcome.chosen)])
                                          : Json(nullptr);
    entry["reason"] = outcome.best_time_s.empty() ? "the task ended before its first fit"
                      : outcome.chosen < 0        ? "none of the first picks ran; the mean was kept"
                                                  : "its first picks ran fastest";
    entry["first_picks"] = Json::array();
    for (size_t m = 0; m < outcome.best_time_s.size(); ++m) {
      const double time = outcome.best_time_s[m];
      entry["first_picks"].push_back(
          {{"file", choices.files[m]},
           {"best_time_s", std::isfinite(time) ? Json(time) : Json(nullptr)}});
    }
    for (Json& task : report.at("tasks")) {
      if (task.value("op", "") == op) task["cost_model_choice"] = entry;
    }
  }
}

}  // namespace glimpse::cli
