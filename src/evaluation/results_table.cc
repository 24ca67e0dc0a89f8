// The plain-text table of a study's summaries (see PrintResultsTable in glimpse/evaluation.h).
#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>
#include <tuple>

#include "glimpse/evaluation.h"
#include "glimpse/progress.h"

namespace glimpse {

namespace {

std::string Format(const char* format, double value) {
  if (std::isnan(value)) return "-";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

std::string Percent(double fraction) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", fraction * 100.0);
  return buffer;
}

// "38 [22-61]", and " !3" when 3 runs never got there.
std::string ReachCell(const ReachQuantiles& reach, bool with_iqr) {
  std::string cell = Format("%.0f", reach.q.median);
  if (with_iqr) cell += " [" + Format("%.0f", reach.q.q1) + "-" + Format("%.0f", reach.q.q3) + "]";
  if (reach.not_reached > 0) cell += " !" + std::to_string(reach.not_reached);
  return cell;
}

std::string TimeCell(const ReachQuantiles& reach) {
  std::string cell = std::isnan(reach.q.median) ? "-" : loop::FormatDuration(reach.q.median);
  if (reach.not_reached > 0) cell += " !" + std::to_string(reach.not_reached);
  return cell;
}

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void Add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }

  // First two columns left-aligned, the others right-aligned; two spaces between columns.
  void Print(std::ostream& out) const {
    std::vector<size_t> width(rows_.front().size(), 0);
    for (const auto& row : rows_) {
      for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], Length(row[c]));
    }
    for (const auto& row : rows_) {
      std::string line = "  ";
      for (size_t c = 0; c < row.size(); ++c) {
        const std::string pad(width[c] - Length(row[c]), ' ');
        line += c < 2 ? row[c] + pad : pad + row[c];
        if (c + 1 < row.size()) line += "  ";
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out << line << '\n';
    }
  }

 private:
  // Display width: UTF-8 continuation bytes take no column ("µs").
  static size_t Length(const std::string& text) {
    size_t length = 0;
    for (unsigned char c : text) length += (c & 0xC0) != 0x80;
    return length;
  }
  std::vector<std::vector<std::string>> rows_;
};

std::vector<std::string> Header(const StudySettings& settings, const char* third) {
  std::vector<std::string> header = {"tool", "strategy", third};
  for (double fraction : settings.fractions) header.push_back("to " + Percent(fraction) + "%");
  for (int64_t checkpoint : settings.checkpoints)
    header.push_back("@" + std::to_string(checkpoint));
  header.insert(header.end(), {"failed", "1st batch", "sim to 95%", "tuner cpu"});
  return header;
}

double MedianOf(std::vector<double> values) { return Quantile(std::move(values), 0.5); }

}  // namespace

void PrintResultsTable(const StudyResults& results, std::ostream& out) {
  const StudySettings& settings = results.settings;
  out << "Measurements to reach a fraction of the optimum's performance: median [q1-q3] over "
         "seeds; !n: n runs never got there (counted at their budget).\n"
         "@k: median fraction of the optimum after k measurements. 1st batch: median performance "
         "of the first "
      << settings.first_batch
      << " measurements / median of their best. sim: simulated search time. "
         "tuner cpu: the strategy's own CPU time per run.\n";
  for (const SpaceInfo& space : results.spaces) {
    bool any = false;
    TextTable table(Header(settings, "runs"));
    for (const RunSummary& summary : results.summaries) {
      if (summary.space != space.id) continue;
      any = true;
      std::vector<std::string> row = {summary.tool, summary.strategy, std::to_string(summary.runs)};
      for (double fraction : settings.fractions) {
        auto it = summary.measurements_to_fraction.find(fraction);
        row.push_back(it == summary.measurements_to_fraction.end() ? "-"
                                                                   : ReachCell(it->second, true));
      }
      for (int64_t checkpoint : settings.checkpoints) {
        auto it = summary.fraction_at.find(checkpoint);
        row.push_back(it == summary.fraction_at.end() ? "-" : Format("%.3f", it->second.median));
      }
      row.push_back(Format("%.1f%%", 100.0 * summary.failed_fraction.median));
      row.push_back(Format("%.2f", summary.first_batch.median) + "/" +
                    Format("%.2f", summary.first_batch_best_median));
      row.push_back(TimeCell(summary.simulated_s_to_95));
      row.push_back(loop::FormatDuration(summary.tuner_cpu_s.median));
      table.Add(std::move(row));
    }
    if (!any) continue;
    out << "\n"
        << space.id << " on " << (space.device.empty() ? "?" : space.device) << " (optimum "
        << loop::FormatDuration(space.optimum_s) << ", " << space.valid
        << " valid configurations)\n";
    table.Print(out);
  }

  // Aggregate: per (tool, strategy), the median over spaces of the per-space medians.
  std::map<std::pair<std::string, std::string>, std::vector<const RunSummary*>> by_strategy;
  std::vector<std::pair<std::string, std::string>> order;
  for (const RunSummary& summary : results.summaries) {
    auto key = std::make_pair(summary.tool, summary.strategy);
    if (!by_strategy.count(key)) order.push_back(key);
    by_strategy[key].push_back(&summary);
  }
  if (order.empty()) return;
  out << "\nAll spaces: median over spaces of the per-space medians (!n: runs that never got "
         "there, summed over spaces)\n";
  TextTable table(Header(settings, "spaces"));
  for (const auto& key : order) {
    const std::vector<const RunSummary*>& summaries = by_strategy[key];
    std::vector<std::string> row = {key.first, key.second, std::to_string(summaries.size())};
    auto aggregate_reach = [&](auto&& get) {
      ReachQuantiles total;
      std::vector<double> medians;
      for (const RunSummary* summary : summaries) {
        if (const ReachQuantiles* reach = get(*summary)) {
          medians.push_back(reach->q.median);
          total.not_reached += reach->not_reached;
        }
      }
      total.q.median = MedianOf(medians);
      return total;
    };
    for (double fraction : settings.fractions) {
      row.push_back(ReachCell(aggregate_reach([&](const RunSummary& s) -> const ReachQuantiles* {
                                auto it = s.measurements_to_fraction.find(fraction);
                                return it == s.measurements_to_fraction.end() ? nullptr
                                                                              : &it->second;
                              }),
                              false));
    }
    for (int64_t checkpoint : settings.checkpoints) {
      std::vector<double> medians;
      for (const RunSummary* summary : summaries) {
        auto it = summary->fraction_at.find(checkpoint);
        if (it != summary->fraction_at.end()) medians.push_back(it->second.median);
      }
      row.push_back(Format("%.3f", MedianOf(medians)));
    }
    std::vector<double> failed, batch, batch_best, cpu;
    for (const RunSummary* summary : summaries) {
      failed.push_back(summary->failed_fraction.median);
      batch.push_back(summary->first_batch.median);
      batch_best.push_back(summary->first_batch_best_median);
      cpu.push_back(summary->tuner_cpu_s.median);
    }
    row.push_back(Format("%.1f%%", 100.0 * MedianOf(failed)));
    row.push_back(Format("%.2f", MedianOf(batch)) + "/" + Format("%.2f", MedianOf(batch_best)));
    // Simulated seconds differ by orders of magnitude between spaces; their median still says
    // which strategy gets there sooner on a typical space.
    row.push_back(TimeCell(aggregate_reach(
        [](const RunSummary& s) -> const ReachQuantiles* { return &s.simulated_s_to_95; })));
    row.push_back(loop::FormatDuration(MedianOf(cpu)));
    table.Add(std::move(row));
  }
  table.Print(out);
}

}  // namespace glimpse
