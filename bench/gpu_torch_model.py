#!/usr/bin/env python3
"""gpu_torch_model — a torchvision CNN (weights=None) timed in PyTorch eager mode on the GPU, in
FP32, with the protocol of a model glimpse compiled for CUDA (its harness, docs/compile.md): the
L2 flushed (a write of twice its size) before each timed run, CUDA events around the forward pass
alone, warm-up first, the median and every sample kept.

    gpu_torch_model.py [--model resnet18] [--repeats 50] [--json OUT]

cuDNN picks its fastest algorithms (torch.backends.cudnn.benchmark = True); TF32 is off (true
FP32, as glimpse's kernels compute) and, for information, on. Exit status 2 when PyTorch,
torchvision or a CUDA device is missing.
"""

import argparse
import json
import statistics
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="resnet18", help="a torchvision.models constructor")
    parser.add_argument("--repeats", type=int, default=50, help="timed runs per setting")
    parser.add_argument("--json", help="write the timings here (default: stdout)")
    args = parser.parse_args()
    try:
        import torch
        import torchvision
    except ImportError as e:
        print(f"gpu_torch_model: {e}", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("gpu_torch_model: no CUDA device", file=sys.stderr)
        return 2
    if not hasattr(torchvision.models, args.model):
        print(f"gpu_torch_model: torchvision has no model '{args.model}'", file=sys.stderr)
        return 2
    device = torch.device("cuda")
    torch.backends.cudnn.benchmark = True
    model = getattr(torchvision.models, args.model)(weights=None).eval().to(device)
    x = torch.rand(1, 3, 224, 224, device=device) * 2 - 1
    props = torch.cuda.get_device_properties(0)
    l2 = getattr(props, "L2_cache_size", 50 << 20)
    flush = torch.empty(2 * l2, dtype=torch.uint8, device=device)
    report = {"model": args.model, "device": props.name, "torch": torch.__version__,
              "flush_bytes": 2 * l2, "settings": {}}
    for tf32 in (False, True):
        torch.backends.cudnn.allow_tf32 = tf32
        torch.backends.cuda.matmul.allow_tf32 = tf32
        samples = []
        with torch.inference_mode():
            for _ in range(5):
                model(x)
            for i in range(args.repeats):
                flush.fill_(i & 0xFF)
                start = torch.cuda.Event(enable_timing=True)
                stop = torch.cuda.Event(enable_timing=True)
                start.record()
                model(x)
                stop.record()
                stop.synchronize()
                samples.append(start.elapsed_time(stop) * 1e-3)
        report["settings"]["tf32" if tf32 else "fp32"] = {
            "median_s": statistics.median(samples), "samples_s": samples}
        print(f"{args.model} on {props.name}, {'TF32' if tf32 else 'FP32'}: "
              f"{statistics.median(samples) * 1e3:.3f} ms median of {len(samples)}",
              file=sys.stderr)
    text = json.dumps(report, indent=1)
    if args.json:
        with open(args.json, "w") as out:
            out.write(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
