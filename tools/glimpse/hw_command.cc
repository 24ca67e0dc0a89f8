// `glimpse hw list|show|embed|fit`: the GPU specification table, the local machine and the
// Blueprint embedding (docs/hardware.md).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

#include "commands.h"
#include "format.h"
#include "glimpse/error.h"
#include "glimpse/hardware.h"
#include "glimpse/replay.h"

namespace glimpse::cli {
namespace {

constexpr const char* kLocalCpu = "local-cpu";
constexpr const char* kLocalGpu = "local-gpu";

struct HwFlags {
  std::string table_path;  // empty: the installed table
  std::string model_path;  // empty: the installed Blueprint
  std::string vendor;
  bool json = false;
  std::vector<std::string> names;
  std::vector<std::string> spec_files;
  std::vector<std::string> spaces;  // recorded spaces whose GPU is meant
  std::string device;               // --device NAME: the GPU of files that name none
  // fit
  std::string out_path;
  std::string criterion = "rmse";
  double max_rmse = 0.005;
  double min_variance = 0.99;
  int components = 0;
};

const GpuTable& LoadTable(const HwFlags& flags, std::optional<GpuTable>& storage) {
  if (flags.table_path.empty()) return GpuTable::Default();
  storage = GpuTable::Load(flags.table_path);
  return *storage;
}

std::string FormatBytes(double bytes) {
  if (bytes <= 0) return "0";
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024.0 && unit < 4) {
    bytes /= 1024.0;
    ++unit;
  }
  return fmt::format("{:.4g} {}", bytes, units[unit]);
}

// A field's value with its unit, for people.
std::string FormatField(const GpuNumericField& field, double value) {
  std::string unit = field.unit;
  if (unit == "bytes") return FormatBytes(value);
  if (unit == "FLOP/s") return fmt::format("{:.4g} TFLOP/s", value / 1e12);
  if (unit == "count") return fmt::format("{:.0f}", value);
  return fmt::format("{:.6g} {}", value, unit);
}

// The GPU a recorded space was measured on: --device NAME, else the name the file reports, else
// its file name.
const GpuSpec& GpuOfRecordedSpace(const GpuTable& table, const std::string& path,
                                  const std::string& device) {
  RecordedSpace recorded = LoadRecordedSpace(path);
  std::string stem = std::filesystem::path(path).filename().string();
  for (const std::string suffix : {".gz", ".json"}) {
    if (stem.size() > suffix.size() && stem.ends_with(suffix))
      stem.resize(stem.size() - suffix.size());
  }
  // LoadRecordedSpace falls back on the file name itself; only a name in the file is "reported".
  std::string reported = recorded.device_name == stem ? "" : recorded.device_name;
  return ResolveRecordedGpu(table, device, reported, path);
}

std::string Or(const std::string& text, const char* fallback) {
  return text.empty() ? fallback : text;
}

// ---- list

// Architecture order of a compiler target: "sm_86" → 86; "gfx90a" → 9·256 + 0x0a, "gfx1030" →
// 10·256 + 0x30 (the last two digits are the minor version and stepping, in hex).
int TargetOrder(const std::string& target) {
  try {
    if (target.rfind("sm_", 0) == 0) return std::stoi(target.substr(3));
    if (target.rfind("gfx", 0) == 0 && target.size() >= 6) {
      const std::string version = target.substr(3);
      return std::stoi(version.substr(0, version.size() - 2)) * 256 +
             std::stoi(version.substr(version.size() - 2), nullptr, 16);
    }
  } catch (const std::exception&) {
  }
  return 0;
}

void RunList(const HwFlags& flags) {
  std::optional<GpuTable> storage;
  const GpuTable& table = LoadTable(flags, storage);
  std::optional<GpuVendor> vendor;
  if (!flags.vendor.empty()) vendor = ParseGpuVendor(flags.vendor);
  std::vector<const GpuSpec*> shown;
  for (const GpuSpec& gpu : table.gpus()) {
    if (!vendor || gpu.vendor == *vendor) shown.push_back(&gpu);
  }
  // By vendor, then architecture (oldest first); within one, in the table's order.
  std::stable_sort(shown.begin(), shown.end(), [](const GpuSpec* a, const GpuSpec* b) {
    if (a->vendor != b->vendor) return a->vendor < b->vendor;
    return TargetOrder(a->target) < TargetOrder(b->target);
  });
  if (flags.json) {
    Json out = Json::array();
    for (const GpuSpec* gpu : shown) out.push_back(gpu->ToJson());
    std::cout << out.dump(1) << "\n";
    return;
  }
  cli::Table rows({"name", "vendor", "architecture", "target", "SMs", "boost MHz", "memory", "GB/s",
                   "L2", "FP32 TFLOP/s"});
  rows.AlignLeft({"vendor", "architecture", "target"});
  for (const GpuSpec* gpu : shown) {
    rows.AddRow({gpu->name, GpuVendorName(gpu->vendor), gpu->architecture, gpu->target,
                 std::to_string(gpu->sm_count), fmt::format("{:.0f}", gpu->boost_clock_mhz),
                 FormatBytes(static_cast<double>(gpu->memory_bytes)),
                 fmt::format("{:.0f}", gpu->memory_bandwidth_gb_per_s),
                 FormatBytes(static_cast<double>(gpu->l2_bytes)),
                 fmt::format("{:.1f}", gpu->fp32_flops / 1e12)});
  }
  rows.Print(std::cout);
  std::cout << fmt::format("\n{} GPUs from {}\n", shown.size(), table.origin());
}

// ---- show

void PrintSpec(const GpuSpec& gpu) {
  std::cout << fmt::format("{}  ({}, {}", gpu.name, GpuVendorName(gpu.vendor),
                           Or(gpu.segment, "segment unknown"));
  if (gpu.devices_per_board > 1) {
    std::cout << fmt::format(", {} devices per board; figures per device", gpu.devices_per_board);
  }
  std::cout << ")\n";
  if (!gpu.aliases.empty()) {
    std::string aliases;
    for (const std::string& alias : gpu.aliases) aliases += (aliases.empty() ? "" : ", ") + alias;
    std::cout << "aliases: " << aliases << "\n";
  }
  std::cout << "\n";
  auto source = [&](const std::string& field) {
    auto it = gpu.sources.find(field);
    return it == gpu.sources.end() ? std::string("-") : it->second;
  };
  auto line = [&](const std::string& field, const std::string& value) {
    std::cout << fmt::format("{:<30} {:<18} {}\n", field, value, source(field));
  };
  line("architecture", Or(gpu.architecture, "-"));
  line("chip", Or(gpu.chip, "-"));
  line("target", Or(gpu.target, "-"));
  line("compute_capability", Or(gpu.compute_capability, "-"));
  line("memory_type", Or(gpu.memory_type, "-"));
  for (const GpuNumericField& field : GpuNumericFields()) {
    line(field.name, FormatField(field, field.get(gpu)));
  }
}

void PrintCpu(const CpuDescription& cpu) {
  auto line = [](const std::string& label, const std::string& value) {
    std::cout << fmt::format("{:<22} {}\n", label, value);
  };
  line("model", cpu.model_name);
  line("vendor", Or(cpu.vendor, "-"));
  line("sockets", std::to_string(cpu.sockets));
  line("physical cores", std::to_string(cpu.physical_cores));
  line("logical CPUs", std::to_string(cpu.logical_cpus));
  auto mhz = [](double value) { return value > 0 ? fmt::format("{:.0f} MHz", value) : "-"; };
  line("base clock", mhz(cpu.base_clock_mhz));
  line("max clock", mhz(cpu.max_clock_mhz));
  line("current clock", mhz(cpu.current_clock_mhz));
  for (const CpuCache& cache : cpu.caches) {
    line(fmt::format("L{} {}", cache.level, cache.type),
         fmt::format("{} (shared by {} CPUs)", FormatBytes(static_cast<double>(cache.size_bytes)),
                     cache.shared_by_cpus));
  }
  std::string flags;
  for (const std::string& flag : cpu.isa_flags) flags += (flags.empty() ? "" : " ") + flag;
  line("vector ISA", Or(flags, "-"));
  line("SIMD width", cpu.simd_width_bits ? fmt::format("{} bits", cpu.simd_width_bits) : "-");
  std::cout << "(from /proc/cpuinfo and /sys/devices/system/cpu on this machine)\n";
}

std::vector<LocalGpu> LocalGpus(const GpuTable& table) {
  std::vector<LocalGpu> gpus = DescribeLocalNvidiaGpus(table);
  if (gpus.empty()) {
    throw Error("no NVIDIA GPU found on this machine (nvidia-smi is not on PATH or lists none)");
  }
  return gpus;
}

void RunShow(const HwFlags& flags) {
  std::optional<GpuTable> storage;
  if (flags.names.size() + flags.spaces.size() != 1) {
    throw Error("name one GPU (or local-cpu, local-gpu), or one recorded space with --space FILE");
  }
  if (!flags.spaces.empty()) {
    const GpuSpec& gpu =
        GpuOfRecordedSpace(LoadTable(flags, storage), flags.spaces.front(), flags.device);
    if (flags.json) {
      std::cout << gpu.ToJson().dump(1) << "\n";
    } else {
      PrintSpec(gpu);
    }
    return;
  }
  const std::string& name = flags.names.front();
  if (name == kLocalCpu) {
    CpuDescription cpu = DescribeLocalCpu();
    if (flags.json) {
      std::cout << cpu.ToJson().dump(1) << "\n";
    } else {
      PrintCpu(cpu);
    }
    return;
  }
  const GpuTable& table = LoadTable(flags, storage);
  if (name == kLocalGpu) {
    std::vector<LocalGpu> gpus = LocalGpus(table);
    if (flags.json) {
      Json out = Json::array();
      for (const LocalGpu& gpu : gpus) out.push_back(gpu.ToJson());
      std::cout << out.dump(1) << "\n";
      return;
    }
    for (const LocalGpu& gpu : gpus) {
      std::cout << fmt::format(
          "GPU {}: {}  (nvidia-smi: {} memory, max SM clock {:.0f} MHz, compute capability {}, "
          "driver {})\n",
          gpu.index, gpu.name, FormatBytes(static_cast<double>(gpu.memory_bytes)),
          gpu.max_sm_clock_mhz, Or(gpu.compute_capability, "-"), gpu.driver_version);
      if (gpu.in_table) {
        std::cout << "table entry:\n";
        PrintSpec(gpu.spec);
      } else {
        std::string closest;
        for (const std::string& other : table.ClosestNames(gpu.name)) {
          closest += (closest.empty() ? "" : ", ") + other;
        }
        std::cout << fmt::format("not in the GPU table {}; closest: {}\n", table.origin(), closest);
      }
      std::cout << "\n";
    }
    return;
  }
  const GpuSpec& gpu = table.Lookup(name);
  if (flags.json) {
    std::cout << gpu.ToJson().dump(1) << "\n";
  } else {
    PrintSpec(gpu);
  }
}

// ---- embed

// A GPU described in a JSON file: one table entry (the form `glimpse hw show NAME --json`
// prints), or a table-like object with a "gpus" list.
std::vector<GpuSpec> SpecsFromFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("cannot open GPU spec file '{}'", path));
  Json json;
  try {
    json = Json::parse(in);
    // parse_error, or out_of_range for a number too large for a double
  } catch (const Json::exception& e) {
    throw Error(fmt::format("GPU spec file '{}' is not valid JSON: {}", path, e.what()));
  }
  std::vector<GpuSpec> specs;
  if (json.is_object() && json.contains("gpus")) {
    for (size_t i = 0; i < json["gpus"].size(); ++i) {
      specs.push_back(GpuSpec::FromJson(json["gpus"][i], fmt::format("{}: gpus[{}]", path, i)));
    }
  } else {
    specs.push_back(GpuSpec::FromJson(json, path));
  }
  return specs;
}

void RunEmbed(const HwFlags& flags) {
  if (flags.names.empty() && flags.spec_files.empty() && flags.spaces.empty()) {
    throw Error("name at least one GPU (or local-gpu), or pass --spec FILE or --space FILE");
  }
  std::optional<GpuTable> storage;
  std::optional<Blueprint> loaded;
  if (!flags.model_path.empty()) loaded = Blueprint::Load(flags.model_path);
  const Blueprint& model = loaded ? *loaded : Blueprint::Default();
  std::string model_origin =
      flags.model_path.empty() ? HardwareDataPath("blueprint.json") : flags.model_path;

  const GpuTable* table = nullptr;  // loaded when a name needs it
  auto get_table = [&]() -> const GpuTable& {
    if (!table) table = &LoadTable(flags, storage);
    return *table;
  };
  std::vector<GpuSpec> specs;
  for (const std::string& name : flags.names) {
    if (name == kLocalGpu) {
      for (const LocalGpu& gpu : LocalGpus(get_table())) {
        if (!gpu.in_table) {
          throw Error(
              fmt::format("this machine's GPU '{}' is not in the GPU table, so its "
                          "figures are incomplete; describe it in a file for --spec",
                          gpu.name));
        }
        specs.push_back(gpu.spec);
      }
    } else {
      specs.push_back(get_table().Lookup(name));
    }
  }
  for (const std::string& path : flags.spec_files) {
    for (GpuSpec& spec : SpecsFromFile(path)) specs.push_back(std::move(spec));
  }
  for (const std::string& path : flags.spaces) {
    specs.push_back(GpuOfRecordedSpace(get_table(), path, flags.device));
  }

  if (flags.json) {
    Json out = {{"model", model_origin},
                {"components", model.components()},
                {"criterion", ComponentCriterionName(model.options().criterion)},
                {"embeddings", Json::array()}};
    for (const GpuSpec& spec : specs) {
      out["embeddings"].push_back({{"name", spec.name}, {"blueprint", model.Embed(spec)}});
    }
    std::cout << out.dump(1) << "\n";
    return;
  }
  std::cout << fmt::format("Blueprint of {} components ({}; {})\n", model.components(),
                           ComponentCriterionName(model.options().criterion), model_origin);
  size_t width = 0;
  for (const GpuSpec& spec : specs) width = std::max(width, spec.name.size());
  for (const GpuSpec& spec : specs) {
    std::string values;
    for (double value : model.Embed(spec)) values += fmt::format(" {:8.4f}", value);
    std::cout << fmt::format("{:<{}} {}\n", spec.name, width, values);
  }
}

// ---- fit

void RunFit(const HwFlags& flags) {
  std::optional<GpuTable> storage;
  const GpuTable& table = LoadTable(flags, storage);
  BlueprintOptions options;
  options.criterion = ParseComponentCriterion(flags.criterion);
  options.max_rmse = flags.max_rmse;
  options.min_explained_variance = flags.min_variance;
  options.components = flags.components;
  if (options.criterion == ComponentCriterion::kFixed && flags.components == 0) {
    throw Error("--criterion fixed needs --components K");
  }
  // On the catalog entries only: the GPUs derived from the Wikipedia lists are embedded, not
  // fitted.
  const std::vector<GpuSpec> catalog = table.CatalogGpus();
  if (catalog.empty()) throw Error(table.origin() + ": no catalog GPU to fit the Blueprint on");
  Blueprint model = Blueprint::Fit(catalog, options);
  std::string out_path =
      flags.out_path.empty() ? HardwareDataPath("blueprint.json") : flags.out_path;
  model.Save(out_path);

  BlueprintOptions by_rmse, by_variance;
  by_rmse.max_rmse = flags.max_rmse;
  by_variance.criterion = ComponentCriterion::kExplainedVariance;
  by_variance.min_explained_variance = flags.min_variance;
  int k_rmse = model.ComponentsFor(by_rmse), k_variance = model.ComponentsFor(by_variance);
  if (flags.json) {
    Json out = {{"out", out_path},
                {"gpus", catalog.size()},
                {"dimensions", model.dimensions()},
                {"components", model.components()},
                {"components_by_rmse", k_rmse},
                {"components_by_variance", k_variance},
                {"rmse_by_components", model.rmse_by_components()},
                {"explained_variance_by_components", model.explained_variance_by_components()},
                {"constant_features", model.constant_features()}};
    std::cout << out.dump(1) << "\n";
    return;
  }
  std::cout << fmt::format(
      "Blueprint fitted on the {} catalog GPUs of {}: {} standardised features", catalog.size(),
      table.origin(), model.dimensions());
  if (!model.constant_features().empty()) {
    std::string constant;
    for (const auto& [field, value] : model.constant_features()) {
      constant += fmt::format("{}{} = {:g}", constant.empty() ? "" : ", ", field, value);
    }
    std::cout << fmt::format(" (constant, left out: {})", constant);
  }
  std::cout << "\n\n";
  cli::Table rows({"k", "RMSE (std. units)", "explained variance", ""});
  rows.AlignLeft({""});
  for (int k = 1; k <= model.dimensions(); ++k) {
    std::string note;
    if (k == k_rmse) note += fmt::format("first with RMSE < {:g}", flags.max_rmse);
    if (k == k_variance) {
      note +=
          fmt::format("{}first with variance ≥ {:g}", note.empty() ? "" : "; ", flags.min_variance);
    }
    if (k == model.components()) note += note.empty() ? "kept" : "; kept";
    rows.AddRow({std::to_string(k), fmt::format("{:.6f}", model.rmse_by_components()[k - 1]),
                 fmt::format("{:.6f}", model.explained_variance_by_components()[k - 1]), note});
  }
  rows.Print(std::cout);
  std::cout << fmt::format("\nkept {} of {} components ({}); wrote {}\n", model.components(),
                           model.dimensions(), ComponentCriterionName(options.criterion), out_path);
}

}  // namespace

void AddHardwareCommand(CLI::App& app) {
  auto flags = std::make_shared<HwFlags>();
  CLI::App* hw = app.add_subcommand(
      "hw", "GPU specifications, this machine's CPU and GPU, and the Blueprint embedding");
  hw->require_subcommand(1);
  auto add_table = [&](CLI::App* command) {
    command->add_option("--table", flags->table_path,
                        "GPU table file (default: data/hardware/gpus.json)");
    command->add_flag("--json", flags->json, "print as JSON");
  };

  CLI::App* list = hw->add_subcommand("list", "The GPUs of the specification table");
  list->add_option("--vendor", flags->vendor, "only this vendor's GPUs: nvidia or amd");
  add_table(list);
  list->callback([flags] { RunList(*flags); });

  CLI::App* show = hw->add_subcommand(
      "show",
      "Every figure of one GPU with its source; local-cpu and local-gpu describe this "
      "machine");
  show->add_option("name", flags->names, "GPU name or alias, local-cpu or local-gpu")
      ->expected(0, 1);
  auto add_space = [&](CLI::App* command) {
    command->add_option("--space", flags->spaces,
                        "a recorded space (Kernel Tuner cache or T4 file): its GPU");
    command->add_option("--device", flags->device,
                        "the GPU of --space files that name none (or to override their name)");
  };
  add_space(show);
  add_table(show);
  show->callback([flags] { RunShow(*flags); });

  CLI::App* embed = hw->add_subcommand("embed", "The Blueprint vector of GPUs");
  embed->add_option("names", flags->names, "GPU names or aliases, or local-gpu");
  embed->add_option("--spec", flags->spec_files,
                    "JSON file describing a GPU (as `hw show NAME --json` prints), e.g. one "
                    "not in the table");
  add_space(embed);
  embed->add_option("--model", flags->model_path,
                    "Blueprint model (default: data/hardware/blueprint.json)");
  add_table(embed);
  embed->callback([flags] { RunEmbed(*flags); });

  CLI::App* fit = hw->add_subcommand("fit", "Fit the Blueprint (PCA) on the GPU table");
  fit->add_option("--out", flags->out_path,
                  "model file to write (default: data/hardware/blueprint.json)");
  fit->add_option("--criterion", flags->criterion,
                  "how many components to keep: rmse (the paper's), variance or fixed")
      ->default_str("rmse");
  fit->add_option("--max-rmse", flags->max_rmse,
                  "rmse: keep the fewest components whose reconstruction RMSE, in standardised "
                  "units, is below this")
      ->default_str("0.005");
  fit->add_option("--min-variance", flags->min_variance,
                  "variance: keep the fewest components explaining at least this fraction")
      ->default_str("0.99");
  fit->add_option("--components", flags->components, "fixed: keep exactly this many");
  add_table(fit);
  fit->callback([flags] { RunFit(*flags); });
}

}  // namespace glimpse::cli
