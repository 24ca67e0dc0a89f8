// Study configurations and results files of `glimpse bench` (the results compressed or not).
#include "fuzz_input.h"
#include "glimpse/evaluation.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace glimpse;
  if (auto json = fuzz::AsJson(data, size)) {
    fuzz::Expect([&] { ParseStudyConfig(*json, "/nonexistent/study.json", "/nonexistent"); });
    fuzz::Expect([&] { ResultsFromJson(*json, "results.json"); });
  }
  const std::string path = fuzz::AsFile(data, size, "results.json.gz");
  fuzz::Expect([&] { LoadResults(path); });
  return 0;
}
