// The fixed texts of a model compiled for the CUDA target (src/compile/artifact_text.h): the C
// header, the harness and the CMake project. "@NAME@" stands for the library's identifier.
#include <fmt/format.h>

#include <cctype>

#include "compile/artifact_text.h"

namespace glimpse::compile {
namespace {

std::string Substitute(std::string text, const std::string& token, const std::string& value) {
  for (size_t at = text.find(token); at != std::string::npos; at = text.find(token, at)) {
    text.replace(at, token.size(), value);
    at += value.size();
  }
  return text;
}

std::string Upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

std::string TensorLines(const std::vector<TensorSignature>& inputs,
                        const std::vector<TensorSignature>& outputs) {
  std::string tensors;
  for (size_t i = 0; i < inputs.size(); ++i) {
    tensors += fmt::format(" *   input {}: \"{}\" [{}]\n", i, inputs[i].name,
                           fmt::join(inputs[i].shape, ", "));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    tensors += fmt::format(" *   output {}: \"{}\" [{}]\n", i, outputs[i].name,
                           fmt::join(outputs[i].shape, ", "));
  }
  return tensors;
}

}  // namespace

std::string CudaCHeaderText(const std::string& name, const std::string& source,
                            const std::string& arch, const std::vector<TensorSignature>& inputs,
                            const std::vector<TensorSignature>& outputs) {
  std::string text =
      R"HEADER(/* @NAME@.h — the model @NAME@, compiled by glimpse from @SOURCE@ for NVIDIA GPUs (@ARCH@).
 *
 * Tensors are float32, row-major (images NCHW), in device memory:
@TENSORS@ *
 * Usage (CUDA runtime API; error checks left out):
 *   void* workspace;  cudaMalloc(&workspace, @NAME@_workspace_size());
 *   @NAME@_init(workspace, stream);                   // once: the weights into the workspace
 *   const float* inputs[] = {d_image};                // device pointers
 *   float* outputs[] = {d_scores};
 *   int status = @NAME@_run(inputs, outputs, workspace, stream);  // 0: enqueued
 *   cudaStreamSynchronize(stream);
 *
 * `stream` is a cudaStream_t passed as void* (null: the default stream). The workspace holds the
 * weights, the weights the kernels prepare once (transformed or packed) and the intermediate
 * tensors: runs on one workspace must not overlap; give each concurrent run its own (and init it).
 */
#ifndef @UPPER@_H
#define @UPPER@_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of device memory one workspace needs: weights, prepared weights, intermediate tensors. */
size_t @NAME@_workspace_size(void);

/* Copies the weights into `workspace` (@NAME@_workspace_size() bytes of device memory, 64-byte
 * aligned, as cudaMalloc gives) and prepares them, on `stream`. Returns 0, or the cudaError_t of
 * what failed (cudaErrorInvalidValue, 1, for a null or misaligned workspace). */
int @NAME@_init(void* workspace, void* stream);

/* Enqueues the model on `stream`: inputs[i] holds @NAME@_input_size(i) floats, outputs[i]
 * receives @NAME@_output_size(i) floats (device pointers), `workspace` was given to
 * @NAME@_init. Returns 0, or the cudaError_t of a failed launch (1 for a null argument or a
 * misaligned workspace). */
int @NAME@_run(const float* const* inputs, float* const* outputs, void* workspace, void* stream);

int @NAME@_num_inputs(void);
int @NAME@_num_outputs(void);
size_t @NAME@_input_size(int index);  /* floats; 0 for an index out of range */
size_t @NAME@_output_size(int index); /* floats; 0 for an index out of range */

/* The steps a run launches, in order: its tuned kernels ("kernel") and the other operators
 * ("op"). */
int @NAME@_num_steps(void);
const char* @NAME@_step_name(int index); /* "conv1: conv2d:N=1,... (tuned)"; "" out of range */
const char* @NAME@_step_kind(int index); /* "kernel" or "op"; "" out of range */

#ifdef __cplusplus
}
#endif

#endif
)HEADER";
  text = Substitute(text, "@SOURCE@", source);
  text = Substitute(text, "@ARCH@", arch);
  text = Substitute(text, "@TENSORS@", TensorLines(inputs, outputs));
  text = Substitute(text, "@UPPER@", Upper(name));
  return Substitute(text, "@NAME@", name);
}

std::string CudaHarnessText(const std::string& name) {
  return Substitute(
      R"HARNESS(// @NAME@_run — runs the compiled model @NAME@ on the first CUDA device: reads its inputs (raw
// float32 files) or makes them (uniform in [-1, 1] from --seed), writes its outputs, and times the
// whole model with the operators' protocol: warm-up runs, then timed runs until --min-repeats and
// --min-time (at most --max-repeats), each after writing --flush-bytes of device memory (default:
// twice the L2 cache) to evict the L2, each timed with CUDA events around the run alone; the
// median and every sample are printed as JSON (or written to --json). --threads is accepted and
// ignored (the CPU target's harness takes it). Exit status 3: no CUDA device.
// Generated by glimpse compile.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "@NAME@.h"

namespace {

[[noreturn]] void Die(const std::string& what, int status = 2) {
  std::fprintf(stderr, "@NAME@_run: %s\n", what.c_str());
  std::exit(status);
}

void Check(cudaError_t error, const char* what) {
  if (error != cudaSuccess) Die(std::string(what) + ": " + cudaGetErrorString(error));
}

std::vector<float> ReadFloats(const std::string& path, size_t count) {
  FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) Die("cannot open " + path);
  std::vector<float> data(count);
  const size_t got = std::fread(data.data(), sizeof(float), count, file);
  const bool extra = std::fgetc(file) != EOF;
  std::fclose(file);
  if (got != count || extra) {
    Die(path + ": expected exactly " + std::to_string(count) + " float32 values");
  }
  return data;
}

void WriteFloats(const std::string& path, const std::vector<float>& data) {
  FILE* file = std::fopen(path.c_str(), "wb");
  if (!file || std::fwrite(data.data(), sizeof(float), data.size(), file) != data.size()) {
    Die("cannot write " + path);
  }
  std::fclose(file);
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

std::string JsonNumber(double value) {
  char number[32];
  std::snprintf(number, sizeof number, "%.9g", value);
  return number;
}

std::string JsonString(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> input_paths, output_paths;
  std::string json_path;
  int warmup = 1, min_repeats = 3, max_repeats = 200;
  double min_time = 0.05;
  long long flush_bytes = -1;  // -1: twice the device's L2
  unsigned seed = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Die(arg + " needs a value");
      return argv[++i];
    };
    try {
      if (arg == "--input") input_paths.push_back(value());
      else if (arg == "--output") output_paths.push_back(value());
      else if (arg == "--threads") (void)std::stoi(value());
      else if (arg == "--warmup") warmup = std::stoi(value());
      else if (arg == "--min-repeats") min_repeats = std::stoi(value());
      else if (arg == "--max-repeats") max_repeats = std::stoi(value());
      else if (arg == "--min-time") min_time = std::stod(value());
      else if (arg == "--flush-bytes") flush_bytes = std::stoll(value());
      else if (arg == "--seed") seed = static_cast<unsigned>(std::stoul(value()));
      else if (arg == "--json") json_path = value();
      else Die("unknown argument " + arg + " (--input F --output F --warmup N --min-repeats N "
               "--max-repeats N --min-time S --flush-bytes B --seed S --json F --threads N)");
    } catch (const std::logic_error&) {  // std::stoi's invalid_argument and out_of_range
      Die(arg + " takes a number, not '" + std::string(argv[i]) + "'");
    }
  }
  const int n_in = @NAME@_num_inputs(), n_out = @NAME@_num_outputs();
  if (!input_paths.empty() && static_cast<int>(input_paths.size()) != n_in) {
    Die("the model takes " + std::to_string(n_in) + " inputs; give --input for each or none");
  }
  if (!output_paths.empty() && static_cast<int>(output_paths.size()) != n_out) {
    Die("the model has " + std::to_string(n_out) + " outputs; give --output for each or none");
  }
  int devices = 0;
  const cudaError_t found = cudaGetDeviceCount(&devices);
  if (found != cudaSuccess || devices == 0) {
    Die(std::string("no CUDA device (") +
            (found != cudaSuccess ? cudaGetErrorString(found) : "none found") + ")",
        3);
  }
  cudaDeviceProp props{};
  Check(cudaGetDeviceProperties(&props, 0), "cudaGetDeviceProperties");
  if (flush_bytes < 0) flush_bytes = 2ll * props.l2CacheSize;

  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<const float*> in(n_in);
  std::vector<float*> out(n_out);
  for (int i = 0; i < n_in; ++i) {
    std::vector<float> data;
    if (!input_paths.empty()) {
      data = ReadFloats(input_paths[i], @NAME@_input_size(i));
    } else {
      data.resize(@NAME@_input_size(i));
      for (float& v : data) v = uniform(rng);
    }
    float* device = nullptr;
    Check(cudaMalloc(&device, data.size() * sizeof(float) + 1), "cudaMalloc (input)");
    Check(cudaMemcpy(device, data.data(), data.size() * sizeof(float), cudaMemcpyHostToDevice),
          "cudaMemcpy (input)");
    in[i] = device;
  }
  for (int i = 0; i < n_out; ++i) {
    Check(cudaMalloc(&out[i], @NAME@_output_size(i) * sizeof(float) + 1), "cudaMalloc (output)");
  }
  void* workspace = nullptr;
  Check(cudaMalloc(&workspace, @NAME@_workspace_size() + 64), "cudaMalloc (workspace)");
  char* flush = nullptr;
  if (flush_bytes > 0) Check(cudaMalloc(&flush, static_cast<size_t>(flush_bytes)), "cudaMalloc (flush)");
  cudaStream_t stream;
  Check(cudaStreamCreate(&stream), "cudaStreamCreate");
  cudaEvent_t start, stop;
  Check(cudaEventCreate(&start), "cudaEventCreate");
  Check(cudaEventCreate(&stop), "cudaEventCreate");
  auto run = [&](const char* what) {
    const int status = @NAME@_run(in.data(), out.data(), workspace, stream);
    if (status != 0) Check(static_cast<cudaError_t>(status), what);
  };

  Check(static_cast<cudaError_t>(@NAME@_init(workspace, stream)), "@NAME@_init");
  Check(cudaEventRecord(start, stream), "cudaEventRecord");
  run("the first run");
  Check(cudaEventRecord(stop, stream), "cudaEventRecord");
  Check(cudaStreamSynchronize(stream), "the first run");
  float first_ms = 0.0f;
  Check(cudaEventElapsedTime(&first_ms, start, stop), "cudaEventElapsedTime");
  for (int i = 0; i < n_out && !output_paths.empty(); ++i) {
    std::vector<float> data(@NAME@_output_size(i));
    Check(cudaMemcpy(data.data(), out[i], data.size() * sizeof(float), cudaMemcpyDeviceToHost),
          "cudaMemcpy (output)");
    WriteFloats(output_paths[i], data);
  }

  for (int i = 0; i < warmup; ++i) run("a warm-up run");
  int flushes = 0;
  std::vector<double> samples;
  double total = 0.0;
  while (static_cast<int>(samples.size()) < std::max(min_repeats, max_repeats) &&
         (static_cast<int>(samples.size()) < min_repeats || total < min_time)) {
    if (flush) {
      Check(cudaMemsetAsync(flush, flushes++ & 0xff, static_cast<size_t>(flush_bytes), stream),
            "the L2 flush");
    }
    Check(cudaEventRecord(start, stream), "cudaEventRecord");
    run("a timed run");
    Check(cudaEventRecord(stop, stream), "cudaEventRecord");
    Check(cudaEventSynchronize(stop), "a timed run");
    float ms = 0.0f;
    Check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    samples.push_back(ms * 1e-3);
    total += samples.back();
  }
  std::string json = "{\"model\": \"@NAME@\", \"device\": " + JsonString(props.name) +
                     ", \"compute_capability\": \"" + std::to_string(props.major) + "." +
                     std::to_string(props.minor) + "\", \"threads\": 0" +
                     ", \"first_run_s\": " + JsonNumber(first_ms * 1e-3) +
                     ", \"flush_bytes\": " + std::to_string(flush_bytes) +
                     ", \"median_s\": " + JsonNumber(Median(samples)) + ", \"samples_s\": [";
  for (size_t i = 0; i < samples.size(); ++i) json += (i ? ", " : "") + JsonNumber(samples[i]);
  json += "]}\n";
  if (json_path.empty()) {
    std::fputs(json.c_str(), stdout);
  } else {
    FILE* file = std::fopen(json_path.c_str(), "w");
    if (!file) Die("cannot write " + json_path);
    std::fputs(json.c_str(), file);
    std::fclose(file);
  }
  return 0;
}
)HARNESS",
      "@NAME@", name);
}

std::string CudaCMakeListsText(const std::string& name, const std::string& arch,
                               const std::vector<std::string>& kernel_files) {
  std::string sources;
  for (const std::string& file : kernel_files) sources += "\n    " + file;
  std::string text =
      R"CMAKE(# The model @NAME@, compiled by glimpse for NVIDIA GPUs: lib@NAME@.a, lib@NAME@.so and
# @NAME@_run.
#   cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build
# The kernels were chosen for @ARCH@: CMAKE_CUDA_ARCHITECTURES defaults to it (SASS for it and
# PTX, which newer GPUs compile when they load it). Builds without a GPU; runs on one.
cmake_minimum_required(VERSION 3.18)
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES @ARCH_NUMBER@)
endif()
project(@NAME@ LANGUAGES CXX CUDA)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Release)
endif()
find_package(CUDAToolkit REQUIRED)

add_library(@NAME@_objects OBJECT model.cu weights.cc@SOURCES@)
set_target_properties(@NAME@_objects PROPERTIES POSITION_INDEPENDENT_CODE ON CXX_STANDARD 17
                      CXX_STANDARD_REQUIRED ON CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
target_include_directories(@NAME@_objects PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(@NAME@_objects PUBLIC CUDA::cudart)
# The weights are embedded from weights.bin: a change to it rebuilds weights.cc.
target_compile_definitions(@NAME@_objects PRIVATE
  @UPPER@_WEIGHTS_FILE="${CMAKE_CURRENT_SOURCE_DIR}/weights.bin")
set_source_files_properties(weights.cc PROPERTIES
  OBJECT_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/weights.bin)

add_library(@NAME@_static STATIC $<TARGET_OBJECTS:@NAME@_objects>)
add_library(@NAME@ SHARED $<TARGET_OBJECTS:@NAME@_objects>)
set_target_properties(@NAME@_static PROPERTIES OUTPUT_NAME @NAME@)
foreach(library @NAME@_static @NAME@)
  target_include_directories(${library} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${library} PUBLIC CUDA::cudart)
endforeach()

add_executable(@NAME@_run harness.cc)
target_link_libraries(@NAME@_run PRIVATE @NAME@_static)
set_target_properties(@NAME@_run PROPERTIES CXX_STANDARD 17)
)CMAKE";
  std::string number = arch.rfind("sm_", 0) == 0 ? arch.substr(3) : arch;
  text = Substitute(text, "@SOURCES@", sources);
  text = Substitute(text, "@ARCH_NUMBER@", number);
  text = Substitute(text, "@ARCH@", arch);
  text = Substitute(text, "@UPPER@", Upper(name));
  return Substitute(text, "@NAME@", name);
}

}  // namespace glimpse::compile
