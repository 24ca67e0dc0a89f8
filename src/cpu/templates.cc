// Dispatch from an operator to its CPU template, and the padded-input copy the convolution
// templates share.
#include <string>
#include <utility>
#include <variant>

#include "cpu/template_util.h"
#include "glimpse/cache_flush.h"
#include "glimpse/error.h"

namespace glimpse {

namespace cpu {

int AddAccumulator(LoopNest& nest, std::vector<int64_t> shape, std::string layout,
                   std::string scope_loop) {
  return nest.AddTensor({"acc", std::move(shape), std::move(layout), DType::kFloat32,
                         TensorRole::kTemp, -1, std::move(scope_loop)});
}

void MarkUsefulKernelRows(Loop& r, const AffineExpr& first_oh, int64_t rows, int64_t stride,
                          int64_t pad, int64_t dilation, int64_t height) {
  if (pad == 0 || dilation != 1) return;
  r.useful_begin = AffineExpr::Const(pad - stride * (rows - 1)) + first_oh * (-stride);
  r.useful_end = AffineExpr::Const(height + pad) + first_oh * (-stride);
}

OperandCopy AddPaddedInputCopy(LoopNest& nest, const OperatorCompute& compute, int64_t pad) {
  using E = AffineExpr;
  Relayout layout = compute.LayoutOf(Operand::kInput).Pad(2, pad).Pad(3, pad);
  const std::vector<int64_t>& shape = layout.shape();
  const OperandCopy padded{nest.AddTensor({"P", shape, "NCHW", DType::kFloat32, TensorRole::kTemp}),
                           layout};
  Stmt copy = compute.Fill(Operand::kInput, padded,
                           {E::Var("pn"), E::Var("pc"), E::Var("ph"), E::Var("pw")});
  nest.body.push_back(Node::MakeLoop(
      {"pn", shape[0]},
      {Node::MakeLoop(
          {"pc", shape[1], LoopKind::kParallel},
          {Node::MakeLoop({"ph", shape[2]},
                          {Node::MakeLoop({"pw", shape[3]}, {Node::MakeStmt(copy)})})})}));
  return padded;
}

}  // namespace cpu

int64_t HostRegisterTileFloats() {
#if defined(__x86_64__) || defined(__i386__)
  if (!__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx")) {
    return kAvx2RegisterTileFloats;
  }
#endif
  return kPortableRegisterTileFloats;
}

ConfigSpace MakeCpuSpace(const Operator& op, int64_t register_tile_floats) {
  // Checked for every operator, not only those with a register tile: a bad cap is a caller's error.
  if (register_tile_floats < 1 || register_tile_floats > kPortableRegisterTileFloats) {
    throw Error("a register tile cap of " + std::to_string(register_tile_floats) +
                " floats; accepted: 1 to " + std::to_string(kPortableRegisterTileFloats));
  }
  if (const auto* d = std::get_if<DenseShape>(&op)) return cpu::MakeDenseSpace(*d);
  if (const auto* c = std::get_if<Conv2dShape>(&op)) {
    return cpu::MakeConv2dSpace(*c, register_tile_floats);
  }
  if (const auto* d = std::get_if<DepthwiseConv2dShape>(&op)) return cpu::MakeDepthwiseSpace(*d);
  if (const auto* b = std::get_if<BatchMatmulShape>(&op)) return cpu::MakeBatchMatmulSpace(*b);
  throw NoTemplateError("no CPU template for operator '" + OperatorName(op) + "' yet");
}

LoopNest MakeCpuNest(const Operator& op, const ConfigSpace& space, const Config& config) {
  ConfigView view(space, config);
  if (const auto* d = std::get_if<DenseShape>(&op)) return cpu::MakeDenseNest(*d, view);
  if (const auto* c = std::get_if<Conv2dShape>(&op)) return cpu::MakeConv2dNest(*c, view);
  if (const auto* d = std::get_if<DepthwiseConv2dShape>(&op)) {
    return cpu::MakeDepthwiseNest(*d, view);
  }
  if (const auto* b = std::get_if<BatchMatmulShape>(&op)) {
    return cpu::MakeBatchMatmulNest(*b, view);
  }
  throw NoTemplateError("no CPU template for operator '" + OperatorName(op) + "' yet");
}

Task MakeCpuTask(const Operator& op) {
  Task task;
  Json json = OperatorToJson(op);
  task.name = OperatorToString(op);
  task.device = CpuDeviceName();
  task.space = MakeCpuSpace(op, HostRegisterTileFloats());
  json["target"] = "cpu";
  task.description = json;
  return task;
}

std::string GenerateCpuKernel(const Task& task, const Config& config, const std::string& symbol) {
  Operator op = OperatorFromJson(task.description);
  return EmitCpp(MakeCpuNest(op, task.space, config), symbol);
}

std::string GenerateCpuKernelToMeasure(const Task& task, const Config& config,
                                       const std::string& symbol, double available) {
  Operator op = OperatorFromJson(task.description);
  LoopNest nest = MakeCpuNest(op, task.space, config);
  CheckWorkspaceFitsMemory(OperatorMeasurementBytes(op, DefaultCacheFlushBytes()),
                           4.0 * nest.PreparedFloats(), 4.0 * nest.HeapTempFloats(), available,
                           "this machine's memory");
  return EmitCpp(nest, symbol);
}

}  // namespace glimpse
