#!/usr/bin/env python3
"""Blocked-layout (NCHWc) register tiles on the two strided 3-channel first layers (ResNet's 7x7
and MobileNet-v2's 3x3, stride 2): k2 output channels (the vector, 16 or 32) x a strip of output
columns, the three input channels as one block, three orders of the reduction (c0 r s c1: the
seeds'; c0 c1 r s; c0 c1 k1 s r: the 12-03 ResNet-50 run's best), parallel over channel blocks or
rows; one bench_cpu_templates call per configuration, in interleaved passes.
Usage: BENCH=path python3 sweep_blocked_strided_stems.py PASSES > out.jsonl (one line per pass
and layer: the time in ms of each configuration, by name k<k2>_w<cols>_o<order>_<parallel>)."""
import itertools
import json
import os
import re
import subprocess
import sys

B = os.environ.get('BENCH', 'build/ci/bench/bench_cpu_templates')
STEMS = ['conv2d:N=1,C=3,H=224,W=224,K=64,R=7,S=7,stride=2,pad=3,bias=1,relu=1',
         'conv2d:N=1,C=3,H=224,W=224,K=32,R=3,S=3,stride=2,pad=1,bias=1,relu6=1']
ORDERS = {'crs': [0, 2, 3, 1, 4], 'ccrs': [0, 1, 2, 3, 4], 'cksr': [0, 1, 4, 3, 2]}


def run(op, cfg):
    out = subprocess.run([B, '--op', op, '--config', json.dumps(cfg)], capture_output=True,
                         text=True).stdout
    m = re.search(r'\| ([0-9.]+) \| [0-9]+ % \| [0-9.]+ \| ([0-9.]+) ms', out)
    return float(m.group(2)) if m else None


def configs(op):
    f = dict(x.split('=') for x in op.split(':')[1].split(','))
    K, OH = int(f['K']), 112
    for k2, cols, order, par in itertools.product([16, 32], [7, 8, 14, 16, 28], ORDERS, ['k', 'oh']):
        if (k2 // 16) * cols > 31:
            continue
        yield f'k{k2}_w{cols}_{order}_{par}', {
            "layout": "NCHWc", "tile_k": [K // k2, 1, k2],
            "tile_oh": [1, OH] if par == 'k' else [OH, 1], "tile_ow": [1, OH // cols, cols],
            "tile_c": [1, 3], "order": ORDERS[order], "parallel": par, "vectorize": 1,
            "unroll": 1, "padding": "copy"}


for p in range(int(sys.argv[1]) if len(sys.argv) > 1 else 1):
    for op in STEMS:
        print(json.dumps({"pass": p, "op": op,
                          "ms": {name: run(op, cfg) for name, cfg in configs(op)}}), flush=True)
