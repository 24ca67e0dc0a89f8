#include "cuda/driver/gpu_artifact.h"

#include <filesystem>
#include <fstream>

#include "glimpse/error.h"
#include "glimpse/json_fields.h"

namespace glimpse::cuda {

namespace {

// [x, y, z], each ≥ 1 (launch dimensions).
std::array<int64_t, 3> Dims(const Json& json, const char* name, const std::string& where) {
  const Json& value = RequireField(json, name, where);
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
  artifact.cubin = RequireString(json, "cubin", where);
  artifact.symbol = RequireString(json, "symbol", where);
  artifact.grid = Dims(json, "grid", where);
  artifact.block = Dims(json, "block", where);
  artifact.num_inputs = static_cast<int>(RequireInteger(json, "num_inputs", where, 1));
  if (json.contains("has_prepare")) artifact.has_prepare = RequireBool(json, "has_prepare", where);
  if (artifact.has_prepare) {
    artifact.prepare_grid = Dims(json, "prepare_grid", where);
    artifact.prepare_block = Dims(json, "prepare_block", where);
    artifact.prepared_floats = RequireInteger(json, "prepared_floats", where, 1);
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

}  // namespace glimpse::cuda
