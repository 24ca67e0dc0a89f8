// What the compiler's tests (tests/compile) share: the ONNX test models (tests/data/onnx) with
// their recorded ONNX Runtime inputs and outputs, and raw float32 and text files.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "glimpse/json.h"
#include "glimpse/model_graph.h"
#include "glimpse/onnx_import.h"
#include "test_paths.h"

namespace glimpse::testing {

// tests/data/onnx/<name>.expected.json: ONNX Runtime's inputs and outputs of the test model.
inline Json Expected(const std::string& name) {
  std::ifstream in(TestDataPath("onnx/" + name + ".expected.json"));
  return Json::parse(in);
}

// The test model, imported with the input shapes its recorded inputs have.
inline ModelGraph Import(const std::string& name) {
  OnnxImportOptions options;
  const Json expected = Expected(name);  // alive through the loop
  for (const auto& [input, value] : expected["inputs"].items()) {
    options.input_shapes[input] = value["shape"].get<std::vector<int64_t>>();
  }
  return ImportOnnx(TestDataPath("onnx/" + name + ".onnx"), options);
}

inline std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void WriteFloats(const std::filesystem::path& path, const std::vector<float>& data) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(data.data()),
            static_cast<std::streamsize>(data.size() * sizeof(float)));
}

inline std::vector<float> ReadFloats(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<float> data;
  float v;
  while (in.read(reinterpret_cast<char*>(&v), sizeof v)) data.push_back(v);
  return data;
}

}  // namespace glimpse::testing
