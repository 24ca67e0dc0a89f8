// ValidateGpuNest: the structural rules of a GPU nest (glimpse/gpu.h). One pass per body
// (`body`, then `prepare`): each top-level node is split into its block chain, thread chain and
// the rest; the launch shape of every node is compared with the first one's; the rest is walked
// for misplaced bindings, cooperative chains and temporaries' scopes.
#include <array>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/loop_nest.h"

namespace glimpse {

namespace {

// Per axis, the product of the extents of the loops that bind it (1 when none does).
using AxisExtents = std::array<int64_t, 3>;

std::string ExtentsText(const AxisExtents& e) {
  return "(" + std::to_string(e[0]) + ", " + std::to_string(e[1]) + ", " + std::to_string(e[2]) +
         ")";
}

class GpuNestValidator {
 public:
  GpuNestValidator(const LoopNest& nest, const std::vector<Node>& body, const char* which)
      : nest_(nest), body_(body), which_(which) {}

  // Fills the scope sets of this body (used by the tensor checks) and throws on the first broken
  // rule.
  void Run() {
    bool first = true;
    AxisExtents grid0{1, 1, 1}, block0{1, 1, 1};
    for (const Node& top : body_) {
      AxisExtents grid{1, 1, 1}, block{1, 1, 1};
      const Node* node = &top;
      std::string innermost_block;
      // The block chain: each bound loop's body is exactly the next node.
      while (node->is_loop && IsBlockBinding(node->loop.kind)) {
        grid[BindingAxis(node->loop.kind)] *= node->loop.extent;
        innermost_block = node->loop.name;
        if (!IsPerfect(*node)) break;
        node = &node->body[0];
      }
      if (!innermost_block.empty()) block_scopes_.insert(innermost_block);
      if (node->is_loop && IsBlockBinding(node->loop.kind)) {
        // The chain ended on a block loop whose body is not a single node: fine, the thread chain
        // is empty and its body is "the rest".
        CheckRest(node->body, /*in_threads=*/false);
      } else {
        bool in_threads = false;
        while (node->is_loop && IsThreadBinding(node->loop.kind)) {
          block[BindingAxis(node->loop.kind)] *= node->loop.extent;
          thread_loops_.insert(node->loop.name);
          thread_scopes_.insert(node->loop.name);
          in_threads = true;
          if (!IsPerfect(*node)) break;
          node = &node->body[0];
        }
        if (node->is_loop && IsThreadBinding(node->loop.kind)) {
          CheckRest(node->body, in_threads);
        } else {
          CheckRest({*node}, in_threads);
        }
      }
      if (first) {
        grid0 = grid;
        block0 = block;
        first = false;
      } else if (grid != grid0 || block != block0) {
        throw Error(std::string("GPU nest '") + nest_.name + "' " + which_ +
                    ": every top-level loop must bind the same grid and block; '" + LoopName(top) +
                    "' binds grid " + ExtentsText(grid) + " block " + ExtentsText(block) +
                    ", the first binds grid " + ExtentsText(grid0) + " block " +
                    ExtentsText(block0));
      }
    }
  }

  const std::set<std::string>& block_scopes() const { return block_scopes_; }
  const std::set<std::string>& thread_scopes() const { return thread_scopes_; }

 private:
  static bool IsPerfect(const Node& node) { return node.body.size() == 1 && node.body[0].is_loop; }
  static std::string LoopName(const Node& node) {
    return node.is_loop ? node.loop.name : std::string("(statement)");
  }

  [[noreturn]] void Fail(const std::string& what) const {
    throw Error(std::string("GPU nest '") + nest_.name + "' " + which_ + ": " + what);
  }

  // The nodes below the leading chains: no bindings, no kParallel; cooperative chains only inside
  // the thread-bound loops and well formed; loops inside the thread chain are thread scopes.
  void CheckRest(const std::vector<Node>& nodes, bool in_threads) {
    for (const Node& node : nodes) {
      if (!node.is_loop) continue;
      const Loop& loop = node.loop;
      if (IsBlockBinding(loop.kind) || IsThreadBinding(loop.kind)) {
        Fail("loop '" + loop.name + "' is bound to " + LoopKindName(loop.kind) +
             " below unbound loops or statements; block-bound loops must form the chain at the "
             "top of each top-level loop, thread-bound loops the chain right below it");
      }
      if (loop.kind == LoopKind::kParallel) {
        Fail("loop '" + loop.name + "' is parallel; GPU nests use block/thread bindings instead");
      }
      if (in_threads) thread_scopes_.insert(loop.name);
      if (loop.kind == LoopKind::kCooperative) {
        if (!in_threads) {
          Fail("cooperative loop '" + loop.name + "' is outside the thread-bound loops");
        }
        CheckCooperative(node);
        continue;
      }
      CheckRest(node.body, in_threads);
    }
  }

  // A cooperative chain: kCooperative loops, each one's body the next, then loops of other
  // (unbound, non-cooperative) kinds and kCopy statements into kShared tensors whose indices
  // depend on no thread-bound loop.
  void CheckCooperative(const Node& chain) {
    const Node* node = &chain;
    while (IsPerfect(*node) && node->body[0].loop.kind == LoopKind::kCooperative) {
      thread_scopes_.insert(node->body[0].loop.name);
      node = &node->body[0];
    }
    CheckCopies(chain.loop.name, node->body);
  }

  void CheckCopies(const std::string& chain, const std::vector<Node>& nodes) {
    for (const Node& node : nodes) {
      if (node.is_loop) {
        const LoopKind kind = node.loop.kind;
        if (kind == LoopKind::kCooperative || kind == LoopKind::kParallel || IsBlockBinding(kind) ||
            IsThreadBinding(kind)) {
          Fail("the cooperative chain of '" + chain + "' contains loop '" + node.loop.name +
               "' of kind " + LoopKindName(kind) +
               "; a chain is perfectly nested cooperative loops, then serial, unrolled or "
               "vectorised loops");
        }
        thread_scopes_.insert(node.loop.name);
        CheckCopies(chain, node.body);
        continue;
      }
      const Stmt& s = node.stmt;
      if (s.kind != StmtKind::kCopy) {
        Fail("the cooperative chain of '" + chain + "' contains a statement other than a copy");
      }
      const TensorDecl& dst = nest_.tensors.at(s.dst.tensor);
      if (dst.scope != MemoryScope::kShared) {
        Fail("the cooperative chain of '" + chain + "' writes '" + dst.name +
             "', which is not a shared tensor");
      }
      std::vector<const Access*> accesses = StmtReads(s);
      accesses.insert(accesses.begin(), &s.dst);
      for (const Access* access : accesses) {
        for (const AffineExpr& e : access->index) {
          for (const auto& [var, coefficient] : e.terms) {
            if (thread_loops_.count(var) != 0) {
              Fail("the cooperative chain of '" + chain + "' indexes '" +
                   nest_.tensors.at(access->tensor).name + "' with thread-bound loop '" + var +
                   "'; a shared tile is the same for every thread of the block");
            }
          }
        }
      }
    }
  }

  const LoopNest& nest_;
  const std::vector<Node>& body_;
  const char* which_;
  std::set<std::string> thread_loops_;   // thread-bound loops
  std::set<std::string> block_scopes_;   // innermost block-bound loop of each top-level node
  std::set<std::string> thread_scopes_;  // thread-bound loops and every loop inside them
};

}  // namespace

void ValidateGpuNest(const LoopNest& nest) {
  nest.Validate();
  if (nest.body.empty()) throw Error("GPU nest '" + nest.name + "' has an empty body");
  GpuNestValidator body(nest, nest.body, "body");
  body.Run();
  GpuNestValidator prepare(nest, nest.prepare, "prepare");
  prepare.Run();

  auto in = [](const std::set<std::string>& set, const std::string& name) {
    return set.count(name) != 0;
  };
  for (const TensorDecl& t : nest.tensors) {
    const std::string where = "GPU nest '" + nest.name + "': tensor '" + t.name + "'";
    if (t.scope != MemoryScope::kGlobal && t.role != TensorRole::kTemp) {
      throw Error(where + " is " + MemoryScopeName(t.scope) +
                  "; shared and local placement is for temporaries only");
    }
    if (t.role != TensorRole::kTemp) continue;
    const bool block_scope =
        in(body.block_scopes(), t.scope_loop) || in(prepare.block_scopes(), t.scope_loop);
    const bool thread_scope =
        in(body.thread_scopes(), t.scope_loop) || in(prepare.thread_scopes(), t.scope_loop);
    // A shared or local temporary's scope_loop against the loop its placement needs.
    auto require_scope = [&](bool placed, const char* needed) {
      if (!placed) {
        throw Error(where + " is " + MemoryScopeName(t.scope) + ", so its scope_loop must be " +
                    needed + ", not '" + t.scope_loop + "'");
      }
    };
    switch (t.scope) {
      case MemoryScope::kShared:
        require_scope(block_scope, "the innermost block-bound loop");
        break;
      case MemoryScope::kLocal:
        require_scope(thread_scope, "a thread-bound loop or a loop inside one");
        break;
      case MemoryScope::kGlobal:
        // A kernel has no scratch buffer in global memory (kernel ABI): a temporary lives in
        // registers/local memory or in shared memory.
        if (!thread_scope) {
          throw Error(where + " is a global temporary scoped to '" + t.scope_loop +
                      "'; a GPU kernel has no global scratch: make it shared (one tile per block) "
                      "or local (per thread, scoped inside the thread-bound loops)");
        }
        break;
    }
  }
}

}  // namespace glimpse
