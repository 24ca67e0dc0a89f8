// The hardware description of a live CUDA device (glimpse/cuda.h, GpuSpecOfDevice): the GPU
// table's entry corrected by what the driver reports, or, for a GPU the table lacks, the driver's
// figures completed from the table's GPUs of the same compute capability.
#include <fmt/format.h>

#include <cmath>

#include "glimpse/cuda.h"
#include "glimpse/error.h"

namespace glimpse {
namespace {

constexpr const char* kDriverSource = "CUDA driver query of the device (cuDeviceGetAttribute)";

// A figure the driver reported (non-zero) replaces the spec's; its source says so.
void Take(GpuSpec& spec, const char* field, int64_t* target, int64_t reported) {
  if (reported <= 0 || *target == reported) return;
  *target = reported;
  spec.sources[field] = kDriverSource;
}

}  // namespace

GpuSpec GpuSpecOfDevice(const CudaDeviceInfo& info, const GpuTable& table,
                        std::vector<std::string>* notes) {
  std::vector<std::string> said;
  const std::string capability = fmt::format("{}.{}", info.cc_major, info.cc_minor);
  GpuSpec spec;
  if (const GpuSpec* entry = table.Find(info.name)) {
    spec = *entry;
  } else {
    // The table's GPUs of this compute capability give what the driver does not report: FP32
    // lanes per SM, the L1 size, the base/boost clock ratio, the FP16/FP32 rate.
    const GpuSpec* peer = nullptr;
    for (const GpuSpec& gpu : table.gpus()) {
      if (gpu.compute_capability == capability && gpu.boost_clock_mhz > 0 && gpu.fp32_flops > 0) {
        peer = &gpu;
        break;
      }
    }
    if (peer == nullptr) {
      throw Error(
          fmt::format("'{}' is not in the GPU table {}, nor is any GPU of its compute "
                      "capability {}: no hardware description",
                      info.name, table.origin(), capability));
    }
    spec = *peer;
    spec.aliases.clear();
    spec.sources.clear();
    spec.name = info.name;
    spec.target = info.Arch();
    spec.compute_capability = capability;
    // The chip and memory type are the peer's product's, not necessarily this one's: unknown.
    spec.chip.clear();
    spec.memory_type.clear();
    // Every other figure starts as the peer's, and says so until the driver's replaces it.
    const std::string from_peer = "the GPU table's " + peer->name + " (same compute capability)";
    spec.sources["architecture"] = from_peer;
    spec.sources["segment"] = from_peer;
    for (const GpuNumericField& field : GpuNumericFields()) spec.sources[field.name] = from_peer;
    if (info.sm_clock_khz > 0) {
      const double boost = static_cast<double>(info.sm_clock_khz) / 1000.0;
      spec.base_clock_mhz = peer->base_clock_mhz * boost / peer->boost_clock_mhz;
      spec.boost_clock_mhz = boost;
      spec.sources["boost_clock_mhz"] = kDriverSource;
      spec.sources["base_clock_mhz"] =
          "the driver's peak clock × the base/boost ratio of " + from_peer;
    }
    if (info.memory_clock_khz > 0 && info.memory_bus_bits > 0) {
      // Double data rate: two transfers per reported memory clock, bus width in bits.
      spec.memory_bandwidth_gb_per_s =
          2.0 * static_cast<double>(info.memory_clock_khz) * 1e3 * info.memory_bus_bits / 8.0 / 1e9;
      spec.memory_bus_width_bits = info.memory_bus_bits;
      spec.sources["memory_bandwidth_gb_per_s"] = "2 × the driver's memory clock × its bus width";
      spec.sources["memory_bus_width_bits"] = kDriverSource;
    }
    said.push_back(
        fmt::format("'{}' is not in the GPU table: its description is the driver's "
                    "figures, completed from {}",
                    info.name, from_peer));
  }

  // What the driver reports wins over the table: a MIG slice or a board with fused-off SMs shows
  // fewer SMs, less memory and L2 than the product's datasheet.
  const int64_t table_sms = spec.sm_count;
  Take(spec, "sm_count", &spec.sm_count, info.sm_count);
  Take(spec, "memory_bytes", &spec.memory_bytes, info.memory_bytes);
  Take(spec, "l2_bytes", &spec.l2_bytes, info.l2_bytes);
  Take(spec, "shared_memory_per_sm_bytes", &spec.shared_memory_per_sm_bytes, info.shared_per_sm);
  Take(spec, "shared_memory_per_block_bytes", &spec.shared_memory_per_block_bytes,
       info.shared_per_block_optin);
  Take(spec, "registers_per_sm", &spec.registers_per_sm, info.registers_per_sm);
  Take(spec, "max_threads_per_sm", &spec.max_threads_per_sm, info.max_threads_per_sm);
  Take(spec, "max_threads_per_block", &spec.max_threads_per_block, info.max_threads_per_block);
  Take(spec, "warp_size", &spec.warp_size, info.warp_size);
  // Peak rates scale with SMs × clock (the FP16/FP32 ratio is the architecture's).
  const double fp16_ratio = spec.fp32_flops > 0 ? spec.fp16_flops / spec.fp32_flops : 0.0;
  const double fp32 = 2.0 * static_cast<double>(spec.sm_count) *
                      static_cast<double>(spec.cores_per_sm) * spec.boost_clock_mhz * 1e6;
  if (fp32 > 0 && std::abs(fp32 - spec.fp32_flops) > 1e-6 * fp32) {
    spec.fp32_flops = fp32;
    spec.fp16_flops = fp32 * fp16_ratio;
    spec.sources["fp32_flops"] = "2 × SMs × FP32 lanes per SM × boost clock";
    spec.sources["fp16_flops"] = "fp32_flops × the architecture's FP16/FP32 rate";
  }
  if (table_sms > 0 && spec.sm_count != table_sms) {
    said.push_back(
        fmt::format("device {} has {} SMs, the GPU table's {} {} (a MIG slice or a "
                    "partly disabled board?): the device's figures are used",
                    info.ordinal, spec.sm_count, spec.name, table_sms));
  }
  if (notes) *notes = said;
  return spec;
}

}  // namespace glimpse
