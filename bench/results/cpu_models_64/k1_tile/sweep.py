"""Times, on the layers whose output rows are 7 columns (ResNet-50's and MobileNet-v2's last
stage), the first blocked seed (7 columns x one block of output channels: 14 accumulators on
AVX-512) against the same tile with k1 = 2 or 4 output-channel blocks in the register tile (28
accumulators), in interleaved passes. Usage: sweep.py BENCH_CPU_TEMPLATES PASSES"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
from cpu_remeasure_runs import measure
BENCH = sys.argv[1]
PASSES = int(sys.argv[2])
layers = [
    ("conv2d:N=1,C=512,H=7,W=7,K=512,R=3,S=3,pad=1,bias=1,relu=1", 512, 512),
    ("conv2d:N=1,C=512,H=7,W=7,K=2048,R=1,S=1,bias=1", 512, 2048),
    ("conv2d:N=1,C=2048,H=7,W=7,K=512,R=1,S=1,bias=1,relu=1", 2048, 512),
    ("conv2d:N=1,C=160,H=7,W=7,K=960,R=1,S=1,bias=1,relu=1", 160, 960),
    ("conv2d:N=1,C=960,H=7,W=7,K=160,R=1,S=1,bias=1", 960, 160),
]
def cfg(c, k, kb, k1, cb, pad):
    j = {"layout": "NCHWc", "tile_k": [k // kb // k1, k1, kb], "tile_oh": [1, 7],
         "tile_ow": [1, 1, 7], "tile_c": [c // cb, cb], "order": [0, 2, 3, 1, 4],
         "parallel": "k", "vectorize": 1, "unroll": 1}
    if pad: j["padding"] = "copy"
    return json.dumps(j)
for op, c, k in layers:
    pad = "pad=1" in op
    cb = 32 if c % 32 == 0 else 16 if c % 16 == 0 else c
    variants = {}
    for kb, k1 in [(32, 1), (32, 2), (16, 1), (16, 2), (16, 4)]:
        if k % (kb * k1) == 0 and (k // kb // k1) >= 1:
            variants[f"kb{kb}xk1{k1}"] = cfg(c, k, kb, k1, cb, pad)
    names = list(variants)
    samples = {n: [] for n in names}
    for p in range(PASSES):
        order = names if p % 2 == 0 else names[::-1]
        for n, t in zip(order, measure(BENCH, op, [variants[n] for n in order], 0)):
            samples[n].append(t)
    print(op)
    for n in names:
        ts = [t for t in samples[n] if t]
        print(f"  {n}: min {min(ts)*1e3:.4f} ms" if ts else f"  {n}: failed", flush=True)
