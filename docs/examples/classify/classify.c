/* Runs a model compiled by glimpse from plain C: reads the input (raw float32) from argv[1],
 * prints the outputs. Build: see CMakeLists.txt beside this file. */
#include <stdio.h>
#include <stdlib.h>

#include "residual_block.h"

int main(int argc, char** argv) {
  size_t in_size = residual_block_input_size(0), out_size = residual_block_output_size(0);
  float* input = malloc(in_size * sizeof(float));
  float* output = malloc(out_size * sizeof(float));
  FILE* file = argc > 1 ? fopen(argv[1], "rb") : NULL;
  if (!file || fread(input, sizeof(float), in_size, file) != in_size) return 2;
  fclose(file);
  void* workspace = aligned_alloc(64, (residual_block_workspace_size() + 63) / 64 * 64 + 64);
  const float* inputs[] = {input};
  float* outputs[] = {output};
  if (residual_block_run(inputs, outputs, workspace) != 0) return 1;
  for (size_t i = 0; i < out_size; ++i) printf("%.9g\n", output[i]);
  free(workspace), free(input), free(output);
  return 0;
}
