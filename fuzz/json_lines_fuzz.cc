// `glimpse db import`: JSON-lines records and workloads into an in-memory database.
#include <sstream>

#include "fuzz_input.h"
#include "glimpse/database.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace glimpse;
  static Database* database = new Database(":memory:");  // kept: opening costs more than a run
  std::istringstream in(fuzz::Text(data, size));
  fuzz::Expect([&] { database->ImportJsonLines(in, "fuzz.jsonl"); });
  return 0;
}
