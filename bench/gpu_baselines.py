#!/usr/bin/env python3
"""gpu_baselines — what cuDNN and cuBLAS achieve on glimpse's GPU operators, in FP32.

The GPU counterpart of bench/cpu_baselines.cc: the same operators (by default ResNet-18's,
bench/configs/resnet18_cpu_tasks.txt), the same FLOP count as glimpse (2 per multiply-add over the
full R × S window, padded taps included, bias and ReLU not counted) and glimpse's measurement
protocol, so that tuned kernels can be read against the vendor libraries and the measured FP32
peak (bench/gpu_peak.cc).

    gpu_baselines.py [--ops FILE] [--op TEXT]... [--peak-json FILE]
                     [--json OUT] [--markdown OUT] [--list | --dry-run]

Libraries, through PyTorch on NCHW float32 tensors:
  cuDNN   torch.nn.functional.conv2d (depthwise: groups = C), torch.backends.cudnn.benchmark =
          True so that cuDNN picks its fastest algorithm for each shape;
  cuBLAS  torch.nn.functional.linear (bias fused by cuBLASLt where PyTorch can) and torch.matmul
          followed by the bias add (two kernels; both timed); batch_matmul: torch.matmul.
Each with TF32 off (torch.backends.cudnn.allow_tf32 / torch.backends.cuda.matmul.allow_tf32 =
False: true FP32, the fair comparison with glimpse's FP32 kernels) and with TF32 on (tensor cores
with 10-bit mantissas; for information only).

Exit status: 0; 1 when an output failed its check or a library refused an operator (the others are
still measured and written); 2 for a usage error (bad operator or file), or when PyTorch or a CUDA
device is missing. --list and --dry-run never import torch.
"""

import argparse
import datetime
import json
import math
import os
import re
import shlex
import statistics
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OPS = "bench/configs/resnet18_cpu_tasks.txt"
DATA_SEED = 1
RTOL_FP32 = 1e-3  # the runner's tolerance (docs/cpu-tuning.md, "Correctness check")
# TF32 rounds both operands to 10 mantissa bits (unit roundoff 2^-11 ≈ 4.9e-4 per operand), so
# its products are off by about 1e-3 relative before any accumulation: FP32's bound would fail
# correct TF32 results. TF32 columns are information, checked only for gross errors.
RTOL_TF32 = 1e-2
# A spin kernel of about 100 µs (at 2 GHz) between the L2 flush and the start event: the host has
# enqueued the operator's kernels before the GPU reaches the event, so the events time GPU work,
# not PyTorch's dispatch on the host.
SLEEP_CYCLES = 200_000


# ---- Operators: glimpse's op syntax (src/ops/operator.cc), FLOPs and shapes.

class UsageError(Exception):
    """An error the user can fix (bad operator, file, option); exit status 2."""


FIELDS = {  # required, optional (canonical order, as OperatorToString writes them)
    "dense": (["M", "N", "K"], ["bias", "relu"]),
    "conv2d": (["N", "C", "H", "W", "K", "R", "S"], ["stride", "pad", "dilation", "bias", "relu"]),
    "depthwise_conv2d": (["N", "C", "H", "W", "R", "S"],
                         ["stride", "pad", "dilation", "bias", "relu"]),
    "batch_matmul": (["B", "M", "N", "K"], ["bias", "relu"]),
}
DEFAULTS = {"bias": 0, "relu": 0, "stride": 1, "pad": 0, "dilation": 1}


class Op:
    """One operator: `kind` ("conv2d", …) and its fields with the defaults filled in."""

    def __init__(self, kind, fields):
        self.kind = kind
        self.f = fields

    def __getitem__(self, name):
        return self.f[name]

    def canonical(self):
        required, optional = FIELDS[self.kind]
        return self.kind + ":" + ",".join(f"{n}={self.f[n]}" for n in required + optional)

    def out_hw(self):
        f = self.f
        out_h = (f["H"] + 2 * f["pad"] - f["dilation"] * (f["R"] - 1) - 1) // f["stride"] + 1
        out_w = (f["W"] + 2 * f["pad"] - f["dilation"] * (f["S"] - 1) - 1) // f["stride"] + 1
        return out_h, out_w

    def output_shape(self):
        f = self.f
        if self.kind == "dense":
            return [f["M"], f["N"]]
        if self.kind == "batch_matmul":
            return [f["B"], f["M"], f["N"]]
        channels = f["K"] if self.kind == "conv2d" else f["C"]
        return [f["N"], channels, *self.out_hw()]

    def input_shapes(self):
        """The kernel ABI's inputs: activations, weights (dense: B[N,K]), then bias."""
        f = self.f
        if self.kind == "dense":
            shapes, bias = [[f["M"], f["K"]], [f["N"], f["K"]]], f["N"]
        elif self.kind == "batch_matmul":
            shapes, bias = [[f["B"], f["M"], f["K"]], [f["B"], f["N"], f["K"]]], f["N"]
        elif self.kind == "conv2d":
            shapes = [[f["N"], f["C"], f["H"], f["W"]], [f["K"], f["C"], f["R"], f["S"]]]
            bias = f["K"]
        else:
            shapes = [[f["N"], f["C"], f["H"], f["W"]], [f["C"], f["R"], f["S"]]]
            bias = f["C"]
        return shapes + ([[bias]] if f["bias"] else [])

    def reduction_length(self):
        f = self.f
        return {"dense": lambda: f["K"], "batch_matmul": lambda: f["K"],
                "conv2d": lambda: f["C"] * f["R"] * f["S"],
                "depthwise_conv2d": lambda: f["R"] * f["S"]}[self.kind]()

    def flops(self):
        """2 · multiply-adds, as glimpse's OperatorFlops (epilogue not counted)."""
        return 2.0 * math.prod(self.output_shape()) * self.reduction_length()


def parse_op(text):
    """Parses glimpse's op syntax ("conv2d:N=1,C=64,…"); raises UsageError like ParseOperator."""
    if ":" not in text:
        raise UsageError(f"operator '{text}' has no ':'; expected e.g. dense:M=1,N=1000,K=512")
    kind, rest = text.split(":", 1)
    if kind not in FIELDS:
        raise UsageError(f"unknown operator '{kind}'; known: batch_matmul, conv2d, "
                         "depthwise_conv2d, dense")
    required, optional = FIELDS[kind]
    accepted = ", ".join(required + optional)
    fields = {}
    for item in rest.split(",") if rest else []:
        name, eq, value = item.partition("=")
        if not eq or not name:
            raise UsageError(f"{kind}: '{item}' is not field=value; accepted fields: {accepted}")
        if not re.fullmatch(r"\s*[+-]?[0-9]+", value):
            raise UsageError(f"{kind}: field '{name}' has value '{value}'; accepted: an integer")
        number = int(value)
        if name in fields:
            raise UsageError(f"{kind}: field '{name}' is given twice")
        fields[name] = number
    for name in fields:
        if name not in required + optional:
            raise UsageError(f"{kind}: unknown field '{name}'; accepted: {accepted}")
    for name in required:
        if name not in fields:
            raise UsageError(f"{kind}: missing field '{name}'; required: {', '.join(required)}")
    for name in optional:
        fields.setdefault(name, DEFAULTS[name])
    for name, value in fields.items():
        flag = name in ("bias", "relu")
        low = 0 if flag or name == "pad" else 1
        high = 1 if flag else 1 << 20
        if not low <= value <= high:
            what = "0 or 1" if flag else f"an integer in [{low}, 1048576]"
            raise UsageError(f"{kind}: field '{name}' is {value}; accepted: {what}")
    op = Op(kind, fields)
    if kind in ("conv2d", "depthwise_conv2d") and min(op.out_hw()) < 1:
        raise UsageError(f"{kind}: fields 'R'/'S' with 'dilation' exceed the padded input "
                         "(H+2·pad, W+2·pad); accepted: a kernel window that fits")
    return op


def display_path(path):
    path = os.path.abspath(path)
    return os.path.relpath(path, REPO) if path.startswith(REPO + os.sep) else path


def read_ops_file(path):
    """One operator per line; '#' starts a comment. Returns [(Op, "file:line")]."""
    try:
        with open(path, encoding="utf-8") as file:
            lines = file.read().splitlines()
    except OSError as error:
        raise UsageError(f"cannot open the --ops file '{path}': {error.strerror}")
    entries = []
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        where = f"{display_path(path)}:{number}"
        try:
            entries.append((parse_op(text), where))
        except UsageError as error:
            raise UsageError(f"{where}: {error}")
    if not entries:
        raise UsageError(f"the --ops file '{path}' lists no operator")
    return entries


def collect_ops(args):
    entries = []
    ops_file = args.ops
    if ops_file is None and not args.op:
        ops_file = os.path.join(REPO, DEFAULT_OPS)
    if ops_file is not None:
        entries = read_ops_file(ops_file)
    for text in args.op:
        try:
            entries.append((parse_op(text), "--op"))
        except UsageError as error:
            raise UsageError(f"--op '{text}': {error}")
    return entries


# ---- What is measured per operator.

# (column key, library, call, tf32): the column key names the result in the JSON.
VARIANTS = {
    "conv2d": [("cudnn_fp32", "cuDNN", "F.conv2d", False),
               ("cudnn_tf32", "cuDNN", "F.conv2d", True)],
    "depthwise_conv2d": [("cudnn_fp32", "cuDNN", "F.conv2d(groups=C)", False),
                         ("cudnn_tf32", "cuDNN", "F.conv2d(groups=C)", True)],
    "dense": [("cublas_linear_fp32", "cuBLAS", "F.linear", False),
              ("cublas_matmul_fp32", "cuBLAS", "torch.matmul + bias", False),
              ("cublas_linear_tf32", "cuBLAS", "F.linear", True),
              ("cublas_matmul_tf32", "cuBLAS", "torch.matmul + bias", True)],
    "batch_matmul": [("cublas_matmul_fp32", "cuBLAS", "torch.matmul + bias", False),
                     ("cublas_matmul_tf32", "cuBLAS", "torch.matmul + bias", True)],
}
COLUMNS = [  # Markdown columns in order: key, heading
    ("cudnn_fp32", "cuDNN FP32"), ("cublas_linear_fp32", "cuBLAS linear FP32"),
    ("cublas_matmul_fp32", "cuBLAS matmul FP32"), ("cudnn_tf32", "cuDNN TF32"),
    ("cublas_linear_tf32", "cuBLAS linear TF32"), ("cublas_matmul_tf32", "cuBLAS matmul TF32"),
]


def protocol_text(args):
    return (f"per operator and variant: one untimed call (cuDNN's algorithm search with "
            f"benchmark=True), one call whose output is checked against a float64 CPU reference, "
            f"{args.warmup} warm-up call(s), then timed calls until at least {args.min_repeats} "
            f"samples and {args.min_time_ms:g} ms of summed time (at most {args.max_repeats}); "
            f"before each timed call a buffer of 2 × L2 bytes is written and a ~100 µs spin "
            f"kernel runs (both outside the CUDA events); median reported, all samples kept")


def print_plan(entries, args, dry_run):
    print(f"{len(entries)} operator(s), NCHW float32, inputs uniform in [-1, 1] from seed "
          f"{DATA_SEED}:")
    for index, (op, source) in enumerate(entries, 1):
        keys = ", ".join(key for key, *_ in VARIANTS[op.kind])
        print(f"{index:3d}  {op.canonical()}  {op.flops() / 1e6:.1f} MFLOP  [{keys}]  ({source})")
    if not dry_run:
        return
    print("settings: torch.backends.cudnn.benchmark = True; TF32 off: "
          "torch.backends.cudnn.allow_tf32 = False, torch.backends.cuda.matmul.allow_tf32 = "
          "False; TF32 on: both True")
    print(f"check: |out − ref| ≤ rtol · (|ref| + Σ|a·b| / √L), rtol {RTOL_FP32:g} (FP32), "
          f"{RTOL_TF32:g} (TF32)")
    print("protocol: " + protocol_text(args))
    print(f"peak: {args.peak_json or '(none: no --peak-json)'}")
    print(f"would write: {args.json or '(no --json)'}, {args.markdown or '(no --markdown)'}")


# ---- Measuring (needs torch and a CUDA device).

def import_torch():
    """torch, or exit 2 with the reason."""
    try:
        import torch  # noqa: PLC0415 (deliberately late: --list and --dry-run work without it)
    except ImportError as error:
        print(f"gpu_baselines.py: PyTorch is not installed ({error}); it runs on the GPU machine "
              "(scripts/gpu/run_baselines.sh). --list and --dry-run work without it.",
              file=sys.stderr)
        sys.exit(2)
    if not torch.cuda.is_available():
        print(f"no CUDA device: torch.cuda.is_available() is False (PyTorch {torch.__version__}, "
              f"built for CUDA {torch.version.cuda})", file=sys.stderr)
        sys.exit(2)
    return torch


def set_tf32(torch, on):
    """Sets both TF32 switches; returns them as read back (recorded with each result)."""
    torch.backends.cudnn.allow_tf32 = on
    torch.backends.cuda.matmul.allow_tf32 = on
    return {"cudnn.allow_tf32": bool(torch.backends.cudnn.allow_tf32),
            "cuda.matmul.allow_tf32": bool(torch.backends.cuda.matmul.allow_tf32)}


def make_inputs(torch, op):
    generator = torch.Generator().manual_seed(DATA_SEED)
    return [torch.rand(shape, generator=generator, dtype=torch.float32) * 2 - 1
            for shape in op.input_shapes()]


def make_call(torch, op, key, tensors, relu=None):
    """The callable of variant `key` (a VARIANTS key) on `tensors` (any device and dtype);
    `relu` overrides the operator's ReLU (the reference's magnitude is taken without it)."""
    F = torch.nn.functional
    f = op.f
    bias = tensors[2] if f["bias"] else None
    relu = f["relu"] if relu is None else relu
    epilogue = torch.relu if relu else (lambda out: out)
    if op.kind in ("conv2d", "depthwise_conv2d"):
        weight, groups = tensors[1], 1
        if op.kind == "depthwise_conv2d":
            weight, groups = tensors[1].reshape(f["C"], 1, f["R"], f["S"]), f["C"]
        return lambda: epilogue(F.conv2d(tensors[0], weight, bias, stride=f["stride"],
                                         padding=f["pad"], dilation=f["dilation"], groups=groups))
    if key.startswith("cublas_linear"):
        return lambda: epilogue(F.linear(tensors[0], tensors[1], bias))
    b_t = tensors[1].transpose(-1, -2)  # B[N,K] viewed as Bᵀ[K,N]: no copy
    if bias is None:
        return lambda: epilogue(torch.matmul(tensors[0], b_t))
    return lambda: epilogue(torch.matmul(tensors[0], b_t) + bias)


def reference(torch, op, inputs):
    """(ref, magnitude) in float64 on the CPU: the operator, and Σ|a·b| (+ |bias|) per output."""
    key = VARIANTS[op.kind][0][0]
    double = [t.double() for t in inputs]
    ref = make_call(torch, op, key, double)()
    magnitude = make_call(torch, op, key, [t.abs() for t in double], relu=False)()
    return ref, magnitude


def check(torch, out, ref, magnitude, op, rtol):
    """(passed, max |err| / scale) under the runner's tolerance."""
    out = out.detach().to("cpu", torch.float64)
    if out.shape != ref.shape:
        return False, float("inf")
    scale = ref.abs() + magnitude / math.sqrt(op.reduction_length())
    error = (out - ref).abs()
    # NaN compares false: an unwritten or non-finite element fails.
    passed = bool(((error <= rtol * scale) | (error == 0)).all())
    ratio = (error / scale.clamp_min(1e-30)).max().item()
    return passed, ratio


def kernel_names(torch, call):
    """The CUDA kernels one call runs, from the profiler; a note when it is unavailable."""
    try:
        from torch.profiler import ProfilerActivity, profile  # noqa: PLC0415
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            call()
            torch.cuda.synchronize()
        names = []
        for event in prof.events():
            if str(getattr(event, "device_type", "")).endswith("CUDA") and event.name not in names:
                names.append(event.name)
        return names
    except Exception as error:  # the profiler is information only
        return [f"(profiler unavailable: {type(error).__name__}: {error})"]


def measure(torch, op, key, tf32, gpu_inputs, ref, magnitude, flush, args):
    switches = set_tf32(torch, tf32)
    call = make_call(torch, op, key, gpu_inputs)
    result = {"tf32": tf32, "switches": switches}
    if any(value != tf32 for value in switches.values()):
        result["error"] = f"the TF32 switches read back as {switches}, not {tf32}"
        return result
    try:
        call()  # cuDNN's algorithm search (benchmark=True) happens here
        torch.cuda.synchronize()
        out = call()
        torch.cuda.synchronize()
        passed, ratio = check(torch, out, ref, magnitude, op, RTOL_TF32 if tf32 else RTOL_FP32)
        result["check"] = {"passed": passed, "max_err_over_scale": ratio,
                           "rtol": RTOL_TF32 if tf32 else RTOL_FP32}
        for _ in range(args.warmup):
            call()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        samples, total = [], 0.0
        while (len(samples) < args.min_repeats or total < args.min_time_ms / 1e3) and \
                len(samples) < args.max_repeats:
            flush.fill_(len(samples) & 0xff)  # written, not only allocated: evicts L2
            if hasattr(torch.cuda, "_sleep"):
                torch.cuda._sleep(SLEEP_CYCLES)
            start.record()
            call()
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end) / 1e3)
            total += samples[-1]
        median = statistics.median(samples)
        # CUDA events resolve about 0.5 µs: nanoseconds keep every digit that means something.
        result.update({"median_s": median, "gflops": op.flops() / median / 1e9,
                       "fastest_s": min(samples), "samples_s": [round(x, 9) for x in samples]})
    except Exception as error:  # a library that refuses an operator: recorded, others go on
        result["error"] = f"{type(error).__name__}: {error}"
    return result


def device_info(torch):
    props = torch.cuda.get_device_properties(0)
    info = {"name": props.name, "compute_capability": f"{props.major}.{props.minor}",
            "sm_count": props.multi_processor_count,
            "memory_bytes": props.total_memory,
            "l2_bytes": getattr(props, "L2_cache_size", 0),
            "torch": torch.__version__, "cuda": torch.version.cuda,
            "cudnn": torch.backends.cudnn.version(),
            "cublas": "the one bundled with PyTorch's CUDA " + str(torch.version.cuda)}
    return info


def run(entries, args, command):
    torch = import_torch()
    started = time.time()
    torch.backends.cudnn.benchmark = True
    info = device_info(torch)
    # 2 × L2, as glimpse's GPU runner; 100 MiB when PyTorch does not report the L2 size.
    flush_bytes = 2 * info["l2_bytes"] if info["l2_bytes"] else 100 << 20
    flush = torch.empty(flush_bytes // 4, dtype=torch.float32, device="cuda")
    peak = None
    if args.peak_json:
        with open(args.peak_json, encoding="utf-8") as file:
            peak = json.load(file)
    results = []
    for op, source in entries:
        inputs = make_inputs(torch, op)
        ref, magnitude = reference(torch, op, inputs)
        gpu_inputs = [t.to("cuda") for t in inputs]
        entry = {"op": op.canonical(), "source": source, "flops": op.flops(), "results": {}}
        for key, library, call_name, tf32 in VARIANTS[op.kind]:
            result = measure(torch, op, key, tf32, gpu_inputs, ref, magnitude, flush, args)
            result.update({"library": library, "call": call_name})
            entry["results"][key] = result
            state = result.get("error") or (
                f"{result['median_s'] * 1e3:.4f} ms, {result['gflops']:.1f} GFLOP/s, check "
                f"{'passed' if result['check']['passed'] else 'FAILED'}")
            print(f"{op.canonical()}  {key}: {state}", flush=True)
        results.append(entry)
    # The profiler last, once every time is taken: its CUDA activity tracing must not slow down
    # a later measurement.
    for (op, _), entry in zip(entries, results):
        gpu_inputs = [t.to("cuda") for t in make_inputs(torch, op)]
        for key, result in entry["results"].items():
            if "error" not in result:
                set_tf32(torch, result["tf32"])
                result["kernels"] = kernel_names(torch, make_call(torch, op, key, gpu_inputs))
    report = {
        "command": command,
        "started_utc": datetime.datetime.fromtimestamp(started, datetime.timezone.utc)
        .strftime("%Y-%m-%dT%H:%M:%SZ"),
        "wall_s": time.time() - started,
        "device": info,
        "settings": {"cudnn_benchmark": True, "layout": "NCHW", "dtype": "float32",
                     "flush_bytes": flush_bytes, "sleep_cycles": SLEEP_CYCLES,
                     "warmup": args.warmup, "min_repeats": args.min_repeats,
                     "min_time_s": args.min_time_ms / 1e3, "max_repeats": args.max_repeats,
                     "data_seed": DATA_SEED, "rtol_fp32": RTOL_FP32, "rtol_tf32": RTOL_TF32},
        "peak": peak,
        "ops": results,
    }
    return report


# ---- Reports.

def dump_json(report):
    """Indented JSON with each list of samples on one line (thousands per variant)."""
    text = json.dumps(report, indent=1)
    return re.sub(r'("samples_s": )\[([^\]]*)\]',
                  lambda m: m.group(1) + "[" + ", ".join(m.group(2).split()).replace(",,", ",")
                  + "]", text) + "\n"


def all_passed(report):
    for entry in report["ops"]:
        for result in entry["results"].values():
            if "error" in result or not result["check"]["passed"]:
                return False
    return True


def markdown(report, protocol):
    d = report["device"]
    peak = report.get("peak") or {}
    peak_gflops = peak.get("gflops_median")
    lines = ["# GPU baselines: cuDNN, cuBLAS and the FP32 peak", "",
             "Written by `bench/gpu_baselines.py` (with `bench/gpu_peak.cc` for the peak) through "
             "`scripts/gpu/run_baselines.sh` on a lent GPU machine (docs/gpu-machine.md, "
             "\"Baselines\"). This run's command:", "", "```sh", report["command"], "```", "",
             f"- device: {d['name']} (compute capability {d['compute_capability']}, "
             f"{d['sm_count']} SMs, L2 {d['l2_bytes'] / 2**20:.0f} MiB, "
             f"{d['memory_bytes'] / 2**30:.0f} GiB)",
             f"- PyTorch {d['torch']}, CUDA {d['cuda']}, cuDNN {d['cudnn']}; cuBLAS {d['cublas']}",
             f"- started {report['started_utc']}, {report['wall_s']:.0f} s wall-clock", ""]
    lines += ["## FP32 peak (FMA microbenchmark, bench/gpu_peak.cc)", ""]
    if peak:
        k = peak["kernel"]
        theoretical = f"{peak['theoretical_gflops']:.1f}" if peak["theoretical_gflops"] else "—"
        lines += ["| samples | median ms | GFLOP/s | GFLOP/s, fastest sample | theoretical GFLOP/s "
                  "| kernel |", "|---|---|---|---|---|---|",
                  f"| {len(peak['samples_s'])} | {peak['median_s'] * 1e3:.3f} | "
                  f"{peak['gflops_median']:.1f} | {peak['gflops_fastest']:.1f} | "
                  f"{theoretical} | {k['blocks']} blocks × "
                  f"{k['block_threads']} threads, {k['chains']} chains × {k['unroll']} FMAs × "
                  f"{k['iterations']} iterations, {k['registers']} registers |", "",
                  f"Check of the kernel's result: {'passed' if peak['check_passed'] else 'FAILED'}."
                  " The theoretical figure is 2 × FP32 lanes per SM × SMs × the boost clock the "
                  "driver reports; the GPU may run below it under its power limit.", ""]
    else:
        lines += ["(not measured in this run: no `--peak-json`)", ""]
    present = [(key, heading) for key, heading in COLUMNS
               if any(key in e["results"] for e in report["ops"])]
    lines += ["## Operators", "",
              "Median time in ms | GFLOP/s. FLOPs are glimpse's (`OperatorFlops`): 2 per multiply-add "
              "over the full R × S window, taps on the zero padding included, bias and ReLU not "
              "counted. — : not applicable. FP32 columns are the fair comparison with glimpse's "
              "FP32 kernels; TF32 columns (tensor cores, 10-bit mantissas) are for information. "
              "Best columns: the fastest variant whose output passed its check. Last column: the "
              "best FP32 variant's GFLOP/s as a share of the measured FP32 peak"
              + (f" ({peak_gflops:.1f} GFLOP/s)." if peak_gflops else " (not measured)."), ""]
    head = "| # | operator | MFLOP |" + "".join(f" {h} ms | GFLOP/s |" for _, h in present)
    lines += [head + " best FP32 ms | best TF32 ms | best FP32 % of peak |",
              "|" + "---|" * (3 + 2 * len(present) + 3)]
    sums = {False: 0.0, True: 0.0}  # best FP32 / TF32 time over the operators; None: a gap
    for index, entry in enumerate(report["ops"], 1):
        row = f"| {index} | `{entry['op']}` | {entry['flops'] / 1e6:.1f} |"
        best = {False: None, True: None}  # fastest checked time per precision
        for key, _ in present:
            result = entry["results"].get(key)
            if result is None:
                row += " — | — |"
            elif "error" in result:
                row += " error | — |"
            else:
                mark = "" if result["check"]["passed"] else " (wrong)"
                row += f" {result['median_s'] * 1e3:.4f}{mark} | {result['gflops']:.1f} |"
                if result["check"]["passed"]:
                    old = best[result["tf32"]]
                    time_s = result["median_s"]
                    best[result["tf32"]] = min(old, time_s) if old else time_s
        for tf32 in (False, True):
            row += f" {best[tf32] * 1e3:.4f} |" if best[tf32] else " — |"
            sums[tf32] = sums[tf32] + best[tf32] if best[tf32] and sums[tf32] is not None else None
        gflops = entry["flops"] / best[False] / 1e9 if best[False] else 0.0
        share = f"{100 * gflops / peak_gflops:.1f} %" if peak_gflops and gflops else "—"
        lines.append(row + f" {share} |")
    total = "| | sum over the listed operators (each once) | |" + " | |" * len(present)
    for tf32 in (False, True):
        total += f" {sums[tf32] * 1e3:.4f} |" if sums[tf32] else " — |"
    lines += [total + " |", ""]
    lines += ["## What ran", "",
              "The CUDA kernels of one call of each variant (PyTorch's profiler; `cudnn.benchmark` "
              "chose cuDNN's algorithm).", "", "| # | variant | kernels |", "|---|---|---|"]
    for index, entry in enumerate(report["ops"], 1):
        for key, result in entry["results"].items():
            names = ", ".join(f"`{n}`" for n in result.get("kernels", [])) or "—"
            lines.append(f"| {index} | {key} | {names} |")
    checked = [(e["op"], k, r) for e in report["ops"] for k, r in e["results"].items()]
    failed = [(o, k, r) for o, k, r in checked if "error" in r or not r["check"]["passed"]]
    lines += ["", "## Correctness", "",
              f"Every output above was compared, element by element, with a float64 reference "
              f"computed on the CPU from the same float32 inputs (uniform in [-1, 1], seed "
              f"{DATA_SEED}), with the runner's tolerance |out − ref| ≤ rtol · (|ref| + Σ|a·b| / "
              f"√L): rtol {RTOL_FP32:g} for FP32, {RTOL_TF32:g} for TF32 (its operands are rounded "
              f"to 10 mantissa bits). {len(checked) - len(failed)} of {len(checked)} passed."]
    for op_text, key, result in failed:
        why = result.get("error") or (
            f"max |err| / scale {result['check']['max_err_over_scale']:.3g}")
        lines.append(f"- FAILED: `{op_text}` {key}: {why}")
    s = report["settings"]
    lines += ["", "## Protocol", "",
              f"- {protocol}.",
              f"- L2 flush: {s['flush_bytes'] / 2**20:.0f} MiB (2 × the L2 PyTorch reports) "
              f"written with `fill_` before each timed call; then "
              f"`torch.cuda._sleep({s['sleep_cycles']})` so that PyTorch's host-side dispatch of the operator overlaps GPU work and the CUDA "
              "events around the call time the GPU alone.",
              "- cuDNN: `torch.backends.cudnn.benchmark = True` (cuDNN's fastest algorithm for the "
              "shape, which may be Winograd or FFT: the library's best, not necessarily the direct "
              "form glimpse computes); bias through `F.conv2d`'s bias, ReLU a separate "
              "`torch.relu` (timed).",
              "- cuBLAS: `F.linear` (PyTorch may fuse the bias into cuBLASLt's epilogue) and "
              "`torch.matmul(A, Bᵀ)` on a transposed view of B[N,K] plus a separate bias add "
              "(timed).",
              "- TF32 off: `torch.backends.cudnn.allow_tf32 = False` and "
              "`torch.backends.cuda.matmul.allow_tf32 = False` (read back and recorded with "
              "every result). TF32 on: both True."]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="cuDNN and cuBLAS on glimpse's operators (FP32, TF32 off and on).")
    parser.add_argument("--ops", help=f"file of operators, one per line (default {DEFAULT_OPS})")
    parser.add_argument("--op", action="append", default=[], help="an operator (repeatable)")
    parser.add_argument("--peak-json", help="gpu_peak --json output to report beside the ops")
    parser.add_argument("--json", help="write the full results (every sample) here")
    parser.add_argument("--markdown", help="write the Markdown report here")
    parser.add_argument("--list", action="store_true",
                        help="print the operators, FLOPs and variants; no torch needed")
    parser.add_argument("--dry-run", action="store_true",
                        help="--list plus settings, protocol and outputs; no torch needed")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--min-repeats", type=int, default=3)
    parser.add_argument("--min-time-ms", type=float, default=50.0)
    parser.add_argument("--max-repeats", type=int, default=20000)
    args = parser.parse_args(argv)
    try:
        if args.warmup < 0 or args.min_repeats < 1 or args.max_repeats < args.min_repeats or \
                args.min_time_ms < 0:
            raise UsageError("need --warmup ≥ 0, --min-repeats ≥ 1, --max-repeats ≥ "
                             "--min-repeats and --min-time-ms ≥ 0")
        entries = collect_ops(args)
        if args.peak_json and not os.path.exists(args.peak_json):
            raise UsageError(f"--peak-json '{args.peak_json}' does not exist")
    except UsageError as error:
        print(f"gpu_baselines.py: {error}", file=sys.stderr)
        return 2
    if args.list or args.dry_run:
        print_plan(entries, args, args.dry_run)
        return 0
    command = " ".join(shlex.quote(word) for word in [sys.argv[0], *(argv or sys.argv[1:])])
    report = run(entries, args, command)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as file:
            file.write(dump_json(report))
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as file:
            file.write(markdown(report, protocol_text(args)))
    ok = all_passed(report)
    print("gpu_baselines.py: " + ("all outputs passed their check" if ok
                                   else "some outputs failed their check or errored"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
