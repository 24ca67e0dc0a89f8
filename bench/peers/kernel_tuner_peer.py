"""Run Kernel Tuner's strategies in simulation mode on glimpse's recorded spaces.

The peer of `glimpse bench run`: the same study file (bench/configs/*.json), the same recorded
cache files, the same seeds and measurement budget, and a results file in glimpse's schema
(docs/bench-results.md) that `glimpse bench summarize` merges with glimpse's own. How
measurements are counted on both sides is written down in bench/peers/README.md.

Map of this file:
  load_study / study_from_flags     the study: groups of cache files, restrictions, budget, seeds
  prepare_space                     a private, complete JSON copy of each cache for Kernel Tuner
  run_one                           one Kernel Tuner run (worker process) -> one results-file run
  main                              parallel runs, one JSON line per finished run, resume, final
                                    results file written atomically
"""

import argparse
import datetime
import gzip
import json
import multiprocessing
import os
import platform
import random
import sys
import tempfile
import time
import warnings

# One thread per run: parallelism comes from --jobs processes, and a BLAS thread pool per process
# would oversubscribe the cores and distort the strategies' measured time.
for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import convert  # noqa: E402  (the pure-Python half of the peer, next to this file)

DEFAULT_STRATEGIES = [
    "random_sample", "genetic_algorithm", "simulated_annealing", "dual_annealing", "mls",
    "greedy_ils", "pso", "diff_evo", "firefly_algorithm", "bayes_opt",
]


class StudyGroup:
    """A kernel measured on several devices: its cache files and its restriction expressions."""

    def __init__(self, name, files, restrictions, labels):
        self.name = name
        self.files = files          # absolute paths
        self.labels = labels        # as written in the study, for the results file
        self.restrictions = restrictions


def load_study(path, root_override=None):
    """Groups, seeds and budget from a `glimpse bench run --config` study file.

    Paths resolve as glimpse resolves them: against --root when given, else the study's "root"
    (relative to the study file's directory), else the study file's directory. Keys that only
    glimpse's own strategies use ("strategies", "batch_size", ...) are ignored here.
    """
    study = convert.read_json(path)
    if not isinstance(study, dict):
        raise convert.InputError(f"{path}: expected a study object")
    base = os.path.dirname(os.path.abspath(path))
    root = root_override or os.path.join(base, study.get("root", "."))
    groups = []
    for index, group in enumerate(convert.require_field(study, "groups", list, path)):
        where = f"groups[{index}]."
        name = convert.require_field(group, "name", str, path, where)
        files = convert.require_field(group, "files", list, path, where)
        restrictions = group.get("restrictions", [])
        if not isinstance(restrictions, list) or not all(isinstance(r, str) for r in restrictions):
            raise convert.InputError(f"{path}: {where}restrictions: expected a list of strings")
        restrictions = list(restrictions)
        if "t1" in group:
            t1 = os.path.join(root, convert.require_field(group, "t1", str, path, where))
            restrictions = convert.load_t1_restrictions(t1) + restrictions
        groups.append(_group(name, files, restrictions, root, f"{path}: {where}files"))
    settings = {
        "seeds": study.get("seeds", 25),
        "max_measurements": study.get("max_measurements", 400),
        "first_batch": study.get("first_batch", 64),
        "checkpoints": study.get("checkpoints", [25, 50, 100, 200, 400]),
        "fractions": study.get("fractions", [0.9, 0.95, 0.99, 1.0]),
    }
    for field in ("seeds", "max_measurements", "first_batch"):
        value = settings[field]
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise convert.InputError(f"{path}: {field}: expected an integer >= 1 (the peer needs "
                                     "a measurement budget)" if field == "max_measurements" else
                                     f"{path}: {field}: expected an integer >= 1")
    return groups, settings


def _group(name, files, restrictions, root, where):
    """A StudyGroup with files resolved against root; a missing file names the study field."""
    paths = []
    for index, file in enumerate(files):
        resolved = os.path.join(root, file)
        if not os.path.isfile(resolved):
            raise convert.InputError(f"{where}[{index}]: no such file '{resolved}'")
        paths.append(resolved)
    if name == "gemm" and not restrictions:
        restrictions = list(convert.CLBLAST_GEMM_RESTRICTIONS)
    return StudyGroup(name, paths, restrictions, list(files))


def study_from_flags(args):
    """Groups from --root/--group/--files/--t1 when no study file is given."""
    if not args.group:
        raise convert.InputError("give a study (--config FILE) or --group NAME --files FILE...")
    if len(args.files) != len(args.group):
        raise convert.InputError("each --group needs its own --files list")
    t1s = args.t1 or []
    groups = []
    root = args.root or "."
    for index, (name, files) in enumerate(zip(args.group, args.files)):
        restrictions = []
        if index < len(t1s) and t1s[index] != "-":
            restrictions = convert.load_t1_restrictions(os.path.join(root, t1s[index]))
        groups.append(_group(name, files, restrictions, root, f"--files of group '{name}'"))
    settings = {"seeds": 25, "max_measurements": 400, "first_batch": 64,
                "checkpoints": [25, 50, 100, 200, 400], "fractions": [0.9, 0.95, 0.99, 1.0]}
    return groups, settings


def prepare_space(group, path, label, work_dir):
    """A plain-JSON copy of one cache in work_dir, completed for Kernel Tuner's simulation mode.

    Kernel Tuner reads caches as plain JSON and may append to them, so it only ever sees a copy.
    It also stops with an error on a configuration that satisfies the restrictions but is absent
    from the cache; glimpse's replay counts such a configuration as a failed measurement costing
    the space's median compile time, so the copy records it as exactly that.
    """
    cache = convert.load_cache(path)
    space = convert.describe_space(group.name, path, cache, group.restrictions, label)
    keys = cache["tune_params_keys"]
    for key in space["missing"]:
        values = [_typed(value, cache["tune_params"][name])
                  for value, name in zip(key.split(","), keys)]
        entry = dict(zip(keys, values))
        entry.update(time="ErrorConfig", compile_time=space["missing_cost_ms"],
                     verification_time=0, benchmark_time=0)
        cache["cache"][key] = entry
    for entry in cache["cache"].values():
        # The per-repeat samples are never read in simulation mode; dropping them makes the copy
        # several times smaller, and Kernel Tuner reads it again at the start of every run.
        entry.pop("times", None)
    if not cache.get("device_name"):
        cache["device_name"] = space["info"]["device"]
    copy = os.path.join(work_dir, space["info"]["id"].replace("/", "__") + ".json")
    with open(copy, "w", encoding="utf-8") as handle:
        json.dump(cache, handle)
    space["copy"] = copy
    space["restrictions"] = list(group.restrictions)
    space["kernel_name"] = cache["kernel_name"]
    space["problem_size"] = cache.get("problem_size", [1])
    space["tune_params"] = {name: cache["tune_params"][name] for name in keys}
    del space["missing"]
    return space


def check_valid_count(space):
    """Kernel Tuner must see the same restricted space as glimpse, or the runs are not comparable.

    Its restriction parser rewrites expressions; a different count of valid configurations would
    mean a different space, so it is an error rather than a footnote.
    """
    from kernel_tuner.searchspace import Searchspace

    try:
        size = Searchspace(space["tune_params"], space["restrictions"] or None, 1_000_000_000).size
    except Exception as error:  # Kernel Tuner's parser rejects an expression glimpse accepts
        raise convert.InputError(f"{space['info']['file']}: Kernel Tuner cannot use the "
                                 f"restrictions {space['restrictions']}: {error}") from None
    if size != space["info"]["valid"]:
        raise convert.InputError(
            f"{space['info']['file']}: Kernel Tuner finds {size} valid configurations under the "
            f"restrictions, glimpse's rules {space['info']['valid']}")


def _typed(text, values):
    """The knob value whose cache-key spelling is `text` (keys are strings, values typed)."""
    for value in values:
        if str(value) == text:
            return value
    return text


def run_one(task):
    """One Kernel Tuner run in simulation mode; returns (raw run, results-file run)."""
    space, strategy, seed, max_measurements, first_batch, options = task
    import numpy
    import kernel_tuner

    # Kernel Tuner's strategies draw from Python's and numpy's global generators and take no seed
    # of their own (only its pymoo strategies read `seed`), so both are seeded before each run.
    random.seed(seed)
    numpy.random.seed(seed)
    strategy_options = dict(options.get(strategy, {}), max_fevals=max_measurements)
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results, _ = kernel_tuner.tune_kernel(
            space["kernel_name"], "/* replayed from a recorded cache */", space["problem_size"],
            [], space["tune_params"], restrictions=space["restrictions"] or None,
            cache=space["copy"], simulation_mode=True, strategy=strategy,
            strategy_options=strategy_options, quiet=True, verbose=False)
    wall_s = time.perf_counter() - started
    names = list(space["tune_params"])
    rows = []
    for result in results:
        error = result.get("__error__")
        rows.append([
            convert.cache_key(result[name] for name in names),
            str(error) if error is not None else float(result["time"]),
            float(result.get("compile_time", 0.0)),
            float(result.get("benchmark_time", 0.0)),
            float(result.get("strategy_time", 0.0)),
        ])
    raw = {
        "format": convert.RAW_FORMAT,
        "kernel_tuner_version": kernel_tuner.__version__,
        "space": space["info"]["id"], "strategy": strategy, "seed": seed,
        "max_fevals": max_measurements, "strategy_options": strategy_options,
        "valid": space["info"]["valid"], "wall_s": wall_s,
        "fields": convert.RAW_FIELDS, "evaluations": rows,
    }
    run = convert.convert_run(raw, space["info"]["optimum_s"], max_measurements, first_batch)
    return raw, run


def machine_description():
    """CPU model and logical cores, as the results file records the machine."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} hardware threads, Python {platform.python_version()}"


def command_line(argv):
    """The command as it was typed, with the interpreter relative to the working directory."""
    interpreter = sys.executable
    if interpreter.startswith(os.getcwd() + os.sep):
        interpreter = os.path.relpath(interpreter)
    script = os.path.relpath(os.path.abspath(sys.argv[0]))
    return " ".join([interpreter, script] + list(sys.argv[1:] if argv is None else argv))


def read_done(lines_path):
    """Runs already finished by an earlier invocation (resume), keyed by (space, strategy, seed)."""
    done = {}
    if not os.path.exists(lines_path):
        return done
    with open(lines_path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            line = line.strip()
            if not line:
                continue
            try:
                run = json.loads(line)
                done[(run["space"], run["strategy"], run["seed"])] = run
            except (json.JSONDecodeError, KeyError, TypeError):
                # A line cut short by an interrupted run: that run is simply done again.
                print(f"note: {lines_path}:{number}: unreadable line skipped", file=sys.stderr)
    return done


def write_atomically(path, document):
    """Write JSON to a temporary file beside `path`, then rename it over `path`; a path ending in
    .gz is written gzip-compressed (glimpse reads either)."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=directory, suffix=".tmp")
    with os.fdopen(handle, "wb") as raw:
        if path.endswith(".gz"):
            with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9) as packed:
                packed.write((json.dumps(document, indent=1) + "\n").encode("utf-8"))
        else:
            raw.write((json.dumps(document, indent=1) + "\n").encode("utf-8"))
    os.chmod(temporary, 0o644)
    os.replace(temporary, path)


def parse_options(texts):
    """--options STRATEGY=JSON (repeatable) -> {strategy: {option: value}}."""
    options = {}
    for text in texts:
        name, _, value = text.partition("=")
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError:
            parsed = None
        if not isinstance(parsed, dict):
            raise convert.InputError(f"--options {text}: expected STRATEGY={{\"option\": value}}")
        options.setdefault(name, {}).update(parsed)
    return options


def select(groups, only_groups, only_spaces):
    """The groups (and within them the files) that --only-group / --only-space name."""
    known_groups = [group.name for group in groups]
    for name in only_groups or []:
        if name not in known_groups:
            raise convert.InputError(f"--only-group {name}: unknown; known: "
                                     + ", ".join(known_groups))
    known_spaces = [convert.space_id(g.name, path) for g in groups for path in g.files]
    for name in only_spaces or []:
        if name not in known_spaces:
            raise convert.InputError(f"--only-space {name}: unknown; known: "
                                     + ", ".join(known_spaces))
    selected = []
    for group in groups:
        if only_groups and group.name not in only_groups:
            continue
        kept = [(path, label) for path, label in zip(group.files, group.labels)
                if not only_spaces or convert.space_id(group.name, path) in only_spaces]
        if kept:
            selected.append(StudyGroup(group.name, [p for p, _ in kept], group.restrictions,
                                       [label for _, label in kept]))
    return selected


def check_strategies(names):
    """Every name must be one of Kernel Tuner's strategies."""
    from kernel_tuner.interface import strategy_map

    for name in names:
        if name not in strategy_map:
            raise convert.InputError(f"--strategies: unknown Kernel Tuner strategy '{name}'; "
                                     "known: " + ", ".join(sorted(strategy_map)))


def build_parser():
    parser = argparse.ArgumentParser(
        description="Kernel Tuner (simulation mode) on glimpse's recorded spaces, written in "
                    "glimpse's results schema.")
    parser.add_argument("--config", help="study file, as for `glimpse bench run --config`")
    parser.add_argument("--root", help="directory the study's paths resolve against")
    parser.add_argument("--group", action="append", help="without --config: a group name")
    parser.add_argument("--files", action="append", nargs="+", default=[],
                        help="without --config: the group's cache files (relative to --root)")
    parser.add_argument("--t1", action="append",
                        help="without --config: the group's T1 file ('-' for none)")
    parser.add_argument("--only-group", action="append", help="run only these groups")
    parser.add_argument("--only-space", action="append", help="run only these space ids")
    parser.add_argument("--strategies", nargs="+", default=DEFAULT_STRATEGIES)
    parser.add_argument("--seeds", type=int, help="seeds 0 .. N-1 (default: the study's)")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--budget", type=int, help="measurements per run (default: the study's)")
    parser.add_argument("--options", action="append", default=[],
                        help="STRATEGY={JSON}: extra Kernel Tuner strategy_options")
    parser.add_argument("--jobs", type=int, default=1, help="runs in parallel (processes)")
    parser.add_argument("--raw-dir", help="also keep every run's raw Kernel Tuner evaluations")
    parser.add_argument("-o", "--output", required=True, help="results file to write")
    parser.add_argument("--runs-file",
                        help="one JSON line per finished run, read back to resume "
                             "(default: OUTPUT.runs.jsonl)")
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        if args.config:
            groups, settings = load_study(args.config, args.root)
        else:
            groups, settings = study_from_flags(args)
        options = parse_options(args.options)
    except convert.InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.seeds is not None:
        settings["seeds"] = args.seeds
    if args.budget is not None:
        settings["max_measurements"] = args.budget
    try:
        groups = select(groups, args.only_group, args.only_space)
        check_strategies(args.strategies)
    except convert.InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    lines_path = args.runs_file or args.output + ".runs.jsonl"
    os.makedirs(os.path.dirname(os.path.abspath(lines_path)), exist_ok=True)
    # A run recorded under another budget is not the run asked for: it is done again.
    done = {key: run for key, run in read_done(lines_path).items()
            if run.get("max_measurements") == settings["max_measurements"]}
    with tempfile.TemporaryDirectory(prefix="kt-peer-") as work_dir:
        try:
            spaces = []
            for group in groups:
                for path, label in zip(group.files, group.labels):
                    spaces.append(prepare_space(group, path, label, work_dir))
                    check_valid_count(spaces[-1])
        except convert.InputError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        seeds = range(args.first_seed, args.first_seed + settings["seeds"])
        wanted = [(space, strategy, seed)
                  for space in spaces for strategy in args.strategies for seed in seeds]
        tasks = [(space, strategy, seed, settings["max_measurements"], settings["first_batch"],
                  options)
                 for space, strategy, seed in wanted
                 if (space["info"]["id"], strategy, seed) not in done]
        print(f"{len(tasks)} runs to do, {len(wanted) - len(tasks)} already done ({lines_path})",
              file=sys.stderr)
        # Only the runs this command asks for go into the results file (the runs file may hold
        # more, e.g. other seeds), so that its settings describe every run in it.
        wanted_keys = {(space["info"]["id"], strategy, seed) for space, strategy, seed in wanted}
        runs = {key: run for key, run in done.items() if key in wanted_keys}
        started = time.perf_counter()
        with open(lines_path, "a", encoding="utf-8") as lines, \
                multiprocessing.Pool(max(1, args.jobs)) as pool:
            for count, (raw, run) in enumerate(pool.imap_unordered(run_one, tasks), 1):
                lines.write(json.dumps(run) + "\n")
                lines.flush()
                runs[(run["space"], run["strategy"], run["seed"])] = run
                if args.raw_dir:
                    name = f"{run['space'].replace('/', '__')}__{run['strategy']}__{run['seed']}"
                    write_atomically(os.path.join(args.raw_dir, name + ".json"), raw)
                print(f"[{count}/{len(tasks)} {time.perf_counter() - started:.0f}s] "
                      f"{run['space']} {run['strategy']} seed {run['seed']}: "
                      f"{run['measurements']} measurements, {run['wall_s']:.2f}s",
                      file=sys.stderr)
    settings_out = {
        "max_measurements": settings["max_measurements"],
        "max_seconds": None,
        "seeds": settings["seeds"],
        "first_batch": settings["first_batch"],
        "checkpoints": settings["checkpoints"],
        "fractions": settings["fractions"],
        "leave_one_device_out": False,
    }
    document = convert.results_document(
        datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        machine_description(), command_line(argv),
        settings_out, [space["info"] for space in spaces],
        list(runs.values()))
    write_atomically(args.output, document)
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
