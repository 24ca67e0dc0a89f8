// Dispatch from an operator to its GPU template, and the helpers the GPU templates share
// (template_util.h).
#include <limits>
#include <utility>
#include <variant>

#include "cuda/template_util.h"
#include "glimpse/error.h"

namespace glimpse {

namespace gpu {

void CheckLaunchLimits(const std::string& what, const CudaLaunch& launch, int64_t shared_bytes) {
  if (launch.ThreadsPerBlock() > kMaxThreadsPerBlock) {
    throw Error(what + ": " + std::to_string(launch.ThreadsPerBlock()) +
                " threads per block, at most " + std::to_string(kMaxThreadsPerBlock));
  }
  if (launch.grid[0] > kMaxGridX || launch.grid[1] > kMaxGridY || launch.grid[2] > kMaxGridY) {
    throw Error(what + ": grid (" + std::to_string(launch.grid[0]) + ", " +
                std::to_string(launch.grid[1]) + ", " + std::to_string(launch.grid[2]) +
                ") exceeds the grid limits (2^31-1, 65535, 65535)");
  }
  if (shared_bytes > kMaxSharedBytesPerBlock) {
    throw Error(what + ": " + std::to_string(shared_bytes) + " bytes of shared memory per block, " +
                "at most " + std::to_string(kMaxSharedBytesPerBlock));
  }
}

AffineExpr TiledAxis::InBlock(const std::string& prefix) const {
  return MixedRadix({prefix + "v" + name, "t" + name, prefix + name + "i"},
                    {tile[1], tile[2], tile[3]});
}

AffineExpr TiledAxis::InOutput(const std::string& prefix) const {
  return AffineExpr::Var("b" + name, BlockExtent()) + InBlock(prefix);
}

AffineExpr TiledAxis::InThread(const std::string& prefix) const {
  return MixedRadix({prefix + "v" + name, prefix + name + "i"}, {tile[1], tile[3]});
}

std::vector<Loop> ThreadTileLoops(const std::vector<TiledAxis>& axes, const std::string& prefix,
                                  LoopKind inner) {
  std::vector<Loop> loops;
  for (const TiledAxis& axis : axes) {
    loops.push_back({prefix + "v" + axis.name, axis.tile[1], LoopKind::kUnrolled});
  }
  for (const TiledAxis& axis : axes) {
    loops.push_back({prefix + axis.name + "i", axis.tile[3], inner});
  }
  return loops;
}

Access ThreadTileAccess(int tensor, const std::vector<TiledAxis>& axes, const std::string& prefix,
                        std::vector<AffineExpr> more) {
  Access access{tensor, {}};
  for (const TiledAxis& axis : axes) access.index.push_back(axis.InThread(prefix));
  for (AffineExpr& e : more) access.index.push_back(std::move(e));
  return access;
}

std::vector<Loop> ConvolutionLaunchLoops(int64_t images, const TiledAxis& channels,
                                         const TiledAxis& rows, const TiledAxis& columns) {
  return {{"n", images, LoopKind::kBlockZ},
          {"b" + channels.name, channels.tile[0], LoopKind::kBlockZ},
          {"b" + rows.name, rows.tile[0], LoopKind::kBlockY},
          {"b" + columns.name, columns.tile[0], LoopKind::kBlockX},
          {"t" + channels.name, channels.tile[2], LoopKind::kThreadZ},
          {"t" + rows.name, rows.tile[2], LoopKind::kThreadY},
          {"t" + columns.name, columns.tile[2], LoopKind::kThreadX}};
}

ThreadAccumulator::ThreadAccumulator(LoopNest& nest, std::vector<TiledAxis> tiled,
                                     const std::string& layout, const std::string& thread_loop)
    : axes(std::move(tiled)) {
  std::vector<int64_t> shape;
  for (const TiledAxis& axis : axes) shape.push_back(axis.ThreadExtent());
  tensor = nest.AddTensor(
      {"acc", std::move(shape), layout, DType::kFloat32, TensorRole::kTemp, -1, thread_loop});
  nest.tensors[tensor].scope = MemoryScope::kLocal;
}

Node ThreadAccumulator::Zero() const {
  return NestLoops(Loops("z_"), {Node::MakeStmt(Stmt(StmtKind::kZero, At("z_")))});
}

AxisBinding ConvolutionOutputElement(const std::string& channel_axis, const TiledAxis& channels,
                                     const TiledAxis& rows, const TiledAxis& columns,
                                     const std::string& prefix) {
  return {{"n", AffineExpr::Var("n")},
          {channel_axis, channels.InOutput(prefix)},
          {"oh", rows.InOutput(prefix)},
          {"ow", columns.InOutput(prefix)}};
}

std::vector<KnobValue> AutoUnrollValues() {
  return {int64_t{0}, int64_t{16}, int64_t{64}, int64_t{512}, int64_t{1500}};
}

namespace {

constexpr int64_t kNotUnrolled = std::numeric_limits<int64_t>::max();

// Marks loops of `nodes` unrolled bottom-up; returns the iterations one pass over `nodes` unrolls
// into (the largest over the nodes), or kNotUnrolled when some loop below stays a loop.
int64_t AutoUnroll(std::vector<Node>& nodes, int64_t max_step) {
  int64_t widest = 1;
  for (Node& node : nodes) {
    if (!node.is_loop) continue;
    const int64_t inner = AutoUnroll(node.body, max_step);
    Loop& loop = node.loop;
    const bool markable = loop.kind == LoopKind::kSerial || loop.kind == LoopKind::kUnrolled ||
                          loop.kind == LoopKind::kVectorized;
    if (inner == kNotUnrolled || !markable) {
      widest = kNotUnrolled;
      continue;
    }
    const int64_t total = inner * loop.extent;
    if (loop.kind == LoopKind::kSerial) {
      if (total > max_step) {
        widest = kNotUnrolled;
        continue;
      }
      loop.kind = LoopKind::kUnrolled;
    }
    if (widest != kNotUnrolled) widest = std::max(widest, total);
  }
  return widest;
}

}  // namespace

void ApplyAutoUnroll(LoopNest& nest, const std::string& root, int64_t max_step) {
  if (max_step <= 0) return;
  std::vector<Node>* body = nullptr;
  std::vector<std::vector<Node>*> pending = {&nest.body, &nest.prepare};
  while (!pending.empty() && body == nullptr) {
    std::vector<Node>* nodes = pending.back();
    pending.pop_back();
    for (Node& node : *nodes) {
      if (!node.is_loop) continue;
      if (node.loop.name == root) {
        body = &node.body;
        break;
      }
      pending.push_back(&node.body);
    }
  }
  if (body == nullptr) throw Error("ApplyAutoUnroll: no loop named '" + root + "'");
  AutoUnroll(*body, max_step);
}

}  // namespace gpu

namespace {

// The GPU templates index activations as NCHW; a channel-blocked layout is the CPU templates'.
void RequirePlainActivations(const Operator& op) {
  if (OperatorHasBlockedLayout(op)) {
    throw NoTemplateError("no GPU template for '" + OperatorToString(op) +
                          "': the GPU templates take NCHW activations; accepted: in_block=0, "
                          "out_block=0");
  }
}

}  // namespace

ConfigSpace MakeGpuSpace(const Operator& op) {
  RequirePlainActivations(op);
  if (const auto* d = std::get_if<DenseShape>(&op)) return gpu::MakeDenseGpuSpace(*d);
  if (const auto* b = std::get_if<BatchMatmulShape>(&op)) return gpu::MakeBatchMatmulGpuSpace(*b);
  if (const auto* c = std::get_if<Conv2dShape>(&op)) {
    // `algorithm` ∈ {direct, winograd} where winograd applies, with the knobs of both.
    return gpu::AddWinogradKnobs(gpu::MakeConv2dGpuSpace(*c), *c);
  }
  if (const auto* d = std::get_if<DepthwiseConv2dShape>(&op)) {
    return gpu::MakeDepthwiseGpuSpace(*d);
  }
  throw NoTemplateError("no GPU template for operator '" + OperatorName(op) +
                        "'; known: dense, batch_matmul, conv2d, depthwise_conv2d");
}

LoopNest MakeGpuNest(const Operator& op, const ConfigSpace& space, const Config& config) {
  RequirePlainActivations(op);
  ConfigView view(space, config);
  if (const auto* d = std::get_if<DenseShape>(&op)) return gpu::MakeDenseGpuNest(*d, view);
  if (const auto* b = std::get_if<BatchMatmulShape>(&op)) {
    return gpu::MakeBatchMatmulGpuNest(*b, view);
  }
  if (const auto* c = std::get_if<Conv2dShape>(&op)) return gpu::MakeConv2dGpuNest(*c, view);
  if (const auto* d = std::get_if<DepthwiseConv2dShape>(&op)) {
    return gpu::MakeDepthwiseGpuNest(*d, view);
  }
  throw NoTemplateError("no GPU template for operator '" + OperatorName(op) +
                        "'; known: dense, batch_matmul, conv2d, depthwise_conv2d");
}

Task MakeGpuTask(const Operator& op, const std::string& device) {
  Task task;
  Json json = OperatorToJson(op);
  task.name = OperatorToString(op);
  task.device = device;
  task.space = MakeGpuSpace(op);
  json["target"] = "cuda";
  task.description = json;
  return task;
}

CudaKernel GenerateCudaKernel(const Task& task, const Config& config, const std::string& symbol) {
  Operator op = OperatorFromJson(task.description);
  return EmitCuda(MakeGpuNest(op, task.space, config), symbol);
}

}  // namespace glimpse
