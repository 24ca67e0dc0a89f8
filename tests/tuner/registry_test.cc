#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/tuner.h"

namespace glimpse {
namespace {

std::string ErrorOf(const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(TunerRegistry, KnowsTheBuiltIns) {
  std::vector<std::string> names = KnownTuners();
  for (const char* name : {"random", "grid", "ga", "sa"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
    std::unique_ptr<Tuner> tuner = MakeTuner(name);
    ASSERT_NE(tuner, nullptr);
    EXPECT_EQ(tuner->Name(), name);
    std::string description = TunerDescription(name);
    EXPECT_FALSE(description.empty());
    EXPECT_EQ(description.find('\n'), std::string::npos) << "one line: " << description;
  }
}

TEST(TunerRegistry, UnknownNameListsTheKnownOnes) {
  EXPECT_EQ(ErrorOf([] { MakeTuner("xgbb"); }).rfind("unknown tuner 'xgbb'; known: ", 0), 0u);
  std::string message = ErrorOf([] { MakeTuner("xgbb"); });
  EXPECT_NE(message.find("ga, grid, random, sa"), std::string::npos) << message;
  EXPECT_NE(ErrorOf([] { TunerDescription("nope"); }).find("unknown tuner 'nope'"),
            std::string::npos);
}

class FixedTuner : public Tuner {
 public:
  std::string Name() const override { return "fixed-test"; }
  void Init(const TuningContext& context) override {}
  std::vector<Config> Propose(size_t n) override { return {}; }
  void Observe(const std::vector<Config>& configs,
               const std::vector<MeasureResult>& results) override {}
};

TEST(TunerRegistry, RegistersNewStrategiesAndRefusesDuplicates) {
  RegisterTuner("fixed-test", "proposes nothing",
                [](const Json&) { return std::make_unique<FixedTuner>(); });
  EXPECT_EQ(MakeTuner("fixed-test")->Name(), "fixed-test");
  EXPECT_EQ(TunerDescription("fixed-test"), "proposes nothing");
  std::string message = ErrorOf([] {
    RegisterTuner("fixed-test", "again",
                  [](const Json&) { return std::make_unique<FixedTuner>(); });
  });
  EXPECT_NE(message.find("'fixed-test' is already registered"), std::string::npos) << message;
  EXPECT_NE(ErrorOf([] {
              RegisterTuner("random", "x",
                            [](const Json&) { return std::make_unique<FixedTuner>(); });
            }),
            "");
}

TEST(TunerOptions, UnknownKeysNameTheAcceptedOnes) {
  std::string message = ErrorOf([] { MakeTuner("ga", {{"popsize", 10}}); });
  EXPECT_NE(message.find("unknown option 'popsize'"), std::string::npos) << message;
  EXPECT_NE(message.find("elite, mutation_probability, population"), std::string::npos) << message;
  message = ErrorOf([] { MakeTuner("random", {{"seed", 1}}); });
  EXPECT_NE(message.find("unknown option 'seed'; accepted: none"), std::string::npos) << message;
  message = ErrorOf([] { MakeTuner("sa", {{"T", 1}}); });
  EXPECT_NE(message.find("cooling, final_temperature, initial_temperature"), std::string::npos)
      << message;
  EXPECT_NE(ErrorOf([] {
              MakeTuner("grid", Json::array({1, 2}));
            }).find("JSON object"),
            std::string::npos);
}

TEST(TunerOptions, WrongTypesAndRangesAreErrors) {
  EXPECT_NE(ErrorOf([] {
              GeneticOptions::FromJson({{"population", "many"}});
            }).find("option 'population' must be an integer"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { GeneticOptions::FromJson({{"population", 1.5}}); }), "");
  EXPECT_NE(ErrorOf([] { GeneticOptions::FromJson({{"population", true}}); }), "");
  EXPECT_NE(ErrorOf([] { GeneticOptions::FromJson({{"population", 1}}); }), "");
  EXPECT_NE(ErrorOf([] { GeneticOptions::FromJson({{"population", 10}, {"elite", 11}}); }), "");
  EXPECT_NE(ErrorOf([] {
              GeneticOptions::FromJson({{"mutation_probability", 1.5}});
            }).find("'mutation_probability' must be a number in [0, 1]"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] {
              AnnealingOptions::FromJson({{"cooling", 1.0}});
            }).find("'cooling'"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { AnnealingOptions::FromJson({{"initial_temperature", "hot"}}); }), "");
  EXPECT_NE(ErrorOf([] { AnnealingOptions::FromJson({{"final_temperature", 2.0}}); }), "");
}

TEST(TunerOptions, ParsesValuesIncludingCommandLineText) {
  GeneticOptions defaults = GeneticOptions::FromJson(Json::object());
  EXPECT_EQ(defaults.population, 100);
  EXPECT_EQ(defaults.elite, 3);
  EXPECT_DOUBLE_EQ(defaults.mutation_probability, 0.1);
  GeneticOptions ga = GeneticOptions::FromJson(
      {{"population", "50"}, {"elite", 5}, {"mutation_probability", "0.25"}});
  EXPECT_EQ(ga.population, 50);
  EXPECT_EQ(ga.elite, 5);
  EXPECT_DOUBLE_EQ(ga.mutation_probability, 0.25);
  AnnealingOptions sa = AnnealingOptions::FromJson({{"cooling", 0.9}, {"initial_temperature", 2}});
  EXPECT_DOUBLE_EQ(sa.cooling, 0.9);
  EXPECT_DOUBLE_EQ(sa.initial_temperature, 2.0);
  EXPECT_DOUBLE_EQ(sa.final_temperature, 0.001);
}

}  // namespace
}  // namespace glimpse
