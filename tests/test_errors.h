// What a test asks of code that should throw: the message of the glimpse::Error it throws.
#pragma once

#include <string>

#include "glimpse/error.h"

namespace glimpse::testing {

// The message of the glimpse::Error that `body` throws, or "<no error>".
template <typename Body>
std::string ErrorMessageOf(Body&& body) {
  try {
    body();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace glimpse::testing
