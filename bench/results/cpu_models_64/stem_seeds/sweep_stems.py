#!/usr/bin/env python3
"""Plain-layout (NCHW) register tiles on the three 3-channel first layers (VGG-16 3x3 stride 1,
ResNet 7x7 stride 2, MobileNet-v2 3x3 stride 2): k2 output channels x a strip of output columns
(one vector = 16 lanes, or more) x oh1 rows, parallel over channels or rows; one bench_cpu_templates
call per configuration (its default protocol). Usage: BENCH=path python3 sweep_stems.py [0 1 2]
> sweep.jsonl (the stems by index). Produced sweep0.jsonl and sweep12.jsonl."""
import json, os, re, subprocess, sys, itertools
B = os.environ.get('BENCH', 'build/ci/bench/bench_cpu_templates')
STEMS = ['conv2d:N=1,C=3,H=224,W=224,K=64,R=3,S=3,pad=1,bias=1,relu=1',
         'conv2d:N=1,C=3,H=224,W=224,K=64,R=7,S=7,stride=2,pad=3,bias=1,relu=1',
         'conv2d:N=1,C=3,H=224,W=224,K=32,R=3,S=3,stride=2,pad=1,bias=1,relu6=1']
def run(op, cfg):
    out = subprocess.run([B, '--op', op, '--config', json.dumps(cfg)], capture_output=True, text=True).stdout
    m = re.search(r'\| ([0-9.]+) \| [0-9]+ % \| [0-9.]+ \| ([0-9.]+) ms', out)
    return (float(m.group(1)), float(m.group(2))) if m else (None, None)
which = sys.argv[1:] or ['0', '1', '2']
for i in which:
    op = STEMS[int(i)]
    f = dict(x.split('=') for x in op.split(':')[1].split(','))
    K = int(f['K']); st = int(f.get('stride', 1)); OH = 224 // st
    for k2, cols, oh1, par in itertools.product([4, 8, 16], [16, 32, 56, 112], [1, 2], ['oh', 'k']):
        vecs = -(-cols // 16)
        if k2 * vecs * oh1 > 24 or OH % cols or OH % oh1: continue
        tk = [K // k2, 1, k2]
        cfg = {"layout": "NCHW", "tile_k": tk, "tile_oh": [OH // oh1, oh1], "tile_ow": [OH // cols, 1, cols],
               "tile_c": [1, 3], "order": [0, 1, 2, 3, 4], "parallel": par, "vectorize": 1, "unroll": 1, "padding": "copy"}
        g, t = run(op, cfg)
        print(json.dumps({"stem": i, "k2": k2, "cols": cols, "oh1": oh1, "par": par, "gflops": g, "ms": t}), flush=True)
