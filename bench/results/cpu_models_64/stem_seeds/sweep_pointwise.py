#!/usr/bin/env python3
"""The same plain-layout tiles on 1x1 layers (rows of 56 columns): does the plain layout help
short reductions other than the first layer? Usage: BENCH=path python3 sweep_pointwise.py OP...
> out.jsonl. Produced sweep_1x1.jsonl (ResNet-50's C=64 -> K=256 and MobileNet-v2's C=24 ->
K=144 layers at 56x56)."""
import json, os, re, subprocess, sys, itertools
B = os.environ.get('BENCH', 'build/ci/bench/bench_cpu_templates')
def run(op, cfg):
    out = subprocess.run([B, '--op', op, '--config', json.dumps(cfg)], capture_output=True, text=True).stdout
    m = re.search(r'\| ([0-9.]+) \| [0-9]+ % \| [0-9.]+ \| ([0-9.]+) ms', out)
    return (float(m.group(1)), float(m.group(2))) if m else (None, None)
def divisors(n): return [d for d in range(1, n + 1) if n % d == 0]
for op in sys.argv[1:]:
    f = dict(x.split('=') for x in op.split(':')[1].split(','))
    K, C, H = int(f['K']), int(f['C']), int(f['H']); st = int(f.get('stride', 1)); R = int(f['R'])
    pad = int(f.get('pad', 0)); OH = (H + 2 * pad - R) // st + 1
    colset = sorted({c for c in divisors(OH) if c >= 8}, reverse=True)[:3]
    for k2, cols, oh1, par in itertools.product([4, 8, 16], colset, [1, 2, 4], ['oh', 'k']):
        vecs = -(-cols // 16)
        if k2 * vecs * oh1 > 24 or k2 * vecs * oh1 < 8 or OH % oh1 or K % k2: continue
        if par == 'k' and K // k2 < 2: continue
        cfg = {"layout": "NCHW", "tile_k": [K // k2, 1, k2], "tile_oh": [OH // oh1, oh1], "tile_ow": [OH // cols, 1, cols],
               "tile_c": [1, C], "order": [0, 1, 2, 3, 4], "parallel": par, "vectorize": 1, "unroll": 1}
        if pad: cfg["padding"] = "copy"
        g, t = run(op, cfg)
        print(json.dumps({"op": op, "k2": k2, "cols": cols, "oh1": oh1, "par": par, "gflops": g, "ms": t}), flush=True)
