// `glimpse compile MODEL --db DB -o DIR`: a model compiled into a library with the database's
// best kernels (glimpse/model_compile.h); `glimpse run DIR`: that library built, run on a seeded
// input, checked against the reference interpreter and ONNX Runtime, and timed at each thread
// count beside ONNX Runtime (docs/compile.md).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include "commands.h"
#include "compile_run.h"
#include "format.h"
#include "glimpse/cpu.h"
#include "glimpse/cuda.h"
#include "glimpse/database.h"
#include "glimpse/error.h"
#include "glimpse/gpu.h"
#include "glimpse/hardware.h"
#include "glimpse/json_file.h"
#include "glimpse/model_compile.h"
#include "glimpse/onnx_import.h"
#include "glimpse/subprocess.h"
#include "model_source.h"
#include "step_profile.h"

namespace glimpse::cli {
namespace {

namespace fs = std::filesystem;

struct CompileFlags {
  std::string model;
  std::vector<std::string> input_shapes;
  std::string db;
  std::string out;
  std::string name;
  std::string layout = "nchw";
  bool warm_activations = false;
  bool json = false;
  CompileTarget target;
};

Json InputShapesJson(const std::vector<std::string>& input_shapes) {
  Json out = Json::object();
  for (const std::string& text : input_shapes) {
    auto [name, dims] = ParseInputShape(text);
    out[name] = dims;
  }
  return out;
}

void RunCompile(const CompileFlags& flags) {
  LoadedModel model = LoadModel(flags.model, flags.input_shapes, "", /*weights=*/true);
  if (!model.graph) {
    throw Error("compile: '" + flags.model +
                "' lists its matrix products only (no graph to run); compile a CNN of the zoo "
                "or an ONNX file (FILE.onnx)");
  }
  const CompileModelReport report =
      CompileForCli(*model.graph, flags.model, flags.input_shapes, flags.db, flags.out, flags.name,
                    flags.layout == "blocked", flags.warm_activations, flags.target);
  if (flags.json) {
    std::cout << ReadJsonFile((fs::path(flags.out) / "glimpse-compile.json").string(),
                              "the manifest")
                     .dump(2)
              << "\n";
  }
}

// The GPU whose records a CUDA compile takes when none is named: the one the database has records
// of for the model's tasks.
std::string GpuRecordsDevice(const ModelGraph& graph, const Database& database) {
  std::set<std::string> keys;
  for (const GraphLayer& layer : GraphLayers(graph)) {
    try {
      keys.insert(MakeGpuTask(layer.layer.op, "").WorkloadKey());
    } catch (const Error&) {
      continue;  // no GPU template: a plain kernel
    }
  }
  std::set<std::string> devices;  // those with an ok record of one of the model's GPU tasks
  for (const WorkloadSummary& summary : database.Summaries()) {
    if (keys.count(summary.workload_key) && summary.best_time_s) devices.insert(summary.device);
  }
  if (devices.size() > 1) {
    std::vector<std::string> names(devices.begin(), devices.end());
    throw Error(fmt::format(
        "compile: the database has GPU records of this model's tasks on several devices ({}); "
        "name one with --device",
        fmt::join(names, ", ")));
  }
  return devices.empty() ? "" : *devices.begin();
}

// The architecture a CUDA compile builds for when --arch is not given: the GPU's here, else that
// of the GPU whose records are compiled (the GPU table's compiler target), else sm_90.
std::string CompileArch(const std::string& records_device) {
  if (std::optional<std::string> local = LocalCudaArch()) return *local;
  if (!records_device.empty()) {
    try {
      const std::string arch = LookupGpu(records_device).target;  // "sm_80"
      const std::vector<std::string> known = KnownGpuArchs();
      if (std::find(known.begin(), known.end(), arch) != known.end()) return arch;
    } catch (const Error&) {
      // Not in the table: the default.
    }
  }
  return DefaultCudaArch();
}

}  // namespace

CompileModelReport CompileForCli(const ModelGraph& graph, const std::string& model,
                                 const std::vector<std::string>& input_shapes,
                                 const std::string& db, const std::string& dir,
                                 const std::string& name, bool blocked_activations,
                                 bool warm_activations, const CompileTarget& target) {
  std::optional<Database> database;
  if (!db.empty()) {
    if (!fs::exists(db)) throw Error("--db '" + db + "': no such file");
    database.emplace(db, Database::ReadOnly{});
  }
  CompileModelOptions options;
  options.out_dir = dir;
  options.name = name;
  options.database = database ? &*database : nullptr;
  options.log = &std::cerr;
  options.blocked_activations = blocked_activations;
  options.device = CpuRecordsDevice(warm_activations);
  options.target = target.target;
  if (target.target == "cuda") {
    if (warm_activations) throw Error("--warm-activations: a CPU protocol; not with --target cuda");
    options.device = target.device;
    options.cuda_host_emulation = target.host_emulation;
    if (options.device.empty() && database) {
      options.device = GpuRecordsDevice(graph, *database);
      if (!options.device.empty()) std::cerr << "glimpse: records of " << options.device << "\n";
    }
    options.cuda_arch = target.arch.empty() ? CompileArch(options.device) : target.arch;
  }
  options.source = {{"model", IsOnnxPath(model) ? fs::absolute(model).string() : model},
                    {"input_shapes", InputShapesJson(input_shapes)},
                    {"database", db.empty() ? Json(nullptr) : Json(fs::absolute(db).string())}};
  const CompileModelReport report = CompileModel(graph, options);
  int64_t tuned = 0, sibling = 0;
  for (const CompiledKernel& k : report.kernels) {
    tuned += k.origin == "tuned";
    sibling += k.origin == "sibling";
  }
  std::cout << fmt::format(
      "compiled {} into {}: {} steps, {} kernels ({} tuned, {} from a ReLU sibling, {} default), "
      "weights {:.1f} MiB, workspace {:.1f} MiB\n",
      graph.name, report.dir, report.steps, report.kernels.size(), tuned, sibling,
      report.kernels.size() - tuned - sibling, report.weight_bytes / 1048576.0,
      report.workspace_bytes / 1048576.0);
  if (blocked_activations) {
    std::cout << fmt::format(
        "activations kept channel-blocked between convolutions: {} reorders a run ({:.1f} MiB "
        "copied)\n",
        report.reorders, report.reorder_floats * 4 / 1048576.0);
  }
  if (target.target == "cuda") {
    std::cout << fmt::format("for NVIDIA GPUs ({}); records of {}\n", options.cuda_arch,
                             options.device.empty() ? "no GPU" : options.device);
  }
  if (report.estimate_complete) {
    std::cout << fmt::format(
        "estimated from the tuned kernels' records: {:.3f} ms (plain ops not "
        "included; {})\n",
        report.estimated_kernels_s * 1e3,
        warm_activations          ? "measured with the activations warm"
        : target.target == "cuda" ? "measured with the L2 flushed"
                                  : "measured with caches flushed");
  }
  std::cout << fmt::format(
      "build it: cmake -S {0} -B {0}/build && cmake --build {0}/build   "
      "(or: glimpse run {0})\n",
      report.dir);
  return report;
}

namespace {

// ---- glimpse run

int Shell(const std::vector<std::string>& argv, const std::string& log, double timeout_s) {
  process::ChildOptions child;
  child.argv = argv;
  child.stdout_path = log;
  child.stderr_path = log + ".err";
  const process::Child started = process::StartChild(child);
  const process::ChildExit exit = process::WaitChild(started.pid, timeout_s);
  if (exit.timed_out) return -2;
  if (exit.signaled) return -1;
  return exit.code;
}

std::string Tail(const std::string& path, size_t chars = 3000) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.size() > chars ? "…" + text.substr(text.size() - chars) : text;
}

void WriteFloats(const std::string& path, const std::vector<float>& data) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(data.data()),
            static_cast<std::streamsize>(data.size() * sizeof(float)));
  if (!out) throw Error("run: cannot write " + path);
}

std::vector<float> ReadFloats(const std::string& path, size_t count) {
  std::ifstream in(path, std::ios::binary);
  std::vector<float> data(count);
  in.read(reinterpret_cast<char*>(data.data()),
          static_cast<std::streamsize>(count * sizeof(float)));
  if (!in) throw Error("run: " + path + " does not hold " + std::to_string(count) + " floats");
  return data;
}

struct Comparison {
  double max_abs = 0.0;
  double max_ref = 0.0;
  bool finite = true;
};

Comparison Compare(const std::vector<float>& got, const std::vector<float>& want) {
  Comparison c;
  for (size_t i = 0; i < want.size(); ++i) {
    if (!std::isfinite(got[i])) c.finite = false;
    c.max_abs = std::max(c.max_abs, std::fabs(double(got[i]) - double(want[i])));
    c.max_ref = std::max(c.max_ref, std::fabs(double(want[i])));
  }
  return c;
}

// The Python that has onnxruntime: --python, $GLIMPSE_PYTHON, the source tree's .venv, python3.
std::string FindPython(const std::string& flag) {
  if (flag == "none") return "";
  std::vector<std::string> candidates;
  if (!flag.empty()) candidates.push_back(flag);
  if (const char* env = std::getenv("GLIMPSE_PYTHON")) candidates.push_back(env);
  candidates.push_back((fs::path(GlimpseDataDir()).parent_path() / ".venv/bin/python").string());
  candidates.push_back("python3");
  for (const std::string& python : candidates) {
    if (python.find('/') != std::string::npos && !fs::exists(python)) continue;
    const std::string log = (fs::temp_directory_path() / "glimpse-python-probe.txt").string();
    if (Shell({python, "-c", "import onnxruntime"}, log, 60) == 0) return python;
  }
  return "";
}

}  // namespace

void RunCompiledModel(const RunFlags& flags) {
  const fs::path dir(flags.dir);
  const fs::path manifest_path = dir / "glimpse-compile.json";
  if (!fs::exists(manifest_path)) {
    throw Error("run: " + manifest_path.string() + " is missing; make DIR with glimpse compile");
  }
  const Json manifest = ReadJsonFile(manifest_path.string(), "the manifest");
  const std::string name = manifest.at("name");
  const bool cuda = manifest.value("target", "cpu") == "cuda";
  if (cuda && flags.profile) {
    throw Error("run: --profile times the steps of a CPU library; " + flags.dir +
                " was compiled for CUDA (profile it with Nsight Systems)");
  }
  const fs::path build = dir / "build";
  const fs::path harness = build / (name + "_run");
  fs::create_directories(build);
  std::cerr << "building " << name << " (cmake, " << build.string() << ") …\n";
  std::vector<std::string> configure = {"cmake", "-S",           dir.string(),
                                        "-B",    build.string(), "-DCMAKE_BUILD_TYPE=Release"};
  // The toolkit glimpse was built with, unless CUDACXX or the PATH's nvcc say otherwise.
  if (cuda && !std::getenv("CUDACXX") && fs::exists(GLIMPSE_NVCC)) {
    configure.push_back(std::string("-DCMAKE_CUDA_COMPILER=") + GLIMPSE_NVCC);
  }
  if (Shell(configure, (build / "configure.log").string(), 600) != 0) {
    throw Error("run: cmake configure failed:\n" +
                Tail((build / "configure.log").string() + ".err") +
                Tail((build / "configure.log").string()));
  }
  if (Shell({"cmake", "--build", build.string(), "-j", "2"}, (build / "build.log").string(),
            3600) != 0) {
    throw Error("run: the build failed:\n" + Tail((build / "build.log").string()) +
                Tail((build / "build.log").string() + ".err"));
  }

  // The seeded inputs, and the reference outputs of the graph the library was compiled from.
  const std::string model_path = manifest.at("source").at("model");
  OnnxImportOptions import;
  for (const auto& [input, dims] : manifest.at("source").at("input_shapes").items()) {
    import.input_shapes[input] = dims.get<std::vector<int64_t>>();
  }
  const bool onnx = IsOnnxPath(model_path);
  // The same seed as the compile (LoadModel's): the same weights.
  const ModelGraph graph = onnx ? ImportOnnx(model_path, import) : ZooGraph(model_path, 0);
  const fs::path work = dir / "run";
  fs::create_directories(work);
  std::mt19937 rng(static_cast<unsigned>(flags.seed));
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<std::vector<float>> inputs;
  std::vector<std::string> input_args, output_args;
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    std::vector<float> data(graph.tensors[graph.inputs[i]].Elements());
    for (float& v : data) v = uniform(rng);
    const std::string path = (work / fmt::format("input{}.bin", i)).string();
    WriteFloats(path, data);
    inputs.push_back(std::move(data));
    input_args.insert(input_args.end(), {"--input", path});
  }
  for (size_t i = 0; i < graph.outputs.size(); ++i) {
    output_args.insert(output_args.end(),
                       {"--output", (work / fmt::format("output{}.bin", i)).string()});
  }
  // The reference outputs, computed once the first harness run has produced outputs to compare
  // (a CUDA library on a machine without a device stops before that).
  std::optional<decltype(RunModelGraphReference(graph, inputs))> reference;

  const std::string python = onnx ? FindPython(flags.python) : "";
  const fs::path ort_script = fs::path(GlimpseDataDir()).parent_path() / "scripts/onnx/ort_run.py";
  const bool with_ort = onnx && !python.empty() && fs::exists(ort_script);
  if (!onnx) {
    std::cerr << "glimpse: note: " << model_path
              << " is a zoo model, not an ONNX file: ONNX Runtime is skipped\n";
  } else if (!with_ort) {
    std::cerr << "glimpse: note: no Python with onnxruntime (scripts/python-env.sh makes one; "
                 "--python or $GLIMPSE_PYTHON name it): ONNX Runtime is skipped\n";
  }

  Json report = {{"model", name},
                 {"dir", flags.dir},
                 {"graph", graph.source},
                 {"tolerance", flags.tolerance},
                 {"runs", Json::array()}};
  Table table({"threads", "glimpse ms", "ORT ms", "glimpse/ORT", "max |err| vs reference",
               "max |err| vs ORT"});
  bool all_ok = true;
  // A CUDA library runs once, on the GPU; ONNX Runtime beside it on every core of the CPU.
  const std::vector<int> thread_counts = cuda ? std::vector<int>{0} : flags.threads;
  for (int threads : thread_counts) {
    const std::string timing = (work / fmt::format("glimpse-{}t.json", threads)).string();
    std::vector<std::string> argv = {harness.string(),
                                     "--threads",
                                     std::to_string(threads),
                                     "--min-repeats",
                                     std::to_string(flags.min_repeats),
                                     "--min-time",
                                     fmt::format("{}", flags.min_time_s),
                                     "--json",
                                     timing};
    if (flags.profile) argv.insert(argv.end(), {"--profile", std::to_string(flags.min_repeats)});
    argv.insert(argv.end(), input_args.begin(), input_args.end());
    argv.insert(argv.end(), output_args.begin(), output_args.end());
    std::cerr << (cuda ? fmt::format("running {} on the GPU …\n", name)
                       : fmt::format("running {} on {} thread(s) …\n", name, threads));
    const int code = Shell(argv, (work / "harness.log").string(), 3600);
    if (cuda && code == 3) {
      throw Error(fmt::format(
          "run: built {} (lib{}.a, lib{}.so, {}_run), but this machine has no CUDA device, so "
          "nothing ran: {}",
          build.string(), name, name, name, Tail((work / "harness.log").string() + ".err")));
    }
    if (code != 0) {
      throw Error(fmt::format("run: {} failed (exit {}):\n{}", harness.string(), code,
                              Tail((work / "harness.log").string() + ".err")));
    }
    const Json measured = ReadJsonFile(timing, "the harness timing");
    if (!reference) {
      std::cerr << "reference outputs (the graph interpreter, double precision) …\n";
      reference = RunModelGraphReference(graph, inputs);
    }
    double worst = 0.0, worst_scale = 0.0;
    bool finite = true;
    for (size_t o = 0; o < graph.outputs.size(); ++o) {
      const auto got =
          ReadFloats((work / fmt::format("output{}.bin", o)).string(), (*reference)[o].size());
      const Comparison c = Compare(got, (*reference)[o]);
      worst = std::max(worst, c.max_abs);
      worst_scale = std::max(worst_scale, c.max_ref);
      finite = finite && c.finite;
    }
    // Relative to the output's scale: a network with random weights may have tiny outputs.
    const bool ok = finite && worst <= flags.tolerance * std::max(worst_scale, 1e-30);
    all_ok = all_ok && ok;
    Json run = {{"threads", threads},
                {"glimpse", measured},
                {"max_abs_error_vs_reference", worst},
                {"max_abs_reference", worst_scale},
                {"within_tolerance", ok}};
    std::string ort_ms = "-", ratio = "-", ort_err = "-";
    if (with_ort) {
      const std::string ort_json = (work / fmt::format("ort-{}t.json", threads)).string();
      const int ort_threads =
          threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency());
      std::vector<std::string> ort = {python,          ort_script.string(),
                                      "--model",       model_path,
                                      "--threads",     std::to_string(ort_threads),
                                      "--min-repeats", std::to_string(flags.min_repeats),
                                      "--min-time",    fmt::format("{}", flags.min_time_s),
                                      "--json",        ort_json};
      ort.insert(ort.end(), input_args.begin(), input_args.end());
      for (size_t o = 0; o < graph.outputs.size(); ++o) {
        ort.insert(ort.end(), {"--output", (work / fmt::format("ort{}.bin", o)).string()});
      }
      std::cerr << fmt::format("running ONNX Runtime on {} thread(s) …\n", threads);
      if (Shell(ort, (work / "ort.log").string(), 3600) != 0) {
        throw Error("run: ONNX Runtime failed:\n" + Tail((work / "ort.log").string() + ".err"));
      }
      const Json ort_measured = ReadJsonFile(ort_json, "ONNX Runtime timing");
      double ort_worst = 0.0;
      for (size_t o = 0; o < graph.outputs.size(); ++o) {
        const auto got =
            ReadFloats((work / fmt::format("output{}.bin", o)).string(), (*reference)[o].size());
        const auto theirs =
            ReadFloats((work / fmt::format("ort{}.bin", o)).string(), (*reference)[o].size());
        ort_worst = std::max(ort_worst, Compare(got, theirs).max_abs);
      }
      run["onnxruntime"] = ort_measured;
      run["max_abs_error_vs_onnxruntime"] = ort_worst;
      const double ort_s = ort_measured.at("median_s");
      ort_ms = fmt::format("{:.3f}", ort_s * 1e3);
      ratio = fmt::format("{:.2f}", measured.at("median_s").get<double>() / ort_s);
      ort_err =
          fmt::format("{:.2e} ({:.1e} rel)", ort_worst, ort_worst / std::max(worst_scale, 1e-30));
    }
    table.AddRow(
        {cuda ? "GPU: " + measured.value("device", std::string("?")) : std::to_string(threads),
         fmt::format("{:.3f}", measured.at("median_s").get<double>() * 1e3), ort_ms, ratio,
         fmt::format("{:.2e} ({:.1e} rel){}", worst, worst / std::max(worst_scale, 1e-30),
                     ok ? "" : " too large"),
         ort_err});
    report["runs"].push_back(run);
  }
  std::cout << fmt::format("{} ({}): median of timed runs, caches flushed between runs{}\n", name,
                           graph.source, cuda ? "; ONNX Runtime on every core of the CPU" : "");
  table.Print(std::cout);
  std::cout << fmt::format(
      "tolerance: max |err| ≤ {:g} × max |reference|; rel = max |err| / "
      "max |reference|\n",
      flags.tolerance);
  for (const Json& run : report["runs"]) {
    if (run["glimpse"].contains("profile")) {
      PrintStepProfile(run["glimpse"]["profile"], run["threads"], 10, std::cout);
    }
  }
  if (!flags.json.empty()) {
    std::ofstream out(flags.json);
    out << report.dump(2) << "\n";
    if (!out) throw Error("--json '" + flags.json + "': cannot write");
  }
  if (!all_ok) throw Error("run: the output differs from the reference beyond the tolerance");
}

void AddCompileCommands(CLI::App& app) {
  auto flags = std::make_shared<CompileFlags>();
  CLI::App* compile = app.add_subcommand(
      "compile",
      "Compile a model (an ONNX file or a CNN of the zoo) into a self-contained library (C API, "
      "CMake project) with the database's best kernels for this CPU or, with --target cuda, an "
      "NVIDIA GPU");
  compile
      ->add_option("model", flags->model,
                   "the model: an ONNX file FILE.onnx, or a CNN of the zoo ('glimpse model "
                   "list')")
      ->required();
  compile->add_option("--input-shape", flags->input_shapes,
                      "NAME=1x3x224x224 for an input with symbolic dimensions (repeatable)");
  compile->add_option("--db", flags->db,
                      "tuning database with the best configurations (none: every kernel gets "
                      "a default configuration, with a warning)");
  compile->add_option("-o,--out", flags->out, "the artifact's directory")->required();
  compile->add_option("--name", flags->name, "the library's name (default: the model file's stem)");
  compile
      ->add_option("--layout", flags->layout,
                   "activations between the convolutions: nchw, or blocked (NCHW[16]c and "
                   "NCHW[8]c kept from layer to layer; the layers become the blocked operators, "
                   "whose records are their own: tune them with the same --layout)")
      ->check(CLI::IsMember({"nchw", "blocked"}))
      ->capture_default_str();
  compile->add_flag("--warm-activations", flags->warm_activations,
                    "take the records tuned with glimpse tune --warm-activations (kept under the "
                    "device name with '" +
                        std::string(kWarmActivationsSuffix).substr(1) +
                        "'), not those measured with every operand flushed");
  compile
      ->add_option("--target", flags->target.target,
                   "cpu (this machine: C++ and OpenMP) or cuda (an NVIDIA GPU: CUDA C++ built "
                   "with nvcc; builds without a GPU, runs on one)")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  compile->add_option("--arch", flags->target.arch,
                      "--target cuda: the GPU architecture to build for, sm_75 … sm_120 "
                      "(default: the GPU's here, else that of the GPU whose records are "
                      "compiled, else sm_90)");
  compile->add_option("--device", flags->target.device,
                      "--target cuda: the GPU whose tuning records count, as its driver names it "
                      "(default: the one GPU the database has records of for the model)");
  compile
      ->add_flag("--host-emulation", flags->target.host_emulation,
                 "--target cuda: kernels as the C++ of their GPU nests, to build with "
                 "GLIMPSE_RT_HOST_EMULATION and a stand-in cuda_runtime.h and check on the CPU")
      ->group("");  // a developer's check (docs/compile.md), not a deployment's
  compile->add_flag("--json", flags->json, "print the artifact's manifest as JSON");
  compile->callback([flags] { RunCompile(*flags); });

  auto run_flags = std::make_shared<RunFlags>();
  CLI::App* run = app.add_subcommand(
      "run",
      "Build a compiled model, run it on a seeded input, check its output against the reference "
      "interpreter and ONNX Runtime, and time it beside ONNX Runtime");
  run->add_option("dir", run_flags->dir, "the directory glimpse compile wrote")->required();
  run->add_option("--threads", run_flags->threads, "thread counts to time at (repeatable)")
      ->delimiter(',');
  run->add_option("--python", run_flags->python,
                  "a Python with onnxruntime (default: $GLIMPSE_PYTHON, .venv, python3); none: "
                  "skip ONNX Runtime");
  run->add_option("--tolerance", run_flags->tolerance,
                  "max |error| allowed, relative to the largest |reference output|")
      ->capture_default_str();
  run->add_option("--seed", run_flags->seed, "the inputs' seed")->capture_default_str();
  run->add_option("--min-repeats", run_flags->min_repeats, "timed runs at least")
      ->capture_default_str();
  run->add_option("--min-time", run_flags->min_time_s, "seconds of timed runs at least")
      ->capture_default_str();
  run->add_option("--json", run_flags->json, "write the outputs' errors and all timings here");
  run->add_flag("--profile", run_flags->profile,
                "also time every step (kernels, other operators, layout reorders) over as many "
                "runs as --min-repeats and print where the time goes");
  run->callback([run_flags] { RunCompiledModel(*run_flags); });
}

}  // namespace glimpse::cli
