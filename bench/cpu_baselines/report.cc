#include "report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "glimpse/ops.h"

namespace glimpse::baselines {
namespace {

const char* Title(const std::string& variant) {
  if (variant == "onednn_blocked") return "oneDNN blocked";
  if (variant == "onednn_plain") return "oneDNN plain";
  if (variant == "openblas_sgemm") return "OpenBLAS sgemm";
  if (variant == "openblas_sgemv") return "OpenBLAS sgemv";
  return "?";
}

bool Timed(const Measurement& m) { return m.error.empty() && !m.samples_s.empty(); }

Json MeasurementJson(const OpResult& op, const Measurement& m) {
  Json json = {{"implementation", m.implementation},
               {"note", m.note},
               {"check", m.check},
               {"checked", m.checked},
               {"passed", m.passed}};
  if (!m.error.empty()) json["error"] = m.error;
  if (Timed(m)) {
    json["median_s"] = m.median_s;
    json["gflops"] = Gflops(op, m);
    json["samples_s"] = m.samples_s;
  }
  return json;
}

Json OpJson(const OpResult& op) {
  Json results = Json::object();
  for (const auto& m : op.measurements) results[m.variant] = MeasurementJson(op, m);
  return {{"op", op.op}, {"source", op.source}, {"flops", op.flops}, {"results", results}};
}

// The best all-thread peak (the single-thread one when only one CPU was used), or null.
const PeakResult* BestPeak(const RunRecord& record) {
  const PeakResult* best = nullptr;
  const size_t threads = record.machine.cpus.size();
  for (const auto& p : record.peak) {
    if (p.cpus.size() != threads) continue;
    if (best == nullptr || p.gflops > best->gflops) best = &p;
  }
  return best;
}

std::string Cell(const OpResult& op, const Measurement* m) {
  if (m == nullptr) return "— | —";
  if (!m->error.empty()) return "error | —";
  if (m->checked && !m->passed) return "WRONG | —";
  if (!Timed(*m)) return "— | —";
  return fmt::format("{:.3f} | {:.1f}", m->median_s * 1e3, Gflops(op, *m));
}

std::string Bytes(int64_t bytes) {
  if (bytes >= (int64_t{1} << 20)) return fmt::format("{} MiB", bytes >> 20);
  return fmt::format("{} KiB", bytes >> 10);
}

std::string CpuList(const std::vector<int>& cpus) {
  std::string text;
  for (size_t i = 0; i < cpus.size(); ++i) text += (i ? "," : "") + std::to_string(cpus[i]);
  return text;
}

}  // namespace

const Measurement* OpResult::Find(const std::string& variant) const {
  for (const auto& m : measurements) {
    if (m.variant == variant) return &m;
  }
  return nullptr;
}

double Gflops(const OpResult& op, const Measurement& m) {
  return Timed(m) && m.median_s > 0 ? op.flops / m.median_s / 1e9 : 0.0;
}

std::string ConsoleLine(const OpResult& op, const Measurement& m) {
  if (!m.error.empty()) return fmt::format("  {:<15} error: {}", m.variant, m.error);
  std::string line = fmt::format("  {:<15}", m.variant);
  if (Timed(m)) {
    line += fmt::format(" {:9.4f} ms {:8.1f} GFLOP/s ({} samples)", m.median_s * 1e3, Gflops(op, m),
                        m.samples_s.size());
  }
  line += "  " + m.check;
  if (!m.implementation.empty()) line += "  [" + m.implementation + "]";
  return line;
}

Json ToJson(const RunRecord& record) {
  const MachineInfo& machine = record.machine;
  Json peak = Json::array();
  for (const auto& p : record.peak) {
    peak.push_back({{"isa", p.isa},
                    {"threads", p.cpus.size()},
                    {"cpus", p.cpus},
                    {"lanes", p.lanes},
                    {"chains", p.chains},
                    {"iterations", p.iterations},
                    {"median_s", p.median_s},
                    {"gflops", p.gflops},
                    {"best_gflops", p.best_gflops},
                    {"clock_ghz", p.clock_ghz},
                    {"flop_per_cycle", p.flop_per_cycle},
                    {"samples_s", p.samples_s}});
  }
  Json ops = Json::array(), small = Json::array();
  for (const auto& op : record.ops) ops.push_back(OpJson(op));
  for (const auto& op : record.small_checks) small.push_back(OpJson(op));
  return {
      {"program", "cpu_baselines"},
      {"command", record.command},
      {"started_utc", record.started_utc},
      {"wall_s", record.seconds},
      {"machine",
       {{"cpu_model", machine.cpu_model},
        {"online_cpus", machine.online_cpus},
        {"cpus_used", machine.cpus},
        {"llc_bytes", machine.llc_bytes},
        {"avx2", machine.avx2},
        {"fma", machine.fma},
        {"avx512f", machine.avx512f},
        {"compiler", machine.compiler},
        {"cxx_flags", machine.cxx_flags},
        {"niceness", record.niceness},
        {"load_average_start", record.load_start},
        {"load_average_end", record.load_end}}},
      {"libraries",
       {{"onednn", record.onednn},
        {"openblas", record.openblas},
        {"openblas_threads", record.openblas_threads},
        {"openmp", record.openmp}}},
      {"protocol",
       {{"threads", machine.cpus.size()},
        {"warmup", record.protocol.warmup},
        {"min_repeats", record.protocol.min_repeats},
        {"min_time_s", record.protocol.min_time_s},
        {"max_repeats", record.protocol.max_repeats},
        {"flush_bytes", record.protocol.flush_bytes},
        {"statistic", "median"}}},
      {"peak", peak},
      {"check",
       {{"enabled", record.check},
        {"checker_self_test", record.checker_self_test},
        {"small_shapes", small}}},
      {"ops", ops},
  };
}

std::string ToMarkdown(const RunRecord& record) {
  const MachineInfo& machine = record.machine;
  const Protocol& protocol = record.protocol;
  std::string md = "# CPU baselines: oneDNN, OpenBLAS and the FP32 peak\n\n";
  md += "Written by `bench/cpu_baselines.cc`. Re-run from the repository root with exactly:\n\n";
  md += "```sh\n" + record.command + "\n```\n\n";
  const double load = std::atof(record.load_start.c_str());
  if (load >= 1.0) {
    md += fmt::format(
        "**Loaded machine.** The 1-minute load average was {} when this run started, on {} "
        "CPUs: other work competed for the CPUs. A multi-threaded call then waits whenever one "
        "of its threads is descheduled, so the medians below can be many times the call's real "
        "cost; read them as a test of the program, not as reference figures, and re-run the "
        "command above on a quiet machine.\n\n",
        record.load_start.substr(0, record.load_start.find(' ')), machine.online_cpus);
  }
  md += fmt::format(
      "- machine: {}, {} CPUs online, {} used ({}), last-level cache {}; AVX2 {}, FMA {}, "
      "AVX-512F {}\n",
      machine.cpu_model, machine.online_cpus, machine.cpus.size(), CpuList(machine.cpus),
      Bytes(machine.llc_bytes), machine.avx2 ? "yes" : "no", machine.fma ? "yes" : "no",
      machine.avx512f ? "yes" : "no");
  md += fmt::format("- started {}, {:.0f} s wall-clock; niceness {}\n", record.started_utc,
                    record.seconds, record.niceness);
  md += fmt::format(
      "- load average (1/5/15 min, as `uptime` shows): {} at the start, {} at the "
      "end\n",
      record.load_start, record.load_end);
  md += "- " + record.onednn + "; OpenMP: " + record.openmp + "\n";
  md += "- OpenBLAS: " + record.openblas + "; " + record.openblas_threads + "\n";
  md += "- compiled by " + machine.compiler + " with `" + machine.cxx_flags + "`\n\n";

  md += "## FP32 peak (FMA microbenchmark)\n\n";
  md +=
      "| ISA | threads | chains × lanes | samples | median ms | GFLOP/s | GFLOP/s per thread | "
      "GFLOP/s, fastest sample | clock GHz | FLOP/cycle per core |\n";
  md += "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& p : record.peak) {
    md += fmt::format(
        "| {} | {} | {} × {} | {} | {:.2f} | {:.1f} | {:.1f} | {:.1f} | {:.2f} | {:.1f} |\n", p.isa,
        p.cpus.size(), p.chains, p.lanes, p.samples_s.size(), p.median_s * 1e3, p.gflops,
        p.gflops / p.cpus.size(), p.best_gflops, p.clock_ghz, p.flop_per_cycle);
  }
  md +=
      "\nThe clock is measured on the same CPUs right after each peak, from a chain of dependent "
      "integer multiplies (three cycles each); FLOP/cycle per core names the FMA hardware the peak "
      "reached: 32 is two 256-bit FMA pipes (Zen 4 runs AVX-512 as two halves on them), 64 two "
      "512-bit ones.\n";
  md +=
      "\nThe median is the protocol's statistic; other work on the machine can only slow a "
      "sample down, so the fastest sample is the better estimate of what the cores can do "
      "when the machine is loaded.\n";
  const PeakResult* peak = BestPeak(record);

  md += "\n## Operators\n\n";
  md +=
      "Median time in ms | GFLOP/s. FLOPs are glimpse's (`OperatorFlops`): 2 per multiply-add "
      "over the full R × S window, taps on the zero padding included, bias and ReLU not "
      "counted; a library that skips padded taps can exceed 100 % of the peak on small "
      "images. — : not applicable.";
  if (peak != nullptr) {
    md += fmt::format(
        " Last columns: the best library's GFLOP/s as a share of the {}-thread {} "
        "peak ({:.1f} GFLOP/s), counted with `OperatorFlops` and with the taps inside the image "
        "only (`OperatorFlopsInsideImage`, the work of a kernel that skips the padding) — a "
        "peak that is the peak bounds the second.",
        peak->cpus.size(), peak->isa, peak->gflops);
  }
  md += "\n\n| # | operator | MFLOP |";
  std::string rule = "|---|---|---|";
  for (const auto& variant : kVariants) {
    md += fmt::format(" {} ms | GFLOP/s |", Title(variant));
    rule += "---|---|";
  }
  md += " best % of peak | best % of peak, taps inside |\n" + rule + "---|---|\n";
  std::vector<double> sums(kVariants.size(), 0.0);
  std::vector<bool> complete(kVariants.size(), true);
  for (size_t i = 0; i < record.ops.size(); ++i) {
    const OpResult& op = record.ops[i];
    md += fmt::format("| {} | `{}` | {:.1f} |", i + 1, op.op, op.flops / 1e6);
    double best = 0;
    for (size_t v = 0; v < kVariants.size(); ++v) {
      const Measurement* m = op.Find(kVariants[v]);
      md += " " + Cell(op, m) + " |";
      if (m != nullptr && Timed(*m) && (!m->checked || m->passed)) {
        best = std::max(best, Gflops(op, *m));
        sums[v] += m->median_s;
      } else {
        complete[v] = false;
      }
    }
    if (peak != nullptr && best > 0) {
      const Operator parsed = ParseOperator(op.op);
      const double inside = OperatorFlopsInsideImage(parsed) / OperatorFlops(parsed);
      md += fmt::format(" {:.0f} % | {:.0f} % |\n", 100 * best / peak->gflops,
                        100 * best * inside / peak->gflops);
    } else {
      md += " — | — |\n";
    }
  }
  md += "| | sum over the listed operators (each once) | |";
  for (size_t v = 0; v < kVariants.size(); ++v) {
    md += complete[v] ? fmt::format(" {:.3f} | |", sums[v] * 1e3) : " — | |";
  }
  md += " | |\n";

  md += "\n## What oneDNN ran\n\n";
  md +=
      "`impl_info_str()` of each primitive, then the layouts of its source, weights and "
      "destination in oneDNN's notation: dimensions from outermost to innermost, a blocked one "
      "in upper case, then its inner block — `nhwc` is NHWC; `Ohwi64o` holds the weights as "
      "[K/64][R][S][C][64], output channels in blocks of 64 innermost.\n\n";
  md += "| # | oneDNN blocked | oneDNN plain |\n|---|---|---|\n";
  for (size_t i = 0; i < record.ops.size(); ++i) {
    const OpResult& op = record.ops[i];
    auto impl = [&](const std::string& variant) -> std::string {
      const Measurement* m = op.Find(variant);
      if (m == nullptr) return "—";
      return m->error.empty() ? "`" + m->implementation + "`" : m->error;
    };
    md += fmt::format("| {} | {} | {} |\n", i + 1, impl("onednn_blocked"), impl("onednn_plain"));
  }

  md += "\n## Correctness\n\n";
  if (!record.check) {
    md += "Not checked in this run (`--check` was not given).\n";
  } else {
    int passed = 0, total = 0;
    for (const auto* list : {&record.small_checks, &record.ops}) {
      for (const auto& op : *list) {
        for (const auto& m : op.measurements) {
          if (!m.checked) continue;
          ++total;
          passed += m.passed ? 1 : 0;
        }
      }
    }
    md += fmt::format(
        "`--check`: every library result above and {} small built-in shapes (odd sizes, stride, "
        "padding, dilation, ReLU, depthwise, batched) were compared, element by element, with a "
        "double-precision reference on the same seeded inputs, with the runner's tolerance "
        "|out − ref| ≤ 1e-3 · (|ref| + Σ|a·b| / √L): {} of {} outputs passed. The checker itself "
        "was tested first (an element off by one missing term must fail): {}.\n",
        record.small_checks.size(), passed, total, record.checker_self_test);
    for (const auto* list : {&record.small_checks, &record.ops}) {
      for (const auto& op : *list) {
        for (const auto& m : op.measurements) {
          if (m.checked && !m.passed) {
            md += fmt::format("- **{}** `{}`: {}\n", m.variant, op.op, m.check);
          }
        }
      }
    }
  }

  md += "\n## Protocol and layouts\n\n";
  md += fmt::format(
      "- Same protocol as glimpse's CPU runner: {} threads, one per CPU ({}), pinned (OpenMP: "
      "OMP_PROC_BIND=close, OMP_PLACES=threads, the process pinned to those CPUs; OpenBLAS: its "
      "threads pinned with openblas_setaffinity; peak: one pinned std::thread per CPU). Per "
      "operator and library: one first call (checked with `--check`; its output is NaN before), "
      "{} warm-up call(s), then timed single calls until at least {} samples and {:.3f} s of "
      "summed time (at most {}), each preceded by a flush of {} (2 × the last-level cache from "
      "sysfs; glimpse/cache_flush.h): every thread of the OpenMP team, one per CPU, loads and "
      "stores one byte of each line of its slice, then every line of the memories the call "
      "reads and writes is flushed with clflush, so every call starts with its operands in "
      "memory and cold caches on every core (bench/results/cpu_instruments.md). The median is "
      "reported; every sample is in the JSON.\n",
      machine.cpus.size(), CpuList(machine.cpus), protocol.warmup, protocol.min_repeats,
      protocol.min_time_s, protocol.max_repeats, Bytes(protocol.flush_bytes));
  md +=
      "- Libraries are measured one after another (the peak, then oneDNN for every operator, "
      "then OpenBLAS), so that one library's idle spinning threads never share the CPUs with "
      "another's work.\n";
  md +=
      "- **oneDNN blocked** is oneDNN's strongest configuration: forward-inference "
      "`convolution_direct` (inner product for dense, matmul for batch_matmul) with "
      "`format_tag::any` for source, weights and destination, so oneDNN picks its preferred "
      "blocked layouts. The input and the weights are reordered into those layouts once, "
      "before timing — **those reorders are not timed** — and the timed call leaves the output "
      "in oneDNN's layout (it is reordered back to NCHW only for the check). This is what a "
      "network kept in blocked layouts end to end pays per layer, so the column flatters "
      "oneDNN beside glimpse's kernels, which read and write NCHW and count any packing they "
      "do in their time.\n";
  md +=
      "- **oneDNN plain** is the same primitive on the operator's own layouts (NCHW input, "
      "KCRS weights, NCHW output; A[M,K], B[N,K], C[M,N]): no reorder anywhere, directly "
      "comparable with glimpse's kernel ABI. The difference between the two columns is the "
      "layout effect.\n";
  md +=
      "- Direct convolution only: Winograd (`convolution_auto`) changes the arithmetic and "
      "its rounding, and glimpse's templates compute the direct form. Bias is the "
      "primitive's bias, ReLU an eltwise post-op.\n";
  md +=
      "- **OpenBLAS sgemm**: C = A · Bᵀ as `cblas_sgemm(RowMajor, NoTrans, Trans)`; BLAS has "
      "no bias, so a separate loop adds it after the call, **inside** the timed call. "
      "**OpenBLAS sgemv** (M = 1 only): `cblas_sgemv` on B with the same bias loop. OpenBLAS "
      "has no convolution.\n";
  md +=
      "- **FP32 peak**: per thread, independent chains of vector FMAs in registers "
      "(acc = acc · a + b), enough to cover latency × ports; 2 flops per FMA per lane. Each "
      "sample is about 2 ms of work per thread (as long as a typical operator call), calibrated "
      "on one thread; samples run from "
      "the first thread's start to the last thread's end.\n";
  md +=
      "- The figures depend on the machine's load: this is a shared machine on which other "
      "builds may run (see the load averages above). Re-run with the command above on a quiet "
      "machine for reference figures.\n";
  return md;
}

}  // namespace glimpse::baselines
