// Operator strings ("conv2d:N=1,C=64,...", glimpse tune --op) and their JSON form.
#include "fuzz_input.h"
#include "glimpse/ops.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace glimpse;
  fuzz::Expect([&] {
    const Operator op = ParseOperator(fuzz::Text(data, size));
    // What parsed must print and parse back to the same operator.
    if (OperatorToString(ParseOperator(OperatorToString(op))) != OperatorToString(op)) {
      __builtin_trap();
    }
  });
  if (auto json = fuzz::AsJson(data, size)) {
    fuzz::Expect([&] { OperatorFromJson(*json); });
  }
  return 0;
}
