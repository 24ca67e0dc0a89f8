// ONNX model files (glimpse tune --model FILE.onnx, glimpse compile).
#include "fuzz_input.h"
#include "glimpse/onnx_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace glimpse;
  const std::string path = fuzz::AsFile(data, size, "model.onnx");
  OnnxImportOptions options;
  options.input_shapes["input"] = {1, 3, 8, 8};
  fuzz::Expect([&] { ImportOnnx(path, options); });
  fuzz::Expect([&] { ImportOnnx(path); });
  return 0;
}
