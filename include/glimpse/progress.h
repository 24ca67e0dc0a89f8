// Progress reporting of the tuning loop: a live status line on a terminal, plain log lines
// otherwise, nothing when quiet.
#pragma once

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>

#include "glimpse/tuning_loop.h"

namespace glimpse::loop {

// "812 ns", "12.3 µs", "4.56 ms", "1.23 s", "2.5 min", "1.2 h"; "-" for +inf or NaN.
std::string FormatDuration(double seconds);

// kAuto resolved: kLive when `stream` is std::cerr / std::cout and that descriptor is a terminal,
// kLog otherwise.
ProgressMode ResolveProgressMode(ProgressMode mode, const std::ostream& stream);

// What one status line shows.
struct ProgressState {
  int64_t measurements = 0;      // resumed + new
  int64_t new_measurements = 0;  // this run only (the rate is over these)
  int64_t failed = 0;
  double best_time_s = 0;   // +inf when nothing succeeded
  double elapsed_s = 0;     // real seconds of this run
  double simulated_s = -1;  // simulated tuning seconds (replay); < 0 when not simulated
};

// One status line, without line ending:
// "tune conv2d: 120/500 measured, 3 failed, best 1.23 ms, 4.2 s elapsed, 28.6/s, simulated 12.5
// min"
std::string FormatProgress(const std::string& task_name, const ProgressState& state,
                           int64_t max_measurements);

class ProgressReporter {
 public:
  static constexpr double kLiveInterval = 0.1;  // seconds between redraws of the live line

  ProgressReporter(ProgressMode mode, std::ostream& stream, std::string task_name,
                   int64_t max_measurements, double log_interval_s);

  ProgressMode mode() const { return mode_; }
  // A line of its own (clears a live line first). Shown in every mode but kQuiet.
  void Warning(const std::string& line);
  // After each round; prints when the mode's interval has passed since the last line.
  void Update(const ProgressState& state);
  // The last line, with the reason the loop stopped.
  void Finish(const ProgressState& state, const std::string& stop_reason);

 private:
  void Print(const ProgressState& state, const std::string& suffix, bool final_line);

  ProgressMode mode_;
  std::ostream& stream_;
  std::string task_name_;
  int64_t max_measurements_;
  double log_interval_s_;
  bool live_line_open_ = false;  // a live line is on screen without its newline
  bool printed_ = false;
  std::chrono::steady_clock::time_point last_print_;
};

}  // namespace glimpse::loop
