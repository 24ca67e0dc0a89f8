// Model files: the learned performance model (GraphSAGE, LSTM, XGBoost on loop features) and the
// corpus records its training reads.
#include "fuzz_input.h"
#include "glimpse/perf_corpus.h"
#include "glimpse/perf_model.h"
#include "glimpse/xgb_perf_model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace glimpse;
  const std::string path = fuzz::AsFile(data, size, "model.json");
  fuzz::Expect([&] { PerfModel::Load(path); });
  fuzz::Expect([&] { LoadProgramTimeModel(path); });
  if (auto json = fuzz::AsJson(data, size)) {
    fuzz::Expect([&] { PerfCorpusRecordFromJson(*json); });
  }
  return 0;
}
