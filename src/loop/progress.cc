#include "glimpse/progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <utility>

namespace glimpse::loop {

namespace {

std::string ThreeDigits(double value, const char* unit) {
  char buffer[48];
  std::snprintf(buffer, sizeof(buffer), "%.3g %s", value, unit);
  return buffer;
}

double SecondsSince(std::chrono::steady_clock::time_point then) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - then).count();
}

}  // namespace

std::string FormatDuration(double seconds) {
  if (!std::isfinite(seconds)) return "-";
  double magnitude = std::abs(seconds);
  if (magnitude < 1e-6) return ThreeDigits(seconds * 1e9, "ns");
  if (magnitude < 1e-3) return ThreeDigits(seconds * 1e6, "µs");
  if (magnitude < 1.0) return ThreeDigits(seconds * 1e3, "ms");
  if (magnitude < 60.0) return ThreeDigits(seconds, "s");
  if (magnitude < 3600.0) return ThreeDigits(seconds / 60.0, "min");
  return ThreeDigits(seconds / 3600.0, "h");
}

ProgressMode ResolveProgressMode(ProgressMode mode, const std::ostream& stream) {
  if (mode != ProgressMode::kAuto) return mode;
  int fd = -1;
  if (&stream == &std::cerr || &stream == &std::clog) fd = STDERR_FILENO;
  if (&stream == &std::cout) fd = STDOUT_FILENO;
  return fd >= 0 && isatty(fd) ? ProgressMode::kLive : ProgressMode::kLog;
}

std::string FormatProgress(const std::string& task_name, const ProgressState& state,
                           int64_t max_measurements) {
  std::string line = "tune " + task_name + ": " + std::to_string(state.measurements);
  if (max_measurements > 0) line += "/" + std::to_string(max_measurements);
  line += " measured, " + std::to_string(state.failed) + " failed, best " +
          FormatDuration(state.best_time_s) + ", " + FormatDuration(state.elapsed_s) + " elapsed";
  if (state.elapsed_s > 0.0) {
    // Whole numbers above 100/s: "26100/s" reads better than "2.61e+04/s".
    double per_second = static_cast<double>(state.new_measurements) / state.elapsed_s;
    char rate[32];
    std::snprintf(rate, sizeof(rate), per_second >= 100.0 ? ", %.0f/s" : ", %.3g/s", per_second);
    line += rate;
  }
  if (state.simulated_s >= 0.0) line += ", simulated " + FormatDuration(state.simulated_s);
  return line;
}

ProgressReporter::ProgressReporter(ProgressMode mode, std::ostream& stream, std::string task_name,
                                   int64_t max_measurements, double log_interval_s)
    : mode_(ResolveProgressMode(mode, stream)),
      stream_(stream),
      task_name_(std::move(task_name)),
      max_measurements_(max_measurements),
      log_interval_s_(log_interval_s) {}

void ProgressReporter::Warning(const std::string& line) {
  if (mode_ == ProgressMode::kQuiet) return;
  if (live_line_open_) stream_ << "\r\x1b[K";
  live_line_open_ = false;
  stream_ << line << '\n' << std::flush;
}

void ProgressReporter::Update(const ProgressState& state) {
  if (mode_ == ProgressMode::kQuiet) return;
  double interval = mode_ == ProgressMode::kLive ? kLiveInterval : log_interval_s_;
  if (printed_ && SecondsSince(last_print_) < interval) return;
  Print(state, "", false);
}

void ProgressReporter::Finish(const ProgressState& state, const std::string& stop_reason) {
  if (mode_ == ProgressMode::kQuiet) return;
  Print(state, " (stopped: " + stop_reason + ")", true);
}

void ProgressReporter::Print(const ProgressState& state, const std::string& suffix,
                             bool final_line) {
  std::string line = FormatProgress(task_name_, state, max_measurements_) + suffix;
  if (mode_ == ProgressMode::kLive) {
    // Carriage return + clear to the end of the line: the status line is redrawn in place.
    stream_ << "\r\x1b[K" << line;
    live_line_open_ = !final_line;
    if (final_line) stream_ << '\n';
  } else {
    stream_ << line << '\n';
  }
  stream_ << std::flush;
  printed_ = true;
  last_print_ = std::chrono::steady_clock::now();
}

}  // namespace glimpse::loop
