// Valid configurations in dense-index order (last knob fastest), walked lazily so that a huge
// space is never enumerated up front.
#include <memory>
#include <string>
#include <vector>

#include "glimpse/error.h"
#include "glimpse/strategy_options.h"
#include "glimpse/tuner.h"
#include "tuner/visited.h"

namespace glimpse {

namespace {

class GridTuner : public Tuner {
 public:
  std::string Name() const override { return "grid"; }

  using Tuner::Init;
  void Init(const TuningContext& context) override {
    space_ = &context.task->space;
    visited_.Clear();
    const std::vector<Knob>& knobs = space_->knobs();
    cursor_.indices.assign(knobs.size(), 0);
    done_ = false;
    for (const Knob& knob : knobs) done_ = done_ || knob.size() == 0;
  }

  std::vector<Config> Propose(size_t n) override {
    std::vector<Config> out;
    while (out.size() < n && !done_) {
      if (space_->IsValid(cursor_) && visited_.Insert(cursor_)) out.push_back(cursor_);
      Advance();
    }
    return out;
  }

  void Observe(const std::vector<Config>& configs,
               const std::vector<MeasureResult>& results) override {
    for (const Config& config : configs) visited_.Insert(config);
  }

 private:
  // Mixed-radix increment, last knob fastest (the order of ConfigSpace::FromDenseIndex) without a
  // division per step.
  void Advance() {
    const std::vector<Knob>& knobs = space_->knobs();
    for (size_t k = knobs.size(); k-- > 0;) {
      if (++cursor_.indices[k] < knobs[k].size()) return;
      cursor_.indices[k] = 0;
    }
    done_ = true;  // wrapped around: every raw point was visited
  }

  const ConfigSpace* space_ = nullptr;
  tuner::VisitedSet visited_;
  Config cursor_;
  bool done_ = true;
};

}  // namespace

std::unique_ptr<Tuner> MakeGridTuner(const Json& options) {
  tuner::CheckOptionKeys(options, "grid", {});
  return std::make_unique<GridTuner>();
}

}  // namespace glimpse
