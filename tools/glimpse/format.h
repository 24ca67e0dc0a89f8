// Human-readable formatting for the command line: durations, counts, tables.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace glimpse::cli {

// 0.000001234 → "1.234 µs"; +inf → "-". Three significant digits at least.
std::string FormatDuration(double seconds);
// 1234567 → "1,234,567".
std::string FormatCount(int64_t count);
// 1e12 → "1.0e12"; small numbers as integers.
std::string FormatBig(double value);
// "a,b,,c" → {"a", "b", "c"}: a comma-separated option's items, empty ones dropped.
std::vector<std::string> SplitCommaList(const std::string& text);

// A plain-text table with left-aligned first column and right-aligned others (numbers), unless
// AlignLeft says otherwise (text).
class Table {
 public:
  explicit Table(std::vector<std::string> header);
  void AddRow(std::vector<std::string> row);
  // Left-aligns the columns with these headers (an unknown header is ignored).
  void AlignLeft(const std::vector<std::string>& headers);
  void Print(std::ostream& out) const;

 private:
  std::vector<std::string> header_;
  std::vector<bool> left_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace glimpse::cli
