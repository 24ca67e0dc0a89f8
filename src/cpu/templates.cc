// Dispatch from an operator to its template, and the configuration reader templates share.
#include <variant>

#include "cpu/template_util.h"
#include "glimpse/error.h"

namespace glimpse {

namespace cpu {

ConfigView::ConfigView(const ConfigSpace& space, const Config& config)
    : space_(space), config_(config) {
  if (!space.InRange(config)) throw Error("configuration does not belong to the template's space");
}

bool ConfigView::Has(const std::string& knob) const {
  for (const Knob& k : space_.knobs()) {
    if (k.name() == knob) return true;
  }
  return false;
}

const KnobValue& ConfigView::Value(const std::string& knob) const {
  size_t i = space_.KnobIndex(knob);
  return space_.knobs()[i].ValueAt(config_.indices[i]);
}

std::vector<int64_t> ConfigView::List(const std::string& knob) const {
  const auto* list = std::get_if<std::vector<int64_t>>(&Value(knob));
  if (list == nullptr) throw Error("knob '" + knob + "' is not a split or permutation");
  return *list;
}

int64_t ConfigView::Int(const std::string& knob) const {
  const auto* value = std::get_if<int64_t>(&Value(knob));
  if (value == nullptr) throw Error("knob '" + knob + "' is not an integer knob");
  return *value;
}

std::string ConfigView::Text(const std::string& knob) const {
  const auto* value = std::get_if<std::string>(&Value(knob));
  if (value == nullptr) throw Error("knob '" + knob + "' is not a categorical text knob");
  return *value;
}

int AddPaddedInputCopy(LoopNest& nest, int input, int64_t n, int64_t c, int64_t h, int64_t w,
                       int64_t pad) {
  using E = AffineExpr;
  const int64_t hp = h + 2 * pad, wp = w + 2 * pad;
  int padded = nest.AddTensor({"P", {n, c, hp, wp}, "NCHW", DType::kFloat32, TensorRole::kTemp});
  Stmt copy{StmtKind::kCopy,
            {padded, {E::Var("pn"), E::Var("pc"), E::Var("ph"), E::Var("pw")}},
            {input,
             {E::Var("pn"), E::Var("pc"), E::Var("ph") + E::Const(-pad),
              E::Var("pw") + E::Const(-pad)},
             /*zero_outside=*/true}};
  nest.body.push_back(Node::MakeLoop(
      {"pn", n},
      {Node::MakeLoop({"pc", c, LoopKind::kParallel},
                      {Node::MakeLoop({"ph", hp}, {Node::MakeLoop({"pw", wp},
                                                                  {Node::MakeStmt(copy)})})})}));
  return padded;
}

}  // namespace cpu

ConfigSpace MakeCpuSpace(const CpuOp& op) {
  if (const auto* d = std::get_if<DenseShape>(&op)) return cpu::MakeDenseSpace(*d);
  if (const auto* c = std::get_if<Conv2dShape>(&op)) return cpu::MakeConv2dSpace(*c);
  if (const auto* d = std::get_if<DepthwiseConv2dShape>(&op)) return cpu::MakeDepthwiseSpace(*d);
  if (const auto* b = std::get_if<BatchMatmulShape>(&op)) return cpu::MakeBatchMatmulSpace(*b);
  throw Error("no CPU template for operator '" + CpuOpName(op) + "' yet");
}

LoopNest MakeCpuNest(const CpuOp& op, const ConfigSpace& space, const Config& config) {
  cpu::ConfigView view(space, config);
  if (const auto* d = std::get_if<DenseShape>(&op)) return cpu::MakeDenseNest(*d, view);
  if (const auto* c = std::get_if<Conv2dShape>(&op)) return cpu::MakeConv2dNest(*c, view);
  if (const auto* d = std::get_if<DepthwiseConv2dShape>(&op)) {
    return cpu::MakeDepthwiseNest(*d, view);
  }
  if (const auto* b = std::get_if<BatchMatmulShape>(&op)) {
    return cpu::MakeBatchMatmulNest(*b, view);
  }
  throw Error("no CPU template for operator '" + CpuOpName(op) + "' yet");
}

Task MakeCpuTask(const CpuOp& op) {
  Task task;
  Json json = CpuOpToJson(op);
  task.name = CpuOpToString(op);
  task.device = CpuDeviceName();
  task.space = MakeCpuSpace(op);
  json["target"] = "cpu";
  task.description = json;
  return task;
}

}  // namespace glimpse
