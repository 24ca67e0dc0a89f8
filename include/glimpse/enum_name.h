// The names of an enum class's enumerators, kept in one array in the enumerators' order, in
// place of a switch with a case per enumerator.
#pragma once

#include <cstddef>

namespace glimpse {

// names[value], for an enum class whose enumerators count up from 0 in the order of `names`;
// `fallback` for a value outside them (one cast from a number no enumerator has).
template <typename Enum, size_t N>
constexpr const char* EnumName(Enum value, const char* const (&names)[N], const char* fallback) {
  const auto index = static_cast<size_t>(value);
  return index < N ? names[index] : fallback;
}

}  // namespace glimpse
