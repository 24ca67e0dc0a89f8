"""Time a MetaSchedule kernel (the peer's exported best.so) under two cache protocols.

MetaSchedule's runner flushes every argument but the first before a timed call
(`cache_flush_cpu_non_first_arg`): the input activation stays wherever the previous call left it.
glimpse's runner starts every timed call with all operands out of the caches. This script times
one MetaSchedule kernel both ways, in a fresh process (TVM_NUM_THREADS set before TVM starts its
thread pool), so that its figure can be set beside glimpse's under the same protocol:

  tvm    `cache_flush_cpu_non_first_arg`, MetaSchedule's own (its tuning records);
  cold   every argument clflushed (TVM's flush called with a one-float tensor first, which it
         skips), which is what glimpse's CacheFlusher does to a kernel's operands after its sweep.

Each protocol: TVM's time_evaluator with number=1 (one call per flush) and --repeat repeats, the
median reported, after --warmup-s seconds of untimed calls. The output is checked against the peer's
float64 reference first.

  build/tvm-venv/bin/python bench/peers/metaschedule_retime.py --library DIR/best.so \
      --op 'conv2d:N=1,C=128,H=28,W=28,K=256,R=1,S=1,stride=2,pad=0,bias=1' [--threads 2] \
      [--repeat 200] [--rounds 3] [--json OUT]
"""

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import metaschedule_peer as peer  # noqa: E402  (standard library; TVM is imported in main)

PROTOCOLS = ("tvm", "cold")


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--library", required=True, help="a best.so the peer exported")
    parser.add_argument("--op", required=True, help="the operator it computes (glimpse's syntax)")
    parser.add_argument("--threads", type=int, default=2, help="TVM_NUM_THREADS (default 2)")
    parser.add_argument("--repeat", type=int, default=200,
                        help="timed calls per protocol and round (default 200)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds, the protocols alternating within each (default 3)")
    parser.add_argument("--warmup-s", type=float, default=2.0,
                        help="seconds of untimed calls, the protocols alternating, before the "
                             "rounds (default 2): in a fresh process the first 0.1-0.2 s of calls "
                             "ran 2x slow here, 50 untimed calls were not enough")
    parser.add_argument("--data-seed", type=int, default=1, help="inputs' seed (default 1)")
    parser.add_argument("--json", help="write the samples and medians here")
    args = parser.parse_args(argv)
    if args.warmup_s < 0:
        parser.error(f"--warmup-s is {args.warmup_s}; accepted: seconds >= 0")
    for name in ("threads", "repeat", "rounds"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} is {getattr(args, name)}; accepted: an integer >= 1")
    if not os.path.isfile(args.library):
        parser.error(f"--library {args.library}: no such file")
    try:
        args.parsed_op = peer.parse_op(args.op)
    except peer.OpError as error:
        parser.error(f"--op: {error}")
    return args


def main(argv=None):
    args = parse_args(argv)
    os.environ["TVM_NUM_THREADS"] = str(args.threads)  # read once, when the pool starts
    import numpy as np
    import tvm

    op = args.parsed_op
    module = tvm.runtime.load_module(args.library)
    device = tvm.cpu(0)
    rng = np.random.default_rng(args.data_seed)
    inputs = [rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)
              for shape in peer.op_input_shapes(op)]
    output = np.full(peer.op_output_shape(op), np.nan, dtype=np.float32)
    arguments = [tvm.runtime.tensor(array, device) for array in inputs + [output]]
    module[module.entry_name](*arguments)
    expected, magnitude = peer.reference(op, inputs)
    check = peer.check_output(op, arguments[-1].numpy(), expected, magnitude)
    if not check["passed"]:
        print(f"error: {args.library} computes a wrong answer: {check}", file=sys.stderr)
        return 1

    # Every argument out of the caches: TVM's own flush skips its first argument, so it is handed
    # a one-float tensor of its own in that place, and the kernel's arguments after it.
    flush_from_second = tvm.get_global_func("cache_flush_cpu_non_first_arg")
    skipped_first = tvm.runtime.tensor(np.zeros(1, dtype=np.float32), device)
    tvm.register_global_func("glimpse_retime.flush_every_arg",
                             lambda *call_args: flush_from_second(skipped_first, *call_args),
                             override=True)
    preproc = {"tvm": "cache_flush_cpu_non_first_arg", "cold": "glimpse_retime.flush_every_arg"}

    warmup_end = time.monotonic() + args.warmup_s
    while time.monotonic() < warmup_end:
        for protocol in PROTOCOLS:
            module.time_evaluator(module.entry_name, device, number=1, repeat=20,
                                  min_repeat_ms=0, f_preproc=preproc[protocol])(*arguments)

    flops = peer.op_flops(op)
    samples = {p: [] for p in PROTOCOLS}
    for round_index in range(args.rounds):
        for protocol in PROTOCOLS:
            evaluator = module.time_evaluator(module.entry_name, device, number=1,
                                              repeat=args.repeat, min_repeat_ms=0,
                                              f_preproc=preproc[protocol])
            times = [float(t) for t in evaluator(*arguments).results]
            samples[protocol].append(times)
            median = statistics.median(times)
            print(f"round {round_index + 1} {protocol:>4}: median {median * 1e6:.1f} us, "
                  f"{flops / median / 1e9:.1f} GFLOP/s", flush=True)
    summary = {p: [statistics.median(t) for t in samples[p]] for p in PROTOCOLS}
    for protocol in PROTOCOLS:
        medians = summary[protocol]
        print(f"{protocol}: round medians {', '.join(f'{m * 1e6:.1f}' for m in medians)} us; "
              f"best round {flops / min(medians) / 1e9:.1f} GFLOP/s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"op": peer.op_to_string(op), "library": args.library,
                       "threads": args.threads, "repeat": args.repeat, "check": check,
                       "flops": flops, "samples_s": samples, "round_medians_s": summary},
                      f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
