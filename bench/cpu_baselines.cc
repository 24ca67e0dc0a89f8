// cpu_baselines — what vendor libraries achieve on glimpse's CPU operators, and the FP32 peak of
// this CPU, measured under glimpse's runner protocol, so tuned kernels can be read against them.
//
//   cpu_baselines [--ops FILE] [--op TEXT]... [--threads N] [--check] [--json OUT] [--markdown OUT]
//
// Per operator: oneDNN with its preferred blocked layouts (reorders of input and weights done
// once, untimed) and on the plain layouts, for dense OpenBLAS sgemm (+ sgemv for M = 1); the FP32
// peak from an FMA microbenchmark on one thread and on all. Without --ops/--op the ResNet-18 list
// bench/configs/resnet18_cpu_tasks.txt is measured. Results: bench/results/cpu_baselines.{json,md}.
//
// Exit status: 0; 1 when --check found a wrong output or a library refused an operator (the
// others are still measured and written); 2 for a usage error (bad operator, file, thread count).
//
// Map: option parsing and the op list (this file) → bench/cpu_baselines/: protocol (CPUs,
// pinning, flush, timing), peak, onednn, openblas, reference (inputs, double reference, check),
// report (JSON, Markdown).
#include <fmt/format.h>
#include <omp.h>
#include <sched.h>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iostream>
#include <string>
#include <variant>
#include <vector>

#include "cpu_baselines/bandwidth.h"
#include "cpu_baselines/onednn.h"
#include "cpu_baselines/openblas.h"
#include "cpu_baselines/peak.h"
#include "cpu_baselines/protocol.h"
#include "cpu_baselines/reference.h"
#include "cpu_baselines/report.h"
#include "glimpse/error.h"
#include "glimpse/ops.h"

namespace glimpse::baselines {
namespace {

constexpr const char* kDefaultOps = "bench/configs/resnet18_cpu_tasks.txt";
constexpr uint64_t kDataSeed = 1;  // the runner's default data_seed

// Small shapes with the awkward cases (odd sizes, stride, padding, dilation, ReLU, no bias,
// depthwise, batched) that --check runs through every library before the real operators.
const std::vector<std::string> kSmallCheckOps = {
    "conv2d:N=2,C=3,H=11,W=13,K=5,R=3,S=3,stride=2,pad=1,bias=1",
    "conv2d:N=1,C=17,H=9,W=9,K=19,R=1,S=1,stride=1,pad=0,bias=0",
    "conv2d:N=1,C=8,H=10,W=10,K=16,R=3,S=3,stride=1,pad=2,dilation=2,bias=1,relu=1",
    "conv2d:N=1,C=16,H=15,W=15,K=32,R=7,S=7,stride=2,pad=3,bias=1",
    "depthwise_conv2d:N=1,C=24,H=9,W=9,R=3,S=3,stride=2,pad=1,bias=1",
    "dense:M=1,N=37,K=29,bias=1",
    "dense:M=5,N=33,K=70,bias=1,relu=1",
    "batch_matmul:B=3,M=5,N=7,K=9,bias=1",
};

struct Options {
  std::string ops_file;
  std::vector<std::string> ops;
  int threads = 0;
  bool check = false;
  std::string json_out, markdown_out;
  std::string machine_profile_out;  // measure peak and bandwidths, write the profile, stop
};

struct OpEntry {
  Operator op;
  std::string source;
};

std::string Trim(const std::string& text) {
  const char* space = " \t\r\n";
  size_t begin = text.find_first_not_of(space);
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(space) - begin + 1);
}

// The path as a reader should see it: relative to the source tree when it lies inside it.
std::string DisplayPath(const std::string& path) {
  const std::string root = std::string(GLIMPSE_SOURCE_DIR) + "/";
  return path.rfind(root, 0) == 0 ? path.substr(root.size()) : path;
}

// One operator per line; '#' starts a comment; blank lines are skipped.
std::vector<OpEntry> ReadOpsFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot open the --ops file '" + path + "'");
  std::vector<OpEntry> entries;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::string text = Trim(line.substr(0, line.find('#')));
    if (text.empty()) continue;
    const std::string where = DisplayPath(path) + ":" + std::to_string(number);
    try {
      entries.push_back({ParseOperator(text), where});
    } catch (const Error& error) {
      throw Error(where + ": " + error.what());
    }
  }
  if (entries.empty()) throw Error("the --ops file '" + path + "' lists no operator");
  return entries;
}

std::vector<OpEntry> CollectOps(const Options& options) {
  std::vector<OpEntry> entries;
  std::string file = options.ops_file;
  if (file.empty() && options.ops.empty()) {
    file = std::string(GLIMPSE_SOURCE_DIR) + "/" + kDefaultOps;
  }
  if (!file.empty()) entries = ReadOpsFile(file);
  for (const auto& text : options.ops) {
    try {
      entries.push_back({ParseOperator(text), "--op"});
    } catch (const Error& error) {
      throw Error("--op '" + text + "': " + error.what());
    }
  }
  for (const OpEntry& entry : entries) {
    const bool extended =
        std::visit([](const auto& shape) { return shape.residual || shape.relu6; }, entry.op);
    if (extended) {
      throw Error(entry.source + ": " + OperatorToString(entry.op) +
                  ": the baselines run the bias and ReLU epilogues only; accepted: the operator "
                  "without residual=1 and relu6=1");
    }
  }
  return entries;
}

std::string ShellQuote(const std::string& word) {
  if (!word.empty() &&
      word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                             "_-./=,:+@%") == std::string::npos) {
    return word;
  }
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string CommandLine(int argc, char** argv) {
  std::string command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + ShellQuote(argv[i]);
  return command;
}

std::string UtcNow() {
  std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

// OpenMP's thread count and binding, and the CPU each of its threads runs on.
std::string DescribeOpenMp() {
  const int threads = omp_get_max_threads();
  std::vector<int> cpus(threads, -1);
#pragma omp parallel num_threads(threads)
  cpus[omp_get_thread_num()] = sched_getcpu();
  std::string text = std::to_string(threads) + " threads, proc_bind " +
                     (omp_get_proc_bind() == omp_proc_bind_close ? "close" : "not close") +
                     ", running on CPUs ";
  for (int i = 0; i < threads; ++i) text += (i ? "," : "") + std::to_string(cpus[i]);
  return text;
}

std::vector<Measurement> MeasureAllOneDnn(const Operator& op,
                                          const std::vector<std::vector<float>>& inputs,
                                          const Reference* reference, const Protocol& protocol,
                                          CacheFlusher& flusher) {
  return {MeasureOneDnn(op, OneDnnLayout::kBlocked, inputs, reference, protocol, flusher),
          MeasureOneDnn(op, OneDnnLayout::kPlain, inputs, reference, protocol, flusher)};
}

std::vector<Measurement> MeasureAllOpenBlas(const Operator& op,
                                            const std::vector<std::vector<float>>& inputs,
                                            const Reference* reference, const Protocol& protocol,
                                            CacheFlusher& flusher) {
  std::vector<Measurement> results;
  if (OpenBlasSgemmApplies(op)) {
    results.push_back(MeasureOpenBlasSgemm(op, inputs, reference, protocol, flusher));
  }
  if (OpenBlasSgemvApplies(op)) {
    results.push_back(MeasureOpenBlasSgemv(op, inputs, reference, protocol, flusher));
  }
  return results;
}

bool AllPassed(const std::vector<OpResult>& ops) {
  for (const auto& op : ops) {
    for (const auto& m : op.measurements) {
      if ((m.checked && !m.passed) || !m.error.empty()) return false;
    }
  }
  return true;
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  if (!out || !(out << text)) throw Error("cannot write '" + path + "'");
}

// The roofline's machine profile (glimpse/perf_predictor.h): the FP32 peak just measured (the
// widest ISA on every CPU, median) and the read bandwidth of each memory level, every figure with
// where it came from.
void WriteMachineProfile(const std::string& path, const RunRecord& record,
                         const std::vector<int>& cpus) {
  const PeakResult* peak = nullptr;
  for (const PeakResult& p : record.peak) {
    if (p.cpus.size() == cpus.size() && (peak == nullptr || p.lanes > peak->lanes)) peak = &p;
  }
  if (peak == nullptr) throw Error("machine profile: no peak on all CPUs was measured");
  const std::vector<BandwidthLevel> levels = DefaultBandwidthLevels(static_cast<int>(cpus.size()));
  const std::vector<BandwidthResult> bandwidth =
      MeasureReadBandwidth(levels, cpus, record.protocol);
  Json levels_json = Json::array();
  Json measured = Json::array();
  for (const BandwidthResult& b : bandwidth) {
    std::cout << fmt::format(
        "read bandwidth {:<4} ({:>9} B per thread, {} threads): {:.1f} GB/s "
        "(best {:.1f})\n",
        b.level.name, b.level.buffer_bytes_per_thread, b.cpus.size(), b.gbs, b.best_gbs);
    levels_json.push_back({{"name", b.level.name},
                           {"size_bytes", b.level.cache_bytes},
                           {"bandwidth_gbs", std::round(b.gbs * 10) / 10}});
    measured.push_back({{"level", b.level.name},
                        {"buffer_bytes_per_thread", b.level.buffer_bytes_per_thread},
                        {"isa", b.isa},
                        {"passes", b.passes},
                        {"median_s", b.median_s},
                        {"best_gbs", b.best_gbs},
                        {"samples_s", b.samples_s}});
  }
  const int registers = peak->lanes == 16 ? 32 : 16;
  Json profile = {
      {"format", "glimpse-machine-profile"},
      {"version", 1},
      {"name", fmt::format("{}, {} CPUs", record.machine.cpu_model, cpus.size())},
      {"peak_gflops", std::round(peak->gflops * 10) / 10},
      {"threads", cpus.size()},
      {"vector_lanes", peak->lanes},
      {"register_bytes", registers * peak->lanes * 4},
      {"levels", levels_json},
      {"sources",
       {{"command", record.command},
        {"measured_at", record.started_utc},
        {"peak_gflops", fmt::format("measured: {} FMA chains on {} pinned threads, median of {} "
                                    "samples (bench/cpu_baselines/peak.cc)",
                                    peak->isa, cpus.size(), peak->samples_s.size())},
        {"vector_lanes", peak->isa + " float32 lanes"},
        {"register_bytes",
         fmt::format("{} vector registers x {} bytes", registers, peak->lanes * 4)},
        {"size_bytes", "sysfs /sys/devices/system/cpu/cpu0/cache/index*/size"},
        {"bandwidth_gbs",
         "measured: every thread sums its own buffer (half of L1d, half of L2, 4 x L2, "
         "max(1 GiB, 2 x L3) over all threads) with vector loads, all threads at once, median "
         "(bench/cpu_baselines/bandwidth.cc)"},
        {"bandwidth_samples", measured}}}};
  std::ofstream out(path);
  if (!out) throw Error("--machine-profile '" + path + "': cannot open for writing");
  out << profile.dump(2) << "\n";
  if (!out) throw Error("--machine-profile '" + path + "': write failed");
  std::cout << "wrote " << path << "\n";
}

int Run(const Options& options, int argc, char** argv) {
  const auto started = std::chrono::steady_clock::now();
  // Bad operators are reported before anything else happens.
  const std::vector<OpEntry> entries = CollectOps(options);
  // The first image chooses the CPUs and re-executes itself once; the second one measures.
  const std::vector<int> cpus =
      EnsurePinnedOpenMp(IsPinnedImage() ? std::vector<int>{} : SelectCpus(options.threads), argv);
  omp_set_num_threads(static_cast<int>(cpus.size()));

  RunRecord record;
  record.command = CommandLine(argc, argv);
  record.started_utc = UtcNow();
  record.machine = DescribeMachine(cpus);
  record.niceness = getpriority(PRIO_PROCESS, 0);
  record.load_start = LoadAverage();
  record.openmp = DescribeOpenMp();
  record.onednn = OneDnnDescription();
  record.openblas = OpenBlasDescription();
  record.check = options.check;
  record.protocol.flush_bytes = DefaultCacheFlushBytes();  // the runner's, capped the same way
  CacheFlusher flusher(record.protocol.flush_bytes);
  std::cout << "machine: " << record.machine.cpu_model << ", CPUs used " << cpus.size()
            << ", load average " << record.load_start << "\n"
            << record.onednn << "; OpenMP " << record.openmp << "\n";

  record.peak = MeasurePeak(cpus, record.protocol);
  for (const auto& p : record.peak) {
    std::cout << fmt::format(
        "peak {} on {} thread(s): {:.1f} GFLOP/s; clock {:.2f} GHz, so {:.1f} FLOP/cycle per "
        "core\n",
        p.isa, p.cpus.size(), p.gflops, p.clock_ghz, p.flop_per_cycle);
  }

  if (!options.machine_profile_out.empty()) {
    WriteMachineProfile(options.machine_profile_out, record, cpus);
    return 0;
  }

  if (options.check) {
    record.checker_self_test = SelfTestChecker();
    if (!record.checker_self_test.empty()) {
      throw Error("the output checker failed its self-test: " + record.checker_self_test);
    }
    record.checker_self_test = "passed";
    Protocol check_only = record.protocol;
    check_only.timed = false;
    ConfigureOpenBlas(cpus);
    for (const auto& text : kSmallCheckOps) {
      const Operator op = ParseOperator(text);
      const auto inputs = MakeInputs(op, kDataSeed);
      const Reference reference = ComputeReference(op, inputs);
      OpResult result{OperatorToString(op), "built-in", OperatorFlops(op), {}};
      result.measurements = MeasureAllOneDnn(op, inputs, &reference, check_only, flusher);
      for (auto& m : MeasureAllOpenBlas(op, inputs, &reference, check_only, flusher)) {
        result.measurements.push_back(std::move(m));
      }
      std::cout << "check " << result.op << "\n";
      for (const auto& m : result.measurements) std::cout << ConsoleLine(result, m) << "\n";
      record.small_checks.push_back(std::move(result));
    }
  }

  // Inputs (and references) first, so each library pass runs without the others in between.
  std::vector<std::vector<std::vector<float>>> inputs;
  std::vector<Reference> references;
  for (const auto& entry : entries) {
    inputs.push_back(MakeInputs(entry.op, kDataSeed));
    if (options.check) references.push_back(ComputeReference(entry.op, inputs.back()));
    record.ops.push_back({OperatorToString(entry.op), entry.source, OperatorFlops(entry.op), {}});
  }
  auto reference_of = [&](size_t i) { return options.check ? &references[i] : nullptr; };
  for (size_t i = 0; i < entries.size(); ++i) {
    OpResult& result = record.ops[i];
    result.measurements =
        MeasureAllOneDnn(entries[i].op, inputs[i], reference_of(i), record.protocol, flusher);
    std::cout << result.op << "\n";
    for (const auto& m : result.measurements) std::cout << ConsoleLine(result, m) << "\n";
    std::cout.flush();
  }
  record.openblas_threads = ConfigureOpenBlas(cpus);
  for (size_t i = 0; i < entries.size(); ++i) {
    OpResult& result = record.ops[i];
    for (auto& m :
         MeasureAllOpenBlas(entries[i].op, inputs[i], reference_of(i), record.protocol, flusher)) {
      std::cout << result.op << "\n" << ConsoleLine(result, m) << "\n";
      result.measurements.push_back(std::move(m));
    }
  }

  record.load_end = LoadAverage();
  record.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!options.json_out.empty()) WriteFile(options.json_out, ToJson(record).dump(1) + "\n");
  if (!options.markdown_out.empty()) WriteFile(options.markdown_out, ToMarkdown(record));
  std::cout << "load average at the end " << record.load_end << "\n";
  if (!AllPassed(record.small_checks) || !AllPassed(record.ops)) {
    std::cerr << "cpu_baselines: some library output failed the check or the library refused "
                 "an operator (see above)\n";
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace glimpse::baselines

int main(int argc, char** argv) {
  glimpse::baselines::Options options;
  CLI::App app{
      "Vendor-library baselines (oneDNN, OpenBLAS) and the FP32 peak of this CPU, "
      "under glimpse's measurement protocol"};
  app.add_option("--ops", options.ops_file,
                 "file with one operator per line ('#' comments); default, when no --op is "
                 "given either: " +
                     std::string(glimpse::baselines::kDefaultOps));
  app.add_option("--op", options.ops,
                 "an operator, e.g. 'dense:M=1,N=1000,K=512,bias=1' "
                 "(repeatable; measured after those of --ops)");
  app.add_option("--threads", options.threads,
                 "threads, pinned one per CPU; 0: every CPU this process may use")
      ->check(CLI::Range(0, CPU_SETSIZE));
  app.add_flag("--check", options.check,
               "check every library's output against a double-precision reference (and run "
               "built-in small shapes) before timing it");
  app.add_option("--json", options.json_out, "write every result and sample to this JSON file");
  app.add_option("--markdown", options.markdown_out, "write the readable tables to this file");
  app.add_option("--machine-profile", options.machine_profile_out,
                 "measure the FP32 peak and each memory level's read bandwidth, write them as "
                 "the roofline's machine profile (data/hardware/cpu_machine_profile.json's "
                 "format) to this file, and stop");
  CLI11_PARSE(app, argc, argv);
  try {
    return glimpse::baselines::Run(options, argc, argv);
  } catch (const std::exception& error) {
    std::cerr << "cpu_baselines: error: " << error.what() << "\n";
    return 2;
  }
}
