#include "glimpse/loop_nest.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "glimpse/enum_name.h"
#include "glimpse/error.h"

namespace glimpse {

int64_t TensorDecl::NumElements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

AffineExpr AffineExpr::Const(int64_t value) { return AffineExpr{value, {}}; }

AffineExpr AffineExpr::Var(const std::string& loop, int64_t coefficient) {
  AffineExpr e;
  if (coefficient != 0) e.terms.emplace_back(loop, coefficient);
  return e;
}

AffineExpr AffineExpr::operator+(const AffineExpr& other) const {
  AffineExpr sum = *this;
  sum.constant += other.constant;
  for (const auto& [loop, c] : other.terms) {
    auto it = std::find_if(sum.terms.begin(), sum.terms.end(),
                           [&wanted = loop](const auto& t) { return t.first == wanted; });
    if (it == sum.terms.end()) {
      sum.terms.emplace_back(loop, c);
    } else {
      it->second += c;
      if (it->second == 0) sum.terms.erase(it);
    }
  }
  return sum;
}

AffineExpr AffineExpr::operator*(int64_t factor) const {
  if (factor == 0) return Const(0);
  AffineExpr product = *this;
  product.constant *= factor;
  for (auto& term : product.terms) term.second *= factor;
  return product;
}

int64_t AffineExpr::CoefficientOf(const std::string& loop) const {
  for (const auto& [name, c] : terms) {
    if (name == loop) return c;
  }
  return 0;
}

AffineExpr AffineExpr::Substitute(const std::string& loop, const AffineExpr& replacement) const {
  int64_t c = CoefficientOf(loop);
  if (c == 0) return *this;
  AffineExpr rest = *this;
  rest.terms.erase(std::find_if(rest.terms.begin(), rest.terms.end(),
                                [&](const auto& t) { return t.first == loop; }));
  return rest + replacement * c;
}

const char* LoopKindName(LoopKind kind) {
  static constexpr const char* kNames[] = {
      "serial",     "parallel",    "vectorized",  "unrolled",    "blockIdx.x", "blockIdx.y",
      "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z", "cooperative"};
  static_assert(std::size(kNames) == static_cast<size_t>(LoopKind::kCooperative) + 1);
  return EnumName(kind, kNames, "serial");
}

bool IsBlockBinding(LoopKind kind) {
  return kind == LoopKind::kBlockX || kind == LoopKind::kBlockY || kind == LoopKind::kBlockZ;
}

bool IsThreadBinding(LoopKind kind) {
  return kind == LoopKind::kThreadX || kind == LoopKind::kThreadY || kind == LoopKind::kThreadZ;
}

int BindingAxis(LoopKind kind) {
  switch (kind) {
    case LoopKind::kBlockX:
    case LoopKind::kThreadX:
      return 0;
    case LoopKind::kBlockY:
    case LoopKind::kThreadY:
      return 1;
    case LoopKind::kBlockZ:
    case LoopKind::kThreadZ:
      return 2;
    default:
      return -1;
  }
}

const char* MemoryScopeName(MemoryScope scope) {
  static constexpr const char* kNames[] = {"global", "shared", "local"};
  static_assert(std::size(kNames) == static_cast<size_t>(MemoryScope::kLocal) + 1);
  return EnumName(scope, kNames, "global");
}

Node Node::MakeLoop(Loop loop, std::vector<Node> body) {
  Node node;
  node.is_loop = true;
  node.loop = std::move(loop);
  node.body = std::move(body);
  return node;
}

Node Node::MakeLoop(Loop loop, Node only_child) {
  std::vector<Node> body;
  body.push_back(std::move(only_child));
  return MakeLoop(std::move(loop), std::move(body));
}

Node Node::MakeStmt(Stmt stmt) {
  Node node;
  node.stmt = std::move(stmt);
  return node;
}

Node NestLoops(const std::vector<Loop>& loops, std::vector<Node> body) {
  if (loops.empty()) throw Error("NestLoops: no loops");
  for (auto it = loops.rbegin(); it != loops.rend(); ++it) {
    Node loop = Node::MakeLoop(*it, std::move(body));
    body.clear();
    body.push_back(std::move(loop));
  }
  return std::move(body.front());
}

AffineExpr MixedRadix(const std::vector<std::string>& vars, const std::vector<int64_t>& extents) {
  if (vars.size() != extents.size()) throw Error("MixedRadix: one extent per variable");
  AffineExpr position;
  int64_t stride = 1;
  for (size_t i = vars.size(); i-- > 0;) {
    position = position + AffineExpr::Var(vars[i], stride);
    stride *= extents[i];
  }
  return position;
}

int LoopNest::AddTensor(TensorDecl tensor) {
  tensors.push_back(std::move(tensor));
  return static_cast<int>(tensors.size()) - 1;
}

int LoopNest::TensorIndex(const std::string& tensor_name) const {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].name == tensor_name) return static_cast<int>(i);
  }
  throw Error("loop nest '" + name + "' has no tensor '" + tensor_name + "'");
}

const TensorDecl& LoopNest::Output() const {
  for (const TensorDecl& t : tensors) {
    if (t.role == TensorRole::kOutput) return t;
  }
  throw Error("loop nest '" + name + "' has no output tensor");
}

namespace {

// Calls fn(node, enclosing loops) for every node, pre-order.
void Walk(const std::vector<Node>& nodes, std::vector<const Loop*>& stack,
          const std::function<void(const Node&, const std::vector<const Loop*>&)>& fn) {
  for (const Node& node : nodes) {
    fn(node, stack);
    if (node.is_loop) {
      stack.push_back(&node.loop);
      Walk(node.body, stack, fn);
      stack.pop_back();
    }
  }
}

Node* FindNode(std::vector<Node>& nodes, const std::string& name) {
  for (Node& node : nodes) {
    if (!node.is_loop) continue;
    if (node.loop.name == name) return &node;
    if (Node* found = FindNode(node.body, name)) return found;
  }
  return nullptr;
}

// The loop node named `name` in the nest's main body or its prepare body.
Node* FindNodeInNest(LoopNest& nest, const std::string& name) {
  if (Node* node = FindNode(nest.body, name)) return node;
  return FindNode(nest.prepare, name);
}

void SubstituteAccess(Access& access, const std::string& loop, const AffineExpr& replacement) {
  for (AffineExpr& e : access.index) {
    // Most indices do not use the loop: leave them be rather than copy them onto themselves.
    if (e.DependsOn(loop)) e = e.Substitute(loop, replacement);
  }
}

void SubstituteTree(std::vector<Node>& nodes, const std::string& loop,
                    const AffineExpr& replacement) {
  for (Node& node : nodes) {
    if (node.is_loop) {
      for (auto* bound : {&node.loop.useful_begin, &node.loop.useful_end}) {
        if (*bound && (*bound)->DependsOn(loop)) *bound = (*bound)->Substitute(loop, replacement);
      }
      SubstituteTree(node.body, loop, replacement);
      continue;
    }
    SubstituteAccess(node.stmt.dst, loop, replacement);
    SubstituteAccess(node.stmt.a, loop, replacement);
    SubstituteAccess(node.stmt.b, loop, replacement);
    if (node.stmt.bias) SubstituteAccess(*node.stmt.bias, loop, replacement);
    if (node.stmt.residual) SubstituteAccess(*node.stmt.residual, loop, replacement);
  }
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

const Node& LoopNest::FindLoopNode(const std::string& loop_name) const {
  const Node* node = FindNodeInNest(const_cast<LoopNest&>(*this), loop_name);
  if (node == nullptr) {
    throw Error("loop nest '" + name + "' has no loop '" + loop_name +
                "'; loops: " + JoinNames(LoopNames()));
  }
  return *node;
}

Loop& LoopNest::FindLoop(const std::string& loop_name) {
  return const_cast<Node&>(std::as_const(*this).FindLoopNode(loop_name)).loop;
}

const Loop& LoopNest::FindLoop(const std::string& loop_name) const {
  return FindLoopNode(loop_name).loop;
}

bool LoopNest::HasLoop(const std::string& loop_name) const {
  return FindNodeInNest(const_cast<LoopNest&>(*this), loop_name) != nullptr;
}

bool LoopNest::HasPrepare() const {
  for (const TensorDecl& t : tensors) {
    if (t.role == TensorRole::kPrepared) return true;
  }
  return false;
}

int64_t LoopNest::PreparedOffset(int tensor) const {
  int64_t offset = 0;
  for (int i = 0; i < static_cast<int>(tensors.size()); ++i) {
    if (tensors[i].role != TensorRole::kPrepared) continue;
    if (i == tensor) return offset;
    offset += (tensors[i].NumElements() + 15) / 16 * 16;
  }
  if (tensor >= 0)
    throw Error("loop nest '" + name + "': tensor " + std::to_string(tensor) +
                " is not a prepared tensor");
  return offset;
}

int64_t LoopNest::PreparedFloats() const { return PreparedOffset(-1); }

int64_t LoopNest::HeapTempFloats() const {
  int64_t floats = 0;
  for (const TensorDecl& t : tensors) {
    if (t.role == TensorRole::kTemp && t.scope_loop.empty()) floats += t.NumElements();
  }
  return floats;
}

int LoopNest::NumInputs() const {
  int count = 0;
  for (const TensorDecl& t : tensors) {
    if (t.role == TensorRole::kInput) count = std::max(count, t.input_index + 1);
  }
  return count;
}

std::vector<std::string> LoopNest::LoopNames() const {
  std::vector<std::string> names;
  std::vector<const Loop*> stack;
  for (const auto* nodes : {&body, &prepare}) {
    Walk(*nodes, stack, [&](const Node& node, const std::vector<const Loop*>&) {
      if (node.is_loop) names.push_back(node.loop.name);
    });
  }
  return names;
}

void LoopNest::Validate() const {
  std::set<std::string> seen;
  for (const std::string& loop : LoopNames()) {
    if (!seen.insert(loop).second) throw Error("loop nest '" + name + "': duplicate loop " + loop);
  }
  auto check = [&](const Access& access, const std::vector<const Loop*>& stack, bool is_load) {
    if (access.tensor < 0 || access.tensor >= static_cast<int>(tensors.size())) {
      throw Error("loop nest '" + name + "': access to an undeclared tensor");
    }
    const TensorDecl& t = tensors[access.tensor];
    if (access.index.size() != t.shape.size()) {
      throw Error("loop nest '" + name + "': access to " + t.name + " has the wrong rank");
    }
    for (size_t d = 0; d < access.index.size(); ++d) {
      const AffineExpr& e = access.index[d];
      int64_t lo = e.constant, hi = e.constant;
      for (const auto& [loop, c] : e.terms) {
        auto it = std::find_if(stack.begin(), stack.end(),
                               [&wanted = loop](const Loop* l) { return l->name == wanted; });
        if (it == stack.end()) {
          throw Error("loop nest '" + name + "': " + t.name + " is indexed by " + loop +
                      " outside that loop");
        }
        int64_t span = c * ((*it)->extent - 1);
        (span > 0 ? hi : lo) += span;
      }
      // zero_outside: a load reads 0 there, a store is skipped (Access::zero_outside).
      if (!access.zero_outside && (lo < 0 || hi >= t.shape[d])) {
        throw Error("loop nest '" + name + "': " + t.name + " dimension " + std::to_string(d) +
                    " is indexed in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                    "], outside [0, " + std::to_string(t.shape[d]) + ")");
      }
    }
  };
  // What each body may read and write (see LoopNest::prepare).
  auto check_roles = [&](const Stmt& s, bool in_prepare) {
    auto role_error = [&](const Access& access, const char* what) {
      throw Error("loop nest '" + name + "': " + (in_prepare ? "prepare" : "body") + " " + what +
                  " " + tensors[access.tensor].name);
    };
    const TensorDecl& dst = tensors[s.dst.tensor];
    if (in_prepare ? dst.role != TensorRole::kPrepared
                   : dst.role != TensorRole::kOutput && dst.role != TensorRole::kTemp) {
      role_error(s.dst, "writes");
    }
    if (!in_prepare) return;
    for (const Access* read : StmtReads(s)) {
      const TensorDecl& t = tensors[read->tensor];
      bool allowed = (t.role == TensorRole::kInput && t.constant) ||
                     t.role == TensorRole::kPrepared || t.role == TensorRole::kLiteral;
      if (!allowed) role_error(*read, "reads the non-constant tensor");
    }
  };
  for (const TensorDecl& t : tensors) {
    if (t.role == TensorRole::kLiteral &&
        static_cast<int64_t>(t.values.size()) != t.NumElements()) {
      throw Error("loop nest '" + name + "': literal table " + t.name + " has " +
                  std::to_string(t.values.size()) + " values, its shape needs " +
                  std::to_string(t.NumElements()));
    }
    for (float v : t.values) {
      if (!std::isfinite(v)) {
        throw Error("loop nest '" + name + "': literal table " + t.name +
                    " holds a value that is not finite");
      }
    }
  }
  std::vector<const Loop*> stack;
  for (bool in_prepare : {false, true}) {
    Walk(
        in_prepare ? prepare : body, stack,
        [&](const Node& node, const std::vector<const Loop*>& loops) {
          if (node.is_loop) {
            if (node.loop.extent < 1) throw Error("loop " + node.loop.name + " has extent < 1");
            for (const auto* bound : {&node.loop.useful_begin, &node.loop.useful_end}) {
              if (!*bound) continue;
              for (const auto& [var, c] : (*bound)->terms) {
                if (std::none_of(loops.begin(), loops.end(),
                                 [&var = var](const Loop* l) { return l->name == var; })) {
                  throw Error("loop nest '" + name + "': the useful range of loop " +
                              node.loop.name + " depends on " + var + ", not a loop around it");
                }
              }
            }
            return;
          }
          const Stmt& s = node.stmt;
          if (s.kind == StmtKind::kPrefetch) {
            // A hint that writes nothing: its element must exist unless it is skipped outside.
            if (in_prepare) {
              throw Error("loop nest '" + name + "': a prefetch in prepare; accepted: in the body");
            }
            check(s.a, loops, true);
            if (tensors[s.a.tensor].role == TensorRole::kLiteral) {
              throw Error("loop nest '" + name + "': a prefetch of the literal table " +
                          tensors[s.a.tensor].name);
            }
            return;
          }
          check(s.dst, loops, false);
          for (const Access* read : StmtReads(s)) check(*read, loops, true);
          if (s.relu && s.relu6) {
            throw Error("loop nest '" + name + "': a copy into " + tensors[s.dst.tensor].name +
                        " applies both relu and relu6; accepted: one of them");
          }
          check_roles(s, in_prepare);
        });
  }
}

void SplitLoop(LoopNest& nest, const std::string& name, const std::vector<int64_t>& factors,
               const std::vector<std::string>& names) {
  if (factors.empty() || factors.size() != names.size()) {
    throw Error("split of loop " + name + ": need as many names as factors");
  }
  Node* node = FindNodeInNest(nest, name);
  if (node == nullptr) nest.FindLoop(name);  // throws the error listing the loops
  int64_t product = 1;
  for (int64_t f : factors) product *= f;
  if (product != node->loop.extent || product < 1) {
    throw Error("split of loop " + name + ": factors multiply to " + std::to_string(product) +
                ", the extent is " + std::to_string(node->loop.extent));
  }
  for (const std::string& n : names) {
    if (n != name && nest.HasLoop(n)) throw Error("split of loop " + name + ": " + n + " exists");
  }
  AffineExpr replacement;
  int64_t stride = 1;
  for (size_t i = factors.size(); i-- > 0;) {
    replacement = replacement + AffineExpr::Var(names[i], stride);
    stride *= factors[i];
  }
  std::vector<Node> inner = std::move(node->body);
  SubstituteTree(inner, name, replacement);
  LoopKind kind = node->loop.kind;
  for (size_t i = factors.size(); i-- > 0;) {
    Node loop = Node::MakeLoop(Loop{names[i], factors[i], i == 0 ? kind : LoopKind::kSerial},
                               std::move(inner));
    inner.clear();
    inner.push_back(std::move(loop));
  }
  *node = std::move(inner.front());
}

void ReorderLoops(LoopNest& nest, const std::vector<std::string>& order) {
  if (order.size() < 2) return;
  std::set<std::string> wanted(order.begin(), order.end());
  if (wanted.size() != order.size()) throw Error("reorder: a loop is named twice");
  // The outermost of the named loops is the first one met in pre-order.
  Node* top = nullptr;
  for (const std::string& loop : nest.LoopNames()) {
    if (wanted.count(loop)) {
      top = FindNodeInNest(nest, loop);
      break;
    }
  }
  if (top == nullptr) nest.FindLoop(order.front());  // throws
  std::vector<Loop> chain;
  Node* cursor = top;
  while (true) {
    chain.push_back(cursor->loop);
    if (chain.size() == order.size()) break;
    if (cursor->body.size() != 1 || !cursor->body.front().is_loop) {
      throw Error("reorder: loops " + JoinNames(order) + " are not a perfect chain of loops");
    }
    cursor = &cursor->body.front();
  }
  for (const Loop& loop : chain) {
    if (!wanted.count(loop.name)) {
      throw Error("reorder: loop " + loop.name + " sits inside the chain " + JoinNames(order));
    }
  }
  std::vector<Node> inner = std::move(cursor->body);
  for (size_t i = order.size(); i-- > 0;) {
    const Loop& loop = *std::find_if(chain.begin(), chain.end(),
                                     [&](const Loop& l) { return l.name == order[i]; });
    Node node = Node::MakeLoop(loop, std::move(inner));
    inner.clear();
    inner.push_back(std::move(node));
  }
  *top = std::move(inner.front());
}

namespace {

bool BodyHasPrefetch(const std::vector<Node>& body) {
  return std::any_of(body.begin(), body.end(), [](const Node& node) {
    return node.is_loop ? BodyHasPrefetch(node.body) : node.stmt.kind == StmtKind::kPrefetch;
  });
}

// Drops the prefetches of `body`, and the loops that held nothing else.
void DropPrefetches(std::vector<Node>& body) {
  std::vector<Node> kept;
  kept.reserve(body.size());
  for (Node& node : body) {
    if (node.is_loop) {
      const bool had_nodes = !node.body.empty();
      DropPrefetches(node.body);
      if (had_nodes && node.body.empty()) continue;
    } else if (node.stmt.kind == StmtKind::kPrefetch) {
      continue;
    }
    kept.push_back(std::move(node));
  }
  body = std::move(kept);
}

}  // namespace

bool HasPrefetch(const LoopNest& nest) {
  return BodyHasPrefetch(nest.body) || BodyHasPrefetch(nest.prepare);
}

LoopNest WithoutPrefetches(const LoopNest& nest) {
  LoopNest copy = nest;
  DropPrefetches(copy.body);
  DropPrefetches(copy.prepare);
  return copy;
}

void SetLoopKind(LoopNest& nest, const std::string& name, LoopKind kind) {
  nest.FindLoop(name).kind = kind;
}

namespace {

std::string AffineToString(const AffineExpr& e) {
  std::ostringstream out;
  bool first = true;
  for (const auto& [loop, c] : e.terms) {
    if (!first) out << " + ";
    first = false;
    if (c != 1) out << c << "*";
    out << loop;
  }
  if (e.constant != 0 || first) out << (first ? "" : " + ") << e.constant;
  return out.str();
}

std::string AccessToString(const LoopNest& nest, const Access& access) {
  std::string out = nest.tensors[access.tensor].name + "[";
  for (size_t d = 0; d < access.index.size(); ++d) {
    out += (d ? ", " : "") + AffineToString(access.index[d]);
  }
  return out + "]";
}

void Dump(const LoopNest& nest, const std::vector<Node>& nodes, int depth, std::ostream& out) {
  for (const Node& node : nodes) {
    out << std::string(2 * depth, ' ');
    if (node.is_loop) {
      out << "for " << node.loop.name << " in 0.." << node.loop.extent;
      if (node.loop.kind != LoopKind::kSerial) out << " (" << LoopKindName(node.loop.kind) << ")";
      if (node.loop.useful_begin || node.loop.useful_end) {
        out << " useful ["
            << (node.loop.useful_begin ? AffineToString(*node.loop.useful_begin) : "0") << ", "
            << (node.loop.useful_end ? AffineToString(*node.loop.useful_end)
                                     : std::to_string(node.loop.extent))
            << ")";
      }
      if (node.loop.peel_edges) out << " peel edges";
      if (node.loop.load_pointers) out << " load pointers";
      out << "\n";
      Dump(nest, node.body, depth + 1, out);
      continue;
    }
    const Stmt& s = node.stmt;
    if (s.kind == StmtKind::kPrefetch) {
      out << "prefetch" << (s.prefetch_write ? " for write " : " ") << AccessToString(nest, s.a)
          << "\n";
      continue;
    }
    out << AccessToString(nest, s.dst);
    switch (s.kind) {
      case StmtKind::kZero:
        out << " = 0";
        break;
      case StmtKind::kMultiplyAdd:
        out << " += " << AccessToString(nest, s.a) << " * " << AccessToString(nest, s.b);
        break;
      case StmtKind::kCopy:
        out << " = " << (s.relu ? "relu(" : s.relu6 ? "relu6(" : "") << AccessToString(nest, s.a);
        if (s.bias) out << " + " << AccessToString(nest, *s.bias);
        if (s.residual) out << " + " << AccessToString(nest, *s.residual);
        out << (s.relu || s.relu6 ? ")" : "");
        break;
      case StmtKind::kPrefetch:
        break;  // printed above
    }
    out << "\n";
  }
}

}  // namespace

std::string NestToString(const LoopNest& nest) {
  std::ostringstream out;
  for (const TensorDecl& t : nest.tensors) {
    if (t.role == TensorRole::kPrepared) {
      out << "prepared " << t.name << "[" << t.NumElements() << "]\n";
    }
    if (t.role == TensorRole::kLiteral) {
      out << "literal " << t.name << "[" << t.NumElements() << "] = {";
      for (size_t i = 0; i < t.values.size(); ++i) out << (i ? ", " : "") << t.values[i];
      out << "}\n";
    }
    if (t.role != TensorRole::kTemp) continue;
    out << "temp " << t.name << "[" << t.NumElements() << "]"
        << (t.scope == MemoryScope::kGlobal ? "" : std::string(" ") + MemoryScopeName(t.scope))
        << (t.scope_loop.empty() ? "" : " in " + t.scope_loop) << "\n";
  }
  Dump(nest, nest.body, 0, out);
  if (!nest.prepare.empty()) {
    out << "prepare:\n";
    Dump(nest, nest.prepare, 1, out);
  }
  return out.str();
}

}  // namespace glimpse
