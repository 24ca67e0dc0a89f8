// The contract of glimpse/tuner.h (tests/tuner/tuner_contract.h) for every strategy the libraries
// register: the built-in ones, the model-based ones (xgb, xgb-reg, chameleon, dgp) and Glimpse. A
// strategy added to the registry is checked here without a line of test code.
#include <gtest/gtest.h>

#include "glimpse/glimpse_tuner.h"
#include "glimpse/model_tuner.h"
#include "glimpse/tuner.h"
#include "tuner/tuner_contract.h"

namespace glimpse {
namespace {

// Registered before the suite's parameters are read (when the tests are listed, after static
// initialisation).
[[maybe_unused]] const bool kRegistered = [] {
  RegisterModelTuners();
  RegisterGlimpseTuner();
  return true;
}();

using testing::TunerContract;

INSTANTIATE_TEST_SUITE_P(EveryRegistered, TunerContract, ::testing::ValuesIn(KnownTuners()),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace glimpse
