// A stand-in for the CUDA runtime's header, so that a model compiled for CUDA with
// CompileModelOptions::cuda_host_emulation builds with a C++ compiler and runs on the CPU
// (tests/compile/cuda_model_compile_test.cc): "device" memory is host memory, a copy is memcpy,
// a stream is nothing, and nothing fails. Only what model.cu and glimpse_model_ops.cuh use.
#pragma once

#include <cstddef>
#include <cstring>

#define __global__

typedef struct CUstream_st* cudaStream_t;

enum cudaError_t { cudaSuccess = 0, cudaErrorInvalidValue = 1 };

enum cudaMemcpyKind {
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3
};

inline cudaError_t cudaGetLastError() { return cudaSuccess; }

inline cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind,
                                   cudaStream_t) {
  if (bytes > 0) std::memcpy(dst, src, bytes);
  return cudaSuccess;
}

inline cudaError_t cudaMemcpy2DAsync(void* dst, size_t dst_pitch, const void* src, size_t src_pitch,
                                     size_t width, size_t height, cudaMemcpyKind, cudaStream_t) {
  for (size_t row = 0; row < height; ++row) {
    std::memcpy(static_cast<char*>(dst) + row * dst_pitch,
                static_cast<const char*>(src) + row * src_pitch, width);
  }
  return cudaSuccess;
}
