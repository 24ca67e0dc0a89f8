// The driver of check.sh: runs the host emulation of a model compiled for CUDA (glimpse compile
// --target cuda --host-emulation) on a raw float32 input, writes its output. Built with
// -DMODEL=<name> (the library's identifier) and -DMODEL_HEADER="<name>.h".
#include <cstdio>
#include <cstdlib>
#include <vector>

#include MODEL_HEADER

#define GLIMPSE_PASTE(a, b) a##_##b
#define GLIMPSE_API(model, f) GLIMPSE_PASTE(model, f)
#define API(f) GLIMPSE_API(MODEL, f)

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  std::vector<float> in(API(input_size)(0)), out(API(output_size)(0));
  FILE* f = std::fopen(argv[1], "rb");
  if (!f || std::fread(in.data(), 4, in.size(), f) != in.size()) return 3;
  std::fclose(f);
  const float* ip[] = {in.data()};
  float* op[] = {out.data()};
  void* ws = std::aligned_alloc(64, (API(workspace_size)() + 63) / 64 * 64 + 64);
  if (API(init)(ws, nullptr) != 0) return 4;
  if (API(run)(ip, op, ws, nullptr) != 0) return 5;
  f = std::fopen(argv[2], "wb");
  if (!f || std::fwrite(out.data(), 4, out.size(), f) != out.size()) return 6;
  std::fclose(f);
  std::free(ws);
  return 0;
}
