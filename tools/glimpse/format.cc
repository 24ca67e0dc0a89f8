#include "format.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <sstream>

namespace glimpse::cli {

std::string FormatDuration(double seconds) {
  if (!std::isfinite(seconds)) return "-";
  double magnitude = std::fabs(seconds);
  if (magnitude == 0.0) return "0 s";
  if (magnitude < 1e-6) return fmt::format("{:.4g} ns", seconds * 1e9);
  if (magnitude < 1e-3) return fmt::format("{:.4g} µs", seconds * 1e6);
  if (magnitude < 1.0) return fmt::format("{:.4g} ms", seconds * 1e3);
  if (magnitude < 120.0) return fmt::format("{:.4g} s", seconds);
  if (magnitude < 7200.0) return fmt::format("{:.1f} min", seconds / 60.0);
  return fmt::format("{:.1f} h", seconds / 3600.0);
}

std::string FormatCount(int64_t count) {
  std::string digits = std::to_string(count < 0 ? -count : count);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return count < 0 ? "-" + out : out;
}

std::vector<std::string> SplitCommaList(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

std::string FormatBig(double value) {
  if (value < 1e7) return FormatCount(static_cast<int64_t>(std::llround(value)));
  return fmt::format("{:.2e}", value);
}

Table::Table(std::vector<std::string> header) : header_(std::move(header)) {
  left_.assign(header_.size(), false);
  if (!left_.empty()) left_[0] = true;
}

void Table::AlignLeft(const std::vector<std::string>& headers) {
  for (const std::string& name : headers) {
    auto it = std::find(header_.begin(), header_.end(), name);
    if (it != header_.end()) left_[it - header_.begin()] = true;
  }
}

void Table::AddRow(std::vector<std::string> row) {
  row.resize(header_.size());
  rows_.push_back(std::move(row));
}

namespace {
// Display width: counts UTF-8 code points, not bytes, so that "µs" aligns.
size_t DisplayWidth(const std::string& text) {
  size_t width = 0;
  for (unsigned char c : text) width += (c & 0xC0) != 0x80;
  return width;
}
}  // namespace

void Table::Print(std::ostream& out) const {
  std::vector<size_t> widths(header_.size(), 0);
  auto measure = [&](const std::vector<std::string>& row) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], DisplayWidth(row[i]));
  };
  measure(header_);
  for (const auto& row : rows_) measure(row);
  auto print = [&](const std::vector<std::string>& row) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      std::string pad(widths[i] - DisplayWidth(row[i]), ' ');
      if (i > 0) line += "  ";
      line += left_[i] ? row[i] + pad : pad + row[i];
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  };
  print(header_);
  std::vector<std::string> rule;
  for (size_t w : widths) rule.push_back(std::string(w, '-'));
  print(rule);
  for (const auto& row : rows_) print(row);
}

}  // namespace glimpse::cli
