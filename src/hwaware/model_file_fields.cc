// Shared model-file helpers (hwaware/model_file_fields.h).
#include "hwaware/model_file_fields.h"

namespace glimpse {
namespace hwaware {

int VersionOf(const Json& json, const char* key) {
  return json.is_object() && json.contains(key) && json.at(key).is_number_integer()
             ? json.at(key).get<int>()
             : -1;
}

}  // namespace hwaware
}  // namespace glimpse
