// glimpse — the command line. Thin: parse, call the library, print.
//
// Exit codes: 0 success; 2 bad input (one line "glimpse: error: …" on stderr); 3 an internal error.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>

#include "commands.h"
#include "glimpse/error.h"
#include "glimpse/glimpse_tuner.h"
#include "glimpse/model_tuner.h"

int main(int argc, char** argv) {
  glimpse::RegisterModelTuners();
  glimpse::RegisterGlimpseTuner();  // also what `glimpse bench run` studies can name
  CLI::App app{"glimpse: a hardware-aware auto-tuner for tensor programs"};
  app.name("glimpse");
  app.require_subcommand(1);
  app.set_version_flag("--version", "glimpse 0.1.0");
  glimpse::cli::AddTuneCommand(app);
  glimpse::cli::AddDatabaseCommand(app);
  glimpse::cli::AddSpaceCommand(app);
  glimpse::cli::AddBenchCommand(app);
  glimpse::cli::AddModelCommand(app);
  glimpse::cli::AddHardwareCommand(app);
  glimpse::cli::AddCorpusCommand(app);
  glimpse::cli::AddPerfModelCommand(app);
  glimpse::cli::AddCompileCommands(app);
#ifndef GLIMPSE_WITHOUT_TRAIN  // glimpse_lite (CMakeLists.txt): no libtorch, no `glimpse train`
  glimpse::cli::AddTrainCommand(app);
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::Success&) {
    return 0;  // an informational flag (e.g. --list-tuners) did its work
  } catch (const CLI::ParseError& e) {
    std::cerr << "glimpse: error: " << e.what() << " (see 'glimpse --help')\n";
    return 2;
  } catch (const glimpse::Error& e) {
    std::cerr << "glimpse: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "glimpse: internal error: " << e.what() << "\n";
    return 3;
  }
  return 0;
}
