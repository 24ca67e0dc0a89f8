// Dispatch from an operator to its CPU template, and the padded-input copy the convolution
// templates share.
#include <fstream>
#include <string>
#include <variant>

#include "cpu/template_util.h"
#include "glimpse/error.h"

namespace glimpse {

namespace cpu {

int AddPaddedInputCopy(LoopNest& nest, int input, int64_t n, int64_t c, int64_t h, int64_t w,
                       int64_t pad) {
  using E = AffineExpr;
  const int64_t hp = h + 2 * pad, wp = w + 2 * pad;
  int padded = nest.AddTensor({"P", {n, c, hp, wp}, "NCHW", DType::kFloat32, TensorRole::kTemp});
  Stmt copy{
      StmtKind::kCopy,
      {padded, {E::Var("pn"), E::Var("pc"), E::Var("ph"), E::Var("pw")}},
      {input,
       {E::Var("pn"), E::Var("pc"), E::Var("ph") + E::Const(-pad), E::Var("pw") + E::Const(-pad)},
       /*zero_outside=*/true}};
  nest.body.push_back(Node::MakeLoop(
      {"pn", n},
      {Node::MakeLoop(
          {"pc", c, LoopKind::kParallel},
          {Node::MakeLoop({"ph", hp}, {Node::MakeLoop({"pw", wp}, {Node::MakeStmt(copy)})})})}));
  return padded;
}

}  // namespace cpu

ConfigSpace MakeCpuSpace(const Operator& op) {
  if (const auto* d = std::get_if<DenseShape>(&op)) return cpu::MakeDenseSpace(*d);
  if (const auto* c = std::get_if<Conv2dShape>(&op)) return cpu::MakeConv2dSpace(*c);
  if (const auto* d = std::get_if<DepthwiseConv2dShape>(&op)) return cpu::MakeDepthwiseSpace(*d);
  if (const auto* b = std::get_if<BatchMatmulShape>(&op)) return cpu::MakeBatchMatmulSpace(*b);
  throw Error("no CPU template for operator '" + OperatorName(op) + "' yet");
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
  throw Error("no CPU template for operator '" + OperatorName(op) + "' yet");
}

Task MakeCpuTask(const Operator& op) {
  Task task;
  Json json = OperatorToJson(op);
  task.name = OperatorToString(op);
  task.device = CpuDeviceName();
  task.space = MakeCpuSpace(op);
  json["target"] = "cpu";
  task.description = json;
  return task;
}

std::string CpuDeviceName() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos) break;
    size_t start = line.find_first_not_of(' ', colon + 1);
    return start == std::string::npos ? "cpu" : line.substr(start);
  }
  return "cpu";
}

std::string GenerateCpuKernel(const Task& task, const Config& config, const std::string& symbol) {
  Operator op = OperatorFromJson(task.description);
  return EmitCpp(MakeCpuNest(op, task.space, config), symbol);
}

}  // namespace glimpse
