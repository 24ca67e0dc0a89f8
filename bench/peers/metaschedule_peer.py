"""Tune glimpse's CPU operators with TVM MetaSchedule: the peer of glimpse's CPU tuning.

Each operator (glimpse's op syntax, e.g. conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1,
bias=1) becomes a TE workload with the same semantics as include/glimpse/cpu.h, is tuned by
MetaSchedule's default search (post-order-apply space, evolutionary search, XGBoost cost model,
LocalBuilder/LocalRunner) for --trials measurements, and is written to a JSON file: every
measurement in commit order, the best-so-far GFLOP/s after each, the tuning wall-clock and its
phases, and the final schedule measured again outside the tuner and checked against numpy. The
protocol and every difference from MetaSchedule's defaults are in bench/peers/README.md.

Map of this file:
  parse_op / read_ops_file / op_*     glimpse's op syntax, shapes and FLOPs (standard library)
  measurement_s / best_curve / ...    the results: curve, best, record and document shapes
                                      (standard library; tests/test_metaschedule_peer.py)
  build_workload / reference          TE compute and the numpy float64 reference (need TVM)
  tune_op / remeasure                 one operator: MetaSchedule tuning, re-measure + check
  main                                flags, environment, one JSON document rewritten per op

Only the first two parts run without TVM: TVM, numpy and xgboost are imported inside the
functions that need them, so the tests run with the system python3.
"""

import argparse
import datetime
import json
import math
import os
import platform
import re
import shutil
import statistics
import sys
import tempfile
import time

# Seconds of untimed calls before the re-measurement (remeasure).
REMEASURE_WARMUP_S = 2.0

FORMAT = "glimpse-metaschedule-peer"
FORMAT_VERSION = 1

# MetaSchedule commits a candidate that failed to build or run with this single run time
# (measure_callback/add_to_database.cc: 1e10 s); anything this slow is a failure.
FAILED_RUN_S = 1e9

# glimpse's correctness criterion (docs/cpu-tuning.md, "Correctness check"): an element passes
# when |out - ref| <= rtol * (|ref| + magnitude / sqrt(L)) with magnitude = sum |a*b| (+ |bias|).
CHECK_RTOL = 1e-3

# Fields of each operator in canonical order (required, then optional with their defaults), as
# glimpse's ParseOperator reads them. depthwise_conv2d and batch_matmul exist in glimpse but have
# no workload here yet.
OP_FIELDS = {
    "conv2d": (["N", "C", "H", "W", "K", "R", "S"],
               {"stride": 1, "pad": 0, "dilation": 1, "bias": 0, "relu": 0}),
    "dense": (["M", "N", "K"], {"bias": 0, "relu": 0}),
}
GLIMPSE_ONLY_OPS = ("depthwise_conv2d", "batch_matmul")
MAX_FIELD = 1 << 20  # glimpse's upper bound for every size field


class OpError(ValueError):
    """An operator text or file a user wrote is malformed; the message names the field."""


# ---- Operators (standard library only)

def parse_op(text):
    """glimpse's op text -> {"op": kind, field: int, ...} with every optional field filled in.

    Accepts what glimpse's ParseOperator accepts for conv2d and dense: case-sensitive fields,
    integer values, each at most once, flags 0/1, pad >= 0, sizes in [1, 2^20], a kernel window
    that fits the padded input. Raises OpError naming the bad field and the accepted ones.
    """
    text = text.strip()
    kind, colon, rest = text.partition(":")
    if not colon:
        raise OpError(f"operator '{text}' has no ':'; expected e.g. dense:M=1,N=1000,K=512")
    if kind in GLIMPSE_ONLY_OPS:
        raise OpError(f"operator '{kind}' has no MetaSchedule workload in this peer; "
                      f"supported: {', '.join(sorted(OP_FIELDS))}")
    if kind not in OP_FIELDS:
        raise OpError(f"unknown operator '{kind}'; known: {', '.join(sorted(OP_FIELDS))}")
    required, optional = OP_FIELDS[kind]
    accepted = ", ".join(required + list(optional))
    fields = {}
    for item in rest.split(",") if rest else []:
        name, eq, value = item.partition("=")
        if not eq or not name:
            raise OpError(f"{kind}: '{item}' is not field=value; accepted fields: {accepted}")
        if name not in required and name not in optional:
            raise OpError(f"{kind}: unknown field '{name}'; accepted: {accepted}")
        if not re.fullmatch(r"[+-]?[0-9]+", value):
            raise OpError(f"{kind}: field '{name}' has value '{value}'; accepted: an integer")
        if name in fields:
            raise OpError(f"{kind}: field '{name}' is given twice")
        fields[name] = int(value)
    for name in required:
        if name not in fields:
            raise OpError(f"{kind}: missing field '{name}'; required: {', '.join(required)}")
    op = {"op": kind}
    for name in required:
        op[name] = fields[name]
    for name, default in optional.items():
        op[name] = fields.get(name, default)
    for name, value in op.items():
        if name == "op":
            continue
        flag = name in ("bias", "relu")
        low = 0 if flag or name == "pad" else 1
        high = 1 if flag else MAX_FIELD
        if not low <= value <= high:
            raise OpError(f"{kind}: field '{name}' is {value}; accepted: "
                          + ("0 or 1" if flag else f"an integer in [{low}, {MAX_FIELD}]"))
    if kind == "conv2d":
        out_h, out_w = conv2d_out_hw(op)
        if out_h < 1 or out_w < 1:
            raise OpError("conv2d: fields 'R'/'S' with 'dilation' exceed the padded input "
                          "(H+2*pad, W+2*pad); accepted: a kernel window that fits")
    return op


def conv2d_out_hw(op):
    """Output rows and columns of a conv2d (floor division, as glimpse's Conv2dShape)."""
    span_h = op["dilation"] * (op["R"] - 1) + 1
    span_w = op["dilation"] * (op["S"] - 1) + 1
    return ((op["H"] + 2 * op["pad"] - span_h) // op["stride"] + 1,
            (op["W"] + 2 * op["pad"] - span_w) // op["stride"] + 1)


def op_to_string(op):
    """The canonical text (every field, glimpse's order), as glimpse's OperatorToString writes it."""
    required, optional = OP_FIELDS[op["op"]]
    return op["op"] + ":" + ",".join(f"{name}={op[name]}" for name in required + list(optional))


def op_input_shapes(op):
    """Input shapes in kernel order: conv2d data, weight (, bias); dense A, B (, bias)."""
    if op["op"] == "conv2d":
        shapes = [[op["N"], op["C"], op["H"], op["W"]], [op["K"], op["C"], op["R"], op["S"]]]
        return shapes + ([[op["K"]]] if op["bias"] else [])
    shapes = [[op["M"], op["K"]], [op["N"], op["K"]]]
    return shapes + ([[op["N"]]] if op["bias"] else [])


def op_output_shape(op):
    if op["op"] == "conv2d":
        return [op["N"], op["K"], *conv2d_out_hw(op)]
    return [op["M"], op["N"]]


def op_reduction_length(op):
    """Terms summed per output element: C*R*S (conv2d), K (dense)."""
    return op["C"] * op["R"] * op["S"] if op["op"] == "conv2d" else op["K"]


def op_flops(op):
    """2 * multiply-adds, the epilogue (bias, ReLU) not counted, as glimpse's OperatorFlops."""
    return 2.0 * math.prod(op_output_shape(op)) * op_reduction_length(op)


def op_slug(op):
    """A file-name-safe name: conv2d_N1_C64_..._relu0."""
    required, optional = OP_FIELDS[op["op"]]
    return op["op"] + "_" + "_".join(f"{name}{op[name]}" for name in required + list(optional))


def read_ops_file(path):
    """Op texts of a file: one per line, '#' starts a comment, blank lines skipped.

    Every line is parsed here so that a bad one stops the command before any tuning, with the
    file and line in the message.
    """
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError as error:
        raise OpError(f"--ops {path}: cannot read: {error.strerror}") from None
    texts = []
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            parse_op(text)
        except OpError as error:
            raise OpError(f"{path}:{number}: {error}") from None
        texts.append(text)
    return texts


def collect_ops(ops_files, op_texts):
    """The operators of --ops files then --op flags, parsed, duplicates (same canonical) once."""
    texts = []
    for path in ops_files or []:
        texts.extend(read_ops_file(path))
    for text in op_texts or []:
        try:
            parse_op(text)
        except OpError as error:
            raise OpError(f"--op {text}: {error}") from None
        texts.append(text)
    ops, seen = [], set()
    for text in texts:
        op = parse_op(text)
        if op_to_string(op) not in seen:
            seen.add(op_to_string(op))
            ops.append(op)
    if not ops:
        raise OpError("no operator given; use --ops FILE (one per line) and/or --op TEXT")
    return ops


# ---- Results (standard library only)

def measurement_s(run_secs):
    """The time of one measurement: the median of its samples (glimpse's runner reports the
    median too); None for a failed one (no samples, or MetaSchedule's 1e10 s failure marker)."""
    if not run_secs or any(not math.isfinite(s) or s >= FAILED_RUN_S or s <= 0
                           for s in run_secs):
        return None
    return statistics.median(run_secs)


def best_curve(measurements, flops):
    """Best-so-far GFLOP/s after n measurements, for n = 1 .. len(measurements).

    measurements: the run_secs list of each measurement in commit order (failures included, as
    MetaSchedule counts them); 0.0 until the first successful one.
    """
    curve, best = [], 0.0
    for run_secs in measurements:
        seconds = measurement_s(run_secs)
        if seconds is not None:
            best = max(best, flops / seconds / 1e9)
        curve.append(best)
    return curve


def best_measurement(measurements):
    """(index, seconds) of the fastest successful measurement by median, first of ties; None."""
    best = None
    for index, run_secs in enumerate(measurements):
        seconds = measurement_s(run_secs)
        if seconds is not None and (best is None or seconds < best[1]):
            best = (index, seconds)
    return best


def metaschedule_pick(measurements):
    """Index of the record MetaSchedule's database returns first: the smallest mean run time
    (its JSON database keeps records sorted by mean run_secs); None when all failed."""
    best = None
    for index, run_secs in enumerate(measurements):
        if measurement_s(run_secs) is None:
            continue
        mean = sum(run_secs) / len(run_secs)
        if best is None or mean < best[1]:
            best = (index, mean)
    return None if best is None else best[0]


def read_tuning_records(path):
    """run_secs of every record of a MetaSchedule JSON database file, in commit order.

    Each line is [workload index, [trace, run_secs, target, args_info]]; a failed candidate has
    run_secs [1e10]. Returns (workload indices, run_secs lists).
    """
    workloads, measurements = [], []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                workload, record = json.loads(line)
                run_secs = [float(s) for s in record[1]]
            except (ValueError, TypeError, IndexError) as error:
                raise ValueError(f"{path}:{number}: not a MetaSchedule tuning record "
                                 f"({error})") from None
            workloads.append(workload)
            measurements.append(run_secs)
    return workloads, measurements


def op_record(op, measurements, *, wall_s, phases_s=None, batches=None, remeasured=None,
              work_dir=None, profiler=None):
    """The results of one tuned operator as the JSON file holds them (README: "Counting
    measurements, and what is recorded")."""
    flops = op_flops(op)
    curve = best_curve(measurements, flops)
    best = best_measurement(measurements)
    pick = metaschedule_pick(measurements)
    record = {
        "op": op_to_string(op),
        "shape": {name: value for name, value in op.items()},
        "flops": flops,
        "measurements": len(measurements),
        "failed": sum(measurement_s(m) is None for m in measurements),
        "best": None,
        "metaschedule_pick": None,
        "tuning_wall_s": wall_s,
        "phases_s": phases_s or {},
        "batches": batches or [],
        "best_gflops_after": curve,
        "run_secs": measurements,
        "remeasured": remeasured,
        "work_dir": work_dir,
        "profiler_s": profiler or {},
    }
    if best is not None:
        record["best"] = {"measurement": best[0] + 1, "time_s": best[1],
                          "gflops": flops / best[1] / 1e9}
    if pick is not None:
        mean = sum(measurements[pick]) / len(measurements[pick])
        record["metaschedule_pick"] = {"measurement": pick + 1, "mean_s": mean,
                                       "median_s": measurement_s(measurements[pick])}
    return record


def make_document(created, command, machine, software, settings, ops, startup_s=None):
    """The whole JSON file: header plus one record per finished operator. startup_s: seconds
    this invocation spent before its first tuning (None when it tuned nothing)."""
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "tool": "metaschedule",
        "created": created,
        "command": command,
        "machine": machine,
        "software": software,
        "settings": settings,
        "startup_s": startup_s,
        "ops": ops,
    }


def reusable_ops(path, settings):
    """Finished op records of an earlier document at `path` made under the same settings.

    Returns {canonical op: record}; a record with an "error" is not reused. A file made under
    other settings (trials, evaluator, target, ...) is an error: mixing them would compare
    unlike runs.
    """
    if not os.path.exists(path):
        return {}
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except (OSError, json.JSONDecodeError) as error:
        raise OpError(f"--resume: cannot read {path}: {error}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise OpError(f"--resume: {path} is not a {FORMAT} file")
    if document.get("settings") != settings:
        differing = sorted(key for key in set(settings) | set(document.get("settings") or {})
                           if settings.get(key) != (document.get("settings") or {}).get(key))
        raise OpError(f"--resume: {path} was made with other settings ({', '.join(differing)});"
                      " use another --out")
    return {record["op"]: record for record in document.get("ops", [])
            if isinstance(record, dict) and "op" in record and "error" not in record}


def write_atomically(path, document):
    """Write JSON to a temporary file beside `path`, then rename it over `path`."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=directory, suffix=".tmp")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        json.dump(document, out, indent=1)
        out.write("\n")
    os.chmod(temporary, 0o644)
    os.replace(temporary, path)


def cpu_model():
    """The CPU's model name from /proc/cpuinfo (as glimpse's CpuDeviceName), else platform's."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "cpu"


def usable_cores():
    """CPUs this process may run on (its affinity mask), else the logical CPU count."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def command_line(argv):
    """The command as typed, with the interpreter relative to the working directory."""
    interpreter = sys.executable
    if interpreter.startswith(os.getcwd() + os.sep):
        interpreter = os.path.relpath(interpreter)
    script = os.path.relpath(os.path.abspath(sys.argv[0]))
    return " ".join([interpreter, script] + list(sys.argv[1:] if argv is None else argv))


# ---- TVM workloads and reference (need the build/tvm-venv environment)

def build_workload(op):
    """(IRModule with one PrimFunc "main", its TE tensors) computing `op` in float32.

    conv2d: data[N,C,H,W], weight[K,C,R,S] (, bias[K]) -> out[N,K,OH,OW] through
    topi.nn.conv2d_nchw (zero padding, stride, dilation) then + bias[k] then ReLU; dense:
    A[M,K], B[N,K] (, bias[N]) -> C[M,N] = A . B^T (+ bias) (ReLU). Argument order = glimpse's
    kernel order, output last.
    """
    import tvm
    from tvm import te, topi

    dtype = "float32"
    shapes = op_input_shapes(op)
    if op["op"] == "conv2d":
        data = te.placeholder(shapes[0], dtype, name="data")
        weight = te.placeholder(shapes[1], dtype, name="weight")
        inputs = [data, weight]
        out = topi.nn.conv2d_nchw(data, weight, op["stride"], op["pad"], op["dilation"],
                                  out_dtype=dtype)
        if op["bias"]:
            bias = te.placeholder(shapes[2], dtype, name="bias")
            inputs.append(bias)
            conv = out
            out = te.compute(conv.shape, lambda n, k, y, x: conv[n, k, y, x] + bias[k],
                             name="bias_add")
    else:
        a = te.placeholder(shapes[0], dtype, name="A")
        b = te.placeholder(shapes[1], dtype, name="B")
        inputs = [a, b]
        k = te.reduce_axis((0, op["K"]), name="k")
        out = te.compute((op["M"], op["N"]), lambda i, j: te.sum(a[i, k] * b[j, k], axis=k),
                         name="dense")
        if op["bias"]:
            bias = te.placeholder(shapes[2], dtype, name="bias")
            inputs.append(bias)
            product = out
            out = te.compute(product.shape, lambda i, j: product[i, j] + bias[j],
                             name="bias_add")
    if op["relu"]:
        out = topi.nn.relu(out)
    func = te.create_prim_func(inputs + [out]).with_attr("global_symbol", "main")
    return tvm.IRModule({"main": func}), inputs + [out]


def reference(op, inputs):
    """(reference output, magnitude) in float64 from numpy inputs, as glimpse's reference:
    magnitude = sum over the reduction of |a*b| (+ |bias|), the scale of the check."""
    import numpy as np

    x = [np.asarray(t, dtype=np.float64) for t in inputs]
    if op["op"] == "dense":
        out = x[0] @ x[1].T
        magnitude = np.abs(x[0]) @ np.abs(x[1]).T
    else:
        out_h, out_w = conv2d_out_hw(op)
        pad, stride, dil = op["pad"], op["stride"], op["dilation"]
        padded = np.pad(x[0], ((0, 0), (0, 0), (pad, pad), (pad, pad)))
        span_h, span_w = dil * (op["R"] - 1) + 1, dil * (op["S"] - 1) + 1
        windows = np.lib.stride_tricks.sliding_window_view(padded, (span_h, span_w), (2, 3))
        # [N, C, OH', OW', span_h, span_w] -> strided outputs, dilated taps -> [N*OH*OW, C*R*S]
        windows = windows[:, :, ::stride, ::stride, ::dil, ::dil][:, :, :out_h, :out_w]
        columns = windows.transpose(0, 2, 3, 1, 4, 5).reshape(op["N"] * out_h * out_w, -1)
        weight = x[1].reshape(op["K"], -1)

        def to_nchw(matrix):
            return matrix.reshape(op["N"], out_h, out_w, op["K"]).transpose(0, 3, 1, 2)

        out = to_nchw(columns @ weight.T)
        magnitude = to_nchw(np.abs(columns) @ np.abs(weight).T)
    if op["bias"]:
        shape = (1, -1, 1, 1) if op["op"] == "conv2d" else (1, -1)
        out = out + x[2].reshape(shape)
        magnitude = magnitude + np.abs(x[2]).reshape(shape)
    if op["relu"]:
        out = np.maximum(out, 0.0)
    return out, magnitude


def check_output(op, output, expected, magnitude):
    """glimpse's element check; returns {"passed", "worst_ratio", "failed_elements"}."""
    import numpy as np

    scale = CHECK_RTOL * (np.abs(expected) + magnitude / math.sqrt(op_reduction_length(op)))
    error = np.abs(output.astype(np.float64) - expected)
    finite = np.isfinite(output)
    ratio = np.where(scale > 0, error / np.where(scale > 0, scale, 1.0),
                     np.where(error > 0, np.inf, 0.0))
    bad = ~finite | (ratio > 1.0)
    worst = float(np.max(np.where(finite, ratio, np.inf))) if ratio.size else 0.0
    return {"passed": not bool(bad.any()), "worst_ratio": worst,
            "failed_elements": int(bad.sum()), "rtol": CHECK_RTOL}


# ---- Tuning one operator

def make_batch_recorder(started):
    """A MetaSchedule measure callback that notes, per measured batch, the wall-clock since
    `started`, its size and each candidate's error (None when it ran): the database keeps no
    times or error texts."""
    from tvm.ir.utils import derived_object
    from tvm.s_tir.meta_schedule.measure_callback import PyMeasureCallback

    @derived_object
    class BatchRecorder(PyMeasureCallback):
        def __init__(self):
            super().__init__()
            self.batches = []

        def apply(self, task_scheduler, task_id, measure_candidates, builder_results,
                  runner_results):
            errors = []
            for built, ran in zip(builder_results, runner_results):
                if built.error_msg:
                    errors.append("build: " + str(built.error_msg).strip()[:300])
                elif ran.error_msg:
                    errors.append("run: " + str(ran.error_msg).strip()[:300])
                else:
                    errors.append(None)
            self.batches.append({"elapsed_s": time.perf_counter() - started,
                                 "size": len(measure_candidates), "errors": errors})

    return BatchRecorder()


def phases_from_profiler(profile, wall_s):
    """Seconds per tuning phase from MetaSchedule's Profiler scopes ("A/B" nests in "A").

    builder: SendToBuilder (LocalBuilder, worker start-up included); runner: SendToRunner +
    JoinRunnerFutures; search: the outermost EvoSearch/* scopes; cost_model_update: training
    the XGBoost model after each batch; other: the rest of wall_s (design-space generation,
    postprocessing, logging).
    """
    def outermost(name):
        parts = name.split("/")
        return not any("/".join(parts[:depth]) in profile for depth in range(1, len(parts)))

    phases = {
        "builder_s": profile.get("SendToBuilder", 0.0),
        "runner_s": profile.get("SendToRunner", 0.0) + profile.get("JoinRunnerFutures", 0.0),
        "search_s": sum(value for name, value in profile.items()
                        if name.startswith("EvoSearch/") and outermost(name)),
        "cost_model_update_s": profile.get("MeasureCallback/UpdateCostModel", 0.0),
    }
    phases["other_s"] = wall_s - sum(phases.values())
    return phases


def evaluator_config(settings):
    from tvm.s_tir import meta_schedule as ms

    evaluator = settings["runner"]["evaluator"]
    return ms.runner.EvaluatorConfig(number=evaluator["number"], repeat=evaluator["repeat"],
                                     min_repeat_ms=evaluator["min_repeat_ms"],
                                     enable_cpu_cache_flush=evaluator["enable_cpu_cache_flush"])


def load_tensor_intrinsics():
    """Builder-process initializer: import what MetaSchedule's default_build imports first.

    default_build starts with `import tvm.s_tir.tensor_intrin`, which parses TVMScript for every
    target (about 16 s of CPU time here), and LocalBuilder starts new worker processes for every
    batch, so without this the first candidate of each worker pays it inside its build timeout.
    An initializer runs untimed; the time still counts in the tuning wall-clock.
    """
    import tvm.s_tir.tensor_intrin  # noqa: F401  (registers the tensor intrinsics)


def make_builder_and_runner(settings):
    """MetaSchedule's LocalBuilder and LocalRunner with the settings' timeouts and evaluator."""
    from tvm.s_tir import meta_schedule as ms

    builder = ms.builder.LocalBuilder(max_workers=settings["builder"]["max_workers"],
                                      timeout_sec=settings["builder"]["timeout_s"],
                                      initializer=load_tensor_intrinsics)
    runner = ms.runner.LocalRunner(timeout_sec=settings["runner"]["timeout_s"],
                                   evaluator_config=evaluator_config(settings))
    return builder, runner


def tune_op(op, settings, work_dir, seed, builder, runner):
    """Tune one operator with MetaSchedule in `work_dir` (an empty directory) using the shared
    builder and runner; returns its op_record."""
    import tvm
    from tvm.s_tir import meta_schedule as ms

    mod, _ = build_workload(op)
    target = tvm.target.Target(settings["target"])
    cores = settings["cores"]
    started = time.perf_counter()
    recorder = make_batch_recorder(started)
    callbacks = list(ms.measure_callback.MeasureCallback.create("default")) + [recorder]
    with ms.Profiler() as profiler:
        ms.tir_integration.tune_tir(
            mod, target, work_dir, max_trials_global=settings["trials"],
            num_trials_per_iter=settings["trials_per_iter"], builder=builder, runner=runner,
            measure_callbacks=callbacks, num_tuning_cores=cores, seed=seed)
    wall_s = time.perf_counter() - started
    profile = {name: float(value) for name, value in profiler.get().items()}
    _, measurements = read_tuning_records(os.path.join(work_dir, "database_tuning_record.json"))
    counted = sum(batch["size"] for batch in recorder.batches)
    if counted != len(measurements):
        raise RuntimeError(f"{work_dir}: the database holds {len(measurements)} records but "
                           f"{counted} candidates were measured")
    if best_measurement(measurements) is None:
        remeasured = {"error": "no successful measurement"}
    else:
        remeasured = remeasure(op, settings, work_dir, mod, target)
    return op_record(op, measurements, wall_s=wall_s,
                     phases_s=phases_from_profiler(profile, wall_s), batches=recorder.batches,
                     remeasured=remeasured, work_dir=os.path.relpath(work_dir), profiler=profile)


def remeasure(op, settings, work_dir, mod, target):
    """Build the schedule MetaSchedule's database returns for `mod`, check it against numpy and
    time it with the tuner's evaluator settings in this process (the tuner's runner code path:
    run_evaluator_common). The shared object is kept as work_dir/best.so."""
    import numpy as np
    import tvm
    from tvm.s_tir import meta_schedule as ms
    from tvm.s_tir.meta_schedule.builder.local_builder import default_build
    from tvm.s_tir.meta_schedule.runner.utils import run_evaluator_common

    database = ms.database.JSONDatabase(work_dir=work_dir)
    record = database.query_tuning_record(mod, target, workload_name="main")
    schedule = database.query_schedule(mod, target, workload_name="main")
    if record is None or schedule is None:
        return {"error": "the database has no successful record"}
    library = os.path.join(work_dir, "best.so")
    default_build(schedule.mod, target, None).export_library(library)
    module = tvm.runtime.load_module(library)
    device = tvm.cpu(0)
    rng = np.random.default_rng(settings["data_seed"])
    inputs = [rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)
              for shape in op_input_shapes(op)]
    output = np.full(op_output_shape(op), np.nan, dtype=np.float32)
    arguments = [tvm.runtime.tensor(array, device) for array in inputs + [output]]
    module[module.entry_name](*arguments)
    expected, magnitude = reference(op, inputs)
    check = check_output(op, arguments[-1].numpy(), expected, magnitude)
    # Untimed calls first: in a fresh process (the tuner ran its candidates in worker processes,
    # so these are this process's first) the first 0.1-0.2 s of calls ran 2x slow here, which made
    # every re-measurement before this warm-up read 1.2-2.7x the tuner's own record.
    warm_until = time.monotonic() + REMEASURE_WARMUP_S
    while time.monotonic() < warm_until:
        run_evaluator_common(module, device, evaluator_config(settings), [arguments])
    samples = run_evaluator_common(module, device, evaluator_config(settings), [arguments])
    median = statistics.median(samples)
    return {
        "record_mean_s": sum(float(s) for s in record.run_secs) / len(record.run_secs),
        "samples_s": samples,
        "time_s": median,
        "gflops": op_flops(op) / median / 1e9,
        "check": check,
        "library": os.path.relpath(library),
    }


def prepare_work_dir(path):
    """An empty directory for one operator's MetaSchedule run.

    MetaSchedule's JSON database appends to the files it finds, so a directory left by an
    earlier run is emptied; one holding anything but MetaSchedule's own files is refused.
    """
    owned = {"database_workload.json", "database_tuning_record.json", "logs", "best.so"}
    if os.path.isdir(path):
        foreign = sorted(set(os.listdir(path)) - owned)
        if foreign:
            raise OpError(f"work directory {path} holds files this tool did not write "
                          f"({', '.join(foreign[:3])}); choose another --work-dir")
        shutil.rmtree(path)
    os.makedirs(path)


# ---- Command line

def build_parser():
    parser = argparse.ArgumentParser(
        description="Tune glimpse's CPU operators with TVM MetaSchedule's default search and "
                    "write the measurements, best-so-far curves and wall-clock as JSON.")
    parser.add_argument("--ops", action="append", default=[], metavar="FILE",
                        help="operators, one per line, '#' comments (repeatable)")
    parser.add_argument("--op", action="append", default=[], metavar="TEXT",
                        help="an operator, e.g. dense:M=1,N=1000,K=512,bias=1 (repeatable)")
    parser.add_argument("--trials", type=int, default=64,
                        help="MetaSchedule max_trials_global per operator (default 64)")
    parser.add_argument("--trials-per-iter", type=int, default=64,
                        help="candidates per search iteration (MetaSchedule's default 64)")
    parser.add_argument("--out", required=True, help="JSON file, rewritten after every operator")
    parser.add_argument("--work-dir",
                        help="directory of the per-operator MetaSchedule work directories "
                             "(default: build/metaschedule/<name of --out>)")
    parser.add_argument("--resume", action="store_true",
                        help="keep the operators already in --out (same settings) and skip them")
    parser.add_argument("--cores", type=int,
                        help="cores for building and running (default: CPUs this process may "
                             "use); sets TVM_NUM_THREADS and the target's num-cores")
    parser.add_argument("--mcpu", help="LLVM CPU name (default: LLVM's host CPU)")
    parser.add_argument("--number", type=int, default=1, help="evaluator number (default 1)")
    parser.add_argument("--repeat", type=int, default=10, help="evaluator repeat (default 10)")
    parser.add_argument("--min-repeat-ms", type=int, default=0,
                        help="evaluator min_repeat_ms (default 0)")
    parser.add_argument("--no-cache-flush", action="store_true",
                        help="enable_cpu_cache_flush=False (default: True)")
    parser.add_argument("--builder-timeout", type=float, default=60.0,
                        help="seconds per candidate build (default 60, glimpse's; "
                             "MetaSchedule's is 30)")
    parser.add_argument("--runner-timeout", type=float, default=30.0,
                        help="seconds per candidate run (default 30, MetaSchedule's)")
    parser.add_argument("--seed", type=int, default=0,
                        help="MetaSchedule's random seed (default 0; operator i uses seed + i)")
    parser.add_argument("--data-seed", type=int, default=1,
                        help="seed of the re-measurement's uniform [-1, 1] inputs (default 1)")
    return parser


def check_flags(args):
    for name in ("trials", "trials_per_iter", "number", "repeat"):
        if getattr(args, name) < 1:
            raise OpError(f"--{name.replace('_', '-')} is {getattr(args, name)}; "
                          "accepted: an integer >= 1")
    if args.min_repeat_ms < 0:
        raise OpError(f"--min-repeat-ms is {args.min_repeat_ms}; accepted: an integer >= 0")
    if args.cores is not None and args.cores < 1:
        raise OpError(f"--cores is {args.cores}; accepted: an integer >= 1")
    for name in ("builder_timeout", "runner_timeout"):
        if not getattr(args, name) > 0:
            raise OpError(f"--{name.replace('_', '-')} must be > 0 seconds")


def make_settings(args, cores, mcpu):
    """Everything that decides what a run measures; --resume reuses only identical settings."""
    return {
        "trials": args.trials,
        "trials_per_iter": args.trials_per_iter,
        "target": {"kind": "llvm", "mcpu": mcpu, "num-cores": cores},
        "target_text": f"llvm -mcpu={mcpu} -num-cores {cores}",
        "cores": cores,
        "tvm_num_threads": cores,
        "space": "post-order-apply",
        "strategy": "evolutionary",
        "cost_model": "xgb",
        "task_scheduler": "gradient",
        "builder": {"kind": "LocalBuilder", "max_workers": cores,
                    "timeout_s": args.builder_timeout},
        "runner": {"kind": "LocalRunner", "timeout_s": args.runner_timeout,
                   "evaluator": {"number": args.number, "repeat": args.repeat,
                                 "min_repeat_ms": args.min_repeat_ms,
                                 "enable_cpu_cache_flush": not args.no_cache_flush}},
        "measurement_time": "median of a record's run_secs",
        "seed": args.seed,
        "data_seed": args.data_seed,
    }


def software_versions():
    import numpy
    import tvm
    import tvm_ffi
    import xgboost

    return {"tvm": tvm.__version__, "tvm_ffi": tvm_ffi.__version__,
            "xgboost": xgboost.__version__, "numpy": numpy.__version__,
            "llvm": tvm.target.codegen.llvm_version_major(allow_none=True),
            "python": platform.python_version()}


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        check_flags(args)
        ops = collect_ops(args.ops, args.op)
    except OpError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    cores = args.cores or usable_cores()
    # TVM's runtime sizes its thread pool from TVM_NUM_THREADS when it is first used; without
    # it, it takes half the hardware threads on x86 (it assumes SMT), i.e. 1 on this 2-core
    # machine. Set before tvm is imported, inherited by the builder and runner processes.
    os.environ["TVM_NUM_THREADS"] = str(cores)
    try:
        import tvm
        import xgboost  # noqa: F401  (MetaSchedule's default cost model)
    except ImportError as error:
        print(f"error: {error.name} is not installed for {sys.executable}; create the "
              "environment with bench/peers/setup_tvm.sh and run this script with "
              "build/tvm-venv/bin/python", file=sys.stderr)
        return 2

    mcpu = args.mcpu or tvm.target.codegen.llvm_get_system_cpu()
    settings = make_settings(args, cores, mcpu)
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    stem = os.path.splitext(os.path.basename(args.out))[0]
    work_root = args.work_dir or os.path.join(repo, "build", "metaschedule", stem)
    try:
        done = reusable_ops(args.out, settings) if args.resume else {}
    except OpError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    created = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    machine = {"cpu": cpu_model(), "cores": cores, "hardware_threads": os.cpu_count(),
               "load_average_at_start": [round(value, 2) for value in load] if load else None,
               "platform": platform.platform()}
    software = software_versions()
    records, failures = [], 0
    builder = runner = startup_s = None

    def write():
        write_atomically(args.out, make_document(created, command_line(argv), machine,
                                                 software, settings, records, startup_s))

    for index, op in enumerate(ops):
        text = op_to_string(op)
        if text in done:
            records.append(done[text])
            print(f"[{index + 1}/{len(ops)}] {text}: kept from {args.out}", file=sys.stderr)
            continue
        work_dir = os.path.join(work_root, op_slug(op))
        print(f"[{index + 1}/{len(ops)}] {text}: {settings['trials']} trials in "
              f"{os.path.relpath(work_dir)}", file=sys.stderr)
        if builder is None:
            # Paid once per process, not per operator: the tuning context imports the tensor
            # intrinsics (tens of seconds on a loaded machine), the runner starts its worker.
            started = time.perf_counter()
            import tvm.s_tir.tensor_intrin  # noqa: F401
            builder, runner = make_builder_and_runner(settings)
            startup_s = time.perf_counter() - started
        try:
            prepare_work_dir(work_dir)
            record = tune_op(op, settings, work_dir, args.seed + index, builder, runner)
        except OpError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        except Exception as error:  # a TVM failure on one operator must not lose the others
            record = {"op": text, "error": f"{type(error).__name__}: {error}"[:2000],
                      "work_dir": os.path.relpath(work_dir)}
        records.append(record)
        write()
        if "error" in record:
            failures += 1
            print(f"  failed: {record['error']}", file=sys.stderr)
            continue
        again = record["remeasured"] or {}
        passed = bool(again.get("check", {}).get("passed"))
        failures += not passed  # no successful measurement, or a wrong final schedule
        best = record["best"]["gflops"] if record["best"] else 0.0
        print(f"  {record['measurements']} measurements ({record['failed']} failed) in "
              f"{record['tuning_wall_s']:.0f} s; best {best:.1f} GFLOP/s; re-measured "
              f"{again.get('gflops', 0.0):.1f} GFLOP/s; check {'passed' if passed else 'FAILED'}",
              file=sys.stderr)
    write()
    print(f"wrote {args.out}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
