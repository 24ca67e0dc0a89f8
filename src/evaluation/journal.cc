#include "evaluation/journal.h"

#include <filesystem>

#include "glimpse/error.h"

namespace glimpse::evaluation {

JournalContents ReadJournal(const std::string& path) {
  JournalContents contents;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    try {
      Json json = Json::parse(line);
      RunRecord run = RunFromJson(json.at("run"), path, 0);
      RunKey key{run.space, run.strategy, run.seed};
      contents.runs[key] = {json.at("key"), std::move(run)};
    } catch (const std::exception&) {
      ++contents.unreadable_lines;  // cut short by a kill, or not ours: the run is redone
    }
  }
  return contents;
}

JournalWriter::JournalWriter(const std::string& path, bool truncate) : path_(path) {
  // A line cut short by a kill must not swallow the next one: end it first.
  bool needs_newline = false;
  if (!truncate && std::filesystem::exists(path) && std::filesystem::file_size(path) > 0) {
    std::ifstream in(path, std::ios::binary);
    in.seekg(-1, std::ios::end);
    needs_newline = in.get() != '\n';
  }
  out_.open(path, truncate ? std::ios::trunc : std::ios::app);
  if (!out_) throw Error(path + ": cannot write the study's journal");
  if (needs_newline) out_ << '\n' << std::flush;
}

void JournalWriter::Append(const Json& key, const RunRecord& run) {
  const std::string line = Json{{"key", key}, {"run", RunToJson(run)}}.dump() + "\n";
  std::lock_guard<std::mutex> lock(mutex_);
  out_ << line << std::flush;
  if (!out_) throw Error(path_ + ": writing the study's journal failed");
}

}  // namespace glimpse::evaluation
