// Checks an XGBoost JSON model before XGBoost reads it. XGBoost's loader trusts its input: two
// trees with the same "id" are loaded into the same slot by two threads at once (a double free),
// a node array shorter than "num_nodes" is read past its end, a child index outside the tree or a
// loop among nodes sends prediction out of bounds or round forever. Model files are user input
// (a corrupted or hand-edited file must be an error, not a crash), so everything XGBoost would
// index by is checked here first.
#pragma once

#include "glimpse/json.h"

namespace glimpse::model {

// Throws Error naming the field (JSON path, e.g. "learner.gradient_booster.model.trees[3].
// left_children") and what it should be. Accepts what glimpse writes: a "gbtree" booster (or
// "dart", whose trees are a gbtree's), one output group per tree in range, numerical splits only
// (glimpse never trains categorical ones).
void CheckXgbModelJson(const Json& model);

}  // namespace glimpse::model
