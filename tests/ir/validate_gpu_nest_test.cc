// ValidateGpuNest: one well-formed nest, then one broken nest per rule of glimpse/gpu.h.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "glimpse/error.h"
#include "glimpse/loop_nest.h"

namespace glimpse {
namespace {

using E = AffineExpr;

// The message of the Error `fn` throws ("" when it throws none).
std::string ErrorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_REJECTED(nest, text)                                 \
  do {                                                              \
    std::string message_ = ErrorOf([&] { ValidateGpuNest(nest); }); \
    EXPECT_NE(message_.find(text), std::string::npos) << message_;  \
  } while (0)

// out[64] = in[64] through a shared tile per block: 4 blocks × 16 threads, a cooperative copy of
// 16 elements into S, then each thread copies its element of S out.
LoopNest TiledCopy() {
  LoopNest nest;
  nest.name = "copy";
  int in = nest.AddTensor({"in", {64}, "N", DType::kFloat32, TensorRole::kInput, 0});
  int out = nest.AddTensor({"out", {64}, "N", DType::kFloat32, TensorRole::kOutput});
  int s = nest.AddTensor({"S", {16}, "N", DType::kFloat32, TensorRole::kTemp, -1, "bx"});
  nest.tensors[s].scope = MemoryScope::kShared;
  Stmt load{StmtKind::kCopy, {s, {E::Var("c")}}, {in, {E::Var("bx", 16) + E::Var("c")}}};
  Stmt store{StmtKind::kCopy, {out, {E::Var("bx", 16) + E::Var("tx")}}, {s, {E::Var("tx")}}};
  nest.body.push_back(Node::MakeLoop(
      {"bx", 4, LoopKind::kBlockX},
      {Node::MakeLoop({"tx", 16, LoopKind::kThreadX},
                      {Node::MakeLoop({"c", 16, LoopKind::kCooperative}, {Node::MakeStmt(load)}),
                       Node::MakeStmt(store)})}));
  return nest;
}

Node& ThreadLoop(LoopNest& nest) { return nest.body[0].body[0]; }

TEST(ValidateGpuNest, AcceptsAWellFormedNest) {
  LoopNest nest = TiledCopy();
  EXPECT_NO_THROW(ValidateGpuNest(nest));
}

TEST(ValidateGpuNest, RejectsParallelLoops) {
  LoopNest nest = TiledCopy();
  ThreadLoop(nest).body.push_back(
      Node::MakeLoop({"p", 2, LoopKind::kParallel}, std::vector<Node>{}));
  EXPECT_REJECTED(nest, "parallel");
}

TEST(ValidateGpuNest, RejectsBindingsBelowTheLeadingChains) {
  LoopNest nest = TiledCopy();
  // A block-bound loop inside the thread-bound one.
  ThreadLoop(nest).body.push_back(
      Node::MakeLoop({"late", 2, LoopKind::kBlockY}, std::vector<Node>{}));
  EXPECT_REJECTED(nest, "'late' is bound to blockIdx.y");
  // A thread-bound loop below a serial loop.
  LoopNest serial = TiledCopy();
  ThreadLoop(serial).body.push_back(Node::MakeLoop(
      {"s", 2}, {Node::MakeLoop({"ty", 2, LoopKind::kThreadY}, std::vector<Node>{})}));
  EXPECT_REJECTED(serial, "'ty' is bound to threadIdx.y");
}

TEST(ValidateGpuNest, RejectsTopLevelNodesWithDifferentLaunchShapes) {
  LoopNest nest = TiledCopy();
  int out = nest.TensorIndex("out");
  Stmt zero{StmtKind::kZero, {out, {E::Var("bx2", 16) + E::Var("tx2")}}};
  // Same grid, block of 8 × 2 threads instead of 16: fine only if the product matches per axis.
  nest.body.push_back(
      Node::MakeLoop({"bx2", 4, LoopKind::kBlockX},
                     {Node::MakeLoop({"tx2", 16, LoopKind::kThreadX}, {Node::MakeStmt(zero)})}));
  EXPECT_NO_THROW(ValidateGpuNest(nest));
  nest.FindLoop("tx2").kind = LoopKind::kThreadY;
  EXPECT_REJECTED(nest, "same grid and block");
}

TEST(ValidateGpuNest, RejectsCooperativeLoopsOutsideTheThreads) {
  LoopNest above = TiledCopy();
  // The copy moved above the thread-bound loop: bx's body is [c, tx].
  Node copy = ThreadLoop(above).body[0];
  ThreadLoop(above).body.erase(ThreadLoop(above).body.begin());
  above.body[0].body.insert(above.body[0].body.begin(), copy);
  EXPECT_REJECTED(above, "cooperative loop 'c' is outside the thread-bound loops");
  LoopNest no_threads = TiledCopy();
  no_threads.body[0].body[0].loop.kind = LoopKind::kSerial;  // tx serial: no thread chain
  EXPECT_REJECTED(no_threads, "cooperative loop 'c' is outside the thread-bound loops");
}

TEST(ValidateGpuNest, RejectsCooperativeChainsThatDoMoreThanCopyIntoSharedTiles) {
  LoopNest mac = TiledCopy();
  Stmt& load = ThreadLoop(mac).body[0].body[0].stmt;
  load.kind = StmtKind::kMultiplyAdd;
  load.b = load.a;
  EXPECT_REJECTED(mac, "other than a copy");

  LoopNest global = TiledCopy();
  global.tensors[global.TensorIndex("S")].scope = MemoryScope::kGlobal;
  EXPECT_REJECTED(global, "writes 'S', which is not a shared tensor");

  LoopNest per_thread = TiledCopy();
  Stmt& copy = ThreadLoop(per_thread).body[0].body[0].stmt;
  copy.a.index[0] = E::Var("bx", 16) + E::Var("tx");
  copy.dst.index[0] = E::Var("tx");
  EXPECT_REJECTED(per_thread, "with thread-bound loop 'tx'");

  LoopNest bound_inside = TiledCopy();
  ThreadLoop(bound_inside).body[0].body[0] = Node::MakeLoop(
      {"inner", 1, LoopKind::kCooperative}, {ThreadLoop(bound_inside).body[0].body[0]});
  // A perfectly nested cooperative chain is fine …
  EXPECT_NO_THROW(ValidateGpuNest(bound_inside));
  // … a cooperative loop after a serial one inside the chain is not.
  Node& c = ThreadLoop(bound_inside).body[0];
  c.body[0] = Node::MakeLoop({"mid", 1}, {c.body[0]});
  EXPECT_REJECTED(bound_inside, "contains loop 'inner' of kind cooperative");
}

TEST(ValidateGpuNest, RejectsMisplacedTemporaries) {
  LoopNest shared = TiledCopy();
  shared.tensors[shared.TensorIndex("S")].scope_loop = "tx";
  EXPECT_REJECTED(shared, "scope_loop must be the innermost block-bound loop");

  LoopNest local = TiledCopy();
  int acc = local.AddTensor({"acc", {1}, "1", DType::kFloat32, TensorRole::kTemp, -1, "bx"});
  local.tensors[acc].scope = MemoryScope::kLocal;
  EXPECT_REJECTED(local, "'acc' is local, so its scope_loop must be a thread-bound loop");
  local.tensors[acc].scope_loop = "tx";
  EXPECT_NO_THROW(ValidateGpuNest(local));

  LoopNest input = TiledCopy();
  input.tensors[input.TensorIndex("in")].scope = MemoryScope::kShared;
  EXPECT_REJECTED(input, "for temporaries only");

  LoopNest kernel_wide = TiledCopy();
  kernel_wide.AddTensor({"scratch", {8}, "N", DType::kFloat32, TensorRole::kTemp});
  EXPECT_REJECTED(kernel_wide, "no global scratch");
}

TEST(ValidateGpuNest, ChecksThePrepareBodyToo) {
  LoopNest nest = TiledCopy();
  nest.tensors[nest.TensorIndex("in")].constant = true;
  int packed = nest.AddTensor({"Wp", {64}, "N", DType::kFloat32, TensorRole::kPrepared});
  Stmt pack{StmtKind::kCopy, {packed, {E::Var("pi")}}, {nest.TensorIndex("in"), {E::Var("pi")}}};
  nest.prepare.push_back(Node::MakeLoop({"pi", 64, LoopKind::kParallel}, {Node::MakeStmt(pack)}));
  EXPECT_REJECTED(nest, "prepare: loop 'pi' is parallel");
  nest.prepare[0].loop.kind = LoopKind::kThreadX;
  EXPECT_NO_THROW(ValidateGpuNest(nest));
}

TEST(ValidateGpuNest, RunsTheGenericChecksFirst) {
  LoopNest nest = TiledCopy();
  // Out of bounds: the store's index reaches 64 + 15.
  ThreadLoop(nest).body[1].stmt.dst.index[0] = E::Var("bx", 16) + E::Var("tx") + E::Const(16);
  EXPECT_THROW(ValidateGpuNest(nest), Error);
}

}  // namespace
}  // namespace glimpse
