// EmitCuda: launch shapes from the bound loops, index decomposition of fused loops, cooperative
// copies between barriers, shared/local placement, guards, vector accesses, 64-bit indices, the
// prepare kernel; and the emitted code compiles with NVRTC for several architectures.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "glimpse/cuda.h"
#include "glimpse/error.h"
#include "glimpse/gpu.h"

namespace glimpse {
namespace {

using E = AffineExpr;

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// out[6][40] = in[6][40]: a plain copy whose rows are fused blocks (3 × 2 on x, bound
// outer first) and whose 40 columns are 4 × 10 threads (y then x).
LoopNest FusedCopy() {
  LoopNest nest;
  nest.name = "fused";
  int in = nest.AddTensor({"in", {6, 40}, "RC", DType::kFloat32, TensorRole::kInput, 0});
  int out = nest.AddTensor({"out", {6, 40}, "RC", DType::kFloat32, TensorRole::kOutput});
  Stmt copy{StmtKind::kCopy,
            {out, {E::Var("r0", 2) + E::Var("r1"), E::Var("cy", 10) + E::Var("cx")}},
            {in, {E::Var("r0", 2) + E::Var("r1"), E::Var("cy", 10) + E::Var("cx")}}};
  nest.body.push_back(
      Node::MakeLoop({"r0", 3, LoopKind::kBlockX},
                     {Node::MakeLoop({"r1", 2, LoopKind::kBlockX},
                                     {Node::MakeLoop({"cy", 4, LoopKind::kThreadY},
                                                     {Node::MakeLoop({"cx", 10, LoopKind::kThreadX},
                                                                     {Node::MakeStmt(copy)})})})}));
  return nest;
}

// out[i] = relu(Σ_r in[i + r − 1] · w[r]), zero outside `in`: a block of 16 threads stages a padded
// 18-element window of `in` in shared memory (two cooperative copies: the window and a second
// tile), then each thread sums three neighbours into a local accumulator.
LoopNest Stencil() {
  LoopNest nest;
  nest.name = "stencil";
  int in = nest.AddTensor({"in", {64}, "N", DType::kFloat32, TensorRole::kInput, 0});
  int w = nest.AddTensor({"w", {3}, "R", DType::kFloat32, TensorRole::kInput, 1});
  int out = nest.AddTensor({"out", {64}, "N", DType::kFloat32, TensorRole::kOutput});
  int s = nest.AddTensor({"S", {18}, "N", DType::kFloat32, TensorRole::kTemp, -1, "bx"});
  int ws = nest.AddTensor({"Ws", {3}, "R", DType::kFloat32, TensorRole::kTemp, -1, "bx"});
  int acc = nest.AddTensor({"acc", {1}, "1", DType::kFloat32, TensorRole::kTemp, -1, "tx"});
  nest.tensors[s].scope = MemoryScope::kShared;
  nest.tensors[ws].scope = MemoryScope::kShared;
  nest.tensors[acc].scope = MemoryScope::kLocal;
  Stmt load{StmtKind::kCopy,
            {s, {E::Var("c")}},
            {in, {E::Var("bx", 16) + E::Var("c") + E::Const(-1)}, /*zero_outside=*/true}};
  Stmt load_w{StmtKind::kCopy, {ws, {E::Var("cw")}}, {w, {E::Var("cw")}}};
  Stmt zero{StmtKind::kZero, {acc, {E::Const(0)}}};
  Stmt mac{StmtKind::kMultiplyAdd,
           {acc, {E::Const(0)}},
           {s, {E::Var("tx") + E::Var("r")}},
           {ws, {E::Var("r")}}};
  Stmt store{StmtKind::kCopy, {out, {E::Var("bx", 16) + E::Var("tx")}}, {acc, {E::Const(0)}}};
  store.relu = true;
  nest.body.push_back(Node::MakeLoop(
      {"bx", 4, LoopKind::kBlockX},
      {Node::MakeLoop({"tx", 16, LoopKind::kThreadX},
                      {Node::MakeLoop({"c", 18, LoopKind::kCooperative}, {Node::MakeStmt(load)}),
                       Node::MakeLoop({"cw", 3, LoopKind::kCooperative}, {Node::MakeStmt(load_w)}),
                       Node::MakeStmt(zero),
                       Node::MakeLoop({"r", 3, LoopKind::kUnrolled}, {Node::MakeStmt(mac)}),
                       Node::MakeStmt(store)})}));
  return nest;
}

// out[rows][8] = in[rows][8 + offset …]: one thread per row, the 8 columns a vectorised loop.
LoopNest VectorCopy(int64_t in_columns, int64_t offset) {
  LoopNest nest;
  nest.name = "vcopy";
  int in = nest.AddTensor({"in", {4, in_columns}, "RC", DType::kFloat32, TensorRole::kInput, 0});
  int out = nest.AddTensor({"out", {4, 8}, "RC", DType::kFloat32, TensorRole::kOutput});
  Stmt copy{StmtKind::kCopy,
            {out, {E::Var("t"), E::Var("v")}},
            {in, {E::Var("t"), E::Var("v") + E::Const(offset)}}};
  nest.body.push_back(
      Node::MakeLoop({"t", 4, LoopKind::kThreadX},
                     {Node::MakeLoop({"v", 8, LoopKind::kVectorized}, {Node::MakeStmt(copy)})}));
  return nest;
}

TEST(EmitCuda, LaunchShapeAndFusedIndicesComeFromTheBoundLoops) {
  CudaKernel k = EmitCuda(FusedCopy(), "fused_copy");
  EXPECT_EQ(k.symbol, "fused_copy");
  EXPECT_EQ(k.launch.grid, (std::array<int64_t, 3>{6, 1, 1}));
  EXPECT_EQ(k.launch.block, (std::array<int64_t, 3>{10, 4, 1}));
  EXPECT_EQ(k.num_inputs, 1);
  EXPECT_FALSE(k.has_prepare);
  EXPECT_EQ(k.static_shared_bytes, 0);
  // r0 = blockIdx.x / 2 (outermost, slowest), r1 = blockIdx.x % 2.
  EXPECT_NE(k.code.find("const int r0 = (int)blockIdx.x / 2;"), std::string::npos) << k.code;
  EXPECT_NE(k.code.find("const int r1 = ((int)blockIdx.x) % 2;"), std::string::npos) << k.code;
  EXPECT_NE(k.code.find("const int cy = (int)threadIdx.y;"), std::string::npos) << k.code;
  EXPECT_NE(k.code.find("const int cx = (int)threadIdx.x;"), std::string::npos) << k.code;
  EXPECT_NE(k.code.find("extern \"C\" __global__ void __launch_bounds__(40) fused_copy("
                        "const float* __restrict__ in, float* __restrict__ out)"),
            std::string::npos)
      << k.code;
  EXPECT_EQ(Count(k.code, "for ("), 0) << "every loop is bound:\n" << k.code;
}

TEST(EmitCuda, CooperativeCopiesAreSharedBetweenBarriers) {
  CudaKernel k = EmitCuda(Stencil(), "stencil");
  EXPECT_EQ(k.launch.ThreadsPerBlock(), 16);
  EXPECT_EQ(k.static_shared_bytes, (18 + 3) * 4);
  EXPECT_NE(k.code.find("__shared__ __align__(16) float S[18];"), std::string::npos) << k.code;
  EXPECT_NE(k.code.find("float acc[1];"), std::string::npos) << k.code;
  EXPECT_NE(k.code.find("for (int e_ = tid_; e_ < 18; e_ += 16)"), std::string::npos) << k.code;
  EXPECT_NE(k.code.find("for (int e_ = tid_; e_ < 3; e_ += 16)"), std::string::npos) << k.code;
  // Barrier, copy S, barrier (shared with the next chain), copy Ws, barrier: three in all.
  EXPECT_EQ(Count(k.code, "__syncthreads();"), 3) << k.code;
  const size_t first_barrier = k.code.find("__syncthreads();");
  EXPECT_LT(first_barrier, k.code.find("e_ < 18")) << k.code;
  // The padded window is guarded on both sides; the accumulation is an unrolled loop.
  EXPECT_NE(k.code.find("(16 * bx + c - 1) >= 0 && (16 * bx + c - 1) < 64 ? in[16 * bx + c - 1] "
                        ": 0.0f"),
            std::string::npos)
      << k.code;
  EXPECT_NE(k.code.find("#pragma unroll\n"), std::string::npos) << k.code;
  EXPECT_NE(k.code.find("fmaxf("), std::string::npos) << k.code;
}

TEST(EmitCuda, CooperativeCopyInsideALoopKeepsItsLeadingBarrier) {
  // Staging inside a serial loop: the first barrier protects the previous iteration's readers.
  LoopNest nest = Stencil();
  Node& tx = nest.body[0].body[0];
  std::vector<Node> rest(tx.body.begin(), tx.body.end());
  tx.body = {Node::MakeLoop({"it", 2}, std::move(rest))};
  CudaKernel k = EmitCuda(nest, "looped");
  const size_t loop = k.code.find("for (int it = 0; it < 2; ++it) {");
  ASSERT_NE(loop, std::string::npos) << k.code;
  EXPECT_LT(loop, k.code.find("__syncthreads();")) << k.code;
  EXPECT_EQ(Count(k.code, "__syncthreads();"), 3) << k.code;
}

TEST(EmitCuda, VectorisedLoopsUseFloat4WhereContiguousAndAligned) {
  CudaKernel aligned = EmitCuda(VectorCopy(8, 0), "vcopy");
  EXPECT_EQ(Count(aligned.code, "reinterpret_cast<const float4*>(&in["), 2) << aligned.code;
  EXPECT_EQ(Count(aligned.code, "reinterpret_cast<float4*>(&out["), 2) << aligned.code;
  // In row t of 12 columns starting at 4: still a multiple of 4 floats.
  CudaKernel shifted = EmitCuda(VectorCopy(12, 4), "vcopy");
  EXPECT_EQ(Count(shifted.code, "reinterpret_cast<const float4*>(&in["), 2) << shifted.code;
  // Starting at column 1: the loads are scalar lanes, the stores stay float4.
  CudaKernel misaligned = EmitCuda(VectorCopy(12, 1), "vcopy");
  EXPECT_EQ(Count(misaligned.code, "reinterpret_cast<const float4*>"), 0) << misaligned.code;
  EXPECT_NE(misaligned.code.find("in[12 * t + 2]"), std::string::npos) << misaligned.code;
  EXPECT_EQ(Count(misaligned.code, "reinterpret_cast<float4*>(&out["), 2) << misaligned.code;
  // Rows of 10 floats: row t starts at 10·t, not a multiple of 4.
  CudaKernel odd_rows = EmitCuda(VectorCopy(10, 0), "vcopy");
  EXPECT_EQ(Count(odd_rows.code, "float4*>(&in["), 0) << odd_rows.code;
  // A vectorised loop of 6 lanes: float2.
  LoopNest six = VectorCopy(8, 0);
  six.tensors[1].shape = {4, 6};
  six.body[0].body[0].loop.extent = 6;
  CudaKernel pairs = EmitCuda(six, "vcopy");
  EXPECT_EQ(Count(pairs.code, "reinterpret_cast<const float2*>(&in["), 3) << pairs.code;
}

TEST(EmitCuda, LargeTensorsGet64BitIndices) {
  EXPECT_NE(EmitCuda(FusedCopy(), "small").code.find("const int r0"), std::string::npos);
  LoopNest big = FusedCopy();
  // 6 rows of 2^29 columns: 3·2^30 elements, beyond 32-bit indices.
  for (int t : {0, 1}) big.tensors[t].shape = {6, int64_t{1} << 29};
  big.body[0].body[0].body[0].loop.extent = int64_t{1} << 19;  // cy
  big.body[0].body[0].body[0].body[0].loop.extent = 1024;      // cx
  big.body[0].body[0].body[0].body[0].loop.kind = LoopKind::kSerial;
  Stmt& s = big.body[0].body[0].body[0].body[0].body[0].stmt;
  for (Access* a : {&s.dst, &s.a}) a->index[1] = E::Var("cy", 1024) + E::Var("cx");
  big.body[0].body[0].body[0].loop.kind = LoopKind::kSerial;
  CudaKernel k = EmitCuda(big, "big");
  EXPECT_NE(k.code.find("const long long r0"), std::string::npos) << k.code;
  EXPECT_NE(k.code.find("for (long long cy = 0;"), std::string::npos) << k.code;
}

TEST(EmitCuda, PrepareBodyBecomesASecondKernel) {
  LoopNest nest;
  nest.name = "scaled";
  int x = nest.AddTensor({"x", {32}, "N", DType::kFloat32, TensorRole::kInput, 0});
  int w = nest.AddTensor({"w", {32}, "N", DType::kFloat32, TensorRole::kInput, 1});
  nest.tensors[w].constant = true;
  int out = nest.AddTensor({"out", {32}, "N", DType::kFloat32, TensorRole::kOutput});
  int wp = nest.AddTensor({"wp", {32}, "N", DType::kFloat32, TensorRole::kPrepared});
  nest.prepare.push_back(Node::MakeLoop(
      {"pi", 32, LoopKind::kThreadX},
      {Node::MakeStmt(Stmt{StmtKind::kCopy, {wp, {E::Var("pi")}}, {w, {E::Var("pi")}}})}));
  int acc = nest.AddTensor({"acc", {1}, "1", DType::kFloat32, TensorRole::kTemp, -1, "i"});
  nest.tensors[acc].scope = MemoryScope::kLocal;
  nest.body.push_back(Node::MakeLoop(
      {"b", 2, LoopKind::kBlockX},
      {Node::MakeLoop(
          {"i", 16, LoopKind::kThreadX},
          {Node::MakeStmt(Stmt{StmtKind::kZero, {acc, {E::Const(0)}}}),
           Node::MakeStmt(Stmt{StmtKind::kMultiplyAdd,
                               {acc, {E::Const(0)}},
                               {x, {E::Var("b", 16) + E::Var("i")}},
                               {wp, {E::Var("b", 16) + E::Var("i")}}}),
           Node::MakeStmt(Stmt{
               StmtKind::kCopy, {out, {E::Var("b", 16) + E::Var("i")}}, {acc, {E::Const(0)}}})})}));
  CudaKernel k = EmitCuda(nest, "scaled");
  EXPECT_TRUE(k.has_prepare);
  EXPECT_EQ(k.prepared_floats, 32);
  EXPECT_EQ(k.num_inputs, 2);
  EXPECT_EQ(k.prepare_launch.block, (std::array<int64_t, 3>{32, 1, 1}));
  EXPECT_EQ(k.prepare_launch.grid, (std::array<int64_t, 3>{1, 1, 1}));
  EXPECT_EQ(k.launch.grid, (std::array<int64_t, 3>{2, 1, 1}));
  // The prepare kernel gets the constant input and writes the buffer; x is passed as null.
  EXPECT_NE(k.code.find("scaled_prepare(const float* __restrict__ unused_in0_, "
                        "const float* __restrict__ w, float* __restrict__ prepared_)"),
            std::string::npos)
      << k.code;
  EXPECT_NE(k.code.find("scaled(const float* __restrict__ x, const float* __restrict__ w, "
                        "const float* __restrict__ prepared_, float* __restrict__ out)"),
            std::string::npos)
      << k.code;
}

TEST(EmitCuda, RefusesBadSymbolsAndBrokenNests) {
  EXPECT_THROW(EmitCuda(FusedCopy(), "1abc"), Error);
  EXPECT_THROW(EmitCuda(FusedCopy(), "a-b"), Error);
  LoopNest parallel = FusedCopy();
  parallel.body[0].loop.kind = LoopKind::kParallel;
  EXPECT_THROW(EmitCuda(parallel, "k"), Error);
}

TEST(EmitCuda, EmittedKernelsCompileWithNvrtc) {
  if (!NvrtcAvailable()) GTEST_SKIP() << "NVRTC not available in this build";
  std::vector<LoopNest> nests = {FusedCopy(), Stencil(), VectorCopy(12, 4), VectorCopy(12, 1)};
  const std::vector<std::string> supported = NvrtcSupportedArchs();
  int compiled = 0;
  // CUDA 13's NVRTC no longer targets sm_70; the oldest it has stands in for it.
  for (const std::string arch : {"sm_75", "sm_80", "sm_90"}) {
    if (std::find(supported.begin(), supported.end(), arch) == supported.end()) continue;
    for (size_t i = 0; i < nests.size(); ++i) {
      CudaKernel k = EmitCuda(nests[i], "k" + std::to_string(i));
      CudaCompileResult r = CompileCuda(k.code, arch);
      ASSERT_TRUE(r.ok) << arch << "\n" << r.log << "\n" << k.code;
      ASSERT_EQ(r.resources.count(k.symbol), 1u) << r.log;
      // ptxas aligns each 16-byte-aligned tile: at most 15 bytes of padding per tile (≤ 2 here).
      EXPECT_GE(r.resources.at(k.symbol).shared_bytes, k.static_shared_bytes) << r.log;
      EXPECT_LT(r.resources.at(k.symbol).shared_bytes, k.static_shared_bytes + 2 * 16) << r.log;
      EXPECT_EQ(r.resources.at(k.symbol).spill_stores, 0) << r.log;
      ++compiled;
    }
  }
  EXPECT_GT(compiled, 0) << "none of sm_75, sm_80, sm_90 is supported by this NVRTC";
}

}  // namespace
}  // namespace glimpse
