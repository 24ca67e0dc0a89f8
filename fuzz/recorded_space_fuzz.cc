// Recorded spaces: Kernel Tuner cache files and T4 result files, plain or gzip (cut short too).
#include "fuzz_input.h"
#include "glimpse/replay.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace glimpse;
  const std::string path = fuzz::AsFile(data, size, "space.json");
  fuzz::Expect([&] { LoadRecordedSpace(path); });
  return 0;
}
