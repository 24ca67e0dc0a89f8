/* Runs a model glimpse compiled for CUDA from plain C: reads the input (raw float32) from argv[1],
 * runs the model on the first GPU, prints the outputs. Exit status 3: no CUDA device. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#include "residual_block.h"

int main(int argc, char** argv) {
  size_t in_size = residual_block_input_size(0), out_size = residual_block_output_size(0);
  float* host = malloc((in_size > out_size ? in_size : out_size) * sizeof(float));
  FILE* file = argc > 1 ? fopen(argv[1], "rb") : NULL;
  if (!file || fread(host, sizeof(float), in_size, file) != in_size) return 2;
  fclose(file);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) return 3;
  float *input = NULL, *output = NULL;
  void* workspace = NULL;
  cudaMalloc((void**)&input, in_size * sizeof(float));
  cudaMalloc((void**)&output, out_size * sizeof(float));
  cudaMalloc(&workspace, residual_block_workspace_size());
  cudaMemcpy(input, host, in_size * sizeof(float), cudaMemcpyHostToDevice);
  const float* inputs[] = {input};
  float* outputs[] = {output};
  if (residual_block_init(workspace, NULL) != 0) return 1; /* once per workspace */
  if (residual_block_run(inputs, outputs, workspace, NULL) != 0) return 1;
  if (cudaMemcpy(host, output, out_size * sizeof(float), cudaMemcpyDeviceToHost) != 0) return 1;
  for (size_t i = 0; i < out_size; ++i) printf("%.9g\n", host[i]);
  cudaFree(workspace), cudaFree(output), cudaFree(input), free(host);
  return 0;
}
