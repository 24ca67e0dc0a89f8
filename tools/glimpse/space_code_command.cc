// `glimpse space code --op TEXT --config JSON`: the program one configuration of a CPU operator
// compiles to — the generated C++ (what the runner builds and times) or the scheduled loop nest.
#include <iostream>
#include <memory>
#include <string>

#include "commands.h"
#include "glimpse/codegen.h"
#include "glimpse/cpu.h"
#include "glimpse/error.h"
#include "glimpse/json.h"
#include "glimpse/ops.h"

namespace glimpse::cli {
namespace {

struct SpaceCodeFlags {
  std::string op;
  std::string config;
  bool nest = false;
};

void RunCode(const SpaceCodeFlags& flags) {
  const Operator op = ParseOperator(flags.op);
  const ConfigSpace space = MakeCpuSpace(op, HostRegisterTileFloats());
  Json config = Json::parse(flags.config, nullptr, /*allow_exceptions=*/false);
  if (config.is_discarded() || !config.is_object()) {
    throw Error("--config: not a JSON object of knob values: " + flags.config);
  }
  const LoopNest nest = MakeCpuNest(op, space, space.ConfigFromJson(config));
  std::cout << (flags.nest ? NestToString(nest) : EmitCpp(nest, "kernel"));
}

}  // namespace

void AddSpaceCodeCommand(CLI::App& space) {
  auto flags = std::make_shared<SpaceCodeFlags>();
  CLI::App* code = space.add_subcommand(
      "code", "The C++ a configuration of a CPU operator compiles to (--nest: its loop nest)");
  code->add_option("--op", flags->op, "operator, e.g. conv2d:N=1,C=3,H=224,...")->required();
  code->add_option("--config", flags->config,
                   "configuration as a JSON object by knob name (as `db best --json` prints it)")
      ->required();
  code->add_flag("--nest", flags->nest, "print the scheduled loop nest instead of the C++");
  code->callback([flags] { RunCode(*flags); });
}

}  // namespace glimpse::cli
