// The subcommands of `glimpse`. Each Add*Command registers its flags on `app` and a callback that
// runs it; the callbacks throw glimpse::Error for anything a user got wrong.
#pragma once

#include <CLI/CLI.hpp>

namespace glimpse::cli {

void AddTuneCommand(CLI::App& app);
void AddDatabaseCommand(CLI::App& app);
void AddSpaceCommand(CLI::App& app);
void AddSpaceCodeCommand(CLI::App& space);  // `space code`, under `space`
void AddBenchCommand(CLI::App& app);
void AddModelCommand(CLI::App& app);
void AddHardwareCommand(CLI::App& app);
void AddTrainCommand(CLI::App& app);
void AddCorpusCommand(CLI::App& app);
void AddPerfModelCommand(CLI::App& app);
// `glimpse compile` and `glimpse run` (compile_command.cc).
void AddCompileCommands(CLI::App& app);

}  // namespace glimpse::cli
