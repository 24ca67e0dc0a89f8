"""Turn Kernel Tuner runs on recorded spaces into glimpse's results schema.

Pure Python (standard library only, no kernel_tuner import), so that the conversion can be tested
and re-run on any machine. The schema is docs/bench-results.md ("glimpse-bench-results/1").

Map of this file:
  InputError, space_id                 naming and the one-line errors a user can cause
  load_cache, load_t1_restrictions     reading a recorded Kernel Tuner cache and a T1 file
  RestrictionChecker                   the space's restriction expressions (Python syntax)
  describe_space                       id, valid count, optimum and missing-entry cost of a space
  load_raw_run, convert_run            one recorded Kernel Tuner run -> one results-file run
"""

import gzip
import itertools
import json
import math
import os
import statistics

SCHEMA = "glimpse-bench-results/1"
TOOL = "kernel_tuner"

# The GEMM space (CLBlast Xgemm) has no T1 file; these are CLBlast's own restrictions.
CLBLAST_GEMM_RESTRICTIONS = [
    "KWG % KWI == 0",
    "MWG % (MDIMC * VWM) == 0",
    "NWG % (NDIMC * VWN) == 0",
    "MWG % (MDIMA * VWM) == 0",
    "NWG % (NDIMB * VWN) == 0",
    "KWG % ((MDIMC * NDIMC)/MDIMA) == 0",
    "KWG % ((MDIMC * NDIMC)/NDIMB) == 0",
]

# Raw runs store each evaluation as a row of these fields, in Kernel Tuner's order of evaluation.
RAW_FIELDS = ["config", "time", "compile_time", "benchmark_time", "strategy_time"]
RAW_FORMAT = "glimpse-kernel-tuner-raw/1"

MS_TO_S = 1e-3


class InputError(Exception):
    """A problem with an input file that the user can fix; the message names the file and field."""


def space_id(group, path):
    """Space id as glimpse writes it: "<group>/<file base name without .json[.gz]>"."""
    base = os.path.basename(path)
    for suffix in (".gz", ".json"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
    return f"{group}/{base}"


def read_json(path):
    """JSON from a plain or gzip-compressed file, with a one-line error naming the file."""
    try:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as handle:
            return json.load(handle)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, EOFError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: cannot read ({error})") from None
    except json.JSONDecodeError as error:
        raise InputError(f"{path}: not valid JSON (line {error.lineno}: {error.msg})") from None


def require_field(document, field, kind, path, where=""):
    """document[field] of the given type, or an InputError naming the file and the field."""
    if not isinstance(document, dict) or field not in document:
        raise InputError(f"{path}: {where}{field}: missing")
    value = document[field]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise InputError(f"{path}: {where}{field}: expected {_kind_name(kind)}")
    return value


def _kind_name(kind):
    names = {dict: "an object", list: "a list", str: "a string", int: "an integer"}
    if isinstance(kind, tuple):
        return " or ".join(_kind_name(k) for k in kind)
    return names.get(kind, "a number")


def load_cache(path):
    """A Kernel Tuner cache file (.json or .json.gz), checked for the fields the peer relies on."""
    cache = read_json(path)
    if not isinstance(cache, dict):
        raise InputError(f"{path}: expected a Kernel Tuner cache object")
    keys = require_field(cache, "tune_params_keys", list, path)
    params = require_field(cache, "tune_params", dict, path)
    entries = require_field(cache, "cache", dict, path)
    for name in keys:
        values = require_field(params, name, list, path, "tune_params.")
        if not values:
            raise InputError(f"{path}: tune_params.{name}: no values")
    for key, entry in entries.items():
        if not isinstance(entry, dict) or "time" not in entry:
            raise InputError(f'{path}: cache."{key}": expected an object with a "time" field')
        if len(key.split(",")) != len(keys):
            raise InputError(f'{path}: cache."{key}": expected {len(keys)} comma-separated values')
    return cache


def load_t1_restrictions(path):
    """Restriction expressions of a T1 file ("ConfigurationSpace"."Conditions"[]."Expression")."""
    t1 = read_json(path)
    space = require_field(t1, "ConfigurationSpace", dict, path)
    conditions = require_field(space, "Conditions", list, path, "ConfigurationSpace.")
    expressions = []
    for index, condition in enumerate(conditions):
        where = f"ConfigurationSpace.Conditions[{index}]."
        expressions.append(require_field(condition, "Expression", str, path, where))
    return expressions


def is_failure(time_value):
    """True for a recorded failure: Kernel Tuner stores the error's name instead of a time."""
    return not isinstance(time_value, (int, float)) or isinstance(time_value, bool)


class RestrictionChecker:
    """Evaluates restriction expressions (Kernel Tuner's Python-expression syntax) on a config."""

    def __init__(self, expressions, names, source):
        self.names = list(names)
        self.expressions = list(expressions)
        self._compiled = []
        for index, text in enumerate(self.expressions):
            try:
                self._compiled.append(compile(text, f"{source}: restriction {index}", "eval"))
            except SyntaxError as error:
                raise InputError(f"{source}: restriction '{text}': {error.msg}") from None
        self.source = source

    def allows(self, values):
        """True when the configuration (values in `names` order) satisfies every restriction."""
        scope = dict(zip(self.names, values))
        for text, code in zip(self.expressions, self._compiled):
            try:
                if not eval(code, {"__builtins__": {}}, scope):  # noqa: S307 (trusted study data)
                    return False
            except ZeroDivisionError:
                return False
            except Exception as error:  # a name the space lacks, a type error, ...
                raise InputError(f"{self.source}: restriction '{text}': {error}") from None
        return True


def cache_key(values):
    """The key Kernel Tuner gives a configuration in its cache: the values joined by commas."""
    return ",".join(str(value) for value in values)


def describe_space(group, path, cache, restrictions, file_label=None):
    """Everything the results file and the runs need to know about one recorded space.

    Returns a dict with the results file's "spaces" entry under "info" (id, group, device, file,
    valid, recorded_ok, optimum_s), plus "missing" (keys of configurations that satisfy the
    restrictions but are absent from the cache) and "missing_cost_ms" (what measuring one of them
    costs: the median compile time of the recorded valid entries, as glimpse's replay charges).
    """
    keys = cache["tune_params_keys"]
    checker = RestrictionChecker(restrictions, keys, path)
    entries = cache["cache"]
    valid = 0
    missing = []
    recorded_ok = 0
    optimum_ms = math.inf
    compile_ms = []
    for values in itertools.product(*(cache["tune_params"][name] for name in keys)):
        if not checker.allows(values):
            continue
        valid += 1
        key = cache_key(values)
        entry = entries.get(key)
        if entry is None:
            missing.append(key)
            continue
        compile_ms.append(_number(entry.get("compile_time"), 0.0))
        if not is_failure(entry["time"]):
            recorded_ok += 1
            optimum_ms = min(optimum_ms, float(entry["time"]))
    if recorded_ok == 0:
        raise InputError(f"{path}: no successful entry satisfies the restrictions")
    info = {
        "id": space_id(group, path),
        "group": group,
        "device": cache.get("device_name") or space_id(group, path).split("/", 1)[1],
        "file": file_label if file_label is not None else path,
        "valid": valid,
        "recorded_ok": recorded_ok,
        "optimum_s": optimum_ms * MS_TO_S,
    }
    missing_cost_ms = statistics.median(compile_ms) if compile_ms else 0.0
    return {"info": info, "missing": missing, "missing_cost_ms": missing_cost_ms}


def _number(value, default):
    """value as a float when it is a JSON number, else default."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return default


def load_raw_run(path):
    """A raw run written by kernel_tuner_peer.py --raw-dir, checked field by field."""
    raw = read_json(path)
    if not isinstance(raw, dict) or raw.get("format") != RAW_FORMAT:
        raise InputError(f'{path}: format: expected "{RAW_FORMAT}"')
    check_raw_run(raw, path)
    return raw


def check_raw_run(raw, path):
    """Checks the fields convert_run reads; errors name the file and the field."""
    require_field(raw, "space", str, path)
    require_field(raw, "strategy", str, path)
    require_field(raw, "seed", int, path)
    require_field(raw, "max_fevals", int, path)
    fields = require_field(raw, "fields", list, path)
    if fields != RAW_FIELDS:
        raise InputError(f"{path}: fields: expected {RAW_FIELDS}")
    rows = require_field(raw, "evaluations", list, path)
    for index, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != len(RAW_FIELDS):
            raise InputError(f"{path}: evaluations[{index}]: expected a row of {RAW_FIELDS}")
        if not isinstance(row[0], str):
            raise InputError(f"{path}: evaluations[{index}].config: expected a string")
        for field, value in zip(RAW_FIELDS[2:], row[2:]):
            if _number(value, None) is None:
                raise InputError(f"{path}: evaluations[{index}].{field}: expected a number")


def convert_run(raw, optimum_s, max_measurements, first_batch):
    """One Kernel Tuner run -> one "runs" entry of the results file.

    Kernel Tuner returns every evaluation, repeats included (a repeat is served from its cache at
    no cost). A measurement here is the first evaluation of a distinct configuration, failed ones
    included, in the order Kernel Tuner evaluated them; only the first `max_measurements` count.
    Its cost is the recorded compile_time + benchmark_time of that configuration (ms -> s).
    """
    seen = set()
    measurements = failed = 0
    simulated_s = strategy_ms = 0.0
    best_s = math.inf
    best_curve = []
    first_batch_performance = []
    for config, time_ms, compile_ms, benchmark_ms, step_strategy_ms in raw["evaluations"]:
        if measurements >= max_measurements:
            break
        strategy_ms += step_strategy_ms
        if config in seen:
            continue
        seen.add(config)
        measurements += 1
        simulated_s += (compile_ms + benchmark_ms) * MS_TO_S
        if is_failure(time_ms):
            failed += 1
            performance = 0.0
        else:
            time_s = time_ms * MS_TO_S
            performance = optimum_s / time_s
            if time_s < best_s:
                best_s = time_s
                best_curve.append([measurements, simulated_s, time_s])
        if len(first_batch_performance) < first_batch:
            first_batch_performance.append(performance)
    return {
        "space": raw["space"],
        "tool": TOOL,
        "strategy": raw["strategy"],
        "seed": raw["seed"],
        "measurements": measurements,
        "failed": failed,
        "stop_reason": _stop_reason(measurements, max_measurements, raw.get("valid")),
        "simulated_s": simulated_s,
        "tuner_cpu_s": strategy_ms * MS_TO_S,
        "wall_s": _number(raw.get("wall_s"), 0.0),
        "max_measurements": max_measurements,
        "best_curve": best_curve,
        "first_batch_performance": first_batch_performance,
    }


def _stop_reason(measurements, max_measurements, valid):
    """Why the run ended, in glimpse's words where they apply."""
    if measurements >= max_measurements:
        return "measurement budget"
    if valid is not None and measurements >= valid:
        return "space exhausted"
    # Kernel Tuner's strategy ended on its own (iteration cap, annealing schedule, convergence).
    return "strategy finished"


def results_document(created, machine, command, settings, spaces, runs):
    """The results file, with runs in a stable order so that reruns compare line by line."""
    order = {space["id"]: index for index, space in enumerate(spaces)}
    runs = sorted(runs, key=lambda r: (order.get(r["space"], len(order)), r["strategy"], r["seed"]))
    return {
        "schema": SCHEMA,
        "created": created,
        "machine": machine,
        "command": command,
        "settings": settings,
        "spaces": spaces,
        "runs": runs,
        "summaries": [],
    }


def _main(argv=None):
    """Convert raw runs to a results file: convert.py CACHE GROUP RAW... [-o OUT]."""
    import argparse
    import datetime
    import platform
    import sys

    parser = argparse.ArgumentParser(description=_main.__doc__)
    parser.add_argument("cache", help="the recorded cache file the runs replayed")
    parser.add_argument("group", help="the space's group, e.g. pnpoly")
    parser.add_argument("raw", nargs="+", help="raw runs written by kernel_tuner_peer.py --raw-dir")
    parser.add_argument("--t1", help="T1 file with the space's restrictions")
    parser.add_argument("--restriction", action="append", default=[], help="extra restriction")
    parser.add_argument("--first-batch", type=int, default=64)
    parser.add_argument("-o", "--output", default="-")
    args = parser.parse_args(argv)
    try:
        restrictions = (load_t1_restrictions(args.t1) if args.t1 else []) + args.restriction
        space = describe_space(args.group, args.cache, load_cache(args.cache), restrictions)
        runs = []
        for path in args.raw:
            raw = load_raw_run(path)
            runs.append(convert_run(raw, space["info"]["optimum_s"], raw["max_fevals"],
                                    args.first_batch))
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    settings = {"max_measurements": runs[0]["max_measurements"], "max_seconds": None,
                "seeds": len({r["seed"] for r in runs}), "first_batch": args.first_batch,
                "checkpoints": [25, 50, 100, 200, 400], "fractions": [0.9, 0.95, 0.99, 1.0]}
    created = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    machine = f"{platform.machine()}, {os.cpu_count()} hardware threads"
    document = results_document(created, machine, " ".join(["python3"] + sys.argv), settings,
                                [space["info"]], runs)
    text = json.dumps(document, indent=1)
    if args.output == "-":
        print(text)
    else:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
