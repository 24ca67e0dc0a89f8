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
// harness.cc: the <name>_run program.
std::string HarnessText(const std::string& name);
// CMakeLists.txt; `kernel_flags`: the tuner's compiler flags for the kernels.
std::string CMakeListsText(const std::string& name, const std::vector<std::string>& kernel_flags);
// weights.cc: the embedding of weights.bin.
std::string WeightsSourceText(const std::string& name);

// `text` as a C string literal, quotes included (quotes, backslashes and control characters
// escaped; other bytes, UTF-8 included, as they are).
std::string CStringLiteral(const std::string& text);

}  // namespace glimpse::compile
