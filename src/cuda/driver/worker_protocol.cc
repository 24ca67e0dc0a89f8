#include "cuda/driver/worker_protocol.h"

#include <filesystem>
#include <fstream>

#include "glimpse/error.h"

namespace glimpse::cuda {

namespace {

const Json& Field(const Json& json, const char* name, const std::string& where) {
  if (!json.is_object() || !json.contains(name)) {
    throw Error(where + ": missing field '" + name + "'");
  }
  return json[name];
}

int64_t Integer(const Json& json, const char* name, const std::string& where, int64_t low) {
  const Json& value = Field(json, name, where);
  if (!value.is_number_integer() || value.get<int64_t>() < low) {
    throw Error(where + ": field '" + name + "' must be an integer ≥ " + std::to_string(low) +
                ", not " + value.dump());
  }
  return value.get<int64_t>();
}

double Number(const Json& json, const char* name, const std::string& where) {
  const Json& value = Field(json, name, where);
  if (!value.is_number()) {
    throw Error(where + ": field '" + name + "' must be a number, not " + value.dump());
  }
  return value.get<double>();
}

std::string String(const Json& json, const char* name, const std::string& where) {
  const Json& value = Field(json, name, where);
  if (!value.is_string() || value.get<std::string>().empty()) {
    throw Error(where + ": field '" + name + "' must be a non-empty string, not " + value.dump());
  }
  return value.get<std::string>();
}

// [x, y, z], each ≥ 1 (launch dimensions).
std::array<int64_t, 3> Dims(const Json& json, const char* name, const std::string& where) {
  const Json& value = Field(json, name, where);
  std::array<int64_t, 3> dims{};
  bool good = value.is_array() && value.size() == 3;
  for (size_t i = 0; good && i < 3; ++i) {
    good = value[i].is_number_integer() && value[i].get<int64_t>() >= 1;
    if (good) dims[i] = value[i].get<int64_t>();
  }
  if (!good) {
    throw Error(where + ": field '" + name + "' must be [x, y, z] with integers ≥ 1, not " +
                value.dump());
  }
  return dims;
}

}  // namespace

GpuArtifact GpuArtifactFromJson(const Json& json, const std::string& where) {
  if (!json.is_object()) throw Error(where + ": the artifact must be a JSON object");
  GpuArtifact artifact;
  artifact.cubin = String(json, "cubin", where);
  artifact.symbol = String(json, "symbol", where);
  artifact.grid = Dims(json, "grid", where);
  artifact.block = Dims(json, "block", where);
  artifact.num_inputs = static_cast<int>(Integer(json, "num_inputs", where, 1));
  if (json.contains("has_prepare")) {
    if (!json["has_prepare"].is_boolean()) {
      throw Error(where + ": field 'has_prepare' must be true or false");
    }
    artifact.has_prepare = json["has_prepare"].get<bool>();
  }
  if (artifact.has_prepare) {
    artifact.prepare_grid = Dims(json, "prepare_grid", where);
    artifact.prepare_block = Dims(json, "prepare_block", where);
    artifact.prepared_floats = Integer(json, "prepared_floats", where, 1);
  }
  return artifact;
}

GpuArtifact ReadGpuArtifact(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read the kernel artifact " + path);
  Json json = Json::parse(in, nullptr, false);
  if (json.is_discarded()) throw Error(path + ": not valid JSON");
  GpuArtifact artifact = GpuArtifactFromJson(json, path);
  std::filesystem::path cubin(artifact.cubin);
  if (cubin.is_relative()) {
    artifact.cubin = (std::filesystem::path(path).parent_path() / cubin).string();
  }
  return artifact;
}

Json GpuMeasureRequestToJson(const GpuMeasureRequest& request) {
  return {{"artifact", request.artifact},
          {"op", OperatorToJson(request.op)},
          {"warmup", request.warmup},
          {"min_repeats", request.min_repeats},
          {"min_time_s", request.min_time_s},
          {"max_repeats", request.max_repeats},
          {"flush_bytes", request.flush_bytes},
          {"rtol", request.rtol},
          {"seed", request.seed}};
}

GpuMeasureRequest GpuMeasureRequestFromJson(const Json& json) {
  const std::string where = "gpu worker request";
  if (!json.is_object()) throw Error(where + " must be a JSON object");
  GpuMeasureRequest request;
  request.artifact = String(json, "artifact", where);
  request.op = OperatorFromJson(Field(json, "op", where));
  request.warmup = static_cast<int>(Integer(json, "warmup", where, 0));
  request.min_repeats = static_cast<int>(Integer(json, "min_repeats", where, 1));
  request.min_time_s = Number(json, "min_time_s", where);
  request.max_repeats = static_cast<int>(Integer(json, "max_repeats", where, 1));
  const Json& flush = Field(json, "flush_bytes", where);
  if (!flush.is_number_integer()) {
    throw Error(where + ": field 'flush_bytes' must be an integer, not " + flush.dump());
  }
  request.flush_bytes = flush.get<int64_t>();
  request.rtol = Number(json, "rtol", where);
  if (!(request.rtol > 0)) throw Error(where + ": field 'rtol' must be > 0");
  const Json& seed = Field(json, "seed", where);
  if (!seed.is_number_unsigned() && !(seed.is_number_integer() && seed.get<int64_t>() >= 0)) {
    throw Error(where + ": field 'seed' must be an integer ≥ 0, not " + seed.dump());
  }
  request.seed = seed.get<uint64_t>();
  return request;
}

}  // namespace glimpse::cuda
