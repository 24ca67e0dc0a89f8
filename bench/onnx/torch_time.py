#!/usr/bin/env python3
"""Times a torchvision model (weights=None, seeded as export_torchvision.py seeds it) in PyTorch
eager mode on CPU with glimpse's protocol: one warm-up run, then timed runs until --min-repeats
and --min-time (at most 200), each after writing 128 MiB to evict the caches; prints the median
and every sample as JSON. For bench/results/model_compile.md, beside `glimpse run`'s figures.

    python3 bench/onnx/torch_time.py --model resnet18 --threads 1 [--json out.json]
"""
import argparse
import json
import time

import numpy as np
import torch
import torchvision


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", required=True, choices=["resnet18", "resnet50", "mobilenet_v2"])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--min-repeats", type=int, default=10)
    p.add_argument("--min-time", type=float, default=0.5)
    p.add_argument("--max-repeats", type=int, default=200)
    p.add_argument("--flush-bytes", type=int, default=128 << 20)
    p.add_argument("--json")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model = getattr(torchvision.models, args.model)(weights=None).eval()
    x = torch.rand(1, 3, 224, 224) * 2 - 1
    flush = np.zeros(args.flush_bytes, dtype=np.uint8)
    with torch.inference_mode():
        model(x)
        samples, total = [], 0.0
        while len(samples) < args.max_repeats and (len(samples) < args.min_repeats
                                                   or total < args.min_time):
            flush.fill(len(samples) & 0xFF)
            start = time.perf_counter()
            model(x)
            samples.append(time.perf_counter() - start)
            total += samples[-1]
    record = {"runtime": "pytorch " + torch.__version__ + " eager", "threads": args.threads,
              "median_s": float(np.median(samples)), "samples_s": samples}
    text = json.dumps(record)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
