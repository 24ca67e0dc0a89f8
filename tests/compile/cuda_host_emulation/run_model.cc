// A driver for the host emulation of a model compiled for CUDA (CompileModelOptions::
// cuda_host_emulation; tests/compile/cuda_model_compile_test.cc, bench/cuda_compile/check.sh):
//   run_model IN0.bin … OUT0.bin …
// reads each input (raw float32, exactly <model>_input_size(i) values), inits a workspace, runs the
// model once and writes each output. Built with -DMODEL=<name> (the library's identifier) and
// -DMODEL_HEADER="<name>.h". Exit status 0, or 2–6 for what failed (arguments, an input, init,
// the run, an output).
#include <cstdio>
#include <cstdlib>
#include <vector>

#include MODEL_HEADER

#define GLIMPSE_PASTE(model, f) model##_##f
#define GLIMPSE_API(model, f) GLIMPSE_PASTE(model, f)
#define API(f) GLIMPSE_API(MODEL, f)

int main(int argc, char** argv) {
  const int n_in = API(num_inputs)(), n_out = API(num_outputs)();
  if (argc != 1 + n_in + n_out) return 2;
  std::vector<std::vector<float>> in(n_in), out(n_out);
  std::vector<const float*> inputs;
  std::vector<float*> outputs;
  for (int i = 0; i < n_in; ++i) {
    in[i].resize(API(input_size)(i));
    FILE* file = std::fopen(argv[1 + i], "rb");
    if (!file || std::fread(in[i].data(), sizeof(float), in[i].size(), file) != in[i].size()) {
      return 3;
    }
    std::fclose(file);
    inputs.push_back(in[i].data());
  }
  for (int o = 0; o < n_out; ++o) {
    out[o].assign(API(output_size)(o), 0.0f);
    outputs.push_back(out[o].data());
  }
  void* workspace = std::aligned_alloc(64, (API(workspace_size)() + 63) / 64 * 64 + 64);
  if (API(init)(workspace, nullptr) != 0) return 4;
  if (API(run)(inputs.data(), outputs.data(), workspace, nullptr) != 0) return 5;
  for (int o = 0; o < n_out; ++o) {
    FILE* file = std::fopen(argv[1 + n_in + o], "wb");
    if (!file || std::fwrite(out[o].data(), sizeof(float), out[o].size(), file) != out[o].size()) {
      return 6;
    }
    std::fclose(file);
  }
  std::free(workspace);
  return 0;
}
