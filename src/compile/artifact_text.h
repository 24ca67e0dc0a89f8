// The fixed texts of a compiled model's artifact (src/compile): the untuned ops' header, the
// harness, the C header and the CMake project. Private to src/compile.
#pragma once

#include <string>
#include <vector>

namespace glimpse::compile {

const char* RuntimeOpsHeader();

struct TensorSignature {
  std::string name;
  std::vector<int64_t> shape;
};

// <name>.h: the C API, with the model's inputs and outputs described in its comment.
std::string CHeaderText(const std::string& name, const std::string& source,
                        const std::vector<TensorSignature>& inputs,
                        const std::vector<TensorSignature>& outputs);
// The harnesses' helpers (Die, ReadFloats, WriteFloats, Median, JsonNumber, JsonString) in an
// anonymous namespace; "@NAME@" for the library's identifier.
std::string HarnessHelpersText();
// harness.cc: the <name>_run program.
std::string HarnessText(const std::string& name);
// CMakeLists.txt; `kernel_flags`: the tuner's compiler flags for the kernels.
std::string CMakeListsText(const std::string& name, const std::vector<std::string>& kernel_flags);
// weights.cc: the embedding of weights.bin.
std::string WeightsSourceText(const std::string& name);

// ---- The CUDA target (cuda_artifact_text.cc, cuda_runtime_ops.cc)

// glimpse_model_ops.cuh: the untuned ops as CUDA kernels, with the CPU target's functions.
const char* CudaRuntimeOpsHeader();
// <name>.h: the C API over device pointers and a stream (`arch`: what the kernels were made for).
std::string CudaCHeaderText(const std::string& name, const std::string& source,
                            const std::string& arch, const std::vector<TensorSignature>& inputs,
                            const std::vector<TensorSignature>& outputs);
// harness.cc: the <name>_run program (CUDA runtime API, CUDA events).
std::string CudaHarnessText(const std::string& name);
// CMakeLists.txt: CUDA and C++, CMAKE_CUDA_ARCHITECTURES defaulting to `arch` ("sm_90" → 90),
// the model's sources model.cu, weights.cc and `kernel_files`.
std::string CudaCMakeListsText(const std::string& name, const std::string& arch,
                               const std::vector<std::string>& kernel_files);

// ---- Helpers of both targets' texts

// `text` with every `token` replaced by `value`.
std::string Substitute(std::string text, const std::string& token, const std::string& value);
std::string Upper(std::string text);
// The header comment's lines " *   input 0: "name" [1, 3, 224, 224]", then the outputs'.
std::string TensorLines(const std::vector<TensorSignature>& inputs,
                        const std::vector<TensorSignature>& outputs);

// `text` as a C string literal, quotes included (quotes, backslashes and control characters
// escaped; other bytes, UTF-8 included, as they are).
std::string CStringLiteral(const std::string& text);

}  // namespace glimpse::compile
