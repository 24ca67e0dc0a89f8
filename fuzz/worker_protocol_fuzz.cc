// The measurement workers' protocol (glimpse/worker_protocol.h): the worker answers every line it
// is sent with one answer line the runner can read, whatever the bytes; the runner reads any
// line as a hello or an answer with an Error at worst.
#include <sstream>

#include "fuzz_input.h"
#include "glimpse/worker_protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace glimpse;
  using namespace glimpse::process;
  const std::string text = fuzz::Text(data, size);

  // The worker's side: the request's own strings travel back in the answer, as a compiler's
  // message naming the artifact would.
  std::istringstream requests(text);
  std::ostringstream answers;
  ServeRequests(requests, answers, [](const MeasureRequest& request) {
    MeasureAnswer answer;
    answer.status = MeasureStatus::kCompileDevice;
    answer.error = request.artifact + " " + OperatorToJson(request.op).dump();
    return answer;
  });
  std::istringstream written(answers.str());
  for (std::string line; std::getline(written, line);) {
    MeasureAnswerFromJson(Json::parse(line));  // must not throw: the runner reads these
  }

  // The runner's side, and a request that parses must survive its own round trip.
  if (const std::optional<Json> json = fuzz::AsJson(data, size)) {
    fuzz::Expect([&] { WorkerHelloFromJson(*json); });
    fuzz::Expect([&] { MeasureAnswerFromJson(*json); });
    fuzz::Expect([&] {
      const MeasureRequest request = MeasureRequestFromJson(*json);
      MeasureRequestFromJson(Json::parse(ProtocolLine(MeasureRequestToJson(request))));
    });
  }
  return 0;
}
