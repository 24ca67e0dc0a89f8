#include <cmath>
#include <sstream>
#include <string>

#include "glimpse/error.h"
#include "glimpse/tuning_loop.h"

namespace glimpse {

namespace {
std::string Number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}
}  // namespace

// Messages name the command-line flag first and the field second, since users meet the flags.
void TuneOptions::Validate() const {
  if (max_measurements < 0) {
    throw Error("--budget (max_measurements) must be a positive number of measurements (got " +
                std::to_string(max_measurements) + ")");
  }
  if (!(max_seconds >= 0.0) || std::isinf(max_seconds)) {
    throw Error("--time-budget (max_seconds) must be a positive number of seconds (got " +
                Number(max_seconds) + ")");
  }
  if (max_measurements == 0 && max_seconds == 0.0 && !stop_after_seeds) {
    throw Error(
        "--budget (max_measurements) must be a positive number of measurements (got 0) "
        "unless --time-budget (max_seconds) is set");
  }
  if (batch_size <= 0) {
    throw Error("--batch (batch_size) must be a positive number of configurations (got " +
                std::to_string(batch_size) + ")");
  }
  if (early_stopping < 0) {
    throw Error(
        "--early-stopping (early_stopping) must be 0 (off) or a positive number of "
        "measurements (got " +
        std::to_string(early_stopping) + ")");
  }
  if (!(log_interval_s >= 0.0)) {
    throw Error("log_interval_s must be a non-negative number of seconds (got " +
                Number(log_interval_s) + ")");
  }
}

}  // namespace glimpse
