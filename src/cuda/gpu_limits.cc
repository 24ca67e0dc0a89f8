// Device limits per compute capability.
//
// Source: NVIDIA, CUDA C++ Programming Guide, "Technical Specifications per Compute Capability"
// (the table of feature support and technical specifications), and the compute capability 8.x
// section for the 1 KB of shared memory the system reserves per block from 8.0 on. The shared
// memory and threads-per-SM figures agree with scripts/hardware/arch_facts.json, which cites the
// same table for the GPU spec table.
#include "glimpse/cuda.h"
#include "glimpse/error.h"

namespace glimpse {

namespace {

// The rows of the table that differ between the architectures glimpse knows; every other figure
// (1024 threads and (1024, 1024, 64) per block, grid (2^31−1, 65535, 65535), 64 K registers per
// SM and per block, 255 per thread, allocation in units of 256 registers per warp, 48 KB of static
// shared memory per block, warps of 32) is the same for all of them.
struct ArchRow {
  const char* arch;
  int major, minor;
  int64_t max_threads_per_sm;
  int64_t max_blocks_per_sm;
  int64_t shared_per_sm_kib;
  int64_t optin_shared_per_block_kib;
  int64_t reserved_shared_per_block;
};

constexpr ArchRow kArchRows[] = {
    {"sm_70", 7, 0, 2048, 32, 96, 96, 0},         // Volta
    {"sm_75", 7, 5, 1024, 16, 64, 64, 0},         // Turing
    {"sm_80", 8, 0, 2048, 32, 164, 163, 1024},    // Ampere GA100
    {"sm_86", 8, 6, 1536, 16, 100, 99, 1024},     // Ampere GA10x
    {"sm_89", 8, 9, 1536, 24, 100, 99, 1024},     // Ada Lovelace
    {"sm_90", 9, 0, 2048, 32, 228, 227, 1024},    // Hopper
    {"sm_100", 10, 0, 2048, 32, 228, 227, 1024},  // Blackwell (data centre)
    {"sm_120", 12, 0, 1536, 32, 100, 99, 1024},   // Blackwell (GeForce, RTX PRO)
};

}  // namespace

std::vector<std::string> KnownGpuArchs() {
  std::vector<std::string> names;
  for (const ArchRow& row : kArchRows) names.emplace_back(row.arch);
  return names;
}

std::string ArchForComputeCapability(int major, int minor) {
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

GpuLimits GpuLimitsForArch(const std::string& arch) {
  for (const ArchRow& row : kArchRows) {
    if (arch != row.arch) continue;
    GpuLimits limits;  // the defaults are the figures common to every row
    limits.arch = row.arch;
    limits.cc_major = row.major;
    limits.cc_minor = row.minor;
    limits.max_threads_per_sm = row.max_threads_per_sm;
    limits.max_blocks_per_sm = row.max_blocks_per_sm;
    limits.shared_per_sm = row.shared_per_sm_kib * 1024;
    limits.max_optin_shared_per_block = row.optin_shared_per_block_kib * 1024;
    limits.reserved_shared_per_block = row.reserved_shared_per_block;
    return limits;
  }
  std::string known;
  for (const ArchRow& row : kArchRows) known += std::string(known.empty() ? "" : ", ") + row.arch;
  throw Error("unknown CUDA architecture '" + arch + "'; known: " + known);
}

}  // namespace glimpse
