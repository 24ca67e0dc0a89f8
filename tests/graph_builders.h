// Hand-built model graphs for tests: a tensor or an op appended in one line.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "glimpse/model_graph.h"

namespace glimpse::testing {

// Appends a tensor to `g` and returns its index. A constant gets fixed values (0.1·(i mod 7) − 0.3:
// small, signed, not all equal).
inline int AddTensor(ModelGraph& g, const std::string& name, std::vector<int64_t> shape,
                     bool constant = false) {
  GraphTensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.constant = constant;
  if (constant) {
    t.data.resize(t.Elements());
    for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = 0.1f * static_cast<float>(i % 7) - 0.3f;
  }
  g.tensors.push_back(std::move(t));
  return static_cast<int>(g.tensors.size()) - 1;
}

inline GraphOp MakeOp(GraphOpKind kind, const std::string& name, std::vector<int> inputs,
                      int output) {
  GraphOp op;
  op.kind = kind;
  op.name = name;
  op.inputs = std::move(inputs);
  op.output = output;
  return op;
}

}  // namespace glimpse::testing
