#!/usr/bin/env python3
"""Runs an ONNX model with ONNX Runtime (CPU) on raw float32 inputs, writes its outputs, and
times it with glimpse's protocol: warm-up runs, then timed runs until --min-repeats and
--min-time (at most --max-repeats), each after writing --flush-bytes of memory to evict the
caches; prints (or writes) the median and every sample as JSON. `glimpse run` calls it.

    ort_run.py --model M.onnx --input in0.bin [--input in1.bin …] --output out0.bin
               --threads 1 [--json timing.json]
"""
import argparse
import json
import sys
import time

import numpy as np
import onnxruntime as ort


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", required=True)
    p.add_argument("--input", action="append", default=[])
    p.add_argument("--output", action="append", default=[])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--min-repeats", type=int, default=3)
    p.add_argument("--max-repeats", type=int, default=200)
    p.add_argument("--min-time", type=float, default=0.05)
    p.add_argument("--flush-bytes", type=int, default=128 << 20)
    p.add_argument("--json")
    args = p.parse_args()

    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(args.model, options, providers=["CPUExecutionProvider"])
    feeds = {}
    model_inputs = session.get_inputs()
    if len(args.input) != len(model_inputs):
        sys.exit(f"ort_run.py: the model takes {len(model_inputs)} inputs, got {len(args.input)}")
    for spec, path in zip(model_inputs, args.input):
        data = np.fromfile(path, dtype=np.float32)
        shape = [d if isinstance(d, int) else None for d in spec.shape]
        known = int(np.prod([d for d in shape if d is not None])) if shape else 1
        if None in shape:
            missing = data.size // known
            shape = [missing if d is None else d for d in shape]
        feeds[spec.name] = data.reshape(shape)
    outputs = session.run(None, feeds)
    for array, path in zip(outputs, args.output):
        np.ascontiguousarray(array, dtype=np.float32).tofile(path)

    for _ in range(args.warmup):
        session.run(None, feeds)
    flush = np.zeros(max(0, args.flush_bytes), dtype=np.uint8)
    samples = []
    total = 0.0
    while len(samples) < max(args.min_repeats, args.max_repeats) and (
            len(samples) < args.min_repeats or total < args.min_time):
        if flush.size:
            flush.fill(len(samples) & 0xFF)
        start = time.perf_counter()
        session.run(None, feeds)
        samples.append(time.perf_counter() - start)
        total += samples[-1]
    record = {"runtime": "onnxruntime " + ort.__version__, "threads": args.threads,
              "flush_bytes": args.flush_bytes, "median_s": float(np.median(samples)),
              "samples_s": samples}
    text = json.dumps(record)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    else:
        print(text)


if __name__ == "__main__":
    main()
