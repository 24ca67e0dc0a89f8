// glimpse/whole_number.h — a string read as a number only when the whole of it is one.
#pragma once

#include <charconv>
#include <optional>
#include <string>

namespace glimpse {

// `text` as a T when the whole of it is one number (std::from_chars: no leading '+' or spaces, no
// trailing characters); options and parameters written as strings ("200") are read this way.
template <typename T>
std::optional<T> WholeNumber(const std::string& text) {
  T number{};
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (error == std::errc() && end == text.data() + text.size() && !text.empty()) return number;
  return std::nullopt;
}

}  // namespace glimpse
