// The evaluation splits of glimpse/perf_eval.h: random configurations, held-out operators,
// held-out models, a held-out operator kind, nothing held out.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "glimpse/error.h"
#include "glimpse/perf_eval.h"
#include "glimpse/random.h"

namespace glimpse {

namespace {

std::vector<const PerfCorpusRecord*> OkRecords(const PerfCorpus& corpus) {
  std::vector<const PerfCorpusRecord*> out;
  for (const PerfCorpusRecord& record : corpus.records) {
    if (record.ok()) out.push_back(&record);
  }
  return out;
}

void CheckFraction(double test_fraction) {
  if (!(test_fraction > 0.0 && test_fraction < 1.0)) {
    throw Error("test fraction must be in (0, 1), got " + std::to_string(test_fraction));
  }
}

// Fisher–Yates with UniformIndex, so that the order depends on the seed alone (not on the
// standard library's shuffle).
template <typename T>
void Shuffle(std::vector<T>& items, uint64_t seed) {
  Rng rng(seed);
  for (size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[UniformIndex(rng, i)]);
}

// The distinct operators of `records`, sorted (so that the records' order does not matter), then
// shuffled by `seed`.
std::vector<std::string> ShuffledOperators(const std::vector<const PerfCorpusRecord*>& records,
                                           uint64_t seed) {
  std::set<std::string> distinct;
  for (const PerfCorpusRecord* record : records) distinct.insert(record->op);
  std::vector<std::string> ops(distinct.begin(), distinct.end());
  Shuffle(ops, seed);
  return ops;
}

// How many of the corpus's records come from its first file: LoadPerfCorpusFiles puts them first
// and counts them in the header's "parts"; a corpus read from one file is all first file.
size_t FirstFileRecords(const PerfCorpus& corpus) {
  const size_t all = corpus.records.size();
  if (!corpus.header.is_object() || !corpus.header.contains("parts")) return all;
  const Json& parts = corpus.header["parts"];
  if (!parts.is_array() || parts.empty()) return all;
  return std::min(all, parts.front().value("records", all));
}

}  // namespace

PerfSplit SplitRandom(const PerfCorpus& corpus, double test_fraction, uint64_t seed) {
  CheckFraction(test_fraction);
  const std::vector<const PerfCorpusRecord*> ok = OkRecords(corpus);
  std::vector<size_t> order(ok.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  Shuffle(order, seed);
  const size_t test_size =
      static_cast<size_t>(std::llround(test_fraction * static_cast<double>(ok.size())));
  std::vector<bool> in_test(ok.size(), false);
  for (size_t i = 0; i < test_size; ++i) in_test[order[i]] = true;
  PerfSplit split;
  split.name = "random";
  for (size_t i = 0; i < ok.size(); ++i) (in_test[i] ? split.test : split.train).push_back(ok[i]);
  split.note = "configurations at random, test fraction " + std::to_string(test_fraction) +
               ", seed " + std::to_string(seed);
  return split;
}

PerfSplit SplitHeldOutOperators(const PerfCorpus& corpus, double test_fraction, uint64_t seed) {
  CheckFraction(test_fraction);
  const std::vector<const PerfCorpusRecord*> ok = OkRecords(corpus);
  // Test operators are drawn from the first file's alone: further files only add training data,
  // so a corpus grown by them keeps the test side it had (the same seed, the same shapes).
  const PerfCorpusRecord* first_file_end = corpus.records.data() + FirstFileRecords(corpus);
  std::vector<const PerfCorpusRecord*> first_file;
  std::set<std::string> further_ops;
  for (const PerfCorpusRecord* record : ok) {
    if (record < first_file_end) {
      first_file.push_back(record);
    } else {
      further_ops.insert(record->op);
    }
  }
  const std::vector<std::string> ops = ShuffledOperators(first_file, seed);
  for (const std::string& op : ops) further_ops.erase(op);
  size_t test_ops =
      static_cast<size_t>(std::llround(test_fraction * static_cast<double>(ops.size())));
  if (ops.size() >= 2) test_ops = std::clamp<size_t>(test_ops, 1, ops.size() - 1);
  const std::set<std::string> test(ops.begin(), ops.begin() + static_cast<ptrdiff_t>(test_ops));
  PerfSplit split;
  split.name = "operators";
  for (const PerfCorpusRecord* record : ok) {
    (test.count(record->op) ? split.test : split.train).push_back(record);
  }
  split.note = std::to_string(test_ops) + " of " + std::to_string(ops.size()) +
               " operators held out at random, seed " + std::to_string(seed);
  if (!further_ops.empty()) {
    split.note += "; the further files' " + std::to_string(further_ops.size()) +
                  " other operators train only";
  }
  return split;
}

PerfSplit SplitHeldOutModels(const PerfCorpus& corpus, const std::vector<std::string>& held_out) {
  if (held_out.empty()) throw Error("held-out-models split: no model named");
  const std::set<std::string> held(held_out.begin(), held_out.end());
  PerfSplit split;
  split.name = "models";
  std::set<std::string> test_ops;
  std::set<std::string> excluded_ops;
  for (const PerfCorpusRecord* record : OkRecords(corpus)) {
    const auto& models = record->models;
    const bool any_held = std::any_of(models.begin(), models.end(),
                                      [&](const std::string& m) { return held.count(m) > 0; });
    const bool all_held = any_held && std::all_of(models.begin(), models.end(),
                                                  [&](const auto& m) { return held.count(m) > 0; });
    if (!any_held) {
      split.train.push_back(record);
    } else if (all_held) {
      split.test.push_back(record);
      test_ops.insert(record->op);
    } else {
      ++split.excluded;
      excluded_ops.insert(record->op);
    }
  }
  std::string names;
  for (const std::string& m : held_out) names += (names.empty() ? "" : ", ") + m;
  split.note = "held-out models " + names + ": " + std::to_string(test_ops.size()) +
               " operators only they have to test; " + std::to_string(excluded_ops.size()) +
               " operators they share with a training model left out";
  return split;
}

PerfSplit SplitHeldOutKind(const PerfCorpus& corpus, const std::string& kind) {
  PerfSplit split;
  split.name = "kind:" + kind;
  std::set<std::string> kinds;
  std::set<std::string> test_ops;
  std::set<std::string> train_ops;
  for (const PerfCorpusRecord* record : OkRecords(corpus)) {
    kinds.insert(record->kind);
    if (record->kind == kind) {
      split.test.push_back(record);
      test_ops.insert(record->op);
    } else {
      split.train.push_back(record);
      train_ops.insert(record->op);
    }
  }
  if (split.test.empty() || split.train.empty()) {
    std::string names;
    for (const std::string& k : kinds) names += (names.empty() ? "" : ", ") + k;
    throw Error("held-out-kind split 'kind:" + kind + "': " +
                (split.test.empty() ? "the corpus has no ok record of that kind"
                                    : "the corpus has no other kind to train on") +
                "; its kinds: " + (names.empty() ? "none" : names));
  }
  split.note = "held-out kind " + kind + ": its " + std::to_string(test_ops.size()) +
               " operators to test, the " + std::to_string(train_ops.size()) +
               " operators of other kinds to train";
  return split;
}

PerfSplit SplitNone(const PerfCorpus& corpus) {
  PerfSplit split;
  split.name = "none";
  split.test = OkRecords(corpus);
  split.note = "nothing held out: every ok record to test, nothing to train";
  return split;
}

void ThinTrainingOperators(PerfSplit& split, double fraction, uint64_t seed) {
  if (!(fraction > 0.0 && fraction <= 1.0)) {
    throw Error("training-operator fraction must be in (0, 1], got " + std::to_string(fraction));
  }
  if (fraction == 1.0) return;
  // Another stream than the split's own shuffle of the same seed, so that the operators kept are
  // not the first of the order that chose the test side.
  const std::vector<std::string> ops = ShuffledOperators(split.train, seed ^ 0x5eed7a1b5eed7a1bULL);
  const size_t keep = std::max<size_t>(
      1, static_cast<size_t>(std::llround(fraction * static_cast<double>(ops.size()))));
  const std::set<std::string> kept(
      ops.begin(), ops.begin() + static_cast<ptrdiff_t>(std::min(keep, ops.size())));
  std::vector<const PerfCorpusRecord*> train;
  for (const PerfCorpusRecord* record : split.train) {
    if (kept.count(record->op)) train.push_back(record);
  }
  split.train = std::move(train);
  split.note += "; training thinned to " + std::to_string(kept.size()) + " of its " +
                std::to_string(ops.size()) + " operators at random";
}

const std::vector<std::string>& PerfSplitNames() {
  static const std::vector<std::string> names = {"random", "operators", "models"};
  return names;
}

const std::vector<std::string>& DefaultHeldOutModels() {
  static const std::vector<std::string> models = {"mobilenet_v2", "resnet50"};
  return models;
}

PerfSplit MakePerfSplit(const std::string& name, const PerfCorpus& corpus, double test_fraction,
                        uint64_t seed) {
  if (name == "random") return SplitRandom(corpus, test_fraction, seed);
  if (name == "operators") return SplitHeldOutOperators(corpus, test_fraction, seed);
  if (name == "models") return SplitHeldOutModels(corpus, DefaultHeldOutModels());
  if (name == "none") return SplitNone(corpus);
  const std::string kind_prefix = "kind:";
  if (name.rfind(kind_prefix, 0) == 0) {
    return SplitHeldOutKind(corpus, name.substr(kind_prefix.size()));
  }
  throw Error(
      "unknown split '" + name +
      "'; known: random, operators, models, kind:KIND (e.g. kind:depthwise_conv2d), none, all");
}

}  // namespace glimpse
