// The driver of check_resnet18.sh: runs the host emulation of a ResNet-18 compiled for CUDA
// (glimpse compile --target cuda --host-emulation) on a raw float32 input, writes its output.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "resnet18.h"
int main(int argc, char** argv) {
  std::vector<float> in(resnet18_input_size(0)), out(resnet18_output_size(0));
  FILE* f = std::fopen(argv[1], "rb");
  if (!f || std::fread(in.data(), 4, in.size(), f) != in.size()) return 3;
  std::fclose(f);
  const float* ip[] = {in.data()};
  float* op[] = {out.data()};
  void* ws = std::aligned_alloc(64, (resnet18_workspace_size() + 63) / 64 * 64 + 64);
  if (resnet18_init(ws, nullptr) != 0) return 4;
  if (resnet18_run(ip, op, ws, nullptr) != 0) return 5;
  f = std::fopen(argv[2], "wb");
  std::fwrite(out.data(), 4, out.size(), f);
  std::fclose(f);
  return 0;
}
