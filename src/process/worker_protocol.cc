#include "glimpse/worker_protocol.h"

#include <istream>
#include <ostream>

#include "glimpse/error.h"
#include "glimpse/json_fields.h"

namespace glimpse::process {

Json WorkerHelloToJson(const WorkerHello& hello) {
  if (!hello.ready) {
    return {{"ready", false}, {"error", hello.error}, {"no_device", hello.no_device}};
  }
  Json json = {{"ready", true}};
  if (!hello.device.empty()) json["device"] = hello.device;
  if (hello.l2_bytes > 0) json["l2_bytes"] = hello.l2_bytes;
  return json;
}

WorkerHello WorkerHelloFromJson(const Json& json) {
  const std::string where = "worker hello";
  WorkerHello hello;
  hello.ready = RequireBool(json, "ready", where);
  if (json.contains("device")) hello.device = RequireString(json, "device", where);
  if (json.contains("l2_bytes")) hello.l2_bytes = RequireInteger(json, "l2_bytes", where, 0);
  if (!hello.ready) {
    hello.error = json.contains("error") && json["error"].is_string()
                      ? json["error"].get<std::string>()
                      : "the worker gave no reason";
    if (json.contains("no_device")) hello.no_device = RequireBool(json, "no_device", where);
  }
  return hello;
}

Json MeasureRequestToJson(const MeasureRequest& request) {
  return {{"artifact", request.artifact},
          {"op", OperatorToJson(request.op)},
          {"warmup", request.warmup},
          {"min_repeats", request.min_repeats},
          {"min_time_s", request.min_time_s},
          {"max_repeats", request.max_repeats},
          {"flush_bytes", request.flush_bytes},
          {"rtol", request.rtol},
          {"seed", request.seed},
          {"warm_activations", request.warm_activations}};
}

MeasureRequest MeasureRequestFromJson(const Json& json) {
  const std::string where = "worker request";
  if (!json.is_object()) throw Error(where + " must be a JSON object");
  MeasureRequest request;
  request.artifact = RequireString(json, "artifact", where);
  request.op = OperatorFromJson(RequireField(json, "op", where));
  request.warmup = static_cast<int>(RequireInteger(json, "warmup", where, 0));
  request.min_repeats = static_cast<int>(RequireInteger(json, "min_repeats", where, 1));
  request.min_time_s = RequireNumber(json, "min_time_s", where);
  request.max_repeats = static_cast<int>(RequireInteger(json, "max_repeats", where, 1));
  request.flush_bytes = RequireInteger(json, "flush_bytes", where, INT64_MIN);
  request.rtol = RequireNumber(json, "rtol", where);
  if (!(request.rtol > 0)) throw Error(where + ": field 'rtol' must be > 0");
  const Json& seed = RequireField(json, "seed", where);
  if (!seed.is_number_unsigned() && !(seed.is_number_integer() && seed.get<int64_t>() >= 0)) {
    throw Error(where + ": field 'seed' must be an integer ≥ 0, not " + seed.dump());
  }
  request.seed = seed.get<uint64_t>();
  if (json.contains("warm_activations")) {
    request.warm_activations = RequireBool(json, "warm_activations", where);
  }
  return request;
}

Json MeasureAnswerToJson(const MeasureAnswer& answer) {
  Json json = {{"status", StatusName(answer.status)}};
  if (!answer.samples.empty()) json["samples"] = answer.samples;
  if (!answer.error.empty()) json["error"] = answer.error;
  if (answer.fatal) json["fatal"] = true;
  return json;
}

MeasureAnswer MeasureAnswerFromJson(const Json& json) {
  const std::string where = "worker answer";
  MeasureAnswer answer;
  answer.status = StatusFromName(RequireString(json, "status", where));
  if (json.contains("samples")) {
    const Json& samples = json["samples"];
    if (!samples.is_array()) throw Error(where + ": field 'samples' must be an array of seconds");
    for (const Json& sample : samples) {
      if (!sample.is_number() || !(sample.get<double>() >= 0)) {
        throw Error(where + ": a sample must be a number of seconds ≥ 0, not " + sample.dump());
      }
      answer.samples.push_back(sample.get<double>());
    }
  }
  if (json.contains("error") && json["error"].is_string()) answer.error = json["error"];
  if (json.contains("fatal")) answer.fatal = RequireBool(json, "fatal", where);
  return answer;
}

std::string ProtocolLine(const Json& message) {
  return message.dump(-1, ' ', false, Json::error_handler_t::replace);
}

void ServeRequests(std::istream& in, std::ostream& out,
                   const std::function<MeasureAnswer(const MeasureRequest&)>& measure) {
  std::string line;
  while (std::getline(in, line)) {
    MeasureAnswer answer;
    try {
      answer = measure(MeasureRequestFromJson(Json::parse(line)));
    } catch (const std::exception& error) {
      answer.status = MeasureStatus::kUnknown;
      answer.error = std::string("worker: ") + error.what();
    }
    out << ProtocolLine(MeasureAnswerToJson(answer)) << std::endl;
    if (answer.fatal) return;
  }
}

}  // namespace glimpse::process
