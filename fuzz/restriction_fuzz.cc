// Restriction expressions (Kernel Tuner's restrictions, T1 files, --restrict): parse, bind every
// name it mentions, evaluate on a few values (division by zero, shifts, overflow included).
#include <vector>

#include "fuzz_input.h"
#include "glimpse/expression.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace glimpse;
  fuzz::Expect([&] {
    Expression expression = Expression::Parse(fuzz::Text(data, size));
    expression.Bind(expression.Variables());
    for (const Scalar value : {Scalar::Int(0), Scalar::Int(-1), Scalar::Int(INT64_MAX),
                               Scalar::Int(INT64_MIN), Scalar::Float(0.5)}) {
      std::vector<Scalar> values(expression.Variables().size(), value);
      expression.Evaluate(values.data());
    }
  });
  return 0;
}
