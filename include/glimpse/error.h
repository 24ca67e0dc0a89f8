// glimpse/error.h — the one exception type for errors a user can cause.
//
// Failed candidates are data (MeasureResult::status), never exceptions. An Error is thrown only
// for misuse: a missing or corrupt file, an unknown knob or strategy, a malformed restriction, an
// impossible budget. Its message is one line that names the file / field / position and says what
// would be accepted; the command line prints it as "glimpse: error: <message>" and exits non-zero.
#pragma once

#include <stdexcept>
#include <string>

namespace glimpse {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// A target has no template (no kernel generator) for an operator: not the user's mistake, and
// not the operator's size or space; multi-task runs list such tasks as `no-template`.
class NoTemplateError : public Error {
 public:
  using Error::Error;
};

}  // namespace glimpse
