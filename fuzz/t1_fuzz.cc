// T1 input files (the tuning problem: parameters and restrictions).
#include "fuzz_input.h"
#include "glimpse/replay.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace glimpse;
  const std::string path = fuzz::AsFile(data, size, "t1.json");
  fuzz::Expect([&] { LoadT1File(path); });
  return 0;
}
