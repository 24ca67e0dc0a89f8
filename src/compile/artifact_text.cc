// The fixed texts of a compiled model's artifact (src/compile/artifact_text.h). "@NAME@" stands
// for the library's identifier.
#include "compile/artifact_text.h"

#include <fmt/format.h>

#include <cctype>

namespace glimpse::compile {
namespace {

std::string Replace(const std::string& text, const std::string& name) {
  return Substitute(text, "@NAME@", name);
}

}  // namespace

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

std::string CHeaderText(const std::string& name, const std::string& source,
                        const std::vector<TensorSignature>& inputs,
                        const std::vector<TensorSignature>& outputs) {
  const std::string tensors = TensorLines(inputs, outputs);
  std::string text = R"HEADER(/* @NAME@.h — the model @NAME@, compiled by glimpse from @SOURCE@.
 *
 * Tensors are float32, row-major (images NCHW):
@TENSORS@ *
 * Usage:
 *   void* workspace = aligned_alloc(64, @NAME@_workspace_size());
 *   const float* inputs[] = {image};
 *   float* outputs[] = {scores};
 *   int status = @NAME@_run(inputs, outputs, workspace);   // 0: done
 *
 * The first run also prepares the weights (packs them for the kernels that want them), once per
 * process, thread-safely. Runs with separate workspaces may go on at once. The kernels use
 * OpenMP: OMP_NUM_THREADS (or omp_set_num_threads) chooses the threads.
 */
#ifndef @UPPER@_H
#define @UPPER@_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of scratch memory one run needs (intermediate tensors). */
size_t @NAME@_workspace_size(void);

/* Runs the model: inputs[i] holds @NAME@_input_size(i) floats, outputs[i] receives
 * @NAME@_output_size(i) floats, workspace is @NAME@_workspace_size() bytes, 64-byte aligned.
 * Returns 0, or 1 when an argument is null or the workspace is not 64-byte aligned. */
int @NAME@_run(const float* const* inputs, float* const* outputs, void* workspace);

int @NAME@_num_inputs(void);
int @NAME@_num_outputs(void);
size_t @NAME@_input_size(int index);  /* floats; 0 for an index out of range */
size_t @NAME@_output_size(int index); /* floats; 0 for an index out of range */

/* Profiling. The model runs as steps: its tuned kernels ("kernel"), the other operators ("op")
 * and copies between channel layouts ("reorder"), in this order. @NAME@_run_profiled runs it as
 * @NAME@_run does and adds each step's wall time, in seconds, to step_seconds[i], which holds
 * @NAME@_num_steps() doubles (a null step_seconds returns 1). */
int @NAME@_run_profiled(const float* const* inputs, float* const* outputs, void* workspace,
                        double* step_seconds);
int @NAME@_num_steps(void);
const char* @NAME@_step_name(int index); /* "conv1: conv2d:N=1,... (tuned)"; "" out of range */
const char* @NAME@_step_kind(int index); /* "kernel", "op" or "reorder"; "" out of range */

#ifdef __cplusplus
}
#endif

#endif
)HEADER";
  text = Replace(text, name);
  auto put = [&](const std::string& token, const std::string& value) {
    text.replace(text.find(token), token.size(), value);
  };
  put("@SOURCE@", source);
  put("@TENSORS@", tensors);
  for (size_t at = text.find("@UPPER@"); at != std::string::npos; at = text.find("@UPPER@")) {
    text.replace(at, 7, Upper(name));
  }
  return text;
}

std::string HarnessHelpersText() {
  return R"HELPERS(namespace {

[[noreturn]] void Die(const std::string& what, int status = 2) {
  std::fprintf(stderr, "@NAME@_run: %s\n", what.c_str());
  std::exit(status);
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

std::string JsonString(const char* text) {
  std::string out = "\"";
  for (const char* c = text; *c; ++c) {
    if (*c == '"' || *c == '\\') {
      out += '\\';
      out += *c;
    } else if (static_cast<unsigned char>(*c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned char>(*c));
      out += escaped;
    } else {
      out += *c;
    }
  }
  return out + "\"";
}

}  // namespace

)HELPERS";
}

std::string HarnessText(const std::string& name) {
  std::string text =
      R"HARNESS(// @NAME@_run — runs the compiled model @NAME@: reads its inputs (raw float32 files) or makes
// them (uniform in [-1, 1] from --seed), writes its outputs, and times the whole model with the
// operators' protocol: warm-up runs, then timed runs until --min-repeats and --min-time (at most
// --max-repeats), each after writing --flush-bytes of memory to evict the caches; the median and
// every sample are printed as JSON (or written to --json). --profile N then runs it N times more,
// each after the flush, timing every step, and adds each step's median to the JSON.
// Generated by glimpse compile.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "@NAME@.h"

@HELPERS@int main(int argc, char** argv) {
  std::vector<std::string> input_paths, output_paths;
  std::string json_path;
  int threads = 0, warmup = 1, min_repeats = 3, max_repeats = 200, profile_runs = 0;
  double min_time = 0.05;
  long long flush_bytes = 128ll << 20;
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
      else if (arg == "--threads") threads = std::stoi(value());
      else if (arg == "--warmup") warmup = std::stoi(value());
      else if (arg == "--min-repeats") min_repeats = std::stoi(value());
      else if (arg == "--max-repeats") max_repeats = std::stoi(value());
      else if (arg == "--min-time") min_time = std::stod(value());
      else if (arg == "--flush-bytes") flush_bytes = std::stoll(value());
      else if (arg == "--seed") seed = static_cast<unsigned>(std::stoul(value()));
      else if (arg == "--json") json_path = value();
      else if (arg == "--profile") profile_runs = std::stoi(value());
      else Die("unknown argument " + arg + " (--input F --output F --threads N --warmup N "
               "--min-repeats N --max-repeats N --min-time S --flush-bytes B --seed S --json F "
               "--profile N)");
    } catch (const std::logic_error&) {  // std::stoi's invalid_argument and out_of_range
      Die(arg + " takes a number, not '" + std::string(argv[i]) + "'");
    }
  }
  if (profile_runs < 0) Die("--profile takes a count of runs, 0 or more");
  const int n_in = @NAME@_num_inputs(), n_out = @NAME@_num_outputs();
  if (!input_paths.empty() && static_cast<int>(input_paths.size()) != n_in) {
    Die("the model takes " + std::to_string(n_in) + " inputs; give --input for each or none");
  }
  if (!output_paths.empty() && static_cast<int>(output_paths.size()) != n_out) {
    Die("the model has " + std::to_string(n_out) + " outputs; give --output for each or none");
  }
  if (threads > 0) omp_set_num_threads(threads);

  std::vector<std::vector<float>> inputs(n_in), outputs(n_out);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (int i = 0; i < n_in; ++i) {
    if (!input_paths.empty()) {
      inputs[i] = ReadFloats(input_paths[i], @NAME@_input_size(i));
    } else {
      inputs[i].resize(@NAME@_input_size(i));
      for (float& v : inputs[i]) v = uniform(rng);
    }
  }
  std::vector<const float*> in(n_in);
  std::vector<float*> out(n_out);
  for (int i = 0; i < n_in; ++i) in[i] = inputs[i].data();
  for (int i = 0; i < n_out; ++i) {
    outputs[i].assign(@NAME@_output_size(i), 0.0f);
    out[i] = outputs[i].data();
  }
  const size_t bytes = (@NAME@_workspace_size() + 63) / 64 * 64;
  void* workspace = std::aligned_alloc(64, bytes > 0 ? bytes : 64);
  if (!workspace) Die("cannot allocate the workspace");

  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  auto start = Clock::now();
  if (@NAME@_run(in.data(), out.data(), workspace) != 0) Die("the model refused its arguments");
  const double first_s = seconds(start, Clock::now());
  for (int i = 0; i < n_out && !output_paths.empty(); ++i) WriteFloats(output_paths[i], outputs[i]);

  for (int i = 0; i < warmup; ++i) @NAME@_run(in.data(), out.data(), workspace);
  std::vector<char> flush(static_cast<size_t>(std::max(0ll, flush_bytes)));
  size_t flushes = 0;
  auto flush_caches = [&] {
    if (flush.empty()) return;
    std::memset(flush.data(), static_cast<int>(flushes++ & 0xff), flush.size());
    volatile char sink = flush[flushes % flush.size()];
    (void)sink;
  };
  std::vector<double> samples;
  double total = 0.0;
  while (static_cast<int>(samples.size()) < std::max(min_repeats, max_repeats) &&
         (static_cast<int>(samples.size()) < min_repeats || total < min_time)) {
    flush_caches();
    start = Clock::now();
    @NAME@_run(in.data(), out.data(), workspace);
    samples.push_back(seconds(start, Clock::now()));
    total += samples.back();
  }
  // The profile: each step's time in every profiled run, then its median.
  const int steps = @NAME@_num_steps();
  std::vector<std::vector<double>> step_samples(steps);
  for (int run = 0; run < profile_runs; ++run) {
    std::vector<double> step_seconds(steps, 0.0);
    flush_caches();
    @NAME@_run_profiled(in.data(), out.data(), workspace, step_seconds.data());
    for (int s = 0; s < steps; ++s) step_samples[s].push_back(step_seconds[s]);
  }
  std::free(workspace);
  std::string json = "{\"model\": \"@NAME@\", \"threads\": " + std::to_string(omp_get_max_threads()) +
                     ", \"first_run_s\": " + std::to_string(first_s) +
                     ", \"flush_bytes\": " + std::to_string(flush_bytes) +
                     ", \"median_s\": " + JsonNumber(Median(samples)) + ", \"samples_s\": [";
  for (size_t i = 0; i < samples.size(); ++i) json += (i ? ", " : "") + JsonNumber(samples[i]);
  json += "]";
  if (profile_runs > 0) {
    json += ", \"profile\": {\"runs\": " + std::to_string(profile_runs) + ", \"steps\": [";
    for (int s = 0; s < steps; ++s) {
      json += std::string(s ? ",\n  " : "\n  ") + "{\"name\": " + JsonString(@NAME@_step_name(s)) +
              ", \"kind\": " + JsonString(@NAME@_step_kind(s)) +
              ", \"median_s\": " + JsonNumber(Median(step_samples[s])) + "}";
    }
    json += "]}";
  }
  json += "}\n";
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
)HARNESS";
  text.replace(text.find("@HELPERS@"), 9, HarnessHelpersText());
  return Replace(text, name);
}

std::string CMakeListsText(const std::string& name, const std::vector<std::string>& kernel_flags) {
  std::string flags;
  for (const std::string& flag : kernel_flags) flags += " " + flag;
  std::string text =
      R"CMAKE(# The model @NAME@, compiled by glimpse: lib@NAME@.a, lib@NAME@.so and @NAME@_run.
#   cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build
# The kernels are compiled with the flags they were tuned with (-march=native: build on the
# machine that runs them).
cmake_minimum_required(VERSION 3.16)
project(@NAME@ LANGUAGES CXX)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Release)
endif()
find_package(OpenMP REQUIRED COMPONENTS CXX)

add_library(@NAME@_objects OBJECT model.cc kernels.cc weights.cc)
set_target_properties(@NAME@_objects PROPERTIES POSITION_INDEPENDENT_CODE ON CXX_STANDARD 17
                                                CXX_STANDARD_REQUIRED ON)
target_compile_options(@NAME@_objects PRIVATE@FLAGS@)
target_include_directories(@NAME@_objects PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(@NAME@_objects PUBLIC OpenMP::OpenMP_CXX)
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
  target_link_libraries(${library} PUBLIC OpenMP::OpenMP_CXX)
endforeach()

add_executable(@NAME@_run harness.cc)
target_link_libraries(@NAME@_run PRIVATE @NAME@_static)
set_target_properties(@NAME@_run PROPERTIES CXX_STANDARD 17)
)CMAKE";
  text = Replace(text, name);
  text.replace(text.find("@FLAGS@"), 7, flags);
  for (size_t at = text.find("@UPPER@"); at != std::string::npos; at = text.find("@UPPER@")) {
    text.replace(at, 7, Upper(name));
  }
  return text;
}

std::string WeightsSourceText(const std::string& name) {
  std::string text =
      R"WEIGHTS(// The weights of the model @NAME@, embedded from weights.bin at build time (64-byte aligned,
// read-only, hidden from other libraries). Generated by glimpse compile.
__asm__(".section .rodata\n"
        ".balign 64\n"
        ".global @NAME@_weights\n"
        ".hidden @NAME@_weights\n"
        ".type @NAME@_weights, @object\n"
        "@NAME@_weights:\n"
        ".incbin \"" @UPPER@_WEIGHTS_FILE "\"\n"
        ".balign 64\n"
        ".previous\n");
)WEIGHTS";
  text = Replace(text, name);
  for (size_t at = text.find("@UPPER@"); at != std::string::npos; at = text.find("@UPPER@")) {
    text.replace(at, 7, Upper(name));
  }
  return text;
}

std::string CStringLiteral(const std::string& text) {
  std::string literal = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      literal += '\\';
      literal += c;
    } else if (byte < 0x20 || byte == 0x7f) {
      literal += fmt::format("\\{:03o}", byte);  // octal: at most three digits, never more
    } else {
      literal += c;
    }
  }
  return literal + "\"";
}

}  // namespace glimpse::compile
