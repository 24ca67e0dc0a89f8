// glimpse/json_file.h — reading and writing the JSON model files glimpse ships and trains
// (Blueprint, validity ensemble, prior generator), with errors that name the file.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include "glimpse/error.h"
#include "glimpse/json.h"

namespace glimpse {

// Parses the JSON file at `path`; `what` names the kind of file in the error ("prior generator").
inline Json ReadJsonFile(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read " + what + " '" + path + "'");
  try {
    return Json::parse(in);
  } catch (const Json::exception& e) {
    throw Error(path + ": not JSON (" + e.what() + ")");
  }
}

// Writes `json` to `path` through a temporary file renamed into place, so that a killed writer
// never leaves a truncated model behind; creates the parent directory.
inline void WriteJsonFileAtomically(const std::string& path, const Json& json,
                                    const std::string& what) {
  std::filesystem::path target(path);
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path());
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp);
    if (!out) throw Error("cannot write " + what + " '" + temp + "'");
    out << json.dump(1) << "\n";
    if (!out) throw Error("cannot write " + what + " '" + temp + "'");
  }
  std::filesystem::rename(temp, path);
}

}  // namespace glimpse
