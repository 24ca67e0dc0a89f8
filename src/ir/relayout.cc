// Relayout (glimpse/relayout.h): a copy's layout as steps, translated both ways.
#include "glimpse/relayout.h"

#include <algorithm>
#include <string>
#include <utility>

#include "glimpse/error.h"

namespace glimpse {

namespace {

AffineExpr Minus(const AffineExpr& a, const AffineExpr& b) { return a + b * -1; }

// e = quotient · factor + remainder, the remainder holding the terms (and the part of the
// constant) below the factor.
std::pair<AffineExpr, AffineExpr> DivideBy(const AffineExpr& e, int64_t factor) {
  AffineExpr quotient, remainder;
  int64_t q = e.constant / factor, r = e.constant % factor;
  if (r < 0) {
    r += factor;
    --q;
  }
  quotient.constant = q;
  remainder.constant = r;
  for (const auto& [loop, coefficient] : e.terms) {
    if (coefficient % factor == 0) {
      quotient.terms.emplace_back(loop, coefficient / factor);
    } else if (coefficient > 0 && coefficient < factor) {
      remainder.terms.emplace_back(loop, coefficient);
    } else {
      throw Error("relayout: the index's term " + std::to_string(coefficient) + "·" + loop +
                  " is neither a multiple of the split factor " + std::to_string(factor) +
                  " nor below it");
    }
  }
  return {quotient, remainder};
}

}  // namespace

Relayout::Relayout(std::vector<int64_t> source_shape)
    : source_shape_(std::move(source_shape)), shape_(source_shape_) {}

int Relayout::CheckedDim(int dim, const char* step) const {
  if (dim < 0 || dim >= static_cast<int>(shape_.size())) {
    throw Error(std::string("relayout: ") + step + " of dimension " + std::to_string(dim) +
                " of a layout with " + std::to_string(shape_.size()));
  }
  return dim;
}

Relayout& Relayout::Window(int dim, AffineExpr origin, int64_t extent) {
  shape_[CheckedDim(dim, "window")] = extent;
  steps_.emplace_back(StepKind::kWindow, dim, std::move(origin));
  return *this;
}

Relayout& Relayout::Pad(int dim, int64_t pad) {
  const int64_t size = shape_[CheckedDim(dim, "pad")];
  return Window(dim, AffineExpr::Const(-pad), size + 2 * pad);
}

Relayout& Relayout::Split(int dim, int64_t factor, int remainder_position) {
  const int64_t size = shape_[CheckedDim(dim, "split")];
  if (factor < 1 || size % factor != 0) {
    throw Error("relayout: split of a dimension of " + std::to_string(size) + " by " +
                std::to_string(factor));
  }
  if (remainder_position < 0 || remainder_position > static_cast<int>(shape_.size())) {
    throw Error("relayout: split's remainder at dimension " + std::to_string(remainder_position));
  }
  shape_[dim] = size / factor;
  shape_.insert(shape_.begin() + remainder_position, factor);
  Step step(StepKind::kSplit, dim);
  step.factor = factor;
  step.remainder_position = remainder_position;
  steps_.push_back(std::move(step));
  return *this;
}

Relayout& Relayout::Fix(int dim, AffineExpr at) {
  shape_.erase(shape_.begin() + CheckedDim(dim, "fix"));
  steps_.emplace_back(StepKind::kFix, dim, std::move(at));
  return *this;
}

Relayout& Relayout::Permute(std::vector<int> order) {
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted.size() != shape_.size() || sorted[i] != static_cast<int>(i)) {
      throw Error("relayout: a permutation of " + std::to_string(shape_.size()) +
                  " dimensions must name each once");
    }
  }
  std::vector<int64_t> shape;
  for (int d : order) shape.push_back(shape_[d]);
  shape_ = std::move(shape);
  Step step(StepKind::kPermute);
  step.order = std::move(order);
  steps_.push_back(std::move(step));
  return *this;
}

bool Relayout::HasWindow() const {
  return std::any_of(steps_.begin(), steps_.end(),
                     [](const Step& step) { return step.kind == StepKind::kWindow; });
}

std::vector<AffineExpr> Relayout::CopyIndex(std::vector<AffineExpr> index) const {
  if (index.size() != source_shape_.size()) {
    throw Error("relayout: a source index of " + std::to_string(index.size()) +
                " dimensions for a tensor of " + std::to_string(source_shape_.size()));
  }
  for (const Step& step : steps_) {
    switch (step.kind) {
      case StepKind::kWindow:
        index[step.dim] = Minus(index[step.dim], step.expr);
        break;
      case StepKind::kSplit: {
        auto [quotient, remainder] = DivideBy(index[step.dim], step.factor);
        index[step.dim] = std::move(quotient);
        index.insert(index.begin() + step.remainder_position, std::move(remainder));
        break;
      }
      case StepKind::kFix: {
        const AffineExpr offset = Minus(index[step.dim], step.expr);
        if (!offset.terms.empty() || offset.constant != 0) {
          throw Error("relayout: an index that is not the one a fixed dimension holds");
        }
        index.erase(index.begin() + step.dim);
        break;
      }
      case StepKind::kPermute: {
        std::vector<AffineExpr> permuted;
        for (int d : step.order) permuted.push_back(index[d]);
        index = std::move(permuted);
        break;
      }
    }
  }
  return index;
}

std::vector<AffineExpr> Relayout::SourceIndex(std::vector<AffineExpr> index) const {
  if (index.size() != shape_.size()) {
    throw Error("relayout: a copy index of " + std::to_string(index.size()) +
                " dimensions for a copy of " + std::to_string(shape_.size()));
  }
  for (auto it = steps_.rbegin(); it != steps_.rend(); ++it) {
    const Step& step = *it;
    switch (step.kind) {
      case StepKind::kWindow:
        index[step.dim] = step.expr + index[step.dim];
        break;
      case StepKind::kSplit: {
        AffineExpr remainder = index[step.remainder_position];
        index.erase(index.begin() + step.remainder_position);
        index[step.dim] = index[step.dim] * step.factor + remainder;
        break;
      }
      case StepKind::kFix:
        index.insert(index.begin() + step.dim, step.expr);
        break;
      case StepKind::kPermute: {
        std::vector<AffineExpr> source(index.size());
        for (size_t i = 0; i < step.order.size(); ++i) source[step.order[i]] = index[i];
        index = std::move(source);
        break;
      }
    }
  }
  return index;
}

}  // namespace glimpse
