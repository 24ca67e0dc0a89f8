// Reading a configuration by knob name (glimpse/space.h), as schedule templates do.
#include <variant>

#include "glimpse/error.h"
#include "glimpse/space.h"

namespace glimpse {

ConfigView::ConfigView(const ConfigSpace& space, const Config& config)
    : space_(space), config_(config) {
  if (!space.InRange(config)) throw Error("configuration does not belong to the template's space");
}

bool ConfigView::Has(const std::string& knob) const {
  for (const Knob& k : space_.knobs()) {
    if (k.name() == knob) return true;
  }
  return false;
}

const KnobValue& ConfigView::Value(const std::string& knob) const {
  size_t i = space_.KnobIndex(knob);
  return space_.knobs()[i].ValueAt(config_.indices[i]);
}

std::vector<int64_t> ConfigView::List(const std::string& knob) const {
  const auto* list = std::get_if<std::vector<int64_t>>(&Value(knob));
  if (list == nullptr) throw Error("knob '" + knob + "' is not a split or permutation");
  return *list;
}

int64_t ConfigView::Int(const std::string& knob) const {
  const auto* value = std::get_if<int64_t>(&Value(knob));
  if (value == nullptr) throw Error("knob '" + knob + "' is not an integer knob");
  return *value;
}

std::string ConfigView::Text(const std::string& knob) const {
  const auto* value = std::get_if<std::string>(&Value(knob));
  if (value == nullptr) throw Error("knob '" + knob + "' is not a categorical text knob");
  return *value;
}

}  // namespace glimpse
