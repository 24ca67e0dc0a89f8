// The worker protocol every runner and worker speak (glimpse/worker_protocol.h): requests, answers
// and hellos round-trip, malformed ones are errors naming the field, and the worker's request loop
// answers what it cannot read instead of stopping.
#include "glimpse/worker_protocol.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "cuda/runner_test_util.h"
#include "glimpse/error.h"
#include "glimpse/measure_worker.h"

namespace glimpse::process {
namespace {

using cuda_test::HasPart;

TEST(WorkerProtocolTest, RequestRoundTrips) {
  MeasureRequest request;
  request.artifact = "/tmp/k.json";
  request.op = ParseOperator("dense:M=4,N=8,K=16,bias=1");
  request.warmup = 2;
  request.min_repeats = 5;
  request.min_time_s = 0.25;
  request.max_repeats = 50;
  request.flush_bytes = -1;
  request.rtol = 2e-3;
  request.seed = 7;
  request.warm_activations = true;
  MeasureRequest back = MeasureRequestFromJson(Json::parse(MeasureRequestToJson(request).dump()));
  EXPECT_EQ(back.artifact, request.artifact);
  EXPECT_EQ(OperatorToString(back.op), OperatorToString(request.op));
  EXPECT_EQ(back.warmup, 2);
  EXPECT_EQ(back.min_repeats, 5);
  EXPECT_DOUBLE_EQ(back.min_time_s, 0.25);
  EXPECT_EQ(back.max_repeats, 50);
  EXPECT_EQ(back.flush_bytes, -1);
  EXPECT_DOUBLE_EQ(back.rtol, 2e-3);
  EXPECT_EQ(back.seed, 7u);
  EXPECT_TRUE(back.warm_activations);
  // A request from a runner that predates the field measures with everything flushed.
  Json old = MeasureRequestToJson(request);
  old.erase("warm_activations");
  EXPECT_FALSE(MeasureRequestFromJson(old).warm_activations);
}

TEST(WorkerProtocolTest, BadRequestsNameTheField) {
  MeasureRequest request;
  request.artifact = "/tmp/k.json";
  request.op = ParseOperator("dense:M=4,N=8,K=16");
  const Json good = MeasureRequestToJson(request);
  auto error_of = [](const Json& json) -> std::string {
    try {
      MeasureRequestFromJson(json);
    } catch (const Error& error) {
      return error.what();
    }
    return "";
  };
  Json missing = good;
  missing.erase("min_repeats");
  EXPECT_PRED_FORMAT2(HasPart, error_of(missing), "missing field 'min_repeats'");
  Json zero = good;
  zero["min_repeats"] = 0;
  EXPECT_PRED_FORMAT2(HasPart, error_of(zero), "'min_repeats' must be an integer ≥ 1");
  Json rtol = good;
  rtol["rtol"] = 0;
  EXPECT_PRED_FORMAT2(HasPart, error_of(rtol), "'rtol' must be > 0");
  Json op = good;
  op["op"] = {{"op", "matmul"}};
  EXPECT_PRED_FORMAT2(HasPart, error_of(op), "matmul");
  Json seed = good;
  seed["seed"] = -3;
  EXPECT_PRED_FORMAT2(HasPart, error_of(seed), "'seed'");
  Json warm = good;
  warm["warm_activations"] = "yes";
  EXPECT_PRED_FORMAT2(HasPart, error_of(warm), "'warm_activations' must be true or false");
  EXPECT_PRED_FORMAT2(HasPart, error_of(Json::array()), "must be a JSON object");
}

TEST(WorkerProtocolTest, AnswersRoundTripAndUnknownStatusesAreErrors) {
  MeasureAnswer answer;
  answer.status = MeasureStatus::kRuntimeDevice;
  answer.error = "CUDA_ERROR_ILLEGAL_ADDRESS";
  answer.fatal = true;
  MeasureAnswer back = MeasureAnswerFromJson(Json::parse(MeasureAnswerToJson(answer).dump()));
  EXPECT_EQ(back.status, MeasureStatus::kRuntimeDevice);
  EXPECT_EQ(back.error, answer.error);
  EXPECT_TRUE(back.fatal);
  MeasureAnswer ok;
  ok.status = MeasureStatus::kOk;
  ok.samples = {1e-3, 2e-3};
  back = MeasureAnswerFromJson(MeasureAnswerToJson(ok));
  EXPECT_EQ(back.samples, ok.samples);
  EXPECT_FALSE(back.fatal);

  auto error_of = [](const Json& json) -> std::string {
    try {
      MeasureAnswerFromJson(json);
    } catch (const Error& error) {
      return error.what();
    }
    return "";
  };
  EXPECT_PRED_FORMAT2(HasPart, error_of({{"status", "melted"}}), "melted");
  EXPECT_PRED_FORMAT2(HasPart, error_of({{"samples", {1.0}}}), "missing field 'status'");
  EXPECT_PRED_FORMAT2(HasPart, error_of({{"status", "ok"}, {"samples", {-1.0}}}), "sample");
  EXPECT_PRED_FORMAT2(HasPart, error_of({{"status", "ok"}, {"samples", 3}}), "'samples'");
  EXPECT_PRED_FORMAT2(HasPart, error_of({{"status", "ok"}, {"fatal", "yes"}}), "'fatal'");
}

TEST(WorkerProtocolTest, HellosRoundTrip) {
  WorkerHello hello;
  hello.device = "Fake GPU";
  hello.l2_bytes = 1 << 20;
  WorkerHello back = WorkerHelloFromJson(WorkerHelloToJson(hello));
  EXPECT_TRUE(back.ready);
  EXPECT_EQ(back.device, "Fake GPU");
  EXPECT_EQ(back.l2_bytes, 1 << 20);
  WorkerHello refused;
  refused.ready = false;
  refused.error = "no CUDA device: no driver";
  refused.no_device = true;
  back = WorkerHelloFromJson(WorkerHelloToJson(refused));
  EXPECT_FALSE(back.ready);
  EXPECT_EQ(back.error, refused.error);
  EXPECT_TRUE(back.no_device);
  EXPECT_TRUE(WorkerHelloFromJson({{"ready", true}}).ready);
  EXPECT_THROW(WorkerHelloFromJson(Json::parse("\"ready\"")), Error);
  EXPECT_THROW(WorkerHelloFromJson({{"ready", "yes"}}), Error);
}

TEST(WorkerProtocolTest, TheRequestLoopAnswersEveryLineAndStopsAfterAFatalAnswer) {
  MeasureRequest good;
  good.artifact = "/tmp/k.so:k";
  good.op = ParseOperator("dense:M=4,N=8,K=16");
  std::string lines = MeasureRequestToJson(good).dump() + "\n" + "not json\n" +
                      MeasureRequestToJson(good).dump() + "\n" + MeasureRequestToJson(good).dump() +
                      "\n" + MeasureRequestToJson(good).dump() + "\n";
  std::istringstream in(lines);
  std::ostringstream out;
  int calls = 0;
  ServeRequests(in, out, [&](const MeasureRequest& request) {
    ++calls;
    EXPECT_EQ(request.artifact, good.artifact);
    MeasureAnswer answer;
    if (calls == 1) {
      answer.status = MeasureStatus::kOk;
      answer.samples = {1e-6};
    } else if (calls == 2) {
      throw Error("the kernel library is gone");
    } else {
      answer.status = MeasureStatus::kRuntimeDevice;
      answer.fatal = true;
    }
    return answer;
  });
  // The fourth request is never read: the third answer was fatal.
  EXPECT_EQ(calls, 3);
  std::vector<MeasureAnswer> answers;
  std::istringstream written(out.str());
  for (std::string line; std::getline(written, line);) {
    answers.push_back(MeasureAnswerFromJson(Json::parse(line)));
  }
  ASSERT_EQ(answers.size(), 4u);
  EXPECT_EQ(answers[0].status, MeasureStatus::kOk);
  EXPECT_EQ(answers[1].status, MeasureStatus::kUnknown);
  EXPECT_PRED_FORMAT2(HasPart, answers[1].error, "worker: ");
  EXPECT_EQ(answers[2].status, MeasureStatus::kUnknown);
  EXPECT_PRED_FORMAT2(HasPart, answers[2].error, "the kernel library is gone");
  EXPECT_EQ(answers[3].status, MeasureStatus::kRuntimeDevice);
  EXPECT_TRUE(answers[3].fatal);
}

// A line that is not UTF-8, or an error message that is not (a compiler's output in another
// encoding), is still answered with one JSON line: invalid bytes become U+FFFD, nothing throws.
TEST(WorkerProtocolTest, BytesThatAreNotUtf8AreAnsweredNotThrown) {
  std::istringstream in("{\"artifact\": \"\xff\xfe\"}\n\xc3\x28 not json\n{}\n");
  std::ostringstream out;
  int calls = 0;
  ServeRequests(in, out, [&](const MeasureRequest&) {
    ++calls;
    return MeasureAnswer{};
  });
  EXPECT_EQ(calls, 0);
  std::istringstream written(out.str());
  int lines = 0;
  for (std::string line; std::getline(written, line); ++lines) {
    const MeasureAnswer answer = MeasureAnswerFromJson(Json::parse(line));
    EXPECT_EQ(answer.status, MeasureStatus::kUnknown);
    EXPECT_PRED_FORMAT2(HasPart, answer.error, "worker: ");
  }
  EXPECT_EQ(lines, 3);

  MeasureAnswer answer;
  answer.status = MeasureStatus::kCompileDevice;
  answer.error =
      "nvcc: \xe9"
      "chec \xff";
  const MeasureAnswer back =
      MeasureAnswerFromJson(Json::parse(ProtocolLine(MeasureAnswerToJson(answer))));
  EXPECT_EQ(back.error,
            "nvcc: \xef\xbf\xbd"
            "chec \xef\xbf\xbd");
}

TEST(WorkerProtocolTest, MedianSample) {
  EXPECT_EQ(MedianSample({}), 0);
  EXPECT_EQ(MedianSample({3, 1, 2}), 2);
  EXPECT_EQ(MedianSample({4, 1, 3, 2}), 2.5);
}

}  // namespace
}  // namespace glimpse::process
